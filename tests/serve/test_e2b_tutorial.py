"""The tutorial's promptfoo suite (examples/tutorial) with `backend: e2b` in the assertion's config, under the real
`promptfoo eval`, graded in remote sandboxes of a real `e2beval serve`: every case gets the same verdict, reason
and metadata as on the local backend (test_examples.TUTORIAL), the results say the e2b backend ran them, and no
sandbox is left on the server once the grading process (the e2beval daemon) has ended."""
import json
import shutil
import sys
import urllib.request
from pathlib import Path

import yaml

# The promptfoo helpers and the tutorial's expectations live beside the other promptfoo tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from _support import REPO, require_importable_e2beval, run_promptfoo  # noqa: E402
from test_examples import TUTORIAL, check_case, check_run  # noqa: E402

from serve_process import ServeProcess  # noqa: E402
from support.waiting import until  # noqa: E402

# The daemon that grades the assertions holds the remote sandboxes it reuses until it ends, idle this long.
DAEMON_IDLE_S = 2


def _sandboxes(server):
    request = urllib.request.Request(server.env["E2B_API_URL"] + "/v2/sandboxes",
                                     headers={"X-API-KEY": server.env["E2B_API_KEY"]})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def _tutorial_on_e2b(work: Path) -> Path:
    """examples/tutorial copied, its assertion's config saying `backend: e2b` (the only change a user makes)."""
    shutil.copytree(REPO / "examples" / "tutorial", work / "tutorial")
    config_path = work / "tutorial" / "promptfooconfig.yaml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    [assertion] = config["defaultTest"]["assert"]
    assertion["config"]["backend"] = "e2b"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return config_path


def test_the_tutorial_suite_on_the_e2b_backend(tmp_path):
    require_importable_e2beval()
    server = ServeProcess("--max-sandboxes", "8", "--creation-rate", "50", "--ready-sandboxes", "1")
    try:
        config = _tutorial_on_e2b(tmp_path)
        run = run_promptfoo(config, tmp_path, "-j", "4", E2B_API_URL=server.env["E2B_API_URL"],
                            E2B_SANDBOX_URL=server.env["E2B_SANDBOX_URL"], E2B_API_KEY=server.env["E2B_API_KEY"],
                            E2BEVAL_DAEMON_IDLE_S=str(DAEMON_IDLE_S))
        check_run(run, TUTORIAL)
        for description, expect in TUTORIAL.items():
            check_case(run, description, expect)
            metadata = next(c for c in run.row(description)["gradingResult"]["componentResults"]
                            if "namedScores" in c)["metadata"]
            if expect.verdict in ("ran", "contained"):
                assert metadata["backend"] == "e2b", (description, metadata)
        assert server.env["E2B_API_KEY"] not in run.proc.stdout + run.proc.stderr
        # The grading daemon kills its remote sandboxes when it ends (idle DAEMON_IDLE_S after the last test).
        until(lambda: not _sandboxes(server), "the idle grading daemon killing its remote sandboxes",
              detail=lambda: _sandboxes(server))
    finally:
        assert server.stop() == 0
