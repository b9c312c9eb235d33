from e2beval.promptfoo import call_api  # noqa: F401  (promptfoo calls call_api(prompt, options, context))
