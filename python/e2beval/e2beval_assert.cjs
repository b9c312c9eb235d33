// e2beval's promptfoo assertion, as a JavaScript file: promptfoo counts a test whose configuration is wrong as
// an ERROR with it, where the Python assertion (e2beval_assert.py) can only make it a failed test.
//
//   defaultTest:
//     assert:
//       - type: javascript
//         value: file://e2beval_assert.cjs
//         config: {timeout: 5}        # the same config: as the Python assertion's (docs/promptfoo.md)
//
// It grades exactly as the Python assertion does: it runs `python -m e2beval.promptfoo_js` with the arguments
// promptfoo gives an assertion ([output, context], as JSON on stdin; the same JSON promptfoo sends a Python
// assertion), which calls e2beval.promptfoo.get_assert (with the e2beval daemon), and returns the
// GradingResult it writes back. When that result is an error row — a mistake in `config:` ("Invalid e2beval
// config: ..."), test vars that describe no test ("Invalid test: ..."), a sandbox that failed ("Sandbox
// execution error: ...") — it throws that message instead, and promptfoo counts the test among its errors.
//
// The Python it runs: $E2BEVAL_PYTHON, else $PROMPTFOO_PYTHON, else `python3` on PATH, else `python` on PATH.
// That interpreter must have e2beval installed; if it cannot be started or cannot import e2beval, the
// assertion throws saying which interpreter it tried and how to choose another.
//
// Get this file with `e2beval init` (it writes it beside e2beval_assert.py) or
// `python -m e2beval.promptfoo_js --write DIR`; `python -m e2beval.promptfoo_js --path` prints where the
// installed package keeps it. Keep the .cjs extension: promptfoo loads it as CommonJS whatever package.json says.
'use strict';

const { spawn } = require('node:child_process');

const STDERR_TAIL_CHARS = 4000;

// [interpreter, where it came from], in the order they are tried.
function pythonCandidates(env) {
  if (env.E2BEVAL_PYTHON) return [[env.E2BEVAL_PYTHON, '$E2BEVAL_PYTHON']];
  if (env.PROMPTFOO_PYTHON) return [[env.PROMPTFOO_PYTHON, '$PROMPTFOO_PYTHON']];
  return [['python3', 'PATH'], ['python', 'PATH']];
}

function tail(text) {
  return text.length <= STDERR_TAIL_CHARS ? text : '...' + text.slice(-STDERR_TAIL_CHARS);
}

// An Error that reads as its message alone: promptfoo 0.123.1 puts String(error) (`${name}: ${message}`, just
// the message when the name is empty) and its stack in the row's `error`; this file's frames and an "Error: "
// prefix would only hide the message, whose first words (`Invalid e2beval config:`) `e2beval report` reads.
function plainError(message) {
  const error = new Error(message);
  error.name = '';
  error.stack = message;
  return error;
}

// Runs `python -m e2beval.promptfoo_js` with `input` on stdin: {stdout, stderr, code, signal}, or
// {missing: true} when the interpreter does not exist (ENOENT), so the next candidate is tried.
function runPython(python, input) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(python, ['-m', 'e2beval.promptfoo_js'], { stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      reject(error);
      return;
    }
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (chunk) => stdout.push(chunk));
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    child.on('error', (error) => {
      if (error.code === 'ENOENT') resolve({ missing: true, error });
      else reject(error);
    });
    child.on('close', (code, signal) => {
      resolve({
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        code,
        signal,
      });
    });
    child.stdin.on('error', () => {}); // a Python that exits early (no e2beval) closes stdin: its exit says why
    child.stdin.end(input);
  });
}

const CHOOSE =
  'set E2BEVAL_PYTHON (or PROMPTFOO_PYTHON) to the absolute path of a Python that has e2beval installed ' +
  '(check with: "$E2BEVAL_PYTHON" -c "import e2beval.promptfoo")';

async function gradeWithPython(input, env) {
  const candidates = pythonCandidates(env);
  for (const [python, source] of candidates) {
    let run;
    try {
      run = await runPython(python, input);
    } catch (error) {
      throw plainError(`e2beval assertion: could not start Python '${python}' (from ${source}): ${error.message}; ${CHOOSE}`);
    }
    if (run.missing) continue;
    if (run.code !== 0) {
      const how = run.signal ? `was killed by ${run.signal}` : `exited with status ${run.code}`;
      const missingPackage = /No module named '?e2beval/.test(run.stderr)
        ? ` '${python}' (from ${source}) cannot import e2beval;`
        : '';
      throw plainError(
        `e2beval assertion: 'python -m e2beval.promptfoo_js' with '${python}' (from ${source}) ${how}.` +
          `${missingPackage} ${CHOOSE}\n${tail(run.stderr)}`,
      );
    }
    try {
      return JSON.parse(run.stdout);
    } catch (error) {
      throw plainError(
        `e2beval assertion: '${python}' (from ${source}) wrote no GradingResult (${error.message}); ` +
          `its stderr:\n${tail(run.stderr)}`,
      );
    }
  }
  const tried = candidates.map(([python, source]) => `'${python}' (from ${source})`).join(', ');
  throw plainError(`e2beval assertion: no Python found: tried ${tried}; ${CHOOSE}`);
}

module.exports = async function e2bevalAssert(output, context) {
  // The same JSON promptfoo writes for a Python assertion (JSON.stringify of [output, context]).
  let input;
  try {
    input = JSON.stringify([output, context]);
  } catch (error) {
    throw plainError(`e2beval assertion: promptfoo's context cannot be sent as JSON (${error.message})`);
  }
  const result = await gradeWithPython(input, process.env);
  if (result && result.metadata && result.metadata.error_kind) {
    // Not a verdict on the answer: the test's configuration (or the sandbox) is wrong. Thrown, promptfoo
    // counts it as an error (failureReason 2, stats.errors) with this message.
    throw plainError(result.reason);
  }
  return result;
};
