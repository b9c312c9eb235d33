// files: write, read (text and bytes), list, exists, a missing file (NotFoundError), and code seeing the file.
import { outcome, withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  await sandbox.files.write('/home/user/data/notes.txt', 'hello from js')
  results.read = await sandbox.files.read('/home/user/data/notes.txt')
  results.bytes = Array.from(await sandbox.files.read('/home/user/data/notes.txt', { format: 'bytes' }).then((b) => b.slice(0, 5)))
  await sandbox.files.write([
    { path: '/home/user/data/a.txt', data: 'A' },
    { path: '/home/user/data/b.bin', data: new Uint8Array([0, 1, 2]).buffer },
  ])
  results.list = (await sandbox.files.list('/home/user/data')).map((entry) => ({ name: entry.name, type: entry.type, size: entry.size })).sort((a, b) => a.name.localeCompare(b.name))
  results.exists = { present: await sandbox.files.exists('/home/user/data/a.txt'), absent: await sandbox.files.exists('/home/user/nothing') }
  results.missing = await outcome(sandbox.files.read('/home/user/nothing.txt'))
  results.seenByCode = (await sandbox.runCode("open('/home/user/data/notes.txt').read()")).text
})
