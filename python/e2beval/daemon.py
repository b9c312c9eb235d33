"""The e2beval daemon: grades promptfoo assertion calls for the short-lived Python processes promptfoo starts,
with one loaded core and one warm pool for all of them. Started on demand by the first assertion
(e2beval/daemon_client.py), shared by every assertion of this user with the same setting, ended when idle.

Who may reach it: the socket lives in a directory only this user can enter (daemon_client.runtime_directory),
and every connection's peer must have this user's uid (SO_PEERCRED). The code under test runs inside the
sandbox, whose fresh root holds neither that directory nor any descriptor of this process.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time
import traceback
from typing import List, Optional, Tuple

from e2beval import daemon_client

# A connection must deliver its request this soon: an assertion sends it right after connecting.
REQUEST_DEADLINE_S = 30.0

# How long a starting daemon waits for the key's lock when another daemon holds it but does not listen (it
# is ending: it unlinked its socket and is finishing its last calls).
LOCK_DEADLINE_S = 5.0

EXIT_COULD_NOT_LOCK = 3

# A log of a daemon that is gone is kept this long when it holds more than the daemon's start and end (a crash,
# a refused caller, a failed warm-up), for the user to read; then the next daemon to start sweeps it away.
STALE_LOG_S = 24 * 3600.0

# Whether this daemon logged anything but its start and its idle end: then its log is kept when it ends.
_noteworthy = False

# SO_PEERCRED's struct ucred {pid_t pid; uid_t uid; gid_t gid;}: three native 32-bit integers.
_UCRED_BYTES = 12


class Daemon:
    """Accepts connections on ``listener`` and grades each on its own thread, until idle for ``idle_s``."""

    def __init__(self, listener: socket.socket, path: str, idle_s: float) -> None:
        self.listener = listener
        self.path = path
        self.inode = os.stat(path).st_ino
        self.idle_s = idle_s
        self.lock = threading.Lock()
        self.active = 0
        self.last_activity = time.monotonic()
        self.threads: List[threading.Thread] = []
        self.stopping = False  # SIGTERM: end as when idle, without dropping a caller

    def serve(self) -> None:
        self.listener.settimeout(min(1.0, self.idle_s))
        while not self._idle() and not self.stopping:
            try:
                connection, _ = self.listener.accept()
            except socket.timeout:
                continue
            self._start(connection)
        self._close()

    def _idle(self) -> bool:
        with self.lock:
            return self.active == 0 and time.monotonic() - self.last_activity >= self.idle_s

    def _start(self, connection: socket.socket) -> None:
        with self.lock:
            self.active += 1
            self.last_activity = time.monotonic()
        thread = threading.Thread(target=self._handle, args=(connection,), name="e2beval-daemon-call")
        self.threads = [t for t in self.threads if t.is_alive()] + [thread]
        thread.start()

    def _close(self) -> None:
        """Ends without dropping a caller: first the socket goes (new assertions start a new daemon), then the
        connections already queued on it are served, then the calls in progress finish."""
        try:
            if os.stat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except FileNotFoundError:
            pass
        self.listener.setblocking(False)
        while True:
            try:
                connection, _ = self.listener.accept()
            except (BlockingIOError, socket.timeout):
                break
            connection.setblocking(True)
            self._start(connection)
        self.listener.close()
        for thread in self.threads:
            thread.join()

    def _handle(self, connection: socket.socket) -> None:
        try:
            self._answer(connection)
        except (OSError, EOFError, ValueError) as error:
            _log(f"a call ended without an answer: {error!r}")
        finally:
            connection.close()
            with self.lock:
                self.active -= 1
                self.last_activity = time.monotonic()

    def _answer(self, connection: socket.socket) -> None:
        credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED_BYTES)
        uid = int.from_bytes(credentials[4:8], sys.byteorder)
        if uid != os.getuid():
            # Unreachable through the 0700 directory except for root; refused all the same.
            _log(f"refused a connection from uid {uid}")
            daemon_client.send_frame(connection, json.dumps(
                {"refused": f"this daemon serves uid {os.getuid()} only, not uid {uid}"}).encode("utf-8"))
            _discard_until_closed(connection)
            return
        request = json.loads(daemon_client.receive_frame(connection, time.monotonic() + REQUEST_DEADLINE_S))
        from e2beval import promptfoo

        try:
            caller = promptfoo.Caller(**request["caller"])
            result = promptfoo.grade(request["output"], request["context"], float(request["started"]), caller)
            reply = {"result": result}
        except Exception:  # a bug in grading: the assertion raises it, as it would have in its own process
            reply = {"error": traceback.format_exc(limit=8)}
        daemon_client.send_frame(connection, json.dumps(reply).encode("utf-8"))


def _discard_until_closed(connection: socket.socket) -> None:
    """Reads and drops what a refused caller sends (never parsed) until it hangs up, for a second at most:
    closing a Unix socket with unread data resets it, and the caller would lose the refusal."""
    connection.shutdown(socket.SHUT_WR)
    connection.settimeout(1.0)
    deadline, dropped = time.monotonic() + 1.0, 0
    try:
        while time.monotonic() < deadline and dropped < (1 << 24):
            chunk = connection.recv(1 << 16)
            if not chunk:
                return
            dropped += len(chunk)
    except OSError:  # it hung up, or said nothing more within the second
        pass


def main(argv: List[str]) -> int:
    """``main([socket_path, working_directory])``: serve at ``socket_path`` (in daemon_client.runtime_directory())
    until idle, in ``working_directory`` (daemon_client.key_directory(), else /)."""
    path = argv[0]
    os.chdir(argv[1] if len(argv) > 1 else "/")
    idle_s = daemon_client.seconds_setting(daemon_client.IDLE_VARIABLE, daemon_client.IDLE_S)
    # Per call: every request carries what they decide (its run id, its results directory).
    for variable in ("E2BEVAL_RUN_ID", "PROMPTFOO_RESULTS_DIR"):
        os.environ.pop(variable, None)

    listener, status = _own(path)
    if listener is None:
        return status
    _log(f"serving {path} (pid {os.getpid()}, idle exit after {idle_s:g} s)", routine=True)
    _sweep_stale(os.path.dirname(path), path)
    from e2beval import _core

    _core.__version__  # noqa: B018  (load the compiled core now, not in the first call)
    threading.Thread(target=_warm_up, name="e2beval-daemon-warm-up", daemon=True).start()
    daemon = Daemon(listener, path, idle_s)

    def stop(number, frame):  # noqa: ARG001
        daemon.stopping = True

    signal.signal(signal.SIGTERM, stop)
    daemon.serve()
    _log("stopped (SIGTERM): ended" if daemon.stopping else "idle: ended", routine=True)
    _remove_own_files(path)
    return 0


def _own(path: str) -> Tuple[Optional[socket.socket], int]:
    """Takes the key's lock (held until this process ends: one daemon per key) and binds the socket in place of
    whatever a dead daemon left there. (None, exit status) when another daemon holds the lock."""
    deadline = time.monotonic() + LOCK_DEADLINE_S
    while True:
        lock = daemon_client.take_lock_file(daemon_client.lock_path(path), None)
        if lock is not None:
            break  # held until this process ends (the descriptor is never closed)
        probe = daemon_client.connect(path, timeout_s=0.2)
        if probe is not None:
            probe.close()
            return None, daemon_client.EXIT_ANOTHER_SERVES
        if time.monotonic() > deadline:
            _log(f"another daemon holds {daemon_client.lock_path(path)} but does not answer; giving up")
            return None, EXIT_COULD_NOT_LOCK
        time.sleep(0.01)
    try:
        os.unlink(path)  # a stale socket: its daemon is dead, or it would hold the lock
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o600)
    listener.listen(128)
    return listener, 0


def _remove_own_files(path: str) -> None:
    """A daemon that ends leaves nothing behind: its socket went first (Daemon._close), then its .start, .lock and
    (unless it holds more than the start and the end) .log go. Unless an assertion is starting the next daemon of
    this key right now (it holds .start): the files are then that one's. A daemon that waits for the .lock
    this one still holds finds it unlinked and takes a new one (daemon_client.take_lock_file)."""
    start = daemon_client.take_lock_file(daemon_client.start_path(path), None)
    if start is None:
        return
    try:
        if os.path.exists(path):  # a successor already serves: its files
            return
        if not _noteworthy:
            _unlink(daemon_client.log_path(path))
        _unlink(daemon_client.start_path(path))
        _unlink(daemon_client.lock_path(path))
    finally:
        os.close(start)


def _sweep_stale(directory: str, own_socket: str) -> None:
    """Removes what daemons that are gone left in ``directory`` (killed, crashed, or from before daemons cleaned
    up after themselves): a key's .sock, .start and .lock when no daemon holds its lock and no assertion is
    starting one, and its .log too once it is STALE_LOG_S old. The files of live daemons are never touched."""
    own = os.path.basename(own_socket)[: -len(".sock")]
    try:
        names = os.listdir(directory)
    except OSError:
        return
    keys = {name.rsplit(".", 1)[0] for name in names
            if name.startswith("daemon-") and name.rsplit(".", 1)[-1] in ("sock", "lock", "start", "log")}
    for key in sorted(keys - {own}):
        base = os.path.join(directory, key)
        start = daemon_client.take_lock_file(base + ".start", None)
        if start is None:
            continue  # an assertion is starting this key's daemon
        try:
            lock = daemon_client.take_lock_file(base + ".lock", None)
            if lock is None:
                continue  # its daemon is alive
            try:
                _unlink(base + ".sock")
                try:
                    old_log = time.time() - os.stat(base + ".log").st_mtime > STALE_LOG_S
                except FileNotFoundError:
                    old_log = False
                if old_log:
                    _unlink(base + ".log")
                _unlink(base + ".lock")
                _unlink(base + ".start")
            finally:
                os.close(lock)
        finally:
            os.close(start)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _warm_up() -> None:
    """Starts the first zygote before the first call needs it."""
    try:
        import e2beval

        e2beval.warm_up()
    except Exception as error:  # the first call starts it instead, and reports what is wrong
        _log(f"warm-up failed: {error}")


def _log(message: str, routine: bool = False) -> None:
    """One line of the daemon's log. Anything but its start and end (``routine``) makes the log worth keeping."""
    global _noteworthy
    _noteworthy = _noteworthy or not routine
    # stderr is the daemon's log file (daemon_client._start)
    print(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} e2beval daemon {os.getpid()}: {message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
