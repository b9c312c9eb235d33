// e2beval's resident TypeScript compile service (docs/sandbox.md, "Resident compilers"). It runs inside a
// compile sandbox like a cold `node tsc.js` (same namespaces, seccomp filter, rlimits, cgroup, read-only
// toolchain, the tmpfs workspace /tmp its only writable place and its working directory) and keeps, across
// compiles, the TypeScript module loaded and the standard library's declaration files parsed and bound: that
// is where a cold tsc spends its time.
//
// Compile-only: each request is compiled the way tsc's command line compiles it (ts.parseCommandLine of the
// cold compile's own arguments, a compiler host from ts.createCompilerHost, ts.createProgram, then tsc's own
// emitFilesAndReportErrorsAndGetExitStatus and diagnostic reporter), so the diagnostics and the exit status are
// tsc's. The emitted JavaScript never runs here.
//
// Protocol on stdin/stdout: a message is a 4-byte big-endian count of fields, then each field as a 4-byte
// big-endian length and its bytes.
//   ready (once, at start):  ["ready"]
//   request:  [arguments joined by NUL, then per workspace file: relative path, octal mode, bytes]
//   reply:    [status, stdout, stderr, then per artifact: relative path, bytes]
// status is "exit N" (tsc's exit status), "oom" or "error TEXT" (this service failed: the host kills it and
// compiles cold). Each request's files are written into the workspace itself, so the compiler sees the same
// relative paths as a cold compile; the workspace is emptied after each request (one service's requests are
// serial).
//
// Started as `node [the cold compile's node flags] resident_tsc.js TYPESCRIPT_JS ARTIFACT OUTPUT_CAP`; it deletes
// its own file first, so the workspace starts empty.
'use strict';

const fs = require('fs');
const path = require('path');

const [typescriptModule, artifact, outputCapText] = process.argv.slice(2);
const outputCap = Number(outputCapText);
const workspace = process.cwd();
try { fs.unlinkSync(__filename); } catch (_) { /* already gone */ }

const ts = require(typescriptModule);
// The standard library's declaration files (lib.*.d.ts beside typescript.js): read-only in the sandbox, so a
// parsed SourceFile stays right for every later program. Sharing them between programs is what TypeScript's
// own language service does (its document registry); the binder binds a file once.
const libraryDirectory = path.dirname(typescriptModule) + path.sep;
const libraryFiles = new Map();

function readMessage(buffer) {
    if (buffer.length < 4) return null;
    const count = buffer.readUInt32BE(0);
    let at = 4;
    const fields = [];
    for (let i = 0; i < count; ++i) {
        if (buffer.length < at + 4) return null;
        const length = buffer.readUInt32BE(at);
        at += 4;
        if (buffer.length < at + length) return null;
        fields.push(buffer.subarray(at, at + length));
        at += length;
    }
    return {fields, used: at};
}

function writeMessage(fields) {
    const parts = [];
    const count = Buffer.alloc(4);
    count.writeUInt32BE(fields.length);
    parts.push(count);
    for (const field of fields) {
        const bytes = Buffer.isBuffer(field) ? field : Buffer.from(String(field), 'utf8');
        const length = Buffer.alloc(4);
        length.writeUInt32BE(bytes.length);
        parts.push(length, bytes);
    }
    const message = Buffer.concat(parts);
    for (let done = 0; done < message.length;) {
        try {
            done += fs.writeSync(1, message, done, message.length - done);
        } catch (error) {
            if (error.code !== 'EAGAIN') throw error;
        }
    }
}

function inside(relative) {
    const full = path.resolve(workspace, relative);
    if (!full.startsWith(workspace + path.sep)) throw new Error('path outside the workspace: ' + relative);
    return full;
}

function emptyWorkspace() {
    for (const entry of fs.readdirSync(workspace)) fs.rmSync(path.join(workspace, entry), {recursive: true, force: true});
}

// Text capped at outputCap + 1 bytes (the host sees that more came).
function capped(text) {
    const bytes = Buffer.from(text, 'utf8');
    return bytes.length > outputCap ? bytes.subarray(0, outputCap + 1) : bytes;
}

// Which standard-library sets (options and lib files) a full check found free of diagnostics: for those, a program
// whose own files declare no global name of the library's needs no new check of the library (below).
const cleanLibraries = new Set();
const libraryNames = new Map();  // library key -> the global names its files declare

function libraryKey(program, options) {
    const files = program.getSourceFiles().filter((file) => program.isSourceFileDefaultLibrary(file)).map((file) => file.fileName);
    return JSON.stringify(options, Object.keys(options).sort()) + '\n' + files.sort().join('\n');
}

// Whether the program's own files can change what checking the standard library finds: a script's top-level
// declarations are globals and merge with (or redeclare) the library's of the same name; a module changes the
// global scope only through `declare global`. Needs the checker (it binds the files).
function touchesLibrary(program, key) {
    program.getTypeChecker();
    // `locals` (a bound file's top-level symbols) is TypeScript's internal state: where a version lacks it, every
    // program counts as touching the library (always the full check), never as leaving it alone.
    let names = libraryNames.get(key);
    if (names === undefined) {
        names = new Set();
        for (const file of program.getSourceFiles()) {
            if (!program.isSourceFileDefaultLibrary(file)) continue;
            if (!(file.locals instanceof Map)) { names = null; break; }
            file.locals.forEach((_, name) => names.add(name));
        }
        libraryNames.set(key, names);
    }
    if (names === null) return true;
    for (const file of program.getSourceFiles()) {
        if (program.isSourceFileDefaultLibrary(file)) continue;
        if (ts.isExternalModule(file)) {
            if (/\bglobal\b/.test(file.text)) return true;
        } else {
            if (!(file.locals instanceof Map)) return true;
            for (const name of file.locals.keys()) if (names.has(name)) return true;
        }
    }
    return false;
}

