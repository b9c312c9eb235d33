"""Abusive and unlucky clients of SandboxFusion's API on `e2beval serve` (as tests/serve/test_slow_clients.py does
for E2B's routes): slow clients, a flood past the run queue, oversized and malformed bodies, paths that leave the
workspace, non-loopback clients and the token. Meanwhile other clients are served, and afterwards the server
still answers and has left nothing behind. No timing asserts: every wait is for a condition, with a bound."""
import base64
import http.client
import json
import os
import socket
import tempfile
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from sf_server import SandboxFusionServer
from support.processes import descendants, tcp_connections
from support.waiting import until

# One run at a time and two places in the queue, so that a flood is easy to make; short request deadlines.
SERVE_OPTIONS = ["--sandbox-fusion-jobs", "1", "--sandbox-fusion-queue", "2", "--max-body-mb", "1",
                 "--header-timeout", "2", "--body-timeout", "2",
                 "--sandbox-fusion-fetch-file-mb", "1", "--sandbox-fusion-fetch-total-mb", "2"]
# A bound on any wait for the server to act, not a measurement.
PATIENCE = 120


def read_all(pid, source, count):
    """Waits until the server has read the `count` requests `source` sent it, each on a connection of its own
    (nothing left unread on them): it queues a request as it reads it."""
    def read():
        unread = [left for peer, left in tcp_connections(pid) if peer == source]
        return len(unread) == count and not any(unread)
    until(read, f"the server reading {source}'s {count} requests")


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def fd_targets(pid):
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
    return sorted(targets)


@pytest.fixture(scope="module")
def server_tmp(tmp_path_factory):
    """The module server's TMPDIR: a directory of its own, so that what it leaves there is told apart from what
    tests running beside it (pytest-xdist) create in /tmp."""
    return tmp_path_factory.mktemp("serve-tmpdir")


@pytest.fixture(scope="module")
def sandbox_fusion_server(server_tmp):
    """The conftest's server, with SERVE_OPTIONS and its own TMPDIR."""
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(server_tmp)
    try:
        server = SandboxFusionServer(*SERVE_OPTIONS)
    finally:
        if saved is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = saved
    yield server
    assert server.stop() == 0, "e2beval serve did not stop cleanly: " + server.process.stderr.read()


def tmp_entries(directory):
    return set(os.listdir(directory))


class Client:
    """One request on its own connection from `source` (127.0.0.1, 127.0.0.2, ...: all loopback, distinct
    addresses for the fair queue), answered in a background thread."""

    pool = ThreadPoolExecutor(max_workers=16)

    def __init__(self, server, path, payload, source="127.0.0.1"):
        self.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=PATIENCE, source_address=(source, 0))
        body = json.dumps(payload).encode()
        self.connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        self.answer = Client.pool.submit(self._read)

    def _read(self):
        response = self.connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()

    def go_away(self):
        if self.connection.sock is not None:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def run(endpoint, **fields):
    payload = {"language": "python", "compile_timeout": 30, "run_timeout": 30, **fields}
    return requests.post(endpoint + "/run_code", json=payload, timeout=PATIENCE)


@pytest.fixture(scope="module")
def baseline(sandbox_fusion_server, server_tmp):
    """The server's state once warm, to compare with at the end: a few Python runs made its zygote, which keeps the
    two cgroups its executions take in turn (docs/sandbox.md, "Warm pool"), and their files open."""
    for _ in range(3):
        assert run(sandbox_fusion_server.endpoint, code="print(1)").json()["status"] == "Success"
    # The last answer's connection closes a moment after the client read it: counted once the server holds none.
    pid = sandbox_fusion_server.process.pid
    until(lambda: not tcp_connections(pid), "the server closing its clients' connections")
    return {"fds": fd_count(pid), "tmp": tmp_entries(server_tmp),
            "fd_targets": fd_targets(sandbox_fusion_server.process.pid)}


def test_slow_client_is_cut_off_while_others_are_served(sandbox_fusion_server, baseline):
    stalled = socket.create_connection(("127.0.0.1", sandbox_fusion_server.port), timeout=PATIENCE)
    stalled.sendall(b"POST /run_code HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 1000\r\n\r\n{\"code\": \"print(")
    answer = run(sandbox_fusion_server.endpoint, code="print('served')")
    assert answer.json()["run_result"]["stdout"] == "served\n"
    try:
        assert stalled.recv(4096) == b""  # the server closed it at the body deadline, without an answer
    except ConnectionResetError:
        pass
    stalled.close()


