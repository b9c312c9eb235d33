# The agent's event loop and its requests' dispatch: one thread, one selector that waits on the host's requests,
# on every child's pipes and on SIGCHLD, so output streams while a cell runs, background output is drained (never
# blocking its writer) and an `interrupt` is seen at once. Requests are served one at a time; a streaming one
# is advanced by the loop until its final event. Each family of requests is served by a module of its own
# (contexts, commands, files, watch); the agent serves `ping` and `interrupt` itself.
import collections
import json
import os
import re
import selectors
import signal
import subprocess
import sys

from session_agent.commands import Commands
from session_agent.contexts import Contexts
from session_agent.files import Files
from session_agent.output import write_all
from session_agent.processes import Isolation, kill_group
from session_agent.protocol import REQUESTS, Failure, HostGone, field, kind, op
from session_agent.watch import Watches


class Agent:
    def __init__(self, home):
        self.home = home
        self.selector = selectors.DefaultSelector()
        self.requests = collections.deque()  # lines that arrived before the agent served requests (start-up)
        self.serving = False
        self.stdin_buffer = bytearray()
        # Every request still streaming, by id: a CellRun or a CommandFollower, each with interrupt(reason,
        # mode), next_wakeup(), check_clock() and settle(). Several stream at once; the event loop advances each
        # (advance()); no request waits for another.
        self.streaming = {}
        self.children = {}  # pid -> (Popen, owner) for every child not yet reaped; the owner has on_reaped(proc)
        self.groups = set()  # every process group started, for the final cleanup
        self.isolation = Isolation()
        self.node = os.environ.get("E2BEVAL_NODE") or None
        # "ipython" when the session runs in a template (the host says so): IPython's shell serves its Python
        # cells if the template has IPython. The default environment (the host's own interpreter) always runs
        # the plain kernel, whatever that interpreter happens to have installed, so a session behaves the same
        # on every host (docs/sessions.md, "IPython").
        self.python_kernel = "ipython" if os.environ.get("E2BEVAL_AGENT_KERNEL") == "ipython" else "plain"
        self.node_version = self.probe_node()
        if self.node_version is None:
            self.node = None  # set but not runnable: JavaScript is unsupported, said once, clearly
        self.contexts = Contexts(self)
        self.commands = Commands(self)
        self.files = Files(self)
        self.watches = Watches(self)
        self.handlers = {op.ping: self.ping, op.interrupt: self.interrupt}
        for family in (self.contexts, self.commands, self.files, self.watches):
            self.handlers.update(family.handlers())
        if set(self.handlers) != set(REQUESTS):  # the table and the agent disagree: a bug, said before ready
            raise SystemExit("e2beval agent: it serves %s but session_protocol.json lists %s"
                             % (sorted(self.handlers), sorted(REQUESTS)))
        os.set_blocking(0, False)
        self.selector.register(0, selectors.EVENT_READ, self.on_stdin)
        # SIGCHLD wakes the selector through a pipe, so a command's end is seen at once, without polling.
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        self.wake_r = wake_r
        self.selector.register(wake_r, selectors.EVENT_READ, self.on_sigchld)

    # -- plumbing ---------------------------------------------------------------------------------------------
    def probe_node(self):
        if self.node is None:
            return None
        try:
            found = subprocess.run([self.node, "--version"], stdin=subprocess.DEVNULL, capture_output=True,
                                   timeout=30, env=self.child_env(None))
            return found.stdout.decode(errors="replace").strip() or None if found.returncode == 0 else None
        except (OSError, subprocess.SubprocessError):
            return None

    def child_env(self, extra):
        env = {k: v for k, v in os.environ.items() if k != "E2BEVAL_NODE" and not k.startswith("E2BEVAL_AGENT_")}
        if extra:
            env.update(extra)
        return env

    def emit(self, event):
        text = json.dumps(event, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates (from an exception message, say) are not valid UTF-8
            data = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode("utf-8")
        write_all(1, data + b"\n")

    def reply(self, request_id, **fields):
        self.emit({"id": request_id, "type": "reply", **fields})

    def track(self, proc, owner):
        self.children[proc.pid] = (proc, owner)
        self.groups.add(proc.pid)

    def pump(self, timeout=None):
        """Waits for and handles one round of events: requests, output, child exits, command deadlines, and
        the clocks of every streaming request; then advances each streaming request."""
        moments = [w for w in (r.next_wakeup() for r in list(self.streaming.values())) if w is not None]
        deadline = self.commands.next_wakeup()
        if deadline is not None:
            moments.append(deadline)
        if moments:
            until = max(0.0, min(moments))
            timeout = until if timeout is None else min(timeout, until)
        if timeout is not None:
            timeout = max(0.0, timeout)
        for key, mask in self.selector.select(timeout):
            key.data(mask)
        self.commands.check_clock()
        self.advance()

    def advance(self):
        """Moves every streaming request on: its clock (timeout, interrupt grace) and its end (a finished cell
        settles, and the next cell of its context starts). Command followers need nothing here but their wait
        timeout: a command's end reaches its followers from the loop's callbacks (Command.on_exit)."""
        for request in list(self.streaming.values()):
            request.check_clock()
            request.settle()

    def on_sigchld(self, mask):
        try:
            while os.read(self.wake_r, 4096):
                pass
        except BlockingIOError:
            pass
        while True:
            # Peek first: our own children are reaped by their Popen (which keeps their exit status); anything
            # else is an orphan reparented to us, reaped here so it does not stay a zombie.
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if info is None:
                return
            known = self.children.pop(info.si_pid, None)
            if known is None:
                try:
                    os.waitpid(info.si_pid, os.WNOHANG)
                except ChildProcessError:
                    pass
                continue
            proc, owner = known
            proc.poll()
            owner.on_reaped(proc)

    def on_stdin(self, mask):
        try:
            data = os.read(0, 1 << 20)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            raise HostGone()
        scan_from = len(self.stdin_buffer)  # a long line (a big files_write) is scanned once, not per chunk
        self.stdin_buffer += data
        start = 0
        while True:
            newline = self.stdin_buffer.find(b"\n", max(start, scan_from))
            if newline < 0:
                break
            line = bytes(self.stdin_buffer[start:newline])
            start = newline + 1
            self.on_line(line)
        del self.stdin_buffer[:start]

    def on_line(self, line):
        if not line.strip():
            return
        if not self.serving:
            self.requests.append(line)  # before ready (the default context's start): served right after
            return
        self.dispatch(line)

    # -- requests ---------------------------------------------------------------------------------------------
    def parse(self, line):
        """(request, None) or (None, (id, Failure))."""
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, (self.guess_id(line.decode("utf-8", "replace")), Failure(
                kind.invalid, "the request is not valid UTF-8 (bad byte at offset %d); send JSON encoded as UTF-8"
                % exc.start))
        try:
            request = json.loads(text)
        except (ValueError, RecursionError) as exc:
            return None, (self.guess_id(text), Failure(
                kind.invalid, "the request is not valid JSON (%s); send one JSON object per line" % exc))
        if not isinstance(request, dict):
            return None, (-1, Failure(kind.invalid, "the request must be a JSON object with \"id\" and \"op\""))
        request_id = request.get("id")
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            return None, (-1, Failure(kind.invalid, "the request needs an integer \"id\""))
        if not isinstance(request.get("op"), str):
            return None, (request_id, Failure(kind.invalid, "the request needs an \"op\" (a string); one of: "
                                              + ", ".join(sorted(REQUESTS))))
        return request, None

    @staticmethod
    def guess_id(text):
        found = re.search(r'"id"\s*:\s*(-?\d+)', text)
        return int(found.group(1)) if found else -1

    def dispatch(self, line):
        request, failure = self.parse(line)
        if failure is not None:
            request_id, error = failure
            self.emit({"id": request_id, "type": "failure", "kind": error.kind, "message": error.message})
            return
        request_id, request_op = request["id"], request["op"]
        handler = self.handlers.get(request_op)
        try:
            if handler is None:
                raise Failure(kind.invalid, "unknown op %r; the ops are: %s" % (request_op, ", ".join(sorted(REQUESTS))))
            handler(request_id, request)
        except Failure as error:
            self.emit({"id": request_id, "type": "failure", "kind": error.kind, "message": error.message})
        except HostGone:
            raise
        except Exception as exc:  # a bug of the agent: report it, keep serving
            import traceback
            sys.stderr.write(traceback.format_exc())
            self.emit({"id": request_id, "type": "failure", "kind": kind.internal,
                       "message": "the session agent failed on %s: %s: %s" % (request_op, type(exc).__name__, exc)})

    def serve(self):
        self.contexts.prestart_default_context()
        self.emit({"type": "ready", "python": "%d.%d.%d" % sys.version_info[:3], "node": self.node_version,
                   "bash": os.access("/bin/bash", os.X_OK)})
        try:
            self.serving = True
            while self.requests:
                self.dispatch(self.requests.popleft())
            while True:
                self.pump()
        except HostGone:
            pass
        finally:
            self.cleanup()

    def cleanup(self):
        for pid in self.groups:
            kill_group(pid)
        self.watches.close_all()
        for proc, owner in list(self.children.values()):
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def ping(self, request_id, request):
        self.reply(request_id, python="%d.%d.%d" % sys.version_info[:3], node=self.node_version)

    def interrupt(self, request_id, request):
        """Interrupts the streaming request `target` (without one: the request whose id the interrupt carries).
        No event of its own; a target that is not streaming (it ended, the interrupt raced it) is ignored."""
        target = field(request, "target", int, "the id of the request to interrupt", default=request_id)
        mode = field(request, "mode", str, "\"stop\" or \"detach\"", default="stop")
        if mode not in ("stop", "detach"):
            raise Failure(kind.invalid, "\"mode\" of interrupt must be \"stop\" or \"detach\", not %r" % mode)
        streaming = self.streaming.get(target)
        if streaming is not None:
            streaming.interrupt("request", mode)
