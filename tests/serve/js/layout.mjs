// E2B's layout and defaults through the JS SDK (the shapes of E2B's cwd.test.ts, info.test.ts, envVars.test.ts,
// remove.test.ts, watch.test.ts): the working directory of code and commands, `sudo`, removing a missing file,
// and the events of a new file written into a watched directory (recursively).
import { outcome, eventually, withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  results.pythonCwd = (await sandbox.runCode('from pathlib import Path; print(Path.cwd())')).logs.stdout.join().trim()
  results.jsCwd = (await sandbox.runCode('process.cwd()', { language: 'js' })).text
  results.pwd = (await sandbox.commands.run('pwd')).stdout.trim()
  await sandbox.files.write('test_file.txt', 'test')
  results.infoPath = (await sandbox.files.getInfo('test_file.txt')).path
  const sudo = await sandbox.commands.run('sudo echo "$FOO"')
  results.sudo = { exitCode: sudo.exitCode, stdout: sudo.stdout }
  results.removeMissing = await outcome(sandbox.files.remove('non_existing_file.txt'))

  await sandbox.files.makeDir('test_recursive_watch_dir/test_nested_watch_dir')
  const events = []
  const handle = await sandbox.files.watchDir('test_recursive_watch_dir', (event) => events.push({ name: event.name, type: event.type }), { recursive: true })
  await sandbox.files.write('test_recursive_watch_dir/test_nested_watch_dir/test_watch.txt', 'content')
  await eventually(() => events.length >= 3, 20_000, 'three events for the new file')
  await handle.stop()
  results.events = events
})
