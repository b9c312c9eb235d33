"""The names of the session protocol (docs/session-protocol.md) as its one table says them: the requests a
``Sandbox`` sends its session agent (``op.files_write`` is the name files_write) and the kinds of failure it answers.

The table, ``session_protocol.json``, is installed beside this module by the build (from
src/local/session_protocol.json, which the C++ constants and the agent read too), so no request name is typed
anywhere else. A name the table lacks is an AttributeError where it is used, not a request the agent refuses.
"""
import json
from pathlib import Path
from types import SimpleNamespace

TABLE = json.loads((Path(__file__).resolve().parent / "session_protocol.json").read_text(encoding="utf-8"))
op = SimpleNamespace(**{name: name for name in TABLE["requests"]})
failure_kind = SimpleNamespace(**{name: name for name in TABLE["failure_kinds"]})
