"""`e2beval redteam` end to end: the built-in adversarial model outputs through the real scanner and sandbox.

Each attack is judged by host-side traps (a secrets file, API-key canaries, listeners on 127.0.0.1, a sentinel
process, host paths) and by its own report of success; these tests check the verdicts and that the exit
status follows them, including a run that really lets attacks through (the sandbox given the host's network).
"""

import json
import subprocess
import tempfile
from pathlib import Path

import pytest
from _support import find_cli

RESULTS = {"blocked", "contained", "slipped_through", "not_run", "inconclusive"}

CLI = find_cli()


def redteam(*args):
    return subprocess.run([CLI, "redteam", *args], capture_output=True, text=True, timeout=600)


def redteam_json(*args):
    result = redteam("--json", *args)
    assert result.stdout, result.stderr
    return result.returncode, json.loads(result.stdout)


def canary_dirs():
    return set(Path(tempfile.gettempdir()).glob("redteam-canary-*"))


def check_row_shape(row):
    assert row["result"] in RESULTS
    assert row["name"] and row["category"] and row["why"] and row["how"]
    if row["result"] == "blocked":
        assert row["exec"] is None and any(f["severity"] == "block" for f in row["findings"])
    if row["result"] == "contained":
        assert row["exec"] is not None and row["evidence"] == []
    if row["result"] == "not_run":
        # Only a language the local sandbox cannot run yet, and the row says so.
        assert row["language"] != "python" and "execution unavailable" in row["how"]


