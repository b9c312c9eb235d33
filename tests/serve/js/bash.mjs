// Bash cells through @e2b/code-interpreter: runCode with language 'bash' runs in the default bash context, whose
// shell keeps `cd` and variables between cells; a context created with language 'bash' is its own shell; a
// non-zero exit status is the execution's error; envs hold for one cell (E2B's env_vars/bash tests).
import { withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  await sandbox.runCode('mkdir -p /home/user/here && cd /home/user/here && kept=yes', { language: 'bash' })
  results.persisted = (await sandbox.runCode('echo "$PWD $kept"', { language: 'bash' })).logs.stdout
  results.envs = (await sandbox.runCode('echo $FOO', { language: 'bash', envs: { FOO: 'bar' } })).logs.stdout
  results.envsAfter = (await sandbox.runCode('echo ${FOO:-default}', { language: 'bash' })).logs.stdout
  const context = await sandbox.createCodeContext({ language: 'bash' })
  results.context = { language: context.language, cwd: context.cwd }
  results.ownShell = (await sandbox.runCode('echo "$PWD ${kept:-none}"', { context })).logs.stdout
  const failed = await sandbox.runCode('echo partial; ls /no/such/dir', { context })
  results.failed = { stdout: failed.logs.stdout, error: { name: failed.error?.name, value: failed.error?.value },
                     stderrSaysWhy: failed.logs.stderr.join('').includes('No such file') }
})
