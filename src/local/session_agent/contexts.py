# Code contexts (run_code, create_context, list_contexts, restart_context, remove_context): one kernel process
# per context (Context), its cells served one at a time in the order they came (Contexts).
import collections
import json
import os
import re
import secrets
import subprocess
import sys
import time

from session_agent import kernels
from session_agent.cells import CellRun
from session_agent.limits import (BASH, BASH_NAME, CONTROL_LINE_CAP_BYTES, INTERRUPT_GRACE_SECONDS,
                                  KERNEL_START_SECONDS, LANGUAGES, NODE_LANGUAGES, STREAMS, TYPE_STRIPPING_NODE)
from session_agent.output import now_iso
from session_agent.processes import ChildProcess, PipeReader, PipeWriter, exit_status, kill_group
from session_agent.protocol import Failure, directory_field, envs_field, field, kind, op, timeout_field


def node_strips_types(version):
    """Whether node `version` ("v22.13.0") has module.stripTypeScriptTypes (see TYPE_STRIPPING_NODE)."""
    found = re.match(r"v(\d+)\.(\d+)", version or "")
    if not found:
        return False
    major, minor = int(found.group(1)), int(found.group(2))
    return any(major == m and minor >= n for m, n in TYPE_STRIPPING_NODE) or major > TYPE_STRIPPING_NODE[-1][0]


def check_bash_cell(code, envs):
    """A bash cell's code and envs as bash can take them (a Failure otherwise): bash strings hold no NUL, and
    bash exports only names of letters, digits and underscores."""
    if "\0" in code:
        raise Failure(kind.invalid, "bash code cannot contain NUL characters (bash strings end at NUL); remove them")
    for name in envs or {}:  # NUL in values is refused for every language (envs_field)
        if not BASH_NAME.match(name):
            raise Failure(kind.invalid, "envs name %r cannot be a bash variable; use letters, digits and underscores, "
                          "not starting with a digit" % name)