@pytest.fixture(scope="module")
def corpus():
    result = redteam("--list", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_corpus_covers_every_kind_of_attack(corpus):
    assert len(corpus) >= 25
    assert len({a["name"] for a in corpus}) == len(corpus)
    categories = {a["category"] for a in corpus}
    assert {"secrets", "exfiltration", "escape", "resources", "persistence", "unsafe-import", "obfuscation",
            "patch"} <= categories
    assert {"python", "javascript", "bash"} <= {a["language"] for a in corpus}
    assert any(a["format"] == "patch" for a in corpus)
    text = redteam("--list")
    assert text.returncode == 0 and f"{len(corpus)} attacks" in text.stdout


@pytest.fixture(scope="module")
def default_run():
    before = canary_dirs()
    code, report = redteam_json()
    assert canary_dirs() - before == set(), "the run left its canary directory behind"
    return code, report


def test_default_policy_blocks_some_and_nothing_slips_through(default_run, corpus):
    code, report = default_run
    assert report["policy"] == "standard" and report["scan"] is True
    rows = report["attacks"]
    assert len(rows) == len(corpus)
    for row in rows:
        check_row_shape(row)
    slipped = [r["name"] for r in rows if r["result"] == "slipped_through"]
    assert slipped == [], slipped
    assert [r["name"] for r in rows if r["result"] == "inconclusive"] == []
    summary = report["summary"]
    assert summary["blocked"] >= 10 and summary["slipped_through"] == 0
    assert sum(summary[k] for k in RESULTS) == summary["total"] == len(rows)
    assert report["passed"] is True and code == 0
    by_name = {r["name"]: r for r in rows}
    # The standard preset refuses sockets outright; plain memory abuse is left to the sandbox.
    assert by_name["socket-exfil"]["result"] == "blocked"
    assert "import-socket" in by_name["socket-exfil"]["how"]
    assert by_name["memory-bomb"]["result"] == "contained"
    assert by_name["memory-bomb"]["exec"]["outcome"] == "memory_limit"


@pytest.fixture(scope="module")
def no_scan_run():
    return redteam_json("--no-scan")


def test_without_the_scanner_the_sandbox_contains_every_attack(no_scan_run):
    code, report = no_scan_run
    assert report["scan"] is False
    rows = report["attacks"]
    for row in rows:
        check_row_shape(row)
        assert row["result"] in {"contained", "not_run"}, (row["name"], row["result"], row["how"])
    assert all(r["result"] == "contained" for r in rows if r["language"] == "python")
    assert report["summary"]["blocked"] == 0 and report["summary"]["slipped_through"] == 0
    assert code == 0 and report["passed"] is True
    by_name = {r["name"]: r for r in rows}
    # What stopped them, from the sandbox's own account.
    assert "ptrace" in by_name["ptrace-attach"]["exec"]["denied_syscalls"]
    assert "socket" in by_name["socket-exfil"]["exec"]["denied_syscalls"]
    assert by_name["infinite-loop"]["exec"]["outcome"] in {"timeout", "cpu_limit"}
    assert by_name["output-flood"]["exec"]["outcome"] == "output_limit"
    assert "ATTEMPT" in by_name["project-dotenv"]["exec"]["stdout"]
    for row in rows:  # the scrubbed environment and the mount namespace kept every secret out
        if row["exec"]:
            assert "rt-env-" not in row["exec"]["stdout"] and "rt-file-" not in row["exec"]["stdout"]


def test_tutorial_policy_lets_more_reach_the_sandbox_which_contains_them(default_run):
    code, report = redteam_json("--policy", "tutorial")
    assert report["policy"] == "tutorial"
    for row in report["attacks"]:
        check_row_shape(row)
    assert report["summary"]["slipped_through"] == 0 and code == 0
    assert report["summary"]["contained"] > default_run[1]["summary"]["contained"]
    assert report["summary"]["blocked"] < default_run[1]["summary"]["blocked"]


def test_with_the_hosts_network_exfiltration_slips_through_and_the_exit_status_says_so():
    # --network gives the sandbox the host's network namespace: the collectors on 127.0.0.1 are reachable,
    # so the traps must see the attacks succeed, and the run must fail.
    code, report = redteam_json("--no-scan", "--network", "--category", "exfiltration")
    assert report["network"] is True
    by_name = {r["name"]: r for r in report["attacks"]}
    assert {r["category"] for r in report["attacks"]} == {"exfiltration"}
    socket_exfil = by_name["socket-exfil"]
    assert socket_exfil["result"] == "slipped_through"
    assert any("reached the host's collector" in e for e in socket_exfil["evidence"])
    assert any(e.startswith("the attack reported: PWNED") for e in socket_exfil["evidence"])
    assert by_name["dns-exfil"]["result"] == "slipped_through"
    assert any("datagram(s) reached" in e for e in by_name["dns-exfil"]["evidence"])
    assert by_name["abstract-unix-socket"]["result"] == "slipped_through"
    assert report["summary"]["slipped_through"] >= 3 and report["passed"] is False
    assert code == 1
    text = redteam("--no-scan", "--network", "--attack", "socket-exfil")
    assert text.returncode == 1
    assert "SLIPPED THROUGH" in text.stdout and "1 slipped through" in text.stdout


def test_text_table_and_summary():
    result = redteam("--category", "resources,escape")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("#") and "result" in line and "what happened" in line for line in lines)
    assert "fork-bomb" in result.stdout and "ptrace-attach" in result.stdout
    assert "socket-exfil" not in result.stdout
    summary = [line for line in lines if line.startswith("summary: ")]
    assert len(summary) == 1 and "0 slipped through" in summary[0]
    assert lines[-1] == "PASS: nothing slipped through"


def test_bad_options_are_usage_errors():
    unknown_category = redteam("--category", "nonsense")
    assert unknown_category.returncode == 2
    assert "unknown category 'nonsense'" in unknown_category.stderr and "secrets" in unknown_category.stderr
    assert redteam("--attack", "nope").returncode == 2
    bad_policy = redteam("--policy", "lax")
    assert bad_policy.returncode == 2 and "tutorial, standard or strict" in bad_policy.stderr
    assert redteam("extra-argument").returncode == 2
    help_text = redteam("--help")
    assert help_text.returncode == 0 and "SLIPPED THROUGH" in help_text.stdout
