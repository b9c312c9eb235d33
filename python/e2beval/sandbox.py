"""A stateful local sandbox with the API of E2B's ``e2b_code_interpreter`` SDK.

Scripts written for E2B move over by changing one import::

    from e2beval import Sandbox            # was: from e2b_code_interpreter import Sandbox

    with Sandbox.create(allow_internet_access=False, timeout=60) as sandbox:
        execution = sandbox.run_code("x = 41\\nx + 1", language="python", timeout=5)
        print(execution.text)                                   # 42
        print(sandbox.commands.run("echo hi").stdout)           # hi
        sandbox.files.write("/home/user/data.csv", b"a,b\\n1,2\\n")

Each sandbox is a long-lived local sandbox (new namespaces, read-only root, no network, seccomp, a cgroup
for the whole session) whose agent keeps notebook-like contexts (Python, JavaScript), runs bash commands and
handles files; see docs/sessions.md for what differs from E2B's cloud.
"""

from __future__ import annotations

import base64
import datetime as _datetime
import enum
import io
import json
import os
import time
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Dict, Iterable, Iterator, List, Optional, Union

from e2beval import _core
from e2beval.session_protocol import op

__all__ = [
    "Sandbox",
    "SandboxInfo",
    "Execution",
    "ExecutionError",
    "Result",
    "Logs",
    "OutputMessage",
    "Context",
    "CommandResult",
    "CommandHandle",
    "ProcessInfo",
    "EntryInfo",
    "WriteInfo",
    "FileType",
    "WatchHandle",
    "FilesystemEvent",
    "FilesystemEventType",
    "SandboxException",
    "TimeoutException",
    "NotFoundException",
    "FileNotFoundException",
    "InvalidArgumentException",
    "CommandExitException",
    "ready_sandbox_pids",
]

DEFAULT_SANDBOX_TIMEOUT = 300  # seconds, E2B's default lifetime
DEFAULT_EXECUTION_TIMEOUT = 300  # seconds, e2b_code_interpreter's default for run_code
DEFAULT_COMMAND_TIMEOUT = 60  # seconds, e2b's default for commands.run


# --- exceptions: the names of e2b's, rooted in e2beval.Error -------------------------------------------


class SandboxException(_core.Error):
    """Base of the session errors (e2b.SandboxException)."""


class TimeoutException(SandboxException):
    """A cell or command ran past its timeout, or the sandbox reached its lifetime."""


class NotFoundException(SandboxException):
    """An unknown context, process, file or sandbox."""


class FileNotFoundException(NotFoundException):
    """A path that does not exist inside the sandbox."""


class InvalidArgumentException(SandboxException):
    """A request the sandbox cannot take: unknown language, language and context together, bad UTF-8."""


class CommandExitException(SandboxException):
    """A command exited with a non-zero code (as in e2b, ``commands.run`` raises it); it carries the result."""

    def __init__(self, stdout: str, stderr: str, exit_code: int, error: Optional[str]):
        self.stdout = stdout
        self.stderr = stderr
        self.exit_code = exit_code
        self.error = error
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"Command exited with code {self.exit_code} and error:\n{self.stderr}"


# --- result types: the shapes of e2b_code_interpreter.models -------------------------------------------


@dataclass
class OutputMessage:
    line: str
    timestamp: int  # Unix epoch in nanoseconds
    error: bool = False

    def __str__(self) -> str:
        return self.line


@dataclass
class ExecutionError:
    name: str
    value: str
    traceback: str

    def to_json(self) -> str:
        return json.dumps({"name": self.name, "value": self.value, "traceback": self.traceback})


_RESULT_FORMATS = ("text", "html", "markdown", "svg", "png", "jpeg", "pdf", "latex", "json", "javascript", "data",
                   "chart")


