"""The daemon's key covers the E2B settings: a `backend: e2b` assertion pointed at another E2B server (or with
another key) must not be graded by a daemon that was started for the first one."""
import subprocess
import sys

KEY_OF = "from e2beval import daemon_client; print(daemon_client.daemon_key())"


def _key(**environment):
    import os

    env = {name: value for name, value in os.environ.items() if not name.startswith("E2B_")}
    env.update(environment)
    return subprocess.run([sys.executable, "-c", KEY_OF], env=env, capture_output=True, text=True, check=True,
                          timeout=60).stdout.strip()


def test_another_e2b_server_or_key_gets_another_daemon():
    first = _key(E2B_API_URL="http://127.0.0.1:3000", E2B_API_KEY="e2b_" + "1" * 40)
    assert first == _key(E2B_API_URL="http://127.0.0.1:3000", E2B_API_KEY="e2b_" + "1" * 40)
    assert first != _key(E2B_API_URL="http://127.0.0.1:3001", E2B_API_KEY="e2b_" + "1" * 40)
    assert first != _key(E2B_API_URL="http://127.0.0.1:3000", E2B_API_KEY="e2b_" + "2" * 40)
    # The key is a hash: no setting (the API key least of all) shows in the daemon's file names.
    assert "1111" not in first and len(first) == 20
