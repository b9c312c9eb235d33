from e2beval.promptfoo import get_assert  # noqa: F401  (promptfoo calls get_assert(output, context))
