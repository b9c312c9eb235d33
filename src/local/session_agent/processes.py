# The agent's children and its pipes: the isolation every kernel and command starts in (Isolation), a child as
# the agent sees it (ChildProcess), and the non-blocking pipe ends the agent's selector serves (PipeReader,
# PipeWriter).
import ctypes
import os
import selectors
import signal
import subprocess
import sys


def kill_group(pid):
    """SIGKILL a child and its process group. A contained child is the init of its own pid namespace: SIGKILL
    to it ends every process in that namespace. On a host run (no isolation) the child leads a process group
    started with start_new_session, whose id is its pid."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass  # nobody left


def exit_status(returncode):
    """(exit_code, error) in the shape E2B's envd reports: 128+signal and Go's `signal: killed` wording."""
    if returncode is None:
        return -1, "the process did not report an exit status"
    if returncode < 0:
        number = -returncode
        names = {1: "hangup", 2: "interrupt", 3: "quit", 4: "illegal instruction", 6: "aborted", 7: "bus error",
                 8: "floating point exception", 9: "killed", 10: "user defined signal 1", 11: "segmentation fault",
                 12: "user defined signal 2", 13: "broken pipe", 14: "alarm clock", 15: "terminated"}
        return 128 + number, "signal: " + names.get(number, "signal %d" % number)
    if returncode != 0:
        return returncode, "exit status %d" % returncode
    return 0, None


class Isolation:
    """The privilege boundary inside the session (docs/sessions.md, "Trust boundary"). The agent keeps
    CAP_SYS_ADMIN and CAP_SETPCAP inside the sandbox's user namespace and never runs user code itself: every
    kernel and command is pid 1 of a new pid namespace with its own /proc (so it sees no agent, no other
    command, no other kernel), and before it execs, the compiled steps (src/local/warm_steps.cpp, the library
    the host wrote at $E2BEVAL_AGENT_STEPS) make it a reaping init plus the program, which sets the rlimits,
    drops every capability, sets no_new_privs and installs the session's seccomp filter. Nothing about those
    steps is written here; this class only calls them.

    Without $E2BEVAL_AGENT_STEPS the agent runs its children plainly: that is only how its protocol tests run
    it on a host (tests/python/test_session_agent.py); a session's sandbox always sets it, and a library that
    is set but does not load ends the agent rather than run code without the boundary."""

    def __init__(self):
        path = os.environ.get("E2BEVAL_AGENT_STEPS")
        self.steps = None
        if not path:
            return
        try:
            self.steps = ctypes.CDLL(path)
        finally:
            try:
                os.unlink(path)  # mapped now; the user's workspace shows nothing of the agent
            except OSError:
                pass
        self.steps.e2beval_session_configure.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                                         ctypes.c_size_t]
        self.steps.e2beval_session_describe_failure.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        self.steps.e2beval_session_describe_failure.restype = None
        settings = bytes.fromhex(os.environ.get("E2BEVAL_AGENT_SECCOMP", ""))
        limits = bytes.fromhex(os.environ.get("E2BEVAL_AGENT_LIMITS", ""))
        self.check(self.steps.e2beval_session_configure(settings, len(settings), limits, len(limits)))

    def check(self, result):
        if result != 0:
            text = ctypes.create_string_buffer(512)
            self.steps.e2beval_session_describe_failure(text, len(text))
            raise OSError("session isolation step failed: " + text.value.decode(errors="replace"))

    def popen(self, argv, status_fd, **kwargs):
        """subprocess.Popen of `argv`, contained as the class says; its init reports the program's wait status
        on `status_fd`. The returned Popen is the init (pid 1 of the new namespace): killing its process group
        ends the program, and SIGKILL to it ends everything in the namespace."""
        if self.steps is None:
            return subprocess.Popen(argv, start_new_session=True, **kwargs)
        steps = self.steps

        def contain():  # in the forked child, before exec
            if steps.e2beval_session_contain_child(status_fd) != 0:
                text = ctypes.create_string_buffer(512)
                steps.e2beval_session_describe_failure(text, len(text))
                os.write(2, b"e2beval: could not contain the process: " + text.value + b"\n")
                os._exit(127)

        self.check(steps.e2beval_warm_enter_new_pid_namespace())
        try:
            # Not start_new_session: the init and the program each make their own session in the compiled
            # steps (drop_privileges), which a session leader could not.
            return subprocess.Popen(argv, preexec_fn=contain,
                                    pass_fds=tuple(kwargs.pop("pass_fds", ())) + (status_fd,), **kwargs)
        finally:
            # The agent's own later children (its node probe) stay in its namespace; only this one moved.
            back = steps.e2beval_warm_return_to_own_pid_namespace()
            if back != 0:
                sys.stderr.write("e2beval agent: cannot return to its own pid namespace; ending\n")
                os._exit(70)


class ChildProcess:
    """A kernel or command as the agent sees it: the Popen of its namespace's init, and the program's exit
    status, which the init reports on a pipe of its own (None until then; on a host run without the steps,
    the Popen is the program and its own returncode says it)."""

    def __init__(self, agent, argv, on_end=None, **kwargs):
        self.on_end = on_end  # called once the program's status is known from its init
        status_r, status_w = os.pipe()
        try:
            self.proc = agent.isolation.popen(argv, status_w, **kwargs)
        except BaseException:
            os.close(status_r)
            raise
        finally:
            os.close(status_w)
        self.pid = self.proc.pid
        self.status_text = bytearray()
        self.program_status = None
        self.status_reader = PipeReader(agent, status_r, self.status_text.extend, self.on_status_eof)

    def on_status_eof(self):
        text = bytes(self.status_text).strip()
        if text and not text.isdigit():  # the init could not contain itself, and says why
            sys.stderr.write("e2beval agent: the init of process %d failed: %s\n" % (self.pid, text.decode(errors="replace")))
        elif text.isdigit():
            self.program_status = os.waitstatus_to_exitcode(int(text))
            if self.on_end is not None:
                self.on_end()

    def returncode(self):
        """The program's exit code (negative: killed by that signal), or None while it runs and its init too."""
        self.status_reader.drain()
        if self.program_status is not None:
            return self.program_status
        return self.proc.returncode  # the init was killed (timeout, kill), or, on a host run, the program's

    def interrupt(self):
        try:
            os.kill(self.pid, signal.SIGINT)  # the init forwards it to the program
        except OSError:
            pass

    def close(self):
        self.status_reader.close()


