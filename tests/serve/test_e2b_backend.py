"""The E2B backend (`--backend e2b`, `e2beval.execute(backend="e2b")`) against a real `e2beval serve`, through a
fault-injecting TLS proxy (fault_proxy.py) trusted through a CA made here: for each fault, the right retry or a
clear error naming the call, correct results where the run can succeed, the API key in no output, and no
sandbox left on the server afterwards (asked through its list API)."""
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from serve_process import ServeProcess
from fault_proxy import FaultProxy
from tls_test_ca import make_test_certificates

KEY = {}  # the key the module's server generated (its export line)
BINARY = os.environ.get("E2BEVAL_SERVE_BINARY") or "e2beval"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    return make_test_certificates(tmp_path_factory.mktemp("e2b-tls"))


@pytest.fixture(scope="module")
def plain_serve():
    server = ServeProcess("--max-sandboxes", "24", "--creation-rate", "100", "--ready-sandboxes", "2")
    KEY["value"] = server.env["E2B_API_KEY"]
    yield server
    assert server.stop() == 0


@pytest.fixture(scope="module")
def proxy(plain_serve, certificates):
    port = int(plain_serve.env["E2B_API_URL"].rsplit(":", 1)[1])
    fault_proxy = FaultProxy(port, str(certificates / "proxy.pem"), str(certificates / "proxy.key")).start()
    yield fault_proxy
    fault_proxy.stop()


@pytest.fixture
def faults(proxy):
    proxy.clear()
    yield proxy
    proxy.clear()


def sandboxes_left(plain_serve):
    request = urllib.request.Request(plain_serve.env["E2B_API_URL"] + "/v2/sandboxes", headers={"X-API-KEY": KEY["value"]})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def e2b_environment(proxy_port, certificates):
    url = f"https://127.0.0.1:{proxy_port}"
    return {**os.environ, "E2B_API_URL": url, "E2B_SANDBOX_URL": url, "E2B_API_KEY": KEY["value"],
            "E2BEVAL_E2B_CA_FILE": str(certificates / "ca.pem"), "E2BEVAL_E2B_CREATION_RATE": "50"}


def run_e2b(tmp_path, proxy_port, certificates, code="print(6 * 7)", *options):
    program = tmp_path / "program.py"
    program.write_text(code)
    done = subprocess.run([BINARY, "run", "--backend", "e2b", "--json", *options, str(program)], capture_output=True,
                          text=True, timeout=120, env=e2b_environment(proxy_port, certificates))
    assert KEY["value"] not in done.stdout + done.stderr
    result = json.loads(done.stdout) if done.stdout.strip().startswith("{") else None
    return done, result


def test_a_run_through_the_proxy_is_correct_and_leaves_nothing(tmp_path, faults, certificates, plain_serve):
    done, result = run_e2b(tmp_path, faults.port, certificates)
    assert done.returncode == 0, done.stderr
    assert result["outcome"] == "ok" and result["stdout"] == "42\n" and result["backend"] == "e2b"
    assert "POST /v2/sandboxes" in faults.seen and "POST /process.Process/Start" in faults.seen
    assert any(route.startswith("DELETE /sandboxes/") for route in faults.seen)
    assert sandboxes_left(plain_serve) == []


def test_429_with_retry_after_is_retried(tmp_path, faults, certificates, plain_serve):
    faults.add("POST /v2/sandboxes", "429", times=2, retry_after="1")
    done, result = run_e2b(tmp_path, faults.port, certificates)
    assert done.returncode == 0, done.stderr
    assert result["stdout"] == "42\n"
    assert faults.seen.count("POST /v2/sandboxes") == 3
    assert sandboxes_left(plain_serve) == []


def test_502_and_503_on_an_idempotent_call_are_retried(tmp_path, faults, certificates, plain_serve):
    faults.add("DELETE /sandboxes/", "503", times=1)
    faults.add("DELETE /sandboxes/", "502", times=1)
    done, result = run_e2b(tmp_path, faults.port, certificates)
    assert done.returncode == 0, done.stderr
    assert len([route for route in faults.seen if route.startswith("DELETE /sandboxes/")]) >= 3
    assert sandboxes_left(plain_serve) == []


