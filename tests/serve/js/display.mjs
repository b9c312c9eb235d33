// Rich results: display() in a Python cell gives a result besides the cell's own value, in order, each with its
// formats and isMainResult as the SDK builds them (E2B's display-data tests: `extra` is {} for a plain value).
import { withSandbox } from './_report.mjs'

function described(result) {
  return { text: result.text, isMainResult: result.isMainResult, html: result.html, json: result.json,
           formats: result.formats(), extra: result.extra }
}

await withSandbox(async (results, sandbox) => {
  const shown = await sandbox.runCode("display({'a': 1})\n5")
  results.shown = { results: shown.results.map(described), text: shown.text }
  const rich = await sandbox.runCode(
    "class Table:\n    def _repr_html_(self): return '<b>t</b>'\n    def _repr_json_(self): return {'k': [1, 2]}\n" +
    "display(Table(), 'two')\nNone")
  results.rich = rich.results.map(described)
})
