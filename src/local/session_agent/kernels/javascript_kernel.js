// The JavaScript kernel, run as `node -e javascript_kernel.js <in fd> <out fd>`. Cells run with
// vm.Script.runInThisContext, so they share node's main context (top-level let/const/var/functions persist, and
// values are of the same realm as require()'d modules'). A cell with top-level await goes through the public
// eval of node's REPL (repl.start with useGlobal), whose rewriter keeps `let x = await ...` declarations alive
// across cells; node's internals stay unexposed (no --expose-internals: the cells could reach them too).
'use strict';
(function kernel() {  // a function scope: none of the kernel's names may collide with the cells' globals
  const vm = require('vm');
  const fs = require('fs');
  const net = require('net');
  const path = require('path');
  const url = require('url');
  const util = require('util');
  const Module = require('module');
  const controlIn = Number(process.argv[1]);
  const controlOut = Number(process.argv[2]);
  // A TypeScript context: each cell's types are stripped first (positions kept, so its lines stay).
  const stripTypes = process.argv[3] === 'typescript' ? Module.stripTypeScriptTypes : null;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const inspect = util.inspect;
  const TEXT_CAP = 1 << 20;
  // Top-level await: the REPL server's eval, on streams nobody writes. Starting it defines globals (the
  // built-in modules, _, _error, module, require): the cells' global scope must not change, so they go.
  const repl = require('repl');
  const { PassThrough } = require('stream');
  const globalsBefore = new Set(Object.getOwnPropertyNames(globalThis));
  const awaitRepl = repl.start({ input: new PassThrough(), output: new PassThrough(), terminal: false,
                                 useGlobal: true, prompt: '' });
  for (const name of Object.getOwnPropertyNames(globalThis)) if (!globalsBefore.has(name)) delete globalThis[name];
  // A rejected cell reaches the REPL's domain, not the eval's callback: it is this cell's error. Errors of
  // callbacks an earlier such cell left behind are reported as the uncaught errors they are.
  let awaitDone = null;
  awaitRepl._domain.removeAllListeners('error');
  awaitRepl._domain.on('error', (error) => {
    if (awaitDone !== null) awaitDone(error);
    else process.emit('uncaughtException', error);
  });
  function evalWithAwait(code, filename) {
    return new Promise((resolve, reject) => {
      awaitDone = (error, value) => { awaitDone = null; if (error) reject(error); else resolve(value); };
      awaitRepl.eval(code, globalThis, filename, (error, value) => { if (awaitDone !== null) awaitDone(error, value); });
    });
  }
  // import() in cells uses node's own loader; node 20 flags that option as experimental on every use, a
  // warning about the kernel that the cells' authors should not see.
  const dynamicImport = vm.constants ? vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER : undefined;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const text = String(warning && warning.message ? warning.message : warning);
    if (text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER') || text.includes('stripTypeScriptTypes')) return;
    return emitWarning.call(process, warning, ...rest);
  };
  process.argv.splice(1);
  globalThis.require = Module.createRequire(path.join(process.cwd(), '[cell]'));

  // The nonce of the cell being run: every message carries it, and the agent takes a message only for the
  // cell whose nonce it has, so nothing written on this channel reaches another cell's results.
  let currentCell = '';
  function send(message) {
    message.cell = currentCell;
    // A leading newline ends whatever partial line the cell's code may have written on this channel.
    const data = Buffer.from('\n' + stringify(message) + '\n', 'utf8');
    let offset = 0;
    while (offset < data.length) {
      try {
        offset += fs.writeSync(controlOut, data, offset, data.length - offset);
      } catch (error) {
        if (error.code !== 'EAGAIN') process.exit(0);  // the agent is gone
      }
    }
  }

  // Every write to process.stdout/stderr goes to the agent as a message of its own, as E2B's JavaScript kernel
  // (ijavascript) forwards each write: console.log('a'); console.log('b') is two chunks, whatever the timing.
  // Past the agent's cap per cell the writes go to the real fd, where the agent drops them cheaply; what child
  // processes write there arrives as it comes.
  const { StringDecoder } = require('string_decoder');
  const framedBytes = { stdout: 0, stderr: 0 };
  function frameWrites(name, stream) {
    const decoder = new StringDecoder('utf8');
    const direct = stream.write.bind(stream);
    stream.write = function write(chunk, encoding, callback) {
      if (typeof encoding === 'function') { callback = encoding; encoding = undefined; }
      if (framedBytes[name] > TEXT_CAP) return direct(chunk, encoding, callback);
      let text;
      if (typeof chunk === 'string') text = chunk;
      else if (chunk instanceof Uint8Array) text = decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      else return direct(chunk, encoding, callback);  // node's own error for what is no chunk
      if (text.length > 0) {
        framedBytes[name] += Buffer.byteLength(text);
        send({ type: 'stream', name, text });
      }
      if (typeof callback === 'function') process.nextTick(callback);
      return true;
    };
  }
  frameWrites('stdout', process.stdout);
  frameWrites('stderr', process.stderr);

  // Errors of callbacks and promises that outlive their cell are reported, not fatal: the context lives on.
  process.on('uncaughtException', (error) => {
    try { process.stderr.write('Uncaught ' + (error && error.stack ? error.stack : inspect(error)) + '\n'); } catch (_) { }
  });
  process.on('unhandledRejection', (reason) => {
    try { process.stderr.write('Unhandled rejection: ' + (reason && reason.stack ? reason.stack : inspect(reason)) + '\n'); } catch (_) { }
  });

  // SIGINT interrupts synchronous code through breakOnSigint; this listener ends an awaiting cell. Between
  // cells it does nothing (a timeout may race the cell's end).
  let rejectPending = null;
  process.on('SIGINT', () => {
    if (rejectPending === null) return;
    const reject = rejectPending;
    rejectPending = null;
    const error = new Error('Script execution was interrupted by `SIGINT`');
    error.code = 'ERR_SCRIPT_EXECUTION_INTERRUPTED';
    reject(error);
  });
  function untilInterrupted(promise) {
    return new Promise((resolve, reject) => {
      rejectPending = reject;
      Promise.resolve(promise).then(resolve, reject);
    }).finally(() => { rejectPending = null; });
  }

  function show(value) {
    let text;
    try { text = inspect(value); } catch (error) { text = String(value); }
    return text.length > TEXT_CAP ? text.slice(0, TEXT_CAP) + '...[truncated]' : text;
  }

  // The stack without the kernel's frames: everything from the vm call (or the kernel's own [eval] code) on.
  function cleanStack(stack) {
    const kept = [];
    for (const line of stack.split('\n')) {
      if (/^\s+at /.test(line) && /node:vm|node:repl|\[eval\]/.test(line)) break;
      kept.push(line);
    }
    while (kept.length > 0 && /^\s+at .*node:internal\/process\/task_queues/.test(kept[kept.length - 1])) kept.pop();
    return kept.join('\n') + '\n';
  }

  // An error's message is the cell's to make as large as it likes; the error that goes back is capped.
  function describe(thrown) {
    const cap = (text) => (text.length > TEXT_CAP ? text.slice(0, TEXT_CAP) + '...[truncated]' : text);
    try {
      if (thrown !== null && typeof thrown === 'object' && typeof thrown.stack === 'string') {
        return { name: cap(String(thrown.name || 'Error')), value: cap(String(thrown.message || '')), traceback: cap(cleanStack(thrown.stack)) };
      }
    } catch (_) { }
    const text = cap(show(thrown));
    return { name: 'Error', value: text, traceback: 'Uncaught ' + text + '\n' };
  }

  function errorCode(thrown) {
    try { return thrown !== null && typeof thrown === 'object' ? thrown.code : undefined; } catch (_) { return undefined; }
  }

  // ES module syntax in a cell. E2B's JavaScript kernel turns a cell's `import` declarations into require()
  // calls (Babel) before it runs it; here each `import` declaration becomes, on its own lines, a `var`
  // declaration of what `await import()` gives, so the imported names stay for later cells (as any top-level
  // `var`), ES modules (.mjs) load as well as CommonJS ones, and the cell's line numbers hold. `export` is
  // dropped (a cell is no module others import). A small lexer skips strings, comments, template literals and
  // regular expressions, so only real declarations are rewritten; only a cell that does not compile as a
  // script because of them is rewritten at all.
  const MODULE_SYNTAX = /Cannot use import statement outside a module|Unexpected token 'export'/;
  function rewriteModuleSyntax(code) {
    const n = code.length;
    const edits = [];
    let last = '';  // the previous significant token: a punctuator, a word, or 'value' (a literal)
    const templates = [];  // brace depth at each open `${` of a template literal
    let braces = 0;
    const word = /[A-Za-z0-9_$\u0080-\uffff]/;
    function space(j) {
      for (;;) {
        while (j < n && /\s/.test(code[j])) j++;
        if (code.startsWith('//', j)) { while (j < n && code[j] !== '\n') j++; continue; }
        if (code.startsWith('/*', j)) { const end = code.indexOf('*/', j + 2); j = end < 0 ? n : end + 2; continue; }
        return j;
      }
    }
    function string(j) {  // j at the quote; returns the index after the closing quote
      const quote = code[j++];
      while (j < n && code[j] !== quote && code[j] !== '\n') j += code[j] === '\\' ? 2 : 1;
      return j + 1;
    }
    function template(j) {  // j after ` or after the } that closes a ${; returns [index, opened a ${]
      while (j < n) {
        if (code[j] === '\\') { j += 2; continue; }
        if (code[j] === '`') return [j + 1, false];
        if (code[j] === '$' && code[j + 1] === '{') return [j + 2, true];
        j++;
      }
      return [n, false];
    }
    function regex(j) {  // j at the opening /
      let inClass = false;
      for (j++; j < n && code[j] !== '\n'; j++) {
        if (code[j] === '\\') { j++; continue; }
        if (code[j] === '[') inClass = true;
        else if (code[j] === ']') inClass = false;
        else if (code[j] === '/' && !inClass) { j++; break; }
      }
      while (j < n && word.test(code[j])) j++;  // flags
      return j;
    }
    function regexMayStart() {
      if (last === '' || last === 'value') return last === '';
      if (/^[A-Za-z_$]/.test(last)) {
        return /^(return|typeof|case|do|else|in|instanceof|new|delete|void|throw|yield|await|of)$/.test(last);
      }
      return last !== ')' && last !== ']';
    }
    function readWord(j) { let k = j; while (k < n && word.test(code[k])) k++; return code.slice(j, k); }
    // One import declaration from `start` (at "import"); null when it is not one this rewrite understands.
    function importDeclaration(start) {
      let j = space(start + 6);
      let names = null, namespace = null, defaultName = null;
      if (code[j] !== '"' && code[j] !== "'") {
        if (word.test(code[j]) && code[j] !== '{') {
          defaultName = readWord(j);
          j = space(j + defaultName.length);
          if (code[j] === ',') j = space(j + 1);
        }
        if (code[j] === '*') {
          j = space(j + 1);
          if (readWord(j) !== 'as') return null;
          j = space(j + 2);
          namespace = readWord(j);
          if (!namespace) return null;
          j = space(j + namespace.length);
        } else if (code[j] === '{') {
          const close = code.indexOf('}', j);
          if (close < 0) return null;
          names = code.slice(j + 1, close).split(',').map((part) => part.trim()).filter((part) => part.length > 0)
            .map((part) => part.replace(/\s+as\s+/, ': '));
          j = space(close + 1);
        }
        if (readWord(j) !== 'from') return null;
        j = space(j + 4);
      }
      if (code[j] !== '"' && code[j] !== "'") return null;
      const specifierEnd = string(j);
      let specifier = code.slice(j + 1, specifierEnd - 1);
      j = space(specifierEnd);
      let options = '';
      const keyword = readWord(j);
      if (keyword === 'with' || keyword === 'assert') {
        const open = space(j + keyword.length);
        const close = code.indexOf('}', open);
        if (code[open] !== '{' || close < 0) return null;
        options = ', { with: ' + code.slice(open, close + 1) + ' }';
        j = close + 1;
      }
      const end = code[space(j)] === ';' ? space(j) + 1 : j;
      if (/^\.{1,2}\//.test(specifier) || specifier.startsWith('/')) {
        specifier = url.pathToFileURL(path.resolve(process.cwd(), specifier)).href;  // as from a file in the cwd
      }
      const load = 'await import(' + stringify(specifier) + options + ')';
      let statement;
      if (namespace !== null) statement = 'var ' + namespace + ' = ' + load + (defaultName ? ', ' + defaultName + ' = ' + namespace + '.default' : '') + ';';
      else if (names !== null) statement = 'var { ' + (defaultName ? 'default: ' + defaultName + ', ' : '') + names.join(', ') + ' } = ' + load + ';';
      else if (defaultName !== null) statement = 'var ' + defaultName + ' = (' + load + ').default;';
      else statement = load + ';';
      return [end, statement];
    }
    function exportDeclaration(start) {  // `export` and what goes with it: the statement stays, the export goes
      const j = space(start + 6);
      const next = readWord(j);
      if (next === 'default') return [space(j + 7), ''];
      if (/^(const|let|var|function|class|async)$/.test(next)) return [j, ''];
      let end = j;  // export { ... } [from '...'], export * [as x] from '...': nothing of it stays
      while (end < n && code[end] !== ';' && code[end] !== '\n') end = code[end] === '"' || code[end] === "'" ? string(end) : end + 1;
      return [end < n && code[end] === ';' ? end + 1 : end, ''];
    }
    let i = 0;
    while (i < n) {
      i = space(i);
      if (i >= n) break;
      const c = code[i];
      if (c === '"' || c === "'") { i = string(i); last = 'value'; continue; }
      if (c === '`') { const [next, opened] = template(i + 1); if (opened) templates.push(braces); i = next; last = 'value'; continue; }
      if (c === '}' && templates.length > 0 && templates[templates.length - 1] === braces) {
        templates.pop();
        const [next, opened] = template(i + 1);
        if (opened) templates.push(braces);
        i = next; last = 'value'; continue;
      }
      if (c === '/' && regexMayStart()) { i = regex(i); last = 'value'; continue; }
      if (word.test(c)) {
        const name = readWord(i);
        const after = space(i + name.length);
        if (last !== '.' && /^[A-Za-z_$]/.test(name) && (name === 'import' || name === 'export')) {
          const follows = code[after];
          const declaration = name === 'import' ? (follows !== '(' && follows !== '.' ? importDeclaration(i) : null)
            : exportDeclaration(i);
          if (declaration !== null) {
            const lines = code.slice(i, declaration[0]).split('\n').length - 1;  // kept, so line numbers hold
            edits.push([i, declaration[0], declaration[1] + '\n'.repeat(lines)]);
            i = declaration[0]; last = ';'; continue;
          }
        }
        i += name.length; last = /^[0-9]/.test(name) ? 'value' : name; continue;
      }
      if (c === '{') braces++;
      else if (c === '}') braces--;
      last = c; i++;
    }
    if (edits.length === 0) return null;
    let rewritten = '', from = 0;
    for (const [start, end, text] of edits) { rewritten += code.slice(from, start) + text; from = end; }
    return rewritten + code.slice(from);
  }

  async function runCell(request) {
    currentCell = String(request.cell);
    framedBytes.stdout = framedBytes.stderr = 0;
    const envs = request.envs || {};
    const saved = {};
    for (const name of Object.keys(envs)) { saved[name] = process.env[name]; process.env[name] = envs[name]; }
    let error = null, interrupted = false, timedOut = false;
    try {
      let code = stripTypes === null ? String(request.code) : stripTypes(String(request.code));
      const scriptOptions = { filename: `<cell ${request.count}>` };
      if (dynamicImport !== undefined) scriptOptions.importModuleDynamically = dynamicImport;
      let script = null, syntaxError = null;
      try { script = new vm.Script(code, scriptOptions); } catch (thrown) { syntaxError = thrown; }
      const rewritten = script === null && MODULE_SYNTAX.test(String(syntaxError && syntaxError.message))
        ? rewriteModuleSyntax(code) : null;
      if (rewritten !== null) {  // its import declarations are awaits now: the await path below runs it
        code = rewritten;
        try { script = new vm.Script(code, scriptOptions); syntaxError = null; } catch (thrown) { syntaxError = thrown; }
      }
      let value;
      if (script !== null) {
        const runOptions = { breakOnSigint: true };
        if (request.timeout > 0) runOptions.timeout = Math.max(1, Math.ceil(request.timeout * 1000));
        value = script.runInThisContext(runOptions);
      } else if (code.includes('await')) {  // not a script: a cell with top-level await, or a real SyntaxError
        try {
          value = await untilInterrupted(evalWithAwait(code, scriptOptions.filename));
        } catch (thrown) {
          throw thrown instanceof repl.Recoverable ? syntaxError : thrown;  // unfinished input: a SyntaxError
        }
      } else {
        throw syntaxError;
      }
      if (value !== undefined) send({ type: 'result', is_main_result: true, text: show(value) });
    } catch (thrown) {
      const code = errorCode(thrown);
      interrupted = code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED';
      timedOut = code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
      error = describe(thrown);
    } finally {
      for (const name of Object.keys(saved)) {
        if (saved[name] === undefined) delete process.env[name]; else process.env[name] = saved[name];
      }
    }
    send({ type: 'done', error, interrupted, timed_out: timedOut });
  }

  const input = new net.Socket({ fd: controlIn, readable: true, writable: false });
  input.setEncoding('utf8');
  let buffered = '';
  let queue = Promise.resolve();
  input.on('data', (chunk) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let request;
      try { request = parse(line); } catch (_) { continue; }
      queue = queue.then(() => runCell(request));
    }
  });
  input.on('end', () => process.exit(0));
  input.on('error', () => process.exit(0));
})();
