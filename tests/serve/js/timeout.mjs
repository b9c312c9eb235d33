// runCode past its timeoutMs: the SDK aborts the request (TimeoutError), the server interrupts the cell, and the
// next call is served — by a cell that never finished, so `finished` stays False.
import { outcome, withSandbox } from './_report.mjs'

await withSandbox(async (results, sandbox) => {
  await sandbox.runCode('finished = False')
  results.timedOut = await outcome(sandbox.runCode('import time\ntime.sleep(30)\nfinished = True', { timeoutMs: 2000 }))
  results.next = (await sandbox.runCode('finished', { timeoutMs: 20_000 })).text
  results.stillWorks = (await sandbox.runCode('1 + 1')).text
})
