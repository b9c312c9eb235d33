// The model of promptfoo's E2B page (openai:gpt-4), recorded: for each of the page's two prompts, the answer such a
// model gives when told "Return only the code, no explanations" (code only, no Markdown fence). A promptfoo custom
// provider, so the page's config and assertion run unchanged with no API key and no network.
const ANSWERS = {
  'calculate the factorial of a number': [
    'def factorial(n):',
    '    if n < 0:',
    '        raise ValueError("n must be non-negative")',
    '    result = 1',
    '    for i in range(2, n + 1):',
    '        result *= i',
    '    return result',
  ].join('\n'),
  'check if a string is a palindrome': [
    'def is_palindrome(s):',
    '    cleaned = "".join(ch.lower() for ch in s if ch.isalnum())',
    '    return cleaned == cleaned[::-1]',
  ].join('\n'),
}

export default class RecordedModel {
  id() {
    return 'openai:gpt-4 (recorded)'
  }

  async callApi(prompt, context) {
    const task = context?.vars?.task
    if (!(task in ANSWERS)) {
      return { error: `no recorded answer for the task ${JSON.stringify(task)}; recorded: ${Object.keys(ANSWERS).join('; ')}` }
    }
    return { output: ANSWERS[task] }
  }
}
