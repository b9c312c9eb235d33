# promptfoo `type: python` assertion for this example: promptfoo runs this file with PROMPTFOO_PYTHON
# and calls get_assert(output, context); e2beval extracts, scans, runs and grades the recorded answer.
from e2beval.promptfoo import get_assert  # noqa: F401
