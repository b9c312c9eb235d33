// promptfoo's E2B page assertion, adapted (the page's own is in ../../promptfoo-page, verbatim): run the model's
// answer followed by the test's `testCode` in a fresh E2B sandbox and compare the trimmed stdout with
// `expectedOutput`; unlike the page, it joins the stdout messages as they were written (with '') and reports an
// execution error by name. Nothing here knows about e2beval: the official SDK reaches `e2beval serve` through
// E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY.
import { Sandbox } from '@e2b/code-interpreter'

export default async function codeExecution(output, context) {
  const { testCode, expectedOutput } = context.vars
  const sandbox = await Sandbox.create()
  try {
    const execution = await sandbox.runCode(output + '\n\n' + testCode)
    if (execution.error) {
      return {
        pass: false,
        score: 0,
        reason: `Execution error: ${execution.error.name}: ${execution.error.value}`,
      }
    }
    const stdout = execution.logs.stdout.join('').trim()
    const expected = String(expectedOutput).trim()
    const pass = stdout === expected
    return {
      pass,
      score: pass ? 1 : 0,
      reason: pass ? `Correct output: ${stdout}` : `Expected ${JSON.stringify(expected)}, got ${JSON.stringify(stdout)}`,
    }
  } finally {
    await sandbox.kill()
  }
}
