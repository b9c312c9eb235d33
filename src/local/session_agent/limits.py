# The agent's limits and fixed settings, in one place (docs/sessions.md quotes the caps).
import re

OUTPUT_CAP_BYTES = 1 << 20  # per stream, per cell or per command
# Ends a stream that reached OUTPUT_CAP_BYTES, on that stream (docs/sessions.md quotes it).
TRUNCATION_MARKER = "[e2beval: %s truncated after 1 MiB; the rest of it was dropped]\n"
# A Python cell's output is held this long from its first write and sent as one event (ipykernel's
# OutStream.flush_interval: E2B's Python kernel sends a cell's output so).
OUTPUT_FLUSH_SECONDS = 0.2
KERNEL_START_SECONDS = 10.0  # how long ready waits for a pre-started default context (the host waits 30 s)
INTERRUPT_GRACE_SECONDS = 2.0  # after SIGINT, how long a kernel gets before it is killed and restarted
JS_SIGINT_DELAY_SECONDS = 0.5  # JS: node's own vm timeout ends synchronous code first; SIGINT is the backstop
DEFAULT_COMMAND_TIMEOUT_SECONDS = 60.0  # E2B's default
STREAMS = ("stdout", "stderr")
# What a cell may send the host besides its output streams: rich results (display(), the last expression),
# each checked and capped here, whatever the kernel (or code writing on its channel) sent. Excess is dropped
# with RESULT_DROPPED_MARKER on the cell's stderr (docs/sessions.md quotes these caps).
RESULTS_PER_CELL = 256
RESULTS_BYTES_PER_CELL = 16 << 20
RESULT_FIELD_CAP_BYTES = 4 << 20  # each field of a result (text, html, png, ...)
RESULT_TEXT_FIELDS = ("text", "html", "markdown", "svg", "png", "jpeg", "pdf", "latex", "javascript")
RESULT_DROPPED_MARKER = "[e2beval: %s; the limits per cell are %d results, %d MiB of results and %d MiB per field]\n"
ERROR_FIELD_CAP_BYTES = 1 << 20  # name, value and traceback of a cell's error
CONTROL_LINE_CAP_BYTES = 64 << 20  # a longer line from a kernel's channel is no message of the kernel's
LANGUAGES = {"python": "python", "py": "python", "python3": "python", "javascript": "javascript", "js": "javascript",
             "typescript": "typescript", "ts": "typescript", "bash": "bash", "sh": "bash", "shell": "bash"}
NODE_LANGUAGES = ("javascript", "typescript")  # run by the JavaScript kernel
OUTPUT_MODES = {"python": "interval", "bash": "lines", "javascript": "writes", "typescript": "writes"}  # CellOutput
# TypeScript cells are JavaScript cells whose types node strips first (module.stripTypeScriptTypes, which
# keeps every position, so line numbers hold): node 22.13 or 23.2 and later have it.
TYPE_STRIPPING_NODE = ((22, 13), (23, 2))
BASH = "/bin/bash"
BASH_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # what bash can export