class PipeReader:
    """A non-blocking read end in the selector; calls on_data(bytes) and, once, on_eof()."""

    def __init__(self, agent, fd, on_data, on_eof=None):
        self.agent, self.fd, self.on_data, self.on_eof = agent, fd, on_data, on_eof
        os.set_blocking(fd, False)
        agent.selector.register(fd, selectors.EVENT_READ, self.on_ready)

    @property
    def open(self):
        return self.fd is not None

    def on_ready(self, mask):
        self.read_once()

    def read_once(self):
        """Returns False when nothing more is available now."""
        if self.fd is None:
            return False
        try:
            data = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self.close()
            if self.on_eof is not None:
                self.on_eof()
            return False
        self.on_data(data)
        return True

    def drain(self):
        """Reads what the pipe holds now, without waiting for more (writers may still hold it open)."""
        while self.read_once():
            pass

    def close(self):
        if self.fd is not None:
            self.agent.selector.unregister(self.fd)
            os.close(self.fd)
            self.fd = None


class PipeWriter:
    """A non-blocking write end with a buffer, so a child that does not read never blocks the agent."""

    def __init__(self, agent, fd):
        self.agent, self.fd = agent, fd
        self.pending = bytearray()
        self.close_when_flushed = False
        self.registered = False
        os.set_blocking(fd, False)

    @property
    def open(self):
        return self.fd is not None and not self.close_when_flushed

    def write(self, data):
        if self.fd is None:
            return
        self.pending += data
        self.flush()

    def close_after_flush(self):
        self.close_when_flushed = True
        self.flush()

    def flush(self):
        while self.fd is not None and self.pending:
            try:
                written = os.write(self.fd, self.pending)
            except BlockingIOError:
                break
            except OSError:  # the reader is gone: nothing will ever read this
                self.pending.clear()
                break
            del self.pending[:written]
        if self.fd is None:
            return
        if self.pending and not self.registered:
            self.agent.selector.register(self.fd, selectors.EVENT_WRITE, lambda mask: self.flush())
            self.registered = True
        elif not self.pending:
            if self.registered:
                self.agent.selector.unregister(self.fd)
                self.registered = False
            if self.close_when_flushed:
                self.close()

    def close(self):
        if self.fd is not None:
            if self.registered:
                self.agent.selector.unregister(self.fd)
                self.registered = False
            os.close(self.fd)
            self.fd = None