class Context:
    """One code context: a kernel process in its own process group, its output pipes and its control pipes."""

    def __init__(self, agent, context_id, language, cwd):
        self.agent, self.id, self.language, self.cwd = agent, context_id, language, cwd
        self.count = 0
        self.proc = None  # the Popen of the kernel's init (ChildProcess)
        self.child = None
        self.cell = None  # the CellRun being served, if any
        self.waiting = collections.deque()  # cells sent while another of this context ran: served in order
        self.readers, self.control_writer, self.control_buffer = [], None, bytearray()
        self.control_discarding = False
        self.started = False  # the kernel said it serves cells
        self.launched = False  # its kernel was started once (a default context waits for its first cell)

    def describe(self):
        return {"id": self.id, "language": self.language, "cwd": self.cwd}

    def start(self):
        to_kernel_r, to_kernel_w = os.pipe()
        from_kernel_r, from_kernel_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        fds = (str(to_kernel_r), str(from_kernel_w))
        if self.language == "python":
            argv = [sys.executable, "-I", "-B", "-X", "utf8", "-c", kernels.source("python_kernel.py"), *fds, self.agent.python_kernel]
        elif self.language == "bash":
            argv = [BASH, "--norc", "--noprofile", "-c", kernels.source("bash_kernel.sh"), "bash", *fds]
        else:
            argv = [self.agent.node, "-e", kernels.source("javascript_kernel.js"), *fds, self.language]
        try:
            # PWD: a bash kernel starts with a PWD naming its working directory as given (the context's cwd), as
            # E2B's bash kernel does, whatever bash would compute from the mounts.
            self.child = ChildProcess(self.agent, argv, on_end=self.on_program_end, cwd=self.cwd,
                                      env=self.agent.child_env({"PWD": self.cwd} if self.language == "bash" else None),
                                      stdin=subprocess.DEVNULL, stdout=out_w, stderr=err_w,
                                      pass_fds=(to_kernel_r, from_kernel_w))
            self.proc = self.child.proc
        except (OSError, subprocess.SubprocessError) as exc:
            for fd in (to_kernel_r, to_kernel_w, from_kernel_r, from_kernel_w, out_r, out_w, err_r, err_w):
                os.close(fd)
            raise Failure(kind.io, "could not start the %s kernel of context %s: %s" % (self.language, self.id, exc))
        for fd in (to_kernel_r, from_kernel_w, out_w, err_w):
            os.close(fd)
        self.agent.track(self.proc, self)
        self.control_writer = PipeWriter(self.agent, to_kernel_w)
        self.control_buffer = bytearray()
        self.control_discarding = False
        self.readers = [PipeReader(self.agent, out_r, lambda data: self.on_output("stdout", data)),
                        PipeReader(self.agent, err_r, lambda data: self.on_output("stderr", data)),
                        PipeReader(self.agent, from_kernel_r, self.on_control, self.on_control_eof)]
        self.count = 0
        self.started = False
        self.launched = True

    def stop(self):
        if self.proc is None:
            return
        kill_group(self.proc.pid)
        self.agent.children.pop(self.proc.pid, None)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass  # reaped later by the SIGCHLD handler
        for reader in self.readers:
            reader.close()
        if self.control_writer is not None:
            self.control_writer.close()
        self.child.close()
        self.readers, self.control_writer, self.proc, self.child = [], None, None, None

    def restart(self):
        if not self.launched:
            return  # a default context nobody used yet: it starts fresh with its first cell anyway
        self.stop()
        self.start()

    @property
    def alive(self):
        return self.proc is not None and self.proc.poll() is None and self.readers and self.readers[2].open

    def send(self, request):
        if self.language == "bash":  # NUL-terminated fields, read by bash's `read -d ''` (see kernels/bash_kernel.sh)
            envs = request["envs"] or {}
            fields = [request["cell"], str(request["count"]), str(len(envs))]
            for name, value in envs.items():
                fields += [name, value]
            fields.append(request["code"])
            self.control_writer.write(b"".join(field.encode() + b"\0" for field in fields))
            return
        self.control_writer.write((json.dumps(request) + "\n").encode())

    def drain_output(self):
        for reader in self.readers[:2]:
            reader.drain()

    def on_output(self, stream, data):
        if self.cell is not None:
            self.cell.on_pipe(stream, data)
        # else: written after its cell ended (a thread, a timer): nobody to give it to, dropped

    def on_control(self, data):
        if self.control_discarding:  # the rest of a line that was too long to be a kernel's message
            newline = data.find(b"\n")
            if newline < 0:
                return
            data = data[newline + 1:]
            self.control_discarding = False
        self.control_buffer += data
        while True:
            newline = self.control_buffer.find(b"\n")
            if newline < 0:
                if len(self.control_buffer) > CONTROL_LINE_CAP_BYTES:
                    self.control_buffer = bytearray()
                    self.control_discarding = True
                return
            line = bytes(self.control_buffer[:newline])
            del self.control_buffer[:newline + 1]
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if self.cell is not None and isinstance(message, dict):
                self.drain_output()  # output written before the message goes out before it
                self.cell.on_message(message)
            elif isinstance(message, dict) and message.get("type") == "started":
                self.started = True  # only ever read before the first cell (Agent.prestart_default_context)

    def on_control_eof(self):
        if self.cell is not None:
            self.drain_output()
            self.cell.on_kernel_gone()

    def on_program_end(self):
        # The kernel's program ended. Its control channel says so too, unless processes the cell started hold
        # it open (bash cannot keep its fds from them): then only this tells the running cell.
        self.on_control_eof()

    def on_reaped(self, proc):
        """The agent reaped `proc`, a process this context started."""
        if self.proc is proc and self.agent.isolation.steps is None:
            self.on_program_end()  # a host run: the Popen is the kernel itself, not its init


