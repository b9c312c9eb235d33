// The control plane: Sandbox.list (with a metadata query), getInfo, setTimeout, Sandbox.connect, Sandbox.kill
// (true, then false), and getInfo of a killed sandbox (SandboxNotFoundError).
import { Sandbox } from '@e2b/code-interpreter'
import { describeError, finish, outcome } from './_report.mjs'

const results = {}
const tag = `js-${process.pid}`
let sandbox
try {
  // The instants around each call that sets the sandbox's end: the server must put the end there plus the timeout
  // asked (its timestamps and Date.now() read the same host clock, both in whole milliseconds).
  const created = { asked: Date.now() }
  sandbox = await Sandbox.create({ timeoutMs: 60_000, metadata: { suite: tag } })
  created.answered = Date.now()
  results.listedAll = (await Sandbox.list().nextItems()).some((info) => info.sandboxId === sandbox.sandboxId)
  results.listedByMetadata = (await Sandbox.list({ query: { metadata: { suite: tag } } }).nextItems()).map((info) => info.sandboxId === sandbox.sandboxId)
  results.listedOther = (await Sandbox.list({ query: { metadata: { suite: 'nobody' } } }).nextItems()).length
  const info = await sandbox.getInfo()
  results.info = { metadata: info.metadata, state: info.state, envdVersion: info.envdVersion }
  results.created = { ...created, startedAt: info.startedAt.getTime(), endAt: info.endAt.getTime() }
  const extended = { asked: Date.now() }
  await sandbox.setTimeout(200_000)
  extended.answered = Date.now()
  results.extended = { ...extended, endAt: (await sandbox.getInfo()).endAt.getTime() }
  const again = await Sandbox.connect(sandbox.sandboxId)
  results.connected = { sameId: again.sandboxId === sandbox.sandboxId, text: (await again.runCode('6 * 7')).text }
  results.isRunning = await sandbox.isRunning()
  results.kill = await Sandbox.kill(sandbox.sandboxId)
  results.killAgain = await Sandbox.kill(sandbox.sandboxId)
  results.isRunningAfterKill = await sandbox.isRunning()
  results.infoAfterKill = await outcome(Sandbox.getInfo(sandbox.sandboxId))
  results.listedAfterKill = (await Sandbox.list().nextItems()).some((info) => info.sandboxId === sandbox.sandboxId)
} catch (error) {
  results.uncaught = describeError(error)
} finally {
  if (sandbox) await sandbox.kill().catch(() => {})
}
finish(results)
