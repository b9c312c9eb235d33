// commands.kill: a running background command is killed (true), its wait() rejects with CommandExitError, and
// killing a pid that does not exist answers false.
import { describeError, withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  const handle = await sandbox.commands.run('sleep 60', { background: true })
  results.killed = await sandbox.commands.kill(handle.pid)
  try {
    results.waited = await handle.wait()
  } catch (error) {
    results.waited = describeError(error)
  }
  results.killUnknown = await sandbox.commands.kill(999_999)
  results.afterKill = (await sandbox.commands.run('echo alive')).stdout
})
