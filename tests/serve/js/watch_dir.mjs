// files.watchDir: a write in the watched directory reaches the callback as a filesystem event.
import { eventually, withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  await sandbox.files.makeDir('/home/user/watched')
  const events = []
  const watcher = await sandbox.files.watchDir('/home/user/watched', (event) => events.push({ name: event.name, type: event.type }))
  await sandbox.files.write('/home/user/watched/new.txt', 'hello')
  await eventually(() => events.some((event) => event.name === 'new.txt'), 20_000, 'an event for new.txt')
  await watcher.stop()
  results.events = events
})
