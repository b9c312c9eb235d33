"""The assertion's side of the e2beval daemon: find (or start) the daemon of this user and setting, send it one
promptfoo assertion call, return its GradingResult. Pure Python with standard modules promptfoo's wrapper has
already imported: this is the whole cost e2beval adds to a promptfoo assertion process on the fast path.

The daemon itself is e2beval/daemon.py; docs/promptfoo.md ("The daemon") says how the two meet and end.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import sys
import time
from typing import Optional

# E2BEVAL_DAEMON=0 turns the daemon off: every assertion is graded in its own process, as before it existed.
ENABLE_VARIABLE = "E2BEVAL_DAEMON"

# How long an assertion waits for a daemon to start and take its connection: importing the core and binding a
# socket takes well under a second; a loaded 2-core machine can make it several. Past it, the assertion is
# graded in its own process (slower, same result).
START_DEADLINE_S = 20.0

# How long an assertion waits for its answer once the daemon has the request. An evaluation ends by its own
# limits (wall time per run, a few runs per test), so this only catches a daemon that hangs; promptfoo itself
# has no limit on a Python assertion. E2BEVAL_DAEMON_REPLY_TIMEOUT_S changes it.
REPLY_DEADLINE_S = 600.0
REPLY_VARIABLE = "E2BEVAL_DAEMON_REPLY_TIMEOUT_S"

# Idle seconds before the daemon ends. Long enough to span the gaps of one `promptfoo eval` (assertions come
# in bursts of -j at a time; a slow provider can leave seconds between them) and a user's quick re-run; short
# enough that a forgotten daemon holds its zygotes (~20-40 MB each) briefly. E2BEVAL_DAEMON_IDLE_S changes it.
IDLE_S = 30.0
IDLE_VARIABLE = "E2BEVAL_DAEMON_IDLE_S"

# The environment a grading depends on besides the request: which interpreter and package run it, how the
# core finds interpreters (PATH, E2BEVAL_PYTHON, E2BEVAL_NODE, pyenv), where temporary files go. Assertions
# whose values differ get different daemons, so a daemon never grades with another caller's setting.
# E2BEVAL_RUN_ID and PROMPTFOO_RESULTS_DIR are per call: the request carries what they decide.
_KEY_VARIABLES = ("PATH", "HOME", "TMPDIR", "LANG", "LD_LIBRARY_PATH", "LD_PRELOAD")
# E2B_ (E2B_API_URL, E2B_API_KEY, ...): which E2B server a `backend: e2b` assertion uses is read from the
# environment, so assertions pointed at different servers (or keys) get different daemons.
_KEY_PREFIXES = ("E2BEVAL_", "E2B_", "PYTHON", "PYENV", "LC_")
_PER_CALL_VARIABLES = ("E2BEVAL_RUN_ID", "E2BEVAL_DAEMON", "E2BEVAL_DAEMON_REPLY_TIMEOUT_S", "E2BEVAL_DAEMON_IDLE_S")

# The daemon's exit status when another daemon of the same key already serves (the assertion connects to it).
EXIT_ANOTHER_SERVES = 0


class UnsafeDirectory(Exception):
    """The socket's directory is not private to this user: the daemon is not used (see runtime_directory)."""


class DaemonFailed(Exception):
    """The daemon took the request and ended (or hung) before answering."""


def enabled() -> bool:
    return os.environ.get(ENABLE_VARIABLE, "1").strip() != "0"


