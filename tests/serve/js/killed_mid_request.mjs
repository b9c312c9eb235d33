// A sandbox killed from outside while a runCode is in flight: the SDK's own error for it (TimeoutError, "The
// sandbox was killed while the request was in progress"), found by asking /health after the connection broke;
// the same for a command; calls afterwards fail the same way.
import { Sandbox } from '@e2b/code-interpreter'
import { eventually, outcome, withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  const started = []
  const inFlight = outcome(sandbox.runCode("import time\nprint('started', flush=True)\ntime.sleep(30)", {
    onStdout: (message) => started.push(message.line),
  }))
  await eventually(() => started.length > 0, 20_000, 'the cell to start')
  results.kill = await Sandbox.kill(sandbox.sandboxId)  // from outside: by id, as another process would
  results.runCode = await inFlight
  results.isRunning = await sandbox.isRunning()
  results.after = await outcome(sandbox.runCode('1 + 1'))

  const second = await Sandbox.create({ timeoutMs: 60_000 })
  const output = []
  const command = outcome(second.commands.run("echo started; sleep 30", { onStdout: (data) => output.push(data) }))
  await eventually(() => output.length > 0, 20_000, 'the command to start')
  await Sandbox.kill(second.sandboxId)
  results.command = await command
})
