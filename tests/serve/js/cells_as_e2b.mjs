// Cells as E2B's kernels give them, through the official JS SDK: promptfoo's E2B page assertion joins
// `execution.logs.stdout` with "\n" (E2B's Python kernel sends output written together as one message),
// JavaScript output is one message per write, ES module imports work in JavaScript cells (also from a module
// file of the sandbox, names kept for later cells), and E2B's default contexts are listed.
import { withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  const palindrome = await sandbox.runCode('print("racecar" == "racecar"[::-1])\nprint("hello" == "hello"[::-1])')
  results.promptfooJoin = palindrome.logs.stdout.join('\n').trim()
  results.pythonStdout = palindrome.logs.stdout
  results.jsStdout = (await sandbox.runCode("console.log('a'); console.log('b')", { language: 'js' })).logs.stdout
  const esm = await sandbox.runCode("import { readFileSync } from 'fs'\nconsole.log(typeof readFileSync)", { language: 'js' })
  results.esm = { stdout: esm.logs.stdout, error: esm.error?.value ?? null }
  await sandbox.files.write('/home/user/lib.mjs', 'export const base = 20\nexport default function add(a, b) { return a + b }\n')
  const fromFile = await sandbox.runCode("import add, { base } from './lib.mjs'\nadd(base, 1)", { language: 'js' })
  results.fromFile = { text: fromFile.text ?? null, error: fromFile.error?.value ?? null }
  results.kept = (await sandbox.runCode('add(base, 2) + (typeof readFileSync)', { language: 'js' })).text ?? null
  const awaited = await sandbox.runCode("import os from 'os'\nconst kind = await Promise.resolve(typeof os.cpus);\nkind", { language: 'js' })
  results.awaited = awaited.text ?? awaited.error?.value ?? null
  results.contexts = (await sandbox.listCodeContexts()).map((context) => [context.language, context.cwd])
})