class Result:
    """One displayed value of a cell; ``is_main_result`` marks the value of its last expression."""

    def __init__(self, text=None, html=None, markdown=None, svg=None, png=None, jpeg=None, pdf=None, latex=None,
                 json=None, javascript=None, data=None, chart=None, is_main_result=False, extra=None, **kwargs):
        self.text = text
        self.html = html
        self.markdown = markdown
        self.svg = svg
        self.png = png
        self.jpeg = jpeg
        self.pdf = pdf
        self.latex = latex
        self.json = json
        self.javascript = javascript
        self.data = data
        self.chart = chart
        self.is_main_result = is_main_result
        self.extra = extra

    def __getitem__(self, item):
        return getattr(self, item)

    def formats(self) -> Iterable[str]:
        # As E2B's: the formats present, then the mime types of `extra` (an IPython kernel's other outputs).
        return [name for name in _RESULT_FORMATS if getattr(self, name)] + list(self.extra or {})

    def __str__(self) -> str:
        return self.__repr__()

    def __repr__(self) -> str:
        if self.text:
            return f"Result({self.text})"
        return "Result(Formats: " + ", ".join(self.formats()) + ")"

    def _repr_html_(self):
        return self.html

    def _repr_markdown_(self):
        return self.markdown

    def _repr_svg_(self):
        return self.svg

    def _repr_png_(self):
        return self.png

    def _repr_jpeg_(self):
        return self.jpeg

    def _repr_pdf_(self):
        return self.pdf

    def _repr_latex_(self):
        return self.latex

    def _repr_json_(self):
        return self.json

    def _repr_javascript_(self):
        return self.javascript

    def _to_dict(self) -> dict:
        data = {name: getattr(self, name) for name in _RESULT_FORMATS if getattr(self, name) is not None}
        if self.extra:
            data["extra"] = self.extra
        data["is_main_result"] = self.is_main_result
        return data


