// Background commands: commands.run({background: true}) returns a handle at once, the command runs alongside
// the sandbox's other requests (a foreground command runs while it sleeps), commands.list shows it, and
// handle.wait() gives its result.
import { withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  const handle = await sandbox.commands.run('sleep 3; echo late; touch /tmp/background-done', { background: true })
  results.hasPid = Number.isInteger(handle.pid)
  // Runs while the background command sleeps: the marker is not there yet.
  results.foreground = (await sandbox.commands.run('test -e /tmp/background-done && echo after || echo during')).stdout
  results.listed = (await sandbox.commands.list()).some((command) => command.pid === handle.pid)
  const finished = await handle.wait()
  results.waited = { exitCode: finished.exitCode, stdout: finished.stdout }
})
