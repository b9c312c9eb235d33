// runCode: state kept across calls, stdout and results, a Python error with name/value/traceback, streaming
// callbacks, and the context surviving its error.
import { withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  await sandbox.runCode('x = 41')
  results.stateText = (await sandbox.runCode('x + 1')).text
  const printed = await sandbox.runCode("print('out')\nimport sys\nprint('err', file=sys.stderr)")
  results.logs = printed.logs
  const streamed = []
  await sandbox.runCode("for i in range(3): print(i)", {
    onStdout: (message) => streamed.push(message.line),
    onResult: (result) => streamed.push(`result ${result.text}`),
  })
  results.streamed = streamed
  const failed = await sandbox.runCode('1 / 0')
  results.error = { name: failed.error?.name, value: failed.error?.value, traceback: failed.error?.traceback }
  results.afterError = (await sandbox.runCode('x')).text
})