def test_a_flood_past_the_queue_gets_503_while_another_client_is_served(sandbox_fusion_server, baseline):
    server = sandbox_fusion_server
    pid = server.process.pid
    # A's first request holds the only run slot until A goes away.
    holder = Client(server, "/run_code", {"code": "sleep 300", "language": "bash", "run_timeout": 300})
    until(lambda: "sleep" in descendants(pid).values(), "the holder's program to run")
    # Five more from A: two wait, three find the queue full at once.
    flood = [Client(server, "/run_code", {"code": "sleep 0.2; echo a", "language": "bash"}) for _ in range(5)]
    until(lambda: sum(1 for c in flood if c.answer.done()) >= 3, "three of the flood to be refused")
    refused = [c.answer.result() for c in flood if c.answer.done()]
    assert [status for status, _, _ in refused] == [503, 503, 503]
    for status, headers, body in refused:
        assert headers.get("Retry-After") == "1"
        detail = json.loads(body)["detail"]
        assert "queue is full" in detail and "--sandbox-fusion-queue" in detail
    # Another client (another loopback address) is not kept out: it takes the newest place of A, the biggest holder.
    other = Client(server, "/run_code", {"code": "read w; echo $w$w", "language": "bash", "stdin": "b\n"}, source="127.0.0.2")
    until(lambda: sum(1 for c in flood if c.answer.done()) >= 4, "A's newest waiter to give its place up")
    # A goes away: its run is killed and the slot passes on (A's oldest waiter, then the other client, in turn).
    holder.go_away()
    status, _, body = other.answer.result(timeout=PATIENCE)
    assert status == 200 and json.loads(body)["run_result"]["stdout"] == "bb\n"
    answers = [c.answer.result(timeout=PATIENCE) for c in flood]
    assert sorted(status for status, _, _ in answers) == [200, 503, 503, 503, 503]
    until(lambda: "sleep" not in descendants(pid).values(), "the holder's program to be killed")


def test_a_waiting_client_that_goes_away_leaves_the_queue(sandbox_fusion_server, baseline):
    server = sandbox_fusion_server
    pid = server.process.pid
    holder = Client(server, "/run_code", {"code": "sleep 300", "language": "bash", "run_timeout": 300})
    until(lambda: "sleep" in descendants(pid).values(), "the holder's program to run")
    gone = [Client(server, "/run_code", {"code": "echo gone", "language": "bash"}, source="127.0.0.3") for _ in range(2)]
    read_all(pid, "127.0.0.3", 2)  # queued before they leave
    for client in gone:
        client.go_away()
    # Both places are free again: two waiters from one client fit (with A's places still taken, the second
    # would be refused).
    waiting = [Client(server, "/run_code", {"code": "echo $((6 * 7))", "language": "bash"}, source="127.0.0.4") for _ in range(2)]
    holder.go_away()
    for client in waiting:
        status, _, body = client.answer.result(timeout=PATIENCE)
        assert status == 200, body
        assert json.loads(body)["run_result"]["stdout"] == "42\n"


def test_an_oversized_body_is_413(sandbox_fusion_server, baseline):
    big = "x" * (2 << 20)
    answer = requests.post(sandbox_fusion_server.endpoint + "/run_code", json={"code": big, "language": "python"}, timeout=PATIENCE)
    assert answer.status_code == 413
    assert "--max-body-mb" in answer.text


def test_files_larger_than_the_workspace_are_422():
    # Files that fit in the body (100 MiB by default) but not in a run's 64 MiB workspace.
    server = SandboxFusionServer()
    try:
        data = base64.b64encode(b"\0" * (70 << 20)).decode()
        answer = run(server.endpoint, code="1", files={"big.bin": data})
        assert answer.status_code == 422
        assert answer.json()["detail"][0]["loc"] == ["body", "files"] and "workspace" in answer.json()["detail"][0]["msg"]
    finally:
        assert server.stop() == 0


