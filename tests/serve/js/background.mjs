// Background commands: commands.run({background: true}) returns a handle at once, the command runs alongside
// the sandbox's other requests, commands.list shows it, and handle.wait() gives its result. Alongside, shown by
// marker files rather than by timing: the background command says it runs, then waits for the foreground
// command's marker, which the foreground command writes only once it has seen the background one running. Run
// one after the other, they would wait on each other until the foreground command's timeout.
import { withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  const handle = await sandbox.commands.run(
    'touch /tmp/background-running; until [ -e /tmp/foreground-ran ]; do sleep 0.05; done; echo late',
    { background: true })
  results.hasPid = Number.isInteger(handle.pid)
  results.listed = (await sandbox.commands.list()).some((command) => command.pid === handle.pid)
  results.foreground = (await sandbox.commands.run(
    'until [ -e /tmp/background-running ]; do sleep 0.05; done; touch /tmp/foreground-ran; echo during',
    { timeoutMs: 60_000 })).stdout
  const finished = await handle.wait()
  results.waited = { exitCode: finished.exitCode, stdout: finished.stdout }
})