// The fast path, for a program that compiles cleanly: tsc's checks in tsc's order, except that the standard library
// is not checked again (a full check found it clean with these options and these files, and nothing of the
// program's own can change that: touchesLibrary). Checking the library is most of a cold tsc's time. Emits each of
// the program's own files (a whole-program emit would check the library too). Returns false, having reported
// nothing, when anything has a diagnostic: the caller then compiles the way tsc does, from the start, so every
// diagnostic (its text, its order) is tsc's own.
function compiledCleanly(program) {
    const own = program.getSourceFiles().filter((file) => !program.isSourceFileDefaultLibrary(file));
    if (program.getConfigFileParsingDiagnostics().length || program.getSyntacticDiagnostics().length ||
        program.getOptionsDiagnostics().length || program.getGlobalDiagnostics().length)
        return false;
    for (const file of own) if (program.getSemanticDiagnostics(file).length) return false;
    for (const file of own) {
        if (file.isDeclarationFile) continue;
        const result = program.emit(file);
        if (result.emitSkipped || result.diagnostics.length) return false;
    }
    return true;
}

function libraryCheckedClean(program) {
    return program.getSourceFiles().every((file) => !program.isSourceFileDefaultLibrary(file) || program.getSemanticDiagnostics(file).length === 0);
}

// tsc's performCompilation (executeCommandLine.ts) for a command line without a tsconfig, with a compiler host
// whose standard-library files come from libraryFiles.
function compile(args) {
    let stdout = '';
    const system = Object.assign({}, ts.sys, {write: (text) => { stdout += text; }});
    const parsed = ts.parseCommandLine(args, (file) => system.readFile(file));
    const options = parsed.options;
    const pretty = options.pretty === undefined ? false : !!options.pretty;
    const reportDiagnostic = ts.createDiagnosticReporter(system, pretty);
    if (parsed.errors.length > 0 || parsed.fileNames.length === 0) {
        parsed.errors.forEach(reportDiagnostic);
        if (parsed.fileNames.length === 0 && parsed.errors.length === 0) stdout += 'error: no input files\n';
        return {status: ts.ExitStatus.DiagnosticsPresent_OutputsSkipped, stdout};
    }
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile;
    host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreate) => {
        if (!fileName.startsWith(libraryDirectory)) return getSourceFile.call(host, fileName, languageVersionOrOptions, onError, shouldCreate);
        const settings = typeof languageVersionOrOptions === 'object' ? languageVersionOrOptions : {languageVersion: languageVersionOrOptions};
        const key = [fileName, settings.languageVersion, settings.impliedNodeFormat, settings.jsDocParsingMode].join('\0');
        let file = libraryFiles.get(key);
        if (file === undefined) {
            file = getSourceFile.call(host, fileName, languageVersionOrOptions, onError, shouldCreate);
            if (file) libraryFiles.set(key, file);
        }
        return file;
    };
    const programOptions = {rootNames: parsed.fileNames, options, projectReferences: parsed.projectReferences, host};
    const first = ts.createProgram(programOptions);
    const key = libraryKey(first, options);
    const touches = touchesLibrary(first, key);
    if (cleanLibraries.has(key) && !touches && compiledCleanly(first)) return {status: ts.ExitStatus.Success, stdout};
    // A fresh program (and checker) so that types are made in a cold tsc's order (it shows in diagnostics).
    const program = cleanLibraries.has(key) ? ts.createProgram(programOptions) : first;
    const status = ts.emitFilesAndReportErrorsAndGetExitStatus(program, reportDiagnostic, (text) => system.write(text + system.newLine));
    if (!touches && libraryCheckedClean(program)) cleanLibraries.add(key);
    return {status, stdout};
}

function serve(fields) {
    const args = fields[0].toString('utf8').split('\0');
    emptyWorkspace();
    for (let i = 1; i + 2 < fields.length; i += 3) {
        const file = inside(fields[i].toString('utf8'));
        fs.mkdirSync(path.dirname(file), {recursive: true});
        fs.writeFileSync(file, fields[i + 2], {mode: parseInt(fields[i + 1].toString('utf8'), 8)});
    }
    const {status, stdout} = compile(args);
    const reply = ['exit ' + status, capped(stdout), Buffer.alloc(0)];
    const artifactPath = inside(artifact);
    if (status === 0 && fs.existsSync(artifactPath) && fs.lstatSync(artifactPath).isFile()) reply.push(artifact, fs.readFileSync(artifactPath));
    emptyWorkspace();
    return reply;
}

let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
        const message = readMessage(pending);
        if (message === null) return;
        pending = pending.subarray(message.used);
        let reply;
        try {
            reply = serve(message.fields);
        } catch (error) {
            const text = String(error && error.stack || error);
            reply = [/heap out of memory|Maximum call stack|Invalid string length|Array buffer allocation failed/.test(text) ? 'oom' : 'error ' + text];
        }
        writeMessage(reply);
    }
});
process.stdin.on('end', () => process.exit(0));
writeMessage(['ready']);