def test_bad_json_and_unknown_fields_are_422(sandbox_fusion_server, baseline):
    endpoint = sandbox_fusion_server.endpoint
    bad = requests.post(endpoint + "/run_code", data=b'{"code": "print(1)", "language": ', timeout=PATIENCE,
                        headers={"Content-Type": "application/json"})
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["type"] == "json_invalid"
    unknown = requests.post(endpoint + "/run_code", json={"code": "1", "language": "python", "run_timout": 5}, timeout=PATIENCE)
    assert unknown.status_code == 422
    assert unknown.json()["detail"][0]["type"] == "extra_forbidden"
    assert unknown.json()["detail"][0]["loc"] == ["body", "run_timout"]
    missing = requests.post(endpoint + "/run_code", json={"language": "python"}, timeout=PATIENCE)
    assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == ["body", "code"]
    mistyped = requests.post(endpoint + "/run_code", json={"code": "1", "language": "python", "run_timeout": "soon"}, timeout=PATIENCE)
    assert mistyped.status_code == 422 and mistyped.json()["detail"][0]["loc"] == ["body", "run_timeout"]
    too_long = requests.post(endpoint + "/run_code", json={"code": "1", "language": "python", "run_timeout": 100000}, timeout=PATIENCE)
    assert too_long.status_code == 422 and "--sandbox-fusion-max-timeout" in too_long.text
    too_big = requests.post(endpoint + "/run_code", json={"code": "1", "language": "python", "memory_limit_MB": 1 << 20}, timeout=PATIENCE)
    assert too_big.status_code == 422 and "--sandbox-fusion-max-memory-mb" in too_big.text
    not_object = requests.post(endpoint + "/run_jupyter", json=["print(1)"], timeout=PATIENCE)
    assert not_object.status_code == 422


def test_fetched_files_past_the_caps_are_left_out_and_said(sandbox_fusion_server, baseline):
    # This server's caps: 1 MiB a file, 2 MiB in all (SERVE_OPTIONS).
    code = ("import os\n"
            "open('big.bin', 'wb').write(os.urandom(1536 * 1024))\n"
            "for name in ('a', 'b', 'c'):\n"
            "    open(name + '.bin', 'wb').write(os.urandom(900 * 1024))\n")
    answer = run(sandbox_fusion_server.endpoint, code=code, fetch_files=["big.bin", "a.bin", "b.bin", "c.bin"]).json()
    assert answer["status"] == "Success", answer
    assert sorted(answer["files"]) == ["a.bin", "b.bin"]  # c.bin would pass 2 MiB in all
    assert len(base64.b64decode(answer["files"]["a.bin"])) == 900 * 1024
    assert "'big.bin'" in answer["message"] and "--sandbox-fusion-fetch-file-mb" in answer["message"]
    assert "'c.bin'" in answer["message"] and "--sandbox-fusion-fetch-total-mb" in answer["message"]


def test_a_jupyter_client_that_goes_away_ends_its_session(sandbox_fusion_server, baseline):
    server = sandbox_fusion_server
    pid = server.process.pid
    client = Client(server, "/run_jupyter", {"cells": ["import subprocess", "subprocess.run(['sleep', '300'])"],
                                             "total_timeout": 300})
    until(lambda: "sleep" in descendants(pid).values(), "the cell's program to run")
    client.go_away()
    until(lambda: "sleep" not in descendants(pid).values(), "the session to be killed")
    assert run(server.endpoint, code="print('next')").json()["run_result"]["stdout"] == "next\n"  # the slot is free


def test_a_submit_client_that_goes_away_ends_its_runs(sandbox_fusion_server, baseline):
    server = sandbox_fusion_server
    pid = server.process.pid
    row = {"id": 1, "content": "Sleep.", "labels": {},
           "test": [{"input": {"stdin": ""}, "output": {"stdout": "done"}}]}
    client = Client(server, "/submit", {"dataset": "mine", "id": 1, "completion": "```bash\nsleep 300\n```",
                                        "config": {"dataset_type": "CommonOJDataset", "language": "bash",
                                                   "run_timeout": 300, "provided_data": row}})
    until(lambda: "sleep" in descendants(pid).values(), "the submission's program to run")
    client.go_away()
    until(lambda: "sleep" not in descendants(pid).values(), "the submission's run to be killed")
    assert run(server.endpoint, code="print('next')").json()["run_result"]["stdout"] == "next\n"  # the slot is free


