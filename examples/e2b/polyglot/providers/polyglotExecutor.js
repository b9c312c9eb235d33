// The polyglot executor of promptfoo's E2B page as a promptfoo provider: the prompt is a program, the test's
// `language` var says how to run it — Python with runCode, JavaScript with runCode({language: 'javascript'}),
// bash with commands.run — in one E2B sandbox per call. The output is what the program printed, or the error.
import { CommandExitError, Sandbox, TimeoutError } from '@e2b/code-interpreter'

export default class PolyglotExecutor {
  constructor(options = {}) {
    this.providerId = options.id || 'e2b-polyglot-executor'
    this.timeoutMs = options.config?.timeoutMs ?? 10_000
  }

  id() {
    return this.providerId
  }

  async callApi(prompt, context) {
    const language = context?.vars?.language || 'python'
    const sandbox = await Sandbox.create()
    try {
      return { output: await this.run(sandbox, language, prompt), metadata: { language } }
    } catch (error) {
      return { error: `${language}: ${error.name}: ${error.message}` }
    } finally {
      await sandbox.kill()
    }
  }

  async run(sandbox, language, code) {
    if (language === 'bash') {
      try {
        const result = await sandbox.commands.run(code, { timeoutMs: this.timeoutMs })
        return result.stdout
      } catch (error) {
        // A non-zero exit is an answer, not a failure of the provider: show it as the program's output.
        if (error instanceof CommandExitError) return `${error.stdout}exit code ${error.exitCode}: ${error.stderr}`
        throw error
      }
    }
    let execution
    try {
      execution = await sandbox.runCode(code, {
        language: language === 'javascript' ? 'javascript' : 'python',
        timeoutMs: this.timeoutMs,
      })
    } catch (error) {
      // A program that runs past the timeout is an answer too (the SDK closes the connection, the cell stops).
      if (error instanceof TimeoutError) return `TimeoutError: ${error.message}`
      throw error
    }
    if (execution.error) return `${execution.logs.stdout.join('')}${execution.error.name}: ${execution.error.value}`
    return execution.logs.stdout.join('') + (execution.text ?? '')
  }
}