def seconds_setting(name: str, default: float) -> float:
    """A duration from the environment (E2BEVAL_DAEMON_IDLE_S, E2BEVAL_DAEMON_REPLY_TIMEOUT_S), or `default`
    when unset; anything but a positive number of seconds is refused with a message that names it."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (0 < value < float("inf")):
        raise ValueError(f"{name} must be a positive number of seconds, got {text!r}: fix or unset it "
                         f"(default {default:g})")
    return value


def grade(output, context: dict, started: float) -> Optional[dict]:
    """The daemon's GradingResult for one assertion call, or None when this process grades it itself: the
    daemon is off, this process already loaded the compiled core (it has its own warm pool: a script or a
    test calling get_assert in a loop), the call cannot be sent as JSON or depends on this process's working
    directory, or no daemon could be reached. A daemon that took the request and then died or hung yields a
    failed GradingResult that says so (grading again here could run the code twice)."""
    if not enabled() or "e2beval._core" in sys.modules or _depends_on_working_directory(context):
        return None
    # Refused here, before a daemon starts with them: a daemon cannot tell its caller what was wrong.
    seconds_setting(IDLE_VARIABLE, IDLE_S)
    seconds_setting(REPLY_VARIABLE, REPLY_DEADLINE_S)
    from e2beval import promptfoo  # already imported: the caller is promptfoo.get_assert

    try:
        request = json.dumps({
            "output": output,
            "context": context,
            "started": started,
            "caller": {
                "cwd": os.getcwd(),
                "default_results_dir": os.environ.get("PROMPTFOO_RESULTS_DIR") or "",
                "run_id": promptfoo.run_id(context) or _process_run_id(),
            },
        }).encode("utf-8")
    except (TypeError, ValueError, OSError):
        return None
    try:
        connection = connect_or_start()
    except (UnsafeDirectory, OSError) as error:
        print(f"e2beval: not using the daemon ({error}); grading in this process", file=sys.stderr)
        return None
    if connection is None:
        return None
    try:
        return call(connection, request)
    except DaemonFailed as error:
        return promptfoo.daemon_failure(context, started, str(error))
    finally:
        connection.close()


def call(connection: socket.socket, request: bytes) -> dict:
    """Sends one request, returns the daemon's result; DaemonFailed when it ends or hangs before answering."""
    patience_s = seconds_setting(REPLY_VARIABLE, REPLY_DEADLINE_S)
    deadline = time.monotonic() + patience_s
    try:
        connection.settimeout(patience_s)
        try:
            send_frame(connection, request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # a daemon that refuses this caller answers without reading the request: read the answer
        reply = json.loads(receive_frame(connection, deadline))
    except socket.timeout:
        raise DaemonFailed(f"the e2beval daemon did not answer within {patience_s:g} s "
                           "(E2BEVAL_DAEMON_REPLY_TIMEOUT_S)") from None
    except (OSError, EOFError, ValueError) as error:
        raise DaemonFailed(f"the e2beval daemon ended before it answered ({error or type(error).__name__}); "
                           f"its log is {log_path(socket_path())}") from None
    if "result" in reply:
        return reply["result"]
    if "refused" in reply:
        raise DaemonFailed(f"the e2beval daemon refused the call: {reply['refused']}")
    # The grading raised in the daemon: raise here, as it would have in this process.
    raise RuntimeError(f"e2beval daemon: {reply.get('error')}")


# ------------------------------------------------------------------------------------------ finding it


def runtime_directory() -> str:
    """The private directory of this user's daemon sockets: $XDG_RUNTIME_DIR/e2beval, else /tmp/e2beval-<uid>.
    Created 0700; refused (UnsafeDirectory) when it is a symlink, not a directory, not ours or open to others,
    or when its parent lets another user replace it."""
    uid = os.getuid()
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    parent, name = (runtime, "e2beval") if runtime and os.path.isabs(runtime) else ("/tmp", f"e2beval-{uid}")
    _check_parent(parent, uid)
    path = os.path.join(parent, name)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    status = os.lstat(path)
    if not _is_directory(status.st_mode):
        raise UnsafeDirectory(f"{path} is not a directory (a symlink or a file); remove it")
    if status.st_uid != uid:
        raise UnsafeDirectory(f"{path} belongs to uid {status.st_uid}, not to this user ({uid}); remove it")
    if status.st_mode & 0o777 != 0o700:
        raise UnsafeDirectory(f"{path} has mode {status.st_mode & 0o777:o}, not 700; chmod 700 it or remove it")
    return path


def _check_parent(parent: str, uid: int) -> None:
    """Another user who can rename entries of the parent could swap our directory for theirs after we checked
    it: the parent must be ours, or root's with the sticky bit (/tmp), and nobody else may write to it."""
    status = os.stat(parent)
    if status.st_uid == uid and not status.st_mode & 0o022:
        return
    if status.st_uid == 0 and status.st_mode & 0o1000:
        return
    raise UnsafeDirectory(f"{parent} can be changed by other users (owner uid {status.st_uid}, mode "
                          f"{status.st_mode & 0o7777:o}); set XDG_RUNTIME_DIR to a directory only you can write")


def _is_directory(mode: int) -> bool:
    return mode & 0o170000 == 0o040000  # S_ISDIR, without importing stat


def daemon_key() -> str:
    """Names one daemon: this user, interpreter, installed package (its compiled core's path, size and
    mtime: a rebuilt core gets a new daemon) and the environment a grading reads (_KEY_VARIABLES)."""
    package = os.path.dirname(os.path.abspath(__file__))
    cores = sorted(name for name in os.listdir(package) if name.startswith("_core") and name.endswith(".so"))
    stamps = []
    for name in cores:
        status = os.stat(os.path.join(package, name))
        stamps.append((name, status.st_size, status.st_mtime_ns))
    environment = sorted(
        (name, value) for name, value in os.environ.items()
        if (name in _KEY_VARIABLES or name.startswith(_KEY_PREFIXES)) and name not in _PER_CALL_VARIABLES
    )
    identity = json.dumps([os.getuid(), sys.executable, sys.version, package, stamps, environment,
                           key_directory()])
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:20]


def key_directory() -> Optional[str]:
    """The working directory when a relative PATH entry (or interpreter setting) would be looked up from it:
    then it is part of the key, and the daemon works there; else None (the daemon works in /, so it never
    holds on to a directory, say a scratch one that is removed after the eval)."""
    searched = os.environ.get("PATH", "").split(":") + [os.environ.get("E2BEVAL_PYTHON") or "/",
                                                        os.environ.get("E2BEVAL_NODE") or "/"]
    return os.getcwd() if any(not os.path.isabs(entry) for entry in searched) else None


def socket_path() -> str:
    return os.path.join(runtime_directory(), f"daemon-{daemon_key()}.sock")