def test_bad_base64_names_the_file(sandbox_fusion_server, baseline):
    answer = run(sandbox_fusion_server.endpoint, code="1", files={"data/in.txt": "not base64!"})
    assert answer.status_code == 422
    error = answer.json()["detail"][0]
    assert error["loc"] == ["body", "files", "data/in.txt"] and "not base64" in error["msg"]
    bad_padding = run(sandbox_fusion_server.endpoint, code="1", files={"a.txt": "aGk"})
    assert bad_padding.status_code == 422


@pytest.mark.parametrize("path", ["../escape.txt", "/etc/escape.txt", "a/../../escape.txt", "a/../..", "nul\0.txt", ""])
def test_paths_that_leave_the_workspace_are_refused(sandbox_fusion_server, baseline, path):
    endpoint = sandbox_fusion_server.endpoint
    into = run(endpoint, code="1", files={path: base64.b64encode(b"x").decode()})
    assert into.status_code == 422, into.text
    assert into.json()["detail"][0]["loc"] == ["body", "files", path]
    out = run(endpoint, code="1", fetch_files=["ok.txt", path])
    assert out.status_code == 422, out.text
    assert out.json()["detail"][0]["loc"] == ["body", "fetch_files", 1]


def test_a_symlink_out_of_the_workspace_fetches_nothing_of_the_host(sandbox_fusion_server, baseline):
    host_secret = tempfile.NamedTemporaryFile("w", prefix="sf-abuse-", delete=False)
    host_secret.write("host secret")
    host_secret.close()
    try:
        code = f"import os\nos.symlink({host_secret.name!r}, 'link')\nos.symlink('/etc/passwd', 'passwd')\n"
        answer = run(sandbox_fusion_server.endpoint, code=code, fetch_files=["link", "passwd"]).json()
        assert answer["status"] == "Success", answer
        for content in answer["files"].values():
            assert base64.b64decode(content) not in (b"host secret", open("/etc/passwd", "rb").read())
    finally:
        os.unlink(host_secret.name)


def test_zz_the_server_still_answers_and_left_nothing(sandbox_fusion_server, baseline, server_tmp):
    """Runs last in this module: after all of the above."""
    server = sandbox_fusion_server
    assert requests.get(server.endpoint + "/v1/ping", timeout=PATIENCE).json() == "pong"
    assert run(server.endpoint, code="print('still here')").json()["run_result"]["stdout"] == "still here\n"
    pid = server.process.pid
    # What may stay: the warm pool's zygote (e2beval's init, its Python and the Python it prepared), nothing else.
    until(lambda: all(comm == "e2beval" or comm.startswith("python") for comm in descendants(pid).values()),
          "only the warm pool's zygote to remain under the server")
    until(lambda: fd_count(pid) == baseline["fds"], f"the server's fd count coming back to {baseline['fds']}",
          timeout=30, detail=lambda: f"{baseline['fd_targets']} then, {fd_targets(pid)} now")
    # The local sandbox makes no host temp dirs (a run's workspace is a tmpfs in its own mount namespace); any the
    # server made would be in its TMPDIR.
    assert tmp_entries(server_tmp) == baseline["tmp"]


def test_a_non_loopback_client_is_refused():
    addresses = [line.split()[3].split("/")[0] for line in os.popen("ip -4 -o addr show scope global").read().splitlines()]
    if not addresses:
        pytest.skip("this host has no non-loopback IPv4 address to be a non-loopback client from")
    server = SandboxFusionServer("--host", "0.0.0.0")
    try:
        outside = f"http://{addresses[0]}:{server.port}"
        refused = requests.post(outside + "/run_code", json={"code": "print(1)", "language": "python"}, timeout=PATIENCE)
        assert refused.status_code == 403
        assert "--sandbox-fusion-token-file" in refused.json()["detail"]
        assert requests.get(outside + "/v1/ping", timeout=PATIENCE).status_code == 403
        # Loopback clients are still served; E2B's API (its own keys) is untouched.
        assert requests.get(f"http://127.0.0.1:{server.port}/v1/ping", timeout=PATIENCE).json() == "pong"
        assert requests.get(outside + "/v2/sandboxes", timeout=PATIENCE).status_code == 401
    finally:
        assert server.stop() == 0