@dataclass
class Logs:
    stdout: List[str] = field(default_factory=list)
    stderr: List[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Logs(stdout: {self.stdout}, stderr: {self.stderr})"

    def to_json(self) -> str:
        return json.dumps({"stdout": self.stdout, "stderr": self.stderr})


@dataclass
class Execution:
    results: List[Result] = field(default_factory=list)
    logs: Logs = field(default_factory=Logs)
    error: Optional[ExecutionError] = None
    execution_count: Optional[int] = None

    def __repr__(self) -> str:
        return f"Execution(Results: {self.results}, Logs: {self.logs}, Error: {self.error})"

    @property
    def text(self) -> Optional[str]:
        """The text of the main result (the value of the cell's last expression), or None."""
        for result in self.results:
            if result.is_main_result:
                return result.text
        return None

    def to_json(self) -> str:
        return json.dumps({
            "results": [result._to_dict() for result in self.results],
            "logs": self.logs.to_json(),
            "error": self.error.to_json() if self.error else None,
        })


@dataclass
class Context:
    id: str
    language: str
    cwd: str

    @classmethod
    def from_json(cls, data: Dict[str, str]) -> "Context":
        return cls(data["id"], data["language"], data["cwd"])


@dataclass
class CommandResult:
    stderr: str
    stdout: str
    exit_code: int
    error: Optional[str]


@dataclass
class ProcessInfo:
    pid: int
    tag: Optional[str]
    cmd: str
    args: List[str]
    envs: Dict[str, str]
    cwd: Optional[str]


class FileType(enum.Enum):
    FILE = "file"
    DIR = "dir"
    SYMLINK = "symlink"


@dataclass
class EntryInfo:
    name: str
    type: Optional[FileType]
    path: str
    size: int
    mode: int
    permissions: str
    owner: str
    group: str
    modified_time: _datetime.datetime
    symlink_target: Optional[str] = None


@dataclass
class WriteInfo:
    name: str
    type: Optional[FileType]
    path: str


@dataclass
class SandboxInfo:
    sandbox_id: str
    template_id: str
    name: Optional[str]
    metadata: Dict[str, str]
    started_at: _datetime.datetime
    end_at: _datetime.datetime
    state: str = "running"


# --- plumbing ----------------------------------------------------------------------------------------


def _timestamp_ns(text: Optional[str]) -> int:
    if not text:
        return time.time_ns()
    try:
        moment = _datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return time.time_ns()
    return int(moment.timestamp() * 1_000_000_000)


def _check_text(value: str, what: str) -> str:
    if isinstance(value, (bytes, bytearray)):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError as error:
            raise InvalidArgumentException(
                f"{what} is not valid UTF-8 (byte {error.start}: {error.reason}); pass text, or decode it first") from None
    if not isinstance(value, str):
        raise InvalidArgumentException(f"{what} must be a string, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidArgumentException(
            f"{what} is not valid UTF-8 (character {error.start} is a lone surrogate); pass text that encodes as UTF-8") from None
    if "\0" in value:
        raise InvalidArgumentException(f"{what} holds a NUL byte at character {value.index(chr(0))}")
    return value


def _string_map(values: Optional[Dict[str, str]], what: str) -> Optional[Dict[str, str]]:
    if values is None:
        return None
    if not isinstance(values, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in values.items()):
        raise InvalidArgumentException(f"{what} must map strings to strings")
    return dict(values)


def _entry(data: dict) -> EntryInfo:
    kind = data.get("type")
    modified = data.get("modified_time")
    return EntryInfo(
        name=data.get("name", ""),
        type=FileType(kind) if kind in ("file", "dir", "symlink") else None,
        path=data.get("path", ""),
        size=int(data.get("size", 0)),
        mode=int(data.get("mode", 0)),
        permissions=data.get("permissions", ""),
        owner=data.get("owner", ""),
        group=data.get("group", ""),
        modified_time=_datetime.datetime.fromisoformat(modified.replace("Z", "+00:00")) if modified else
        _datetime.datetime.fromtimestamp(0, _datetime.timezone.utc),
        symlink_target=data.get("symlink_target"),
    )


class _Channel:
    """One session's request channel: sends a request, turns a failure event into the matching exception.

    Every call has a host-side deadline (Session::call): ``timeout`` in the request bounds run_code, a
    foreground command and a wait; ``request_timeout`` (E2B's: per call, else the sandbox's, else 60 s; 0 for
    none) bounds every other request. A sandbox that stalls past it is killed and TimeoutException raised."""

    def __init__(self, session: "_core.Session", sandbox_id: str, request_timeout: Optional[float] = None):
        self._session = session
        self._sandbox_id = sandbox_id
        self._request_timeout = request_timeout

    def call(self, request: dict, on_event: Optional[Callable[[dict], None]] = None,
             request_timeout: Optional[float] = None) -> dict:
        handler = None if on_event is None else (lambda text: on_event(json.loads(text)))
        if request_timeout is None:
            request_timeout = self._request_timeout
        try:
            final = json.loads(self._session.call(json.dumps(request), handler, request_timeout))
        except _core.InputError:
            raise
        except _core.Error as error:
            # Whatever went wrong below the SDK (the session closed, the agent broke the protocol), the
            # caller sees the SDK's exception types, as with E2B.
            message = str(error)
            if not self._session.alive() and "timeout" in message:
                raise TimeoutException(message) from None
            raise SandboxException(message) from None
        if final.get("type") == "failure":
            raise _failure_exception(final)
        return final

    def interrupt(self) -> None:
        self._session.interrupt()


def _failure_exception(event: dict) -> SandboxException:
    kind, message = event.get("kind"), event.get("message", "the sandbox refused the request")
    if kind == "not_found":
        return NotFoundException(message)
    if kind in ("invalid", "unsupported"):
        return InvalidArgumentException(message)
    if kind == "timeout":  # the host gave up on a stalled sandbox (and killed it)
        return TimeoutException(message)
    return SandboxException(message)


# --- commands ----------------------------------------------------------------------------------------


class CommandHandle:
    """A background command (``commands.run(..., background=True)``)."""

    def __init__(self, channel: _Channel, pid: int):
        self._channel = channel
        self.pid = pid

    def wait(self, on_stdout: Optional[Callable[[str], None]] = None,
             on_stderr: Optional[Callable[[str], None]] = None, timeout: Optional[float] = None) -> CommandResult:
        return _wait_for_command(self._channel, {"op": op.command_wait, "pid": self.pid, "timeout": timeout},
                                 on_stdout, on_stderr)

    def kill(self, request_timeout: Optional[float] = None) -> bool:
        return bool(self._channel.call({"op": op.command_kill, "pid": self.pid}, request_timeout=request_timeout).get("killed"))

    def send_stdin(self, data: Union[str, bytes], request_timeout: Optional[float] = None) -> None:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
        self._channel.call({"op": op.command_send_stdin, "pid": self.pid, "data": _check_text(text, "stdin data")},
                           request_timeout=request_timeout)

    def disconnect(self) -> None:
        """Stops following the command; it keeps running (as in e2b)."""


def _wait_for_command(channel: _Channel, request: dict, on_stdout, on_stderr) -> CommandResult:
    stdout: List[str] = []
    stderr: List[str] = []

    def on_event(event: dict) -> None:
        kind = event.get("type")
        if kind == "stdout":
            stdout.append(event["text"])
            if on_stdout:
                on_stdout(event["text"])
        elif kind == "stderr":
            stderr.append(event["text"])
            if on_stderr:
                on_stderr(event["text"])

    end = channel.call(request, on_event)
    result = CommandResult(stderr="".join(stderr), stdout="".join(stdout), exit_code=int(end.get("exit_code", -1)),
                           error=end.get("error"))
    if end.get("timed_out"):
        raise TimeoutException(
            f"Command timed out after {request.get('timeout')} s — the 'timeout' option can be used to increase "
            f"this timeout (0 disables it); output so far: {result.stdout[-500:]!r}")
    if result.exit_code != 0:
        raise CommandExitException(result.stdout, result.stderr, result.exit_code, result.error)
    return result


class Commands:
    """``sandbox.commands``: bash command lines in the sandbox."""

    def __init__(self, channel: _Channel):
        self._channel = channel

    def run(self, cmd: str, background: Optional[bool] = None, envs: Optional[Dict[str, str]] = None,
            user: Optional[str] = None, cwd: Optional[str] = None, on_stdout: Optional[Callable[[str], None]] = None,
            on_stderr: Optional[Callable[[str], None]] = None, stdin: Optional[bool] = None,
            timeout: Optional[float] = DEFAULT_COMMAND_TIMEOUT, request_timeout: Optional[float] = None, *,
            retain_output: bool = True):
        """Runs ``/bin/bash -c cmd``. Foreground: returns a CommandResult, or raises CommandExitException for a
        non-zero exit and TimeoutException past ``timeout`` seconds (0: none). Background: a CommandHandle."""
        request = {
            "op": op.run_command,
            "cmd": _check_text(cmd, "the command"),
            "envs": _string_map(envs, "envs"),
            "cwd": cwd,
            "timeout": timeout,
            "background": bool(background),
            "stdin": bool(stdin),
            "user": user,
        }
        if background:
            reply = self._channel.call(request, request_timeout=request_timeout)
            return CommandHandle(self._channel, int(reply["pid"]))
        return _wait_for_command(self._channel, request, on_stdout, on_stderr)

    def connect(self, pid: int, timeout: Optional[float] = 60, request_timeout: Optional[float] = None) -> CommandHandle:
        if not any(process.pid == pid for process in self.list()):
            raise NotFoundException(f"Process with pid {pid} not found")
        return CommandHandle(self._channel, pid)

    def kill(self, pid: int, request_timeout: Optional[float] = None) -> bool:
        return bool(self._channel.call({"op": op.command_kill, "pid": pid}, request_timeout=request_timeout).get("killed"))

    def list(self, request_timeout: Optional[float] = None) -> List[ProcessInfo]:
        processes = self._channel.call({"op": op.command_list}, request_timeout=request_timeout).get("processes", [])
        return [ProcessInfo(pid=p["pid"], tag=None, cmd=p.get("cmd", ""), args=[], envs={}, cwd=p.get("cwd"))
                for p in processes if p.get("running", True)]

    def send_stdin(self, pid: int, data: Union[str, bytes], request_timeout: Optional[float] = None) -> None:
        CommandHandle(self._channel, pid).send_stdin(data, request_timeout)

    def close_stdin(self, pid: int, request_timeout: Optional[float] = None) -> None:
        self._channel.call({"op": op.command_close_stdin, "pid": pid}, request_timeout=request_timeout)


# --- files -------------------------------------------------------------------------------------------


class Filesystem:
    """``sandbox.files``: the sandbox's own files (relative paths are relative to /home/user)."""

    def __init__(self, channel: _Channel):
        self._channel = channel

    def _call(self, request: dict, request_timeout: Optional[float] = None) -> dict:
        try:
            return self._channel.call(request, request_timeout=request_timeout)
        except NotFoundException as error:
            raise FileNotFoundException(str(error)) from None

    def read(self, path: str, format: str = "text", user: Optional[str] = None,
             request_timeout: Optional[float] = None, gzip: bool = False,
             stream_idle_timeout: Optional[float] = None):
        if format not in ("text", "bytes", "stream"):
            raise InvalidArgumentException(f"format must be 'text', 'bytes' or 'stream', not {format!r}")
        data = base64.b64decode(self._call({"op": op.files_read, "path": path}, request_timeout)["data"])
        if format == "bytes":
            return bytearray(data)
        if format == "stream":
            return iter([data])
        return data.decode("utf-8", errors="replace")

    def write(self, path: str, data: Union[str, bytes, IO], user: Optional[str] = None,
              request_timeout: Optional[float] = None, gzip: bool = False, use_octet_stream: Optional[bool] = None,
              metadata: Optional[Dict[str, str]] = None) -> WriteInfo:
        if isinstance(data, str):
            payload = data.encode("utf-8")
        elif isinstance(data, (bytes, bytearray, memoryview)):
            payload = bytes(data)
        elif hasattr(data, "read"):
            content = data.read()
            payload = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        else:
            payload = b"".join(bytes(chunk) for chunk in data)
        entry = self._call({"op": op.files_write, "path": path, "data": base64.b64encode(payload).decode("ascii")},
                           request_timeout)["entry"]
        return WriteInfo(name=entry["name"], type=FileType.FILE, path=entry["path"])

    def write_files(self, files: List[Any], user: Optional[str] = None, request_timeout: Optional[float] = None,
                    gzip: bool = False, use_octet_stream: Optional[bool] = None,
                    metadata: Optional[Dict[str, str]] = None) -> List[WriteInfo]:
        written = []
        for item in files:
            path = item["path"] if isinstance(item, dict) else item.path
            data = item["data"] if isinstance(item, dict) else item.data
            written.append(self.write(path, data, request_timeout=request_timeout))
        return written

    def list(self, path: str, depth: Optional[int] = 1, user: Optional[str] = None,
             request_timeout: Optional[float] = None) -> List[EntryInfo]:
        if depth is not None and depth < 1:
            raise InvalidArgumentException("depth should be at least 1")
        return [_entry(item) for item in self._call({"op": op.files_list, "path": path, "depth": depth or 1},
                                                           request_timeout)["entries"]]

    def exists(self, path: str, user: Optional[str] = None, request_timeout: Optional[float] = None) -> bool:
        return bool(self._call({"op": op.files_exists, "path": path}, request_timeout)["exists"])

    def get_info(self, path: str, user: Optional[str] = None, request_timeout: Optional[float] = None) -> EntryInfo:
        return _entry(self._call({"op": op.files_info, "path": path}, request_timeout)["entry"])

    def remove(self, path: str, user: Optional[str] = None, request_timeout: Optional[float] = None) -> None:
        self._call({"op": op.files_remove, "path": path}, request_timeout)

    def rename(self, old_path: str, new_path: str, user: Optional[str] = None,
               request_timeout: Optional[float] = None) -> EntryInfo:
        return _entry(self._call({"op": op.files_rename, "old_path": old_path, "new_path": new_path}, request_timeout)["entry"])

    def make_dir(self, path: str, user: Optional[str] = None, request_timeout: Optional[float] = None) -> bool:
        return bool(self._call({"op": op.files_make_dir, "path": path}, request_timeout)["created"])

    def watch_dir(self, path: str, user: Optional[str] = None, request_timeout: Optional[float] = None,
                  recursive: bool = False, include_entry: bool = False,
                  allow_network_mounts: bool = False) -> "WatchHandle":
        """Watches the directory ``path`` with inotify inside the sandbox; ``handle.get_new_events()`` returns what
        happened since the last call (or since the watch began), event by event as E2B's envd reports it (a new
        file written with ``files.write`` is CREATE, CHMOD, WRITE). Stop it with ``handle.stop()``: a sandbox
        holds at most 64 watchers."""
        reply = self._call({"op": op.watch_start, "path": path, "recursive": bool(recursive),
                            "include_entry": bool(include_entry)}, request_timeout)
        return WatchHandle(self, reply["watcher"])


class FilesystemEventType(enum.Enum):
    CHMOD = "chmod"
    CREATE = "create"
    REMOVE = "remove"
    RENAME = "rename"  # the old name of a file moved away (its new name is a CREATE)
    WRITE = "write"


@dataclass
class FilesystemEvent:
    name: str  # relative to the watched directory ("." for the directory itself)
    type: FilesystemEventType
    entry: Optional[EntryInfo] = None  # with include_entry, when the path still existed


class WatchHandle:
    """A watch started by ``files.watch_dir`` (e2b's WatchHandle: ``get_new_events()``, ``stop()``)."""

    def __init__(self, files: "Filesystem", watcher_id: str):
        self._files = files
        self._watcher_id = watcher_id
        self._closed = False
        self.dropped = 0  # events lost since the watch began: more than 10,000 waiting, or inotify's queue full
        self.ended = False  # the watched directory itself was removed or moved away: no more events come

    def get_new_events(self) -> List[FilesystemEvent]:
        if self._closed:
            raise SandboxException("the watcher was stopped; start a new one with files.watch_dir")
        reply = self._files._call({"op": op.watch_events, "watcher": self._watcher_id})
        self.dropped += int(reply.get("dropped") or 0)
        self.ended = bool(reply.get("ended"))
        return [FilesystemEvent(event["name"], FilesystemEventType(event["type"]),
                                _entry(event["entry"]) if event.get("entry") else None)
                for event in reply.get("events", [])]

    def stop(self, request_timeout: Optional[float] = None) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._files._call({"op": op.watch_stop, "watcher": self._watcher_id}, request_timeout)
        except NotFoundException:
            pass  # the sandbox's watcher is already gone


# --- the sandbox -------------------------------------------------------------------------------------


class _ClassOrInstance:
    """``Sandbox.kill(sandbox_id)`` and ``sandbox.kill()`` both work, as in e2b."""

    def __init__(self, function):
        self._function = function

    def __get__(self, instance, owner):
        if instance is None:
            return lambda sandbox_id, *args, **kwargs: self._function(owner._lookup(sandbox_id), *args, **kwargs)
        return lambda *args, **kwargs: self._function(instance, *args, **kwargs)


class Sandbox:
    """A local, stateful sandbox with e2b_code_interpreter's API. Create it with ``Sandbox.create()``."""

    # A sandbox created without a template runs in the bare default environment, E2B's "base" (fast, nothing to
    # build); Sandbox.create("code-interpreter-v1") gives E2B's code-interpreter environment (docs/templates.md).
    default_template = "base"

    def __init__(self, template: Optional[str] = None, timeout: Optional[int] = None,
                 metadata: Optional[Dict[str, str]] = None, envs: Optional[Dict[str, str]] = None,
                 secure: Optional[bool] = None, allow_internet_access: Optional[bool] = None, *,
                 limits: Optional[Dict[str, float]] = None, isolation: Optional[Dict[str, Any]] = None,
                 python: Optional[str] = None, backend: str = "local", _session: Any = None, **ignored: Any):
        """Starts a sandbox. e2beval's own options: ``limits`` (memory_mb, max_processes, workspace_mb,
        file_size_bytes, open_files, output_bytes), ``isolation`` (seccomp, minimum_level) and ``python``
        (the interpreter inside). ``request_timeout`` (seconds, E2B's default 60, 0 for none) bounds each
        request that ``timeout`` does not, as in E2B. E2B's other connection options (api_key, domain, ...)
        are accepted and ignored: nothing leaves this machine.

        ``backend="e2b"`` makes it a remote sandbox on E2B (or any server speaking E2B's API, such as
        ``e2beval serve``), configured by the environment as the official SDK is (E2B_API_KEY, E2B_DOMAIN,
        E2B_API_URL, E2B_SANDBOX_URL; docs/e2b.md); ``template`` is then an E2B template ID. ``limits``,
        ``isolation`` (but for the network) and ``python`` cannot be applied to a remote sandbox and are refused."""
        if backend not in ("local", "e2b"):
            raise InvalidArgumentException(f"backend must be 'local' or 'e2b', not {backend!r}")
        if _session is None:
            if backend == "e2b":
                refused = [name for name, value in (("limits", limits), ("python", python)) if value] + \
                          [f"isolation[{key!r}]" for key in (isolation or {}) if key != "network"]
                if refused:
                    raise InvalidArgumentException(
                        f"{', '.join(refused)} cannot be applied to a remote E2B sandbox (its template decides them); "
                        "leave them out with backend='e2b', or use the local backend")
            isolation = dict(isolation or {})
            # Unlike E2B (whose default is True), the network stays off unless asked for explicitly.
            if allow_internet_access:
                isolation["network"] = True
            options = {"timeout_s": float(timeout or DEFAULT_SANDBOX_TIMEOUT), "limits": limits or {},
                       "isolation": isolation, "envs": _string_map(envs, "envs") or {},
                       "metadata": _string_map(metadata, "metadata") or {}}
            if template is not None:
                # Local: "base" is the default environment; "code-interpreter-v1" the built-in template with E2B's
                # packages (built on its first use); any other name a template built with `e2beval template build`
                # (docs/templates.md). E2B: its template ID.
                options["template"] = _check_text(template, "template")
            try:
                _session = _core.create_session(json.dumps(options), python or "", backend)
            except _core.UnknownTemplateError as error:
                raise NotFoundException(str(error)) from None
        self._session = _session
        self.sandbox_id: str = _session.id
        self.template_id = template or self.default_template
        request_timeout = ignored.get("request_timeout")
        self._channel = _Channel(_session, self.sandbox_id,
                                 None if request_timeout is None else float(request_timeout))
        self.commands = Commands(self._channel)
        self.files = Filesystem(self._channel)

    @classmethod
    def create(cls, template: Optional[str] = None, timeout: Optional[int] = None,
               metadata: Optional[Dict[str, str]] = None, envs: Optional[Dict[str, str]] = None,
               secure: Optional[bool] = None, allow_internet_access: Optional[bool] = None, **opts: Any) -> "Sandbox":
        return cls(template=template, timeout=timeout, metadata=metadata, envs=envs, secure=secure,
                   allow_internet_access=allow_internet_access, **opts)

    @classmethod
    def _lookup(cls, sandbox_id: str) -> "Sandbox":
        session = _core.find_session(sandbox_id)
        if session is None:
            raise NotFoundException(f"Sandbox {sandbox_id} not found (local sandboxes live in the process that created them)")
        return cls(_session=session)

    @classmethod
    def connect(cls, sandbox_id: str, timeout: Optional[int] = None, **opts: Any) -> "Sandbox":
        sandbox = cls._lookup(sandbox_id)
        if timeout:
            sandbox.set_timeout(timeout)
        return sandbox

    @classmethod
    def list(cls, query: Any = None, limit: Optional[int] = None, **opts: Any) -> List[SandboxInfo]:
        """The live sandboxes of this process (a list, where e2b returns a paginator)."""
        return [_sandbox_info(info, cls.default_template) for info in json.loads(_core.list_sessions())][:limit]

    # -- code contexts --

    def run_code(self, code: str, language: Optional[str] = None, context: Optional[Context] = None,
                 on_stdout: Optional[Callable[[OutputMessage], Any]] = None,
                 on_stderr: Optional[Callable[[OutputMessage], Any]] = None,
                 on_result: Optional[Callable[[Result], Any]] = None,
                 on_error: Optional[Callable[[ExecutionError], Any]] = None, envs: Optional[Dict[str, str]] = None,
                 timeout: Optional[float] = None, request_timeout: Optional[float] = None) -> Execution:
        """Runs a cell in a context (the language's default one unless ``context`` is given); state persists.
        ``timeout`` seconds (default 300, 0 for none): past it the cell is interrupted and TimeoutException is
        raised; the context survives (or is restarted when the cell ignores the interrupt)."""
        if language and context:
            raise InvalidArgumentException("You can provide context or language, but not both at the same time.")
        timeout = None if timeout == 0 else (timeout or DEFAULT_EXECUTION_TIMEOUT)
        execution = Execution()
        timed_out: Dict[str, Any] = {}

        def on_event(event: dict) -> None:
            kind = event.pop("type", None)
            event.pop("id", None)
            if kind == "stdout" or kind == "stderr":
                message = OutputMessage(event["text"], _timestamp_ns(event.get("timestamp")), kind == "stderr")
                (execution.logs.stdout if kind == "stdout" else execution.logs.stderr).append(event["text"])
                callback = on_stdout if kind == "stdout" else on_stderr
                if callback:
                    callback(message)
            elif kind == "result":
                result = Result(**event)
                execution.results.append(result)
                if on_result:
                    on_result(result)
            elif kind == "error":
                execution.error = ExecutionError(event.get("name", ""), event.get("value", ""), event.get("traceback", ""))
                if on_error:
                    on_error(execution.error)
            elif kind == "number_of_executions":
                execution.execution_count = event["execution_count"]
            elif kind == "timeout":
                timed_out.update(event)

        request = {"op": op.run_code, "code": _check_text(code, "the cell"), "language": language,
                   "context": context.id if isinstance(context, Context) else context,
                   "envs": _string_map(envs, "envs"), "timeout": timeout}
        self._channel.call(request, on_event)
        if timed_out:
            restarted = " (it ignored the interrupt, so its context was restarted and its state is lost)" \
                if timed_out.get("context_restarted") else ""
            raise TimeoutException(
                f"Execution timed out after {timeout} s{restarted} — the 'timeout' option can be used to increase "
                f"this timeout")
        return execution

    def create_code_context(self, cwd: Optional[str] = None, language: Optional[str] = None,
                            request_timeout: Optional[float] = None) -> Context:
        reply = self._channel.call({"op": op.create_context, "language": language, "cwd": cwd},
                                   request_timeout=request_timeout)
        return Context.from_json(reply["context"])

    def list_code_contexts(self) -> List[Context]:
        return [Context.from_json(item) for item in self._channel.call({"op": op.list_contexts})["contexts"]]

    def restart_code_context(self, context: Union[Context, str]) -> None:
        self._channel.call({"op": op.restart_context, "context": getattr(context, "id", context)})

    def remove_code_context(self, context: Union[Context, str]) -> None:
        self._channel.call({"op": op.remove_context, "context": getattr(context, "id", context)})

    # -- lifetime --

    def _kill(self, **opts: Any) -> bool:
        was_alive = self._session.alive()
        self._session.kill()
        return was_alive

    def _set_timeout(self, timeout: int, **opts: Any) -> None:
        try:
            self._session.set_timeout(float(timeout))
        except _core.SandboxError as error:
            raise SandboxException(str(error)) from None

    def _get_info(self, **opts: Any) -> SandboxInfo:
        return _sandbox_info(json.loads(self._session.info()), self.template_id)

    kill = _ClassOrInstance(_kill)
    set_timeout = _ClassOrInstance(_set_timeout)
    get_info = _ClassOrInstance(_get_info)

    def is_running(self, request_timeout: Optional[float] = None) -> bool:
        return self._session.alive()

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.kill()

    def __repr__(self) -> str:
        return f"Sandbox(sandbox_id={self.sandbox_id!r}, running={self.is_running()})"


def ready_sandbox_pids(python: Optional[str] = None) -> List[int]:
    """Host pids of the sandboxes the pool keeps started ahead of demand for ``Sandbox.create(python=python)``,
    not yet handed out (docs/sessions.md, "The pool of ready sandboxes")."""
    return list(_core.ready_session_pids(python or ""))


def _sandbox_info(info: dict, template_id: str) -> SandboxInfo:
    def moment(seconds: float) -> _datetime.datetime:
        return _datetime.datetime.fromtimestamp(seconds, _datetime.timezone.utc)

    return SandboxInfo(sandbox_id=info["sandbox_id"], template_id=template_id, name=None,
                       metadata=info.get("metadata", {}), started_at=moment(info["started_at"]),
                       end_at=moment(info["end_at"]), state="running" if info.get("alive") else "killed")
