"""`e2beval serve --tls-cert FILE --tls-key FILE` serves HTTPS: the official SDK, trusting the test's own CA
through SSL_CERT_FILE (what both of its transports read: pyqwest's rustls loads it as its system roots, httpx
builds its SSL context from it), creates a sandbox and runs code, files and commands; closing the connection
still interrupts a cell under TLS; plain HTTP on the HTTPS port gets a clear 400; bad certificate options exit 2."""
import json
import os
import socket
import ssl
import subprocess
import sys
import textwrap
from urllib.parse import urlsplit

import httpx
import pytest

from serve_process import ServeProcess

SERVE_BINARY = os.environ.get("E2BEVAL_SERVE_BINARY") or "e2beval"


def _openssl(*arguments, cwd):
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    """A CA and a server certificate it signed for 127.0.0.1 and localhost (rustls wants a CA-signed leaf
    with a subjectAltName; a self-signed CA certificate used as the leaf is refused)."""
    directory = tmp_path_factory.mktemp("tls")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", "/CN=e2beval test CA", cwd=directory)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
             "-subj", "/CN=127.0.0.1", cwd=directory)
    (directory / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                                          "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "server.pem", "-days", "2", "-extfile", "server.ext", cwd=directory)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.pem", "-days", "2",
             "-subj", "/CN=other", cwd=directory)
    return directory


@pytest.fixture(scope="module")
def https_server(certificates):
    server = ServeProcess("--tls-cert", str(certificates / "server.pem"), "--tls-key", str(certificates / "server.key"))
    yield server
    server.stop()


# Run in a process of its own so that the SDK builds its transports with SSL_CERT_FILE set (they are cached per
# process, and other test modules may have built them already).
SDK_SCRIPT = textwrap.dedent("""
    import json
    from e2b.exceptions import TimeoutException
    from e2b_code_interpreter import Sandbox
    seen = {}
    with Sandbox.create(timeout=120) as sandbox:
        seen["run_code"] = sandbox.run_code("6 * 7").text
        sandbox.files.write("/home/user/tls.txt", "over TLS")
        seen["files"] = sandbox.files.read("/home/user/tls.txt")
        command = sandbox.commands.run("echo one; echo two >&2")
        seen["commands"] = [command.exit_code, command.stdout, command.stderr]
        try:
            sandbox.run_code("import time\\ntime.sleep(600)\\nfinished = True", timeout=2)
            seen["interrupt"] = "no timeout"
        except TimeoutException:
            seen["after_interrupt"] = sandbox.run_code("1 + 1", timeout=60).text
            # Interrupted, not left to finish: the statement after the sleep never ran.
            seen["interrupted"] = sandbox.run_code("'finished' not in globals()").text
        seen["listed"] = [info.sandbox_id for info in Sandbox.list().next_items()] == [sandbox.sandbox_id]
    seen["left"] = len(Sandbox.list().next_items())
    print(json.dumps(seen))
""")


def test_the_official_sdk_works_over_https(https_server, certificates):
    assert https_server.env["E2B_API_URL"].startswith("https://127.0.0.1:")
    assert https_server.env["E2B_SANDBOX_URL"] == https_server.env["E2B_API_URL"]
    environment = {**os.environ, **https_server.env, "SSL_CERT_FILE": str(certificates / "ca.pem")}
    environment.pop("SSL_CERT_DIR", None)
    finished = subprocess.run([sys.executable, "-c", SDK_SCRIPT], env=environment, capture_output=True, text=True,
                              timeout=180)
    assert finished.returncode == 0, finished.stderr
    seen = json.loads(finished.stdout.strip().splitlines()[-1])
    assert seen == {"run_code": "42", "files": "over TLS", "commands": [0, "one\n", "two\n"], "after_interrupt": "2",
                    "interrupted": "True", "listed": True, "left": 0}


def test_an_untrusted_client_cannot_talk_to_it(https_server):
    # Without the CA, certificate verification fails: the TLS is real, not a plain socket with an https URL.
    with pytest.raises(httpx.ConnectError):
        httpx.get(https_server.env["E2B_API_URL"] + "/v2/sandboxes", verify=True, timeout=30)


def test_plain_http_to_the_https_port_gets_a_clear_400(https_server, certificates):
    plain_url = https_server.env["E2B_API_URL"].replace("https://", "http://")
    answer = httpx.get(plain_url + "/v2/sandboxes", headers={"X-API-KEY": https_server.env["E2B_API_KEY"]}, timeout=30)
    assert answer.status_code == 400
    assert "HTTPS" in answer.json()["message"]
    # And the server goes on serving HTTPS.
    served = httpx.get(https_server.env["E2B_API_URL"] + "/v2/sandboxes",
                       headers={"X-API-KEY": https_server.env["E2B_API_KEY"]}, verify=ssl.create_default_context(cafile=str(certificates / "ca.pem")),
                       timeout=30)
    assert served.status_code == 200 and served.json() == []