def test_a_dropped_connection_on_an_idempotent_call_is_retried(tmp_path, faults, certificates, plain_serve):
    faults.add("DELETE /sandboxes/", "drop", times=1)
    done, result = run_e2b(tmp_path, faults.port, certificates)
    assert done.returncode == 0, done.stderr
    assert faults.applied == [f"drop {route}" for route in faults.seen if route.startswith("DELETE")][:1]
    assert sandboxes_left(plain_serve) == []


def test_500_on_create_is_a_clear_error_not_retried(tmp_path, faults, certificates, plain_serve):
    faults.add("POST /v2/sandboxes", "500", times=1)
    done, result = run_e2b(tmp_path, faults.port, certificates)
    assert done.returncode == 125 and result is None
    assert "create sandbox (POST https://127.0.0.1:" in done.stderr and "HTTP 500" in done.stderr
    assert "injected 500" in done.stderr
    assert faults.seen.count("POST /v2/sandboxes") == 1
    assert sandboxes_left(plain_serve) == []


def test_a_dropped_create_is_a_clear_error_and_the_sweep_leaves_nothing(tmp_path, faults, certificates, plain_serve):
    faults.add("POST /v2/sandboxes", "drop", times=1)
    done, result = run_e2b(tmp_path, faults.port, certificates)
    assert done.returncode == 125
    assert "create sandbox" in done.stderr and "closed before an answer" in done.stderr
    assert "GET /v2/sandboxes" in faults.seen  # the engine's sweep for sandboxes whose creation answer was lost
    assert sandboxes_left(plain_serve) == []


def test_a_reset_in_the_middle_of_a_process_stream_is_a_clear_error(tmp_path, faults, certificates, plain_serve):
    faults.add("POST /process.Process/Start", "reset", after_bytes=150)
    done, result = run_e2b(tmp_path, faults.port, certificates, "import time\nprint('a', flush=True)\ntime.sleep(1)\nprint('b')")
    assert done.returncode == 125
    assert "start process" in done.stderr
    assert "the connection broke in the middle of the answer" in done.stderr
    assert sandboxes_left(plain_serve) == []


def test_a_truncated_process_stream_is_a_clear_error(tmp_path, faults, certificates, plain_serve):
    faults.add("POST /process.Process/Start", "truncate", after_bytes=150)
    done, result = run_e2b(tmp_path, faults.port, certificates, "import time\nprint('a', flush=True)\ntime.sleep(1)\nprint('b')")
    assert done.returncode == 125
    assert "start process" in done.stderr and "broke in the middle" in done.stderr
    assert sandboxes_left(plain_serve) == []


def test_502_from_the_sandbox_means_gone_and_the_run_moves_to_another(tmp_path, faults, certificates, plain_serve):
    faults.add("POST /process.Process/Start", "502", times=1)
    done, result = run_e2b(tmp_path, faults.port, certificates)
    assert done.returncode == 0, done.stderr
    assert result["stdout"] == "42\n"
    assert faults.seen.count("POST /v2/sandboxes") == 2
    assert sandboxes_left(plain_serve) == []


def test_a_stalled_stream_is_a_clear_error_at_its_deadline(tmp_path, faults, certificates, plain_serve):
    # The process never started (no answer at all): the call's own deadline (the wall-clock limit + 10 s) ends it.
    faults.add("POST /process.Process/Start", "stall", seconds=20)
    done, result = run_e2b(tmp_path, faults.port, certificates, "print(1)", "--timeout", "2")
    assert done.returncode == 125
    assert "start process" in done.stderr and "no answer before the deadline" in done.stderr
    assert sandboxes_left(plain_serve) == []


def test_a_bad_certificate_is_refused_clearly(tmp_path, certificates, plain_serve):
    port = int(plain_serve.env["E2B_API_URL"].rsplit(":", 1)[1])
    impostor = FaultProxy(port, str(certificates / "bad.pem"), str(certificates / "bad.key")).start()
    try:
        done, result = run_e2b(tmp_path, impostor.port, certificates)
    finally:
        impostor.stop()
    assert done.returncode == 125
    assert "create sandbox" in done.stderr
    assert "certificate is not trusted" in done.stderr and "attempts" not in done.stderr
    assert impostor.seen == []
    assert sandboxes_left(plain_serve) == []