def test_the_token_from_the_environment(monkeypatch):
    token = "sf-" + os.urandom(16).hex()
    monkeypatch.setenv("E2BEVAL_SANDBOX_FUSION_TOKEN", token)
    server = SandboxFusionServer()
    try:
        assert requests.get(server.endpoint + "/v1/ping", timeout=PATIENCE).status_code == 401
        assert requests.get(server.endpoint + "/v1/ping", headers={"Authorization": "Bearer " + token},
                            timeout=PATIENCE).json() == "pong"
    finally:
        assert server.stop() == 0


def test_the_token_is_required_from_everyone_once_set(tmp_path):
    token = "sf-" + os.urandom(16).hex()
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    server = SandboxFusionServer("--sandbox-fusion-token-file", str(token_file))
    try:
        url = server.endpoint + "/run_code"
        payload = {"code": "print('ok')", "language": "python"}
        missing = requests.post(url, json=payload, timeout=PATIENCE)
        assert missing.status_code == 401 and missing.headers["WWW-Authenticate"] == "Bearer"
        wrong = requests.post(url, json=payload, headers={"Authorization": "Bearer " + "x" * len(token)}, timeout=PATIENCE)
        assert wrong.status_code == 401
        right = requests.post(url, json=payload, headers={"Authorization": "Bearer " + token}, timeout=PATIENCE)
        assert right.status_code == 200 and right.json()["run_result"]["stdout"] == "ok\n"
    finally:
        assert server.stop() == 0


def test_zygotes_start_on_the_first_python_run_only():
    server = SandboxFusionServer()
    try:
        # E2B's API used alone (a list) starts nothing; the first SandboxFusion Python run starts the warm pool.
        assert requests.get(server.endpoint + "/v2/sandboxes", timeout=PATIENCE).status_code == 401
        assert descendants(server.process.pid) == {}
        assert run(server.endpoint, code="print(1)").json()["status"] == "Success"
        until(lambda: any(comm.startswith("python") for comm in descendants(server.process.pid).values()),
              "a zygote after the first Python run")
    finally:
        assert server.stop() == 0


def test_waiting_requests_are_served_round_robin_by_client():
    server = SandboxFusionServer("--sandbox-fusion-jobs", "1", "--sandbox-fusion-queue", "16")
    try:
        pid = server.process.pid
        holder = Client(server, "/run_code", {"code": "sleep 300", "language": "bash", "run_timeout": 300})
        until(lambda: "sleep" in descendants(pid).values(), "the holder's program to run")
        # Each run prints when it ran (the sandbox's monotonic clock is the host's): the order they were served in.
        stamp = {"code": "cat /proc/uptime", "language": "bash"}
        flood = [Client(server, "/run_code", stamp, source="127.0.0.5") for _ in range(6)]
        read_all(pid, "127.0.0.5", 6)  # the flood reaches the queue first, as a flood would
        other = Client(server, "/run_code", stamp, source="127.0.0.6")
        read_all(pid, "127.0.0.6", 1)
        holder.go_away()

        def ran_at(client):
            status, _, body = client.answer.result(timeout=PATIENCE)
            assert status == 200, body
            return float(json.loads(body)["run_result"]["stdout"].split()[0])

        flood_times = sorted(ran_at(client) for client in flood)
        # First come, first served would run the other client's request after all six; round-robin runs it
        # after at most one of them.
        assert ran_at(other) <= flood_times[1], (ran_at(other), flood_times)
    finally:
        assert server.stop() == 0


def test_stopping_the_server_ends_a_running_jupyter_cell():
    server = SandboxFusionServer()
    pid = server.process.pid
    client = Client(server, "/run_jupyter", {"cells": ["import subprocess", "subprocess.run(['sleep', '300'])"],
                                             "total_timeout": 300})
    sleeper = until(lambda: [p for p, comm in descendants(pid).items() if comm == "sleep"], "the cell's program to run")[0]
    # SIGTERM: the session is killed with the server, not waited for until its cell's limit (300 s).
    server.process.terminate()
    assert server.process.wait(timeout=PATIENCE) == 0
    client.answer.exception(timeout=PATIENCE)  # the request ended with the server, one way or another
    assert not os.path.exists(f"/proc/{sleeper}")