class Contexts:
    """The code contexts of the session and the requests that run and manage them."""

    def __init__(self, agent):
        self.agent = agent
        self.by_id = {}
        # E2B's default contexts, listed from the start as there (its server starts them with the sandbox).
        # Each starts its kernel for its first cell (Python's before ready, prestart_default_context), so a
        # session that runs no JavaScript never starts node.
        for language in ("python", "javascript") if agent.node is not None else ("python",):
            self.by_id[language] = Context(agent, language, language, agent.home)

    def handlers(self):
        return {op.run_code: self.run_code, op.create_context: self.create_context,
                op.list_contexts: self.list_contexts, op.restart_context: self.restart_context,
                op.remove_context: self.remove_context}

    def prestart_default_context(self):
        """With E2BEVAL_AGENT_DEFAULT_CONTEXT=python (the host sets it for every session), the default Python
        context is started before the agent reports ready, and ready waits until its kernel serves cells: a
        session's first cell then pays only for itself, and a session the host keeps in its pool of ready
        sessions is fully warm when it is handed out. No user code runs here. A kernel that cannot start is
        left for the first cell, which starts it again and says what happened."""
        if os.environ.get("E2BEVAL_AGENT_DEFAULT_CONTEXT") != "python":
            return
        context = self.by_id["python"]
        try:
            context.start()
        except Failure:
            return
        deadline = time.monotonic() + KERNEL_START_SECONDS
        # Nothing streams yet and requests are only queued (on_line), so this loop serves nobody but the kernel.
        while not context.started and context.alive and time.monotonic() < deadline:
            self.agent.pump(max(0.0, deadline - time.monotonic()))

    def language_of(self, raw):
        language = LANGUAGES.get(raw.strip().lower()) if isinstance(raw, str) else None
        if language is None:
            raise Failure(kind.unsupported, "language %r is not supported; use \"python\" (py, python3), "
                          "\"javascript\" (js), \"typescript\" (ts) or \"bash\" (sh, shell)" % (raw,))
        if language == "bash" and not os.access(BASH, os.X_OK):
            raise Failure(kind.unsupported, "%s is not available in this sandbox, so bash contexts cannot run; use "
                          "Python or JavaScript" % BASH)
        if language in NODE_LANGUAGES and self.agent.node is None:
            raise Failure(kind.unsupported, "node is not available in this sandbox (E2BEVAL_NODE is unset or does "
                          "not run), so JavaScript contexts cannot run; use Python or a host with node")
        if language == "typescript" and not node_strips_types(self.agent.node_version):
            raise Failure(kind.unsupported, "TypeScript cells need node 22.13 or later (its type stripping, "
                          "module.stripTypeScriptTypes); this sandbox's node is %s: set E2BEVAL_NODE to a newer "
                          "node, or run the code as JavaScript" % self.agent.node_version)
        return language

    def new_context(self, context_id, language, cwd):
        context = Context(self.agent, context_id, language, cwd)
        context.start()
        self.by_id[context_id] = context
        return context

    def run_code(self, request_id, request):
        code = field(request, "code", str, "a string", required=True)
        language = request.get("language")
        context_id = field(request, "context", str, "a context id")
        envs = envs_field(request)
        timeout = timeout_field(request)
        try:
            code.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise Failure(kind.invalid, "code is not valid Unicode text (a lone surrogate at index %d)" % exc.start)
        if language is not None and context_id is not None:
            raise Failure(kind.invalid, "give either \"language\" or \"context\", not both: a context has its language")
        if context_id is not None:
            context = self.by_id.get(context_id)
            if context is None:
                raise Failure(kind.not_found, "Context %s not found; create it with create_context or use the "
                              "default context of a language" % context_id)
        else:
            language = self.language_of("python" if language is None else language)
            context = self.by_id.get(language)
        if (language if context is None else context.language) == "bash":
            check_bash_cell(code, envs)
        if context is None:
            context = self.new_context(language, language, self.agent.home)
        cell = CellRun(self.agent, request_id, context, timeout, code, envs)
        self.agent.streaming[request_id] = cell
        context.waiting.append(cell)
        if context.cell is None:
            self.start_next_cell(context)

    def start_next_cell(self, context):
        """Sends the context's next waiting cell to its kernel (cells of one context run one at a time)."""
        while context.cell is None and context.waiting:
            cell = context.waiting.popleft()
            if cell.finished:
                continue  # interrupted or timed out while it waited: settled by advance()
            # A default context's first cell starts its kernel; a kernel that died is restarted (the cell is told
            # its state is lost).
            first = not context.launched
            restart = not first and not context.alive
            if first or restart:
                try:
                    if first:
                        context.start()
                    else:
                        context.restart()
                except Failure as error:
                    self.agent.streaming.pop(cell.id, None)
                    self.agent.emit({"id": cell.id, "type": "failure", "kind": error.kind, "message": error.message})
                    continue
            if restart:
                self.agent.emit({"id": cell.id, "type": "stderr", "timestamp": now_iso(),
                                 "text": "[e2beval: the context's process had exited; it was restarted and its state is "
                                         "lost]\n"})
            context.count += 1
            cell.count = context.count
            context.cell = cell
            context.send({"code": cell.code, "count": cell.count, "envs": cell.envs, "timeout": cell.timeout,
                          "cell": cell.nonce})

    def settle_cell(self, cell):
        """A finished cell: its last events, once its kernel's exit status is known (when the kernel died);
        then its context's next cell starts."""
        context = cell.context
        if cell.kernel_gone and cell.ended_by is None and cell.collect_until is None:
            cell.collect_until = time.monotonic() + 1.0
        if cell.collect_until is not None:
            # its channel closed as it exited: wait briefly for the exit status, for the message (or it is alive
            # without its channel, the cell closed it: restart() kills it)
            if context.child is not None and context.child.returncode() is None and time.monotonic() < cell.collect_until:
                return
        self.agent.streaming.pop(cell.id, None)
        if cell.running and context.cell is cell:
            context.cell = None
        self.finish_cell(cell.id, context, cell, cell.count)
        if context.id in self.by_id and self.by_id[context.id] is context:
            self.start_next_cell(context)

    def finish_cell(self, request_id, context, cell, count):
        for stream in STREAMS:
            cell.pipe_release(stream, final=True)
        cell.streams.finish()
        cell.output.flush()
        outcome = cell.outcome or {}
        error = outcome.get("error")
        timed_out = cell.interrupt_reason == "timeout" or bool(outcome.get("timed_out"))
        if cell.cancelled:
            # It never ran: interrupted or timed out while its context ran an earlier cell.
            if timed_out:
                self.agent.emit({"id": request_id, "type": "timeout", "seconds": cell.timeout, "context_restarted": False})
            else:
                self.agent.emit({"id": request_id, "type": "error", "name": "KeyboardInterrupt", "traceback": "",
                                 "value": "interrupted before it ran (it was waiting for the context's previous cell)"})
            self.agent.emit({"id": request_id, "type": "end_of_execution"})
            return
        if cell.ended_by is not None:
            self.agent.emit({"id": request_id, "type": "error", "name": "ContextRestarted", "traceback": "",
                             "value": "the context was %s while the cell ran; its state is lost" % (
                                 "restarted (restart_context)" if cell.ended_by == "restart" else "removed (remove_context)")})
        elif cell.restarted or cell.kernel_gone:
            returncode = context.child.returncode() if cell.kernel_gone and context.child is not None else None
            context.restart()
            if timed_out:
                self.agent.emit({"id": request_id, "type": "timeout", "seconds": cell.timeout, "context_restarted": True})
            elif cell.restarted:
                self.agent.emit({"id": request_id, "type": "error", "name": "ContextRestarted", "traceback": "",
                                 "value": "the cell did not stop within %g s of the interrupt; the context was restarted "
                                          "and its state is lost" % INTERRUPT_GRACE_SECONDS})
            else:
                how = ("exit code %d" % returncode if returncode is not None and returncode >= 0 else
                       exit_status(returncode)[1] if returncode is not None else "its control channel closed")
                self.agent.emit({"id": request_id, "type": "error", "name": "KernelDied", "traceback": "",
                                 "value": "the context's process ended while running the cell (%s); the context was "
                                          "restarted and its state is lost" % how})
        elif timed_out:
            if error is not None and not outcome.get("interrupted") and not outcome.get("timed_out"):
                self.agent.emit({"id": request_id, "type": "error", **error})  # a real error, not the interruption
            self.agent.emit({"id": request_id, "type": "timeout", "seconds": cell.timeout, "context_restarted": False})
        elif error is not None:
            self.agent.emit({"id": request_id, "type": "error", **error})
        self.agent.emit({"id": request_id, "type": "number_of_executions", "execution_count": count})
        self.agent.emit({"id": request_id, "type": "end_of_execution"})

    def create_context(self, request_id, request):
        language = self.language_of(request.get("language") or "python")
        cwd = directory_field(request, self.agent.home)
        context_id = secrets.token_hex(6)
        self.agent.reply(request_id, context=self.new_context(context_id, language, cwd).describe())

    def list_contexts(self, request_id, request):
        self.agent.reply(request_id, contexts=[context.describe() for context in self.by_id.values()])

    def context_field(self, request):
        context_id = field(request, "context", str, "a context id", required=True)
        context = self.by_id.get(context_id)
        if context is None:
            raise Failure(kind.not_found, "Context %s not found; list_contexts shows the existing ones" % context_id)
        return context

    @staticmethod
    def end_running_cell(context, why):
        """restart_context / remove_context while a cell runs: the cell ends (ContextRestarted); returns it."""
        cell = context.cell
        if cell is not None and not cell.finished:
            context.drain_output()
            cell.ended_by = why
            cell.finished = True
        return cell

    def restart_context(self, request_id, request):
        context = self.context_field(request)
        cell = self.end_running_cell(context, "restart")
        context.restart()
        if cell is not None:
            self.settle_cell(cell)  # then the cells waiting for the context run on the fresh kernel
        else:
            self.start_next_cell(context)
        self.agent.reply(request_id)

    def remove_context(self, request_id, request):
        context = self.context_field(request)
        del self.by_id[context.id]
        cell = self.end_running_cell(context, "remove")
        context.stop()
        if cell is not None:
            self.settle_cell(cell)
        while context.waiting:  # cells waiting for it: their context is gone
            cell = context.waiting.popleft()
            if self.agent.streaming.pop(cell.id, None) is not None:
                self.agent.emit({"id": cell.id, "type": "failure", "kind": kind.not_found,
                                 "message": "Context %s was removed before the cell ran" % context.id})
        self.agent.reply(request_id)