def test_python_execute_with_backend_e2b(faults, certificates, plain_serve):
    script = ("import e2beval, json\n"
              "print(json.dumps(e2beval.execute('import sys; print(sys.stdin.read()[::-1])', stdin='abc', backend='e2b')))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env=e2b_environment(faults.port, certificates))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["outcome"] == "ok" and result["stdout"] == "cba\n" and result["backend"] == "e2b"
    assert sandboxes_left(plain_serve) == []


def test_python_evaluate_and_evaluate_many_with_backend_e2b(faults, certificates, plain_serve):
    """Issue 33: evaluate() and evaluate_many() take backend= as execute() does; the verdicts are the local ones,
    the programs ran on the E2B server (each result's backend), and nothing is left on it."""
    script = (
        "import e2beval, json\n"
        "answer = '```python\\ndef double(x):\\n    return 2 * x\\n```\\n'\n"
        "good = {'function_name': 'double', 'test_input': '21', 'expected_output': '42'}\n"
        "wrong = {'function_name': 'double', 'test_input': '2', 'expected_output': '5'}\n"
        "one = e2beval.evaluate(answer, good, backend='e2b')\n"
        "many = e2beval.evaluate_many([(answer, good), (answer, wrong), (answer, {'nothing': 1})], backend='e2b')\n"
        "local = e2beval.evaluate_many([(answer, good), (answer, wrong)])\n"
        "try:\n    e2beval.evaluate(answer, good, backend='cloud')\n"
        "except e2beval.InputError as error:\n    refused = str(error)\n"
        "print(json.dumps({'one': one, 'many': many, 'local': local, 'refused': refused}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env=e2b_environment(faults.port, certificates))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["one"]["pass"] is True and answer["one"]["exec"]["backend"] == "e2b"
    assert [verdict["pass"] for verdict in answer["many"]] == [True, False, False]
    assert [verdict["exec"]["backend"] for verdict in answer["many"][:2]] == ["e2b", "e2b"]
    assert answer["many"][1]["reason"] == answer["local"][1]["reason"] == "Expected 5, got 4"
    assert answer["many"][2]["reason"].startswith("Invalid test: vars describe no test")
    assert {verdict["exec"]["backend"] for verdict in answer["local"]} == {"local"}
    assert answer["refused"] == "backend must be 'local' or 'e2b', got 'cloud'"
    assert "POST /process.Process/Start" in faults.seen
    assert sandboxes_left(plain_serve) == []


def test_a_template_on_the_e2b_backend_is_the_remote_template(tmp_path, faults, certificates, plain_serve):
    # serve maps E2B's own "base" to its default environment; a template it does not know is its 404, named.
    done, result = run_e2b(tmp_path, faults.port, certificates, "print(6 * 7)", "--template", "base")
    assert done.returncode == 0, done.stderr
    assert result["outcome"] == "ok" and result["stdout"] == "42\n"
    done, result = run_e2b(tmp_path, faults.port, certificates, "print(6 * 7)", "--template", "no-such-template")
    assert done.returncode != 0
    assert "no-such-template" in done.stderr
    script = ("import e2beval\n"
              "try:\n    e2beval.execute('print(1)', backend='e2b', template='no-such-template')\n"
              "except Exception as error:\n    print(type(error).__name__, error)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env=e2b_environment(faults.port, certificates))
    assert done.returncode == 0, done.stderr
    assert "no-such-template" in done.stdout
    assert sandboxes_left(plain_serve) == []


def test_humaneval_164_with_16_jobs_on_e2b_all_canonical_pass(faults, certificates, plain_serve):
    dataset = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "HumanEval.jsonl.gz"
    done = subprocess.run([BINARY, "eval", "--backend", "e2b", "--jobs", "16", "--humaneval", str(dataset), "--json",
                           "--no-metrics"],
                          capture_output=True, text=True, timeout=300, env=e2b_environment(faults.port, certificates))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    report = json.loads(done.stdout)
    assert report["backend"] == "e2b" and report["total"] == 164 and report["passed"] == 164
    assert report["e2b"]["sandboxes_created"] <= 16  # reused, never one per sample
    assert sandboxes_left(plain_serve) == []