def lock_path(socket_file: str) -> str:
    return socket_file[: -len(".sock")] + ".lock"


def start_path(socket_file: str) -> str:
    return socket_file[: -len(".sock")] + ".start"


def log_path(socket_file: str) -> str:
    return socket_file[: -len(".sock")] + ".log"


def connect(path: str, timeout_s: float = 1.0) -> Optional[socket.socket]:
    """A connection to the daemon at ``path``, or None when none listens there (no socket, or a stale one)."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(timeout_s)
    try:
        connection.connect(path)
    except (FileNotFoundError, ConnectionRefusedError, socket.timeout):
        connection.close()
        return None
    return connection


def connect_or_start() -> Optional[socket.socket]:
    """A connection to this key's daemon, starting it if none listens. One assertion at a time starts it
    (a lock file), so concurrent first assertions start one daemon; the daemon itself also holds a lock for
    its life, so a second one never serves beside it. None when none could be started before the deadline."""
    path = socket_path()
    connection = connect(path)
    if connection is not None:
        return connection
    deadline = time.monotonic() + START_DEADLINE_S
    spawn_lock = take_lock_file(start_path(path), deadline)
    if spawn_lock is None:
        return None
    try:
        # Another assertion may have started it while this one waited for the lock.
        connection = connect(path)
        if connection is not None:
            return connection
        return _start(path, deadline)
    finally:
        os.close(spawn_lock)  # releases the lock


def take_lock_file(path: str, deadline: Optional[float]) -> Optional[int]:
    """A descriptor of the lock file ``path``, locked (flock, exclusive), that is still the file at ``path``: a
    daemon removes its key's lock files when it ends (daemon.py), so one unlinked while this waited for its lock
    is let go and the new one taken. Waits until ``deadline`` (None: does not wait); None when that passed."""
    while True:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        while not _try_lock(descriptor):
            if deadline is None or time.monotonic() > deadline:
                os.close(descriptor)
                return None
            time.sleep(0.005)
        if _is_at(descriptor, path):
            return descriptor
        os.close(descriptor)


def _is_at(descriptor: int, path: str) -> bool:
    """Whether ``path`` still names the file open at ``descriptor`` (nobody unlinked or replaced it)."""
    try:
        at_path = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(descriptor)
    return (at_path.st_dev, at_path.st_ino) == (opened.st_dev, opened.st_ino)


def _try_lock(descriptor: int) -> bool:
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _start(path: str, deadline: float) -> Optional[socket.socket]:
    """Starts the daemon detached (its own session; stdin and stdout on /dev/null, stderr to its log: promptfoo
    waits for the assertion's pipes to close) and waits until it takes connections."""
    import subprocess  # only here: most assertions find the daemon running

    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bootstrap = ("import sys; sys.path.insert(0, sys.argv[1]) if sys.argv[1] not in sys.path else None; "
                 "from e2beval.daemon import main; sys.exit(main(sys.argv[2:]))")
    with open(os.open(log_path(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600), "ab") as log:
        daemon = subprocess.Popen(
            [sys.executable, "-c", bootstrap, package_parent, path, key_directory() or "/"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True, close_fds=True,
        )
    while time.monotonic() < deadline:
        connection = connect(path)
        if connection is not None:
            return connection
        status = daemon.poll()
        if status is not None and status != EXIT_ANOTHER_SERVES:
            print(f"e2beval: the daemon could not start (exit status {status}; see {log_path(path)})",
                  file=sys.stderr)
            return None
        time.sleep(0.003)
    return None


# ------------------------------------------------------------------------------------------ wire format
# One JSON document each way, preceded by its length (4 bytes, big-endian).


def send_frame(connection: socket.socket, payload: bytes) -> None:
    connection.sendall(len(payload).to_bytes(4, "big") + payload)


def receive_frame(connection: socket.socket, deadline: float) -> bytes:
    size = int.from_bytes(_receive_exactly(connection, 4, deadline), "big")
    return _receive_exactly(connection, size, deadline)


def _receive_exactly(connection: socket.socket, size: int, deadline: float) -> bytes:
    chunks, received = [], 0
    while received < size:
        connection.settimeout(max(0.001, deadline - time.monotonic()))
        chunk = connection.recv(min(size - received, 1 << 20))
        if not chunk:
            raise EOFError("the connection closed")
        chunks.append(chunk)
        received += len(chunk)
    return b"".join(chunks)


# ------------------------------------------------------------------------------------------ helpers


def _depends_on_working_directory(context: dict) -> bool:
    """A `python:` setting given as a relative path names an interpreter relative to this process's working
    directory, which the daemon does not share: such an assertion is graded here. (results_dir, the other
    path, is resolved against it in the request.)"""
    config = context.get("config")
    python = config.get("python") if isinstance(config, dict) else None
    return isinstance(python, str) and "/" in python and not os.path.isabs(python)


def _process_run_id() -> str:
    """What the core names a run outside promptfoo (metrics.cpp, make_process_run_id): this process's
    start, as the in-process grading would."""
    return "run-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + str(os.getpid())
