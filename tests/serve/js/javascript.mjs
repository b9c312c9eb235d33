// JavaScript: a context created with language 'js' keeps its state, runCode with language 'javascript' runs in
// the default JavaScript context, and the contexts are listed and removed.
import { outcome, withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  const context = await sandbox.createCodeContext({ language: 'js' })
  results.context = { language: context.language, hasId: typeof context.id === 'string' && context.id.length > 0 }
  await sandbox.runCode('const base = 21', { context })
  results.stateText = (await sandbox.runCode('base * 2', { context })).text
  const logged = await sandbox.runCode("console.log('from js'); [1, 2].map(n => n * 21)", { language: 'javascript' })
  results.language = { stdout: logged.logs.stdout, text: logged.text }
  const thrown = await sandbox.runCode("throw new TypeError('bad input')", { context })
  results.error = { name: thrown.error?.name, value: thrown.error?.value }
  results.listed = (await sandbox.listCodeContexts()).some((listed) => listed.id === context.id)
  await sandbox.removeCodeContext(context)
  results.listedAfterRemove = (await sandbox.listCodeContexts()).some((listed) => listed.id === context.id)
  results.bothGiven = await outcome(sandbox.runCode('1', { context, language: 'python' }))
})
