// Shared by the programs here: each runs against `e2beval serve` through the official JS SDK (the three E2B_*
// variables come from tests/serve/test_js_sdk.py) and prints ONE JSON object, its results, as its last line;
// the pytest side asserts on it. An exception nobody expected becomes {"uncaught": ...}, never a silent pass.
import { Sandbox } from '@e2b/code-interpreter'

// An error as plain data: its class (the SDK's error types), name and message.
export function describeError(error) {
  return {
    class: error?.constructor?.name ?? typeof error,
    name: error?.name,
    message: String(error?.message ?? error),
    ...(error?.exitCode !== undefined && { exitCode: error.exitCode, stdout: error.stdout, stderr: error.stderr }),
  }
}

// What a call gave: {value} or {error}.
export async function outcome(promise) {
  try {
    return { value: await promise }
  } catch (error) {
    return { error: describeError(error) }
  }
}

// Runs `body(results, sandbox)` with a fresh sandbox, killed afterwards, and prints the results.
export async function withSandbox(body, createOptions = { timeoutMs: 120_000 }) {
  const results = {}
  let sandbox
  try {
    sandbox = await Sandbox.create(createOptions)
    await body(results, sandbox)
  } catch (error) {
    results.uncaught = describeError(error)
    results.uncaught.stack = error?.stack
  } finally {
    if (sandbox) await sandbox.kill().catch(() => {})
  }
  finish(results)
}

// Prints the results and exits at once: a runCode answered with an error status (a killed sandbox's 502) leaves
// the SDK's request timer armed (it is cleared only on success), which would keep Node alive for
// requestTimeoutMs (60 s) after the program is done.
export function finish(results) {
  process.stdout.write(JSON.stringify(results) + '\n', () => process.exit(0))
}

// Resolves when `predicate()` holds, or rejects after `timeoutMs` (a guard against hanging, not a measurement).
export async function eventually(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
