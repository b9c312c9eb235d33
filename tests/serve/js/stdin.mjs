// stdin: a background command started with stdin: true reads what commands.sendStdin sends it.
import { eventually, withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  const echoed = []
  const handle = await sandbox.commands.run('while read -r line; do echo "got $line"; done', {
    background: true,
    stdin: true,
    onStdout: (data) => echoed.push(data),
  })
  await sandbox.commands.sendStdin(handle.pid, 'first\n')
  await sandbox.commands.sendStdin(handle.pid, 'second\n')
  await eventually(() => echoed.join('').includes('got second'), 20_000, 'the echoed input')
  results.echoed = echoed.join('')
  results.killed = await handle.kill()
})
