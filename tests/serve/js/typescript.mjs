// TypeScript cells through @e2b/code-interpreter: runCode with language 'ts' runs in the default TypeScript
// context (node strips the types; the server's node is setup's Node 22), which keeps its state.
import { withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  await sandbox.runCode('type Pair = [number, number]\nconst pair: Pair = [6, 7]', { language: 'ts' })
  const product = await sandbox.runCode('pair[0] * pair[1] as number', { language: 'typescript' })
  results.product = { text: product.text, error: product.error ?? null }
  const context = await sandbox.createCodeContext({ language: 'typescript' })
  results.contextLanguage = context.language
})