def test_a_handshake_that_is_garbage_closes_only_that_connection(https_server, certificates):
    address = urlsplit(https_server.env["E2B_API_URL"])
    with socket.create_connection((address.hostname, address.port), timeout=30) as garbage:
        garbage.sendall(b"\x16\x03\x01\x00\x05hello")  # a handshake record header, then nonsense
        try:
            while garbage.recv(4096):  # perhaps a TLS alert, then the close (a hang would raise socket.timeout)
                pass
        except ConnectionResetError:
            pass
    served = httpx.get(https_server.env["E2B_API_URL"] + "/v2/sandboxes",
                       headers={"X-API-KEY": https_server.env["E2B_API_KEY"]}, verify=ssl.create_default_context(cafile=str(certificates / "ca.pem")),
                       timeout=30)
    assert served.status_code == 200


def _serve_fails(*options):
    finished = subprocess.run([SERVE_BINARY, "serve", "--port", "0", *options], capture_output=True, text=True,
                              timeout=60)
    return finished.returncode, finished.stderr


@pytest.mark.parametrize("case", ["cert only", "key only", "missing cert", "missing key", "not pem", "mismatched"])
def test_bad_certificate_options_exit_2_with_a_message(certificates, case):
    cert, key = str(certificates / "server.pem"), str(certificates / "server.key")
    options, expected = {
        "cert only": (["--tls-cert", cert], "--tls-cert and --tls-key go together"),
        "key only": (["--tls-key", key], "--tls-cert and --tls-key go together"),
        "missing cert": (["--tls-cert", str(certificates / "absent.pem"), "--tls-key", key], "cannot be read"),
        "missing key": (["--tls-cert", cert, "--tls-key", str(certificates / "absent.key")], "cannot be read"),
        "not pem": (["--tls-cert", str(certificates / "server.ext"), "--tls-key", key], "is not a PEM certificate chain"),
        "mismatched": (["--tls-cert", cert, "--tls-key", str(certificates / "other.key")], "is not the private key of"),
    }[case]
    status, stderr = _serve_fails(*options)
    assert status == 2, stderr
    assert expected in stderr, stderr


def test_a_client_that_sends_close_notify_before_closing_interrupts_its_cell(https_server, certificates):
    """A TLS client may end with a close_notify alert, then its FIN (Python's ssl unwrap() does, as do others):
    the server must still see that client as gone and interrupt its cell, though the alert's bytes are
    waiting, unread, on the socket."""
    trust = ssl.create_default_context(cafile=str(certificates / "ca.pem"))
    api = https_server.env["E2B_API_URL"]
    created = httpx.post(api + "/v2/sandboxes", json={"templateID": "code-interpreter-v1", "timeout": 120},
                         headers={"X-API-KEY": https_server.env["E2B_API_KEY"]}, verify=trust, timeout=60)
    assert created.status_code == 201, created.text
    sandbox = created.json()
    headers = {"E2b-Sandbox-Id": sandbox["sandboxID"], "E2b-Sandbox-Port": "49999",
               "X-Access-Token": sandbox["envdAccessToken"]}
    try:
        address = urlsplit(api)
        # Had it run to its end, the cell would leave a file behind.
        body = json.dumps({"code": "import time\ntime.sleep(30)\nopen('/tmp/finished', 'w').write('x')"}).encode()
        raw = socket.create_connection((address.hostname, address.port), timeout=30)
        tls = trust.wrap_socket(raw, server_hostname=address.hostname)
        tls.sendall(b"POST /execute HTTP/1.1\r\nHost: " + address.netloc.encode() + b"\r\nContent-Type: application/json\r\n" +
                    b"".join(f"{name}: {value}\r\n".encode() for name, value in headers.items()) +
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        tls.settimeout(5)
        try:
            tls.recv(1)  # the answer has started (or the first keepalive): the cell runs
        except socket.timeout:
            pass
        tls.settimeout(1)
        try:
            plain = tls.unwrap()  # sends close_notify; the server does not answer it while it streams
        except (socket.timeout, ssl.SSLError, OSError):
            plain = tls  # the alert went out or is stuck; either way the FIN follows
        plain.shutdown(socket.SHUT_WR)  # then the FIN
        # The cell is interrupted: the next one runs at once, and finds no file (had the server missed the
        # client's close, the next cell would have waited for the first to finish, file and all).
        answer = httpx.post(api + "/execute", json={"code": "import os\nos.path.exists('/tmp/finished')"},
                            headers=headers, verify=trust, timeout=60)
        results = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
        assert answer.status_code == 200 and {"type": "result", "text": "False"}.items() <= next(
            (line for line in results if line.get("type") == "result"), {}).items(), answer.text
        plain.close()
    finally:
        httpx.delete(api + "/sandboxes/" + sandbox["sandboxID"], headers={"X-API-KEY": https_server.env["E2B_API_KEY"]},
                     verify=trust, timeout=30)
