// commands.run: stdout and stderr streamed to the callbacks, the result, a non-zero exit (CommandExitError)
// and a command past its timeoutMs.
import { CommandExitError, TimeoutError } from '@e2b/code-interpreter'
import { describeError, outcome, withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  const streamed = { stdout: [], stderr: [] }
  const result = await sandbox.commands.run("echo one; echo two >&2; echo three", {
    onStdout: (data) => streamed.stdout.push(data),
    onStderr: (data) => streamed.stderr.push(data),
  })
  results.result = { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr }
  results.streamed = { stdout: streamed.stdout.join(''), stderr: streamed.stderr.join('') }
  results.envAndCwd = (await sandbox.commands.run('echo "$GREETING from $(pwd)"', { envs: { GREETING: 'hi' }, cwd: '/tmp' })).stdout
  try {
    await sandbox.commands.run('echo partial; echo broken >&2; exit 3')
    results.nonZero = 'no error'
  } catch (error) {
    results.nonZero = { isCommandExitError: error instanceof CommandExitError, ...describeError(error) }
  }
  const slow = await outcome(sandbox.commands.run('sleep 30', { timeoutMs: 1000 }))
  results.timeout = { ...slow, isTimeoutError: slow.error?.class === TimeoutError.name }
  results.afterTimeout = (await sandbox.commands.run('echo alive')).stdout
})
