# Commands (run_command, command_wait, command_kill, command_send_stdin, command_close_stdin, command_list):
# bash command lines, each in its own process group (Command), streamed to the requests that follow them
# (CommandFollower) or buffered until one does (Commands).
import base64
import collections
import os
import signal
import subprocess
import time

from session_agent.limits import DEFAULT_COMMAND_TIMEOUT_SECONDS
from session_agent.output import OutputStreams
from session_agent.processes import ChildProcess, PipeReader, PipeWriter, exit_status, kill_group
from session_agent.protocol import Failure, directory_field, envs_field, field, kind, op, timeout_field


class Command:
    """A bash command line in its own process group. Its output goes to the request streaming it, or is
    buffered (with its timestamps) until a command_wait asks for it."""

    def __init__(self, agent, cmd, args, cwd, env, envs, tag, timeout, background, with_stdin):
        self.agent, self.cmd, self.args, self.cwd, self.background = agent, cmd, args, cwd, background
        self.envs, self.tag = envs or {}, tag  # as asked, for command_list
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        stdin_r, stdin_w = os.pipe() if with_stdin else (None, None)
        argv = ["/bin/bash", "-c", cmd] if args is None else [cmd, *args]
        try:
            self.child = ChildProcess(agent, argv, on_end=lambda: self.on_program_status(),
                                      cwd=cwd, env=env,
                                      stdin=stdin_r if with_stdin else subprocess.DEVNULL, stdout=out_w, stderr=err_w)
            self.proc = self.child.proc
        except (OSError, subprocess.SubprocessError) as exc:
            for fd in (out_r, out_w, err_r, err_w, stdin_r, stdin_w):
                if fd is not None:
                    os.close(fd)
            raise Failure(kind.io, "could not start %s: %s" % (argv[0], exc))
        for fd in (out_w, err_w, stdin_r):
            if fd is not None:
                os.close(fd)
        self.pid = self.proc.pid
        self.deadline = time.monotonic() + timeout if timeout else None
        self.stdin = PipeWriter(agent, stdin_w) if with_stdin else None
        self.followers = []  # the requests streaming its output (CommandFollower); none: it is buffered
        self.buffer = collections.deque()
        self.killed = False
        self.streams = OutputStreams(self.deliver)
        self.readers = [PipeReader(agent, out_r, lambda data: self.streams.feed("stdout", data)),
                        PipeReader(agent, err_r, lambda data: self.streams.feed("stderr", data))]
        self.timed_out = False
        self.finished = False
        self.returncode = None

    def deliver(self, stream, text, timestamp):
        if self.followers:
            for follower in self.followers:
                self.agent.emit({"id": follower.id, "type": stream, "text": text, "timestamp": timestamp})
        else:
            self.buffer.append((stream, text, timestamp))

    def attach(self, follower):
        """Streams to `follower` from now on. Output is buffered only while nobody follows, so the first
        follower (or the first after the others detached) gets what was buffered, the others live output."""
        self.followers.append(follower)
        while self.buffer:
            stream, text, timestamp = self.buffer.popleft()
            self.agent.emit({"id": follower.id, "type": stream, "text": text, "timestamp": timestamp})
        if self.finished:
            self.end_followers()

    def detach(self, follower):
        if follower in self.followers:
            self.followers.remove(follower)

    def kill(self):
        kill_group(self.pid)
        # SIGKILL cannot be refused: the command counts as ended at once, even before it is reaped.
        self.killed = True

    def terminate(self):
        """SIGTERM to the program (its init forwards it; on a host run, to its process group): it may refuse."""
        for send in (os.kill,) if self.agent.isolation.steps is not None else (os.killpg, os.kill):
            try:
                send(self.pid, signal.SIGTERM)
                return
            except OSError:
                pass

    def on_reaped(self, proc):
        """The agent reaped the command's init (or, on a host run, the command itself)."""
        self.on_program_status()

    def on_program_status(self):
        """The init reported bash's end (or the init itself ended): the command has ended."""
        if not self.finished and self.child.returncode() is not None:
            self.on_exit()

    def on_exit(self):
        # Everything bash wrote is in the pipes now; what its leftover children write later is not waited for
        # (they live on in the command's own pid namespace until they end, or the session does).
        self.returncode = self.child.returncode()
        self.child.close()
        for reader in self.readers:
            reader.drain()
            reader.close()
        self.streams.finish()
        if self.stdin is not None:
            self.stdin.close()
        self.finished = True
        self.end_followers()

    def end_followers(self):
        """Each follower gets `end`; a command that had followers is then forgotten (collected)."""
        if not self.followers:
            return
        for follower in self.followers:
            self.agent.streaming.pop(follower.id, None)
            self.agent.emit(self.end_event(follower.id))
        self.followers = []
        self.agent.commands.by_pid.pop(self.pid, None)

    def end_event(self, request_id):
        exit_code, error = exit_status(self.returncode)
        return {"id": request_id, "type": "end", "exit_code": exit_code, "error": error, "timed_out": self.timed_out}

    def describe(self):
        return {"pid": self.pid, "cmd": self.cmd, "args": self.args, "envs": self.envs, "cwd": self.cwd,
                "tag": self.tag, "running": not (self.finished or self.killed), "background": self.background}


class CommandFollower:
    """One request streaming a command's output (a foreground run_command or a command_wait). Interrupted,
    it kills the command (mode "stop"), or stops following and leaves the command running (mode "detach":
    its final event is `reply {"detached": true}`; what the command writes next is buffered for the next
    follower)."""

    def __init__(self, agent, request_id, command, wait_timeout):
        self.agent, self.id, self.command = agent, request_id, command
        self.deadline = time.monotonic() + wait_timeout if wait_timeout else None

    def interrupt(self, reason, mode="stop"):
        if mode == "detach":
            self.command.detach(self)
            self.agent.streaming.pop(self.id, None)
            self.agent.reply(self.id, detached=True)
        else:
            self.command.kill()

    def next_wakeup(self):
        return None if self.deadline is None else self.deadline - time.monotonic()

    def settle(self):
        pass  # a command's end reaches its followers from the loop's callbacks (Command.on_exit)

    def check_clock(self):
        if self.deadline is not None and time.monotonic() >= self.deadline and not self.command.finished:
            self.deadline = None  # waited long enough: the command is killed, and `end` says timed_out
            self.command.timed_out = True
            self.command.kill()


# Directory watchers (watch_start / watch_events / watch_stop): inotify through ctypes on libc, one inotify


class Commands:
    """The commands the session started, by pid, until waited for (background) or ended (foreground)."""

    def __init__(self, agent):
        self.agent = agent
        self.by_pid = {}

    def handlers(self):
        return {op.run_command: self.run_command, op.command_wait: self.command_wait,
                op.command_kill: self.command_kill, op.command_send_stdin: self.command_send_stdin,
                op.command_close_stdin: self.command_close_stdin, op.command_list: self.command_list}

    def next_wakeup(self):
        """Seconds until the first command deadline, or None."""
        now = time.monotonic()
        moments = [c.deadline - now for c in self.by_pid.values() if c.deadline is not None and not c.finished]
        return min(moments) if moments else None

    def check_clock(self):
        now = time.monotonic()
        for command in list(self.by_pid.values()):
            if command.deadline is not None and not command.finished and now >= command.deadline:
                command.deadline = None
                command.timed_out = True
                command.kill()

    def run_command(self, request_id, request):
        cmd = field(request, "cmd", str, "a bash command line", required=True)
        args = field(request, "args", list, "a list of strings")
        if args is not None and not all(isinstance(arg, str) and "\0" not in arg for arg in args):
            raise Failure(kind.invalid, "\"args\" of run_command must be strings without NUL bytes")
        tag = field(request, "tag", str, "a string")
        envs = envs_field(request)
        cwd = directory_field(request, self.agent.home)
        timeout = timeout_field(request, default=DEFAULT_COMMAND_TIMEOUT_SECONDS)
        background = field(request, "background", bool, "true or false", default=False)
        with_stdin = field(request, "stdin", bool, "true or false", default=False)
        field(request, "user", str, "a user name")  # one user in the sandbox: accepted, ignored
        if "\0" in cmd:
            raise Failure(kind.invalid, "\"cmd\" must not contain NUL bytes")
        if tag is not None and any(c.tag == tag and not c.finished for c in self.by_pid.values()):
            raise Failure(kind.invalid, "a running command already has the tag %r; tags name one command" % tag)
        command = Command(self.agent, cmd, args, cwd, self.agent.child_env(envs), envs, tag, timeout, background, with_stdin)
        self.agent.track(command.proc, command)
        self.by_pid[command.pid] = command
        self.agent.emit({"id": request_id, "type": "start", "pid": command.pid})
        if background:
            self.agent.reply(request_id, pid=command.pid)
            return
        self.follow(request_id, command, None)

    def follow(self, request_id, command, wait_timeout):
        """Makes `request_id` a follower of the command: it streams the command's output until the command
        ends (then `end`, and the command is forgotten), or until it is interrupted in detach mode."""
        follower = CommandFollower(self.agent, request_id, command, wait_timeout)
        self.agent.streaming[request_id] = follower
        command.attach(follower)  # a command that already ended sends `end` at once

    def command_field(self, request):
        """The command a request names by "pid" or by "tag" (one of them)."""
        pid = field(request, "pid", int, "a process id")
        tag = field(request, "tag", str, "a command's tag")
        if (pid is None) == (tag is None):
            raise Failure(kind.invalid, "%s needs \"pid\" or \"tag\" (one of them) to name the command" % request["op"])
        if pid is not None:
            command = self.by_pid.get(pid)
            if command is None:
                raise Failure(kind.not_found, "no command with pid %d; command_list shows the commands this session "
                              "started" % pid)
            return command
        for command in self.by_pid.values():
            if command.tag == tag:
                return command
        raise Failure(kind.not_found, "no command with tag %r; command_list shows the commands this session started"
                      % tag)

    def command_wait(self, request_id, request):
        command = self.command_field(request)
        self.follow(request_id, command, timeout_field(request))

    def command_kill(self, request_id, request):
        how = field(request, "signal", str, "\"SIGKILL\" or \"SIGTERM\"", default="SIGKILL")
        if how not in ("SIGKILL", "SIGTERM"):
            raise Failure(kind.invalid, "\"signal\" of command_kill must be \"SIGKILL\" or \"SIGTERM\", not %r" % how)
        try:
            command = self.command_field(request)
        except Failure as error:
            if error.kind != kind.not_found:
                raise
            command = None
        if command is None or command.finished or command.killed:
            self.agent.reply(request_id, killed=False)
            return
        if how == "SIGKILL":
            command.kill()
        else:
            command.terminate()
        self.agent.reply(request_id, killed=True)

    def stdin_of(self, request):
        command = self.command_field(request)
        if command.stdin is None:
            raise Failure(kind.invalid, "command %d was started without stdin; run it with \"stdin\": true"
                          % command.pid)
        if command.finished:
            raise Failure(kind.invalid, "command %d has already exited" % command.pid)
        if not command.stdin.open:
            raise Failure(kind.invalid, "the stdin of command %d is already closed" % command.pid)
        return command.stdin

    def command_send_stdin(self, request_id, request):
        text = field(request, "data", str, "a string")
        encoded = field(request, "data_base64", str, "base64 of the bytes")
        if (text is None) == (encoded is None):
            raise Failure(kind.invalid, "command_send_stdin needs \"data\" (text) or \"data_base64\" (bytes), one of them")
        if encoded is not None:
            try:
                data = base64.b64decode(encoded, validate=True)
            except ValueError:  # binascii.Error is one
                raise Failure(kind.invalid, "\"data_base64\" of command_send_stdin is not valid base64")
        else:
            data = text.encode("utf-8", "surrogatepass")
        self.stdin_of(request).write(data)
        self.agent.reply(request_id)

    def command_close_stdin(self, request_id, request):
        self.stdin_of(request).close_after_flush()
        self.agent.reply(request_id)

    def command_list(self, request_id, request):
        self.agent.reply(request_id, processes=[command.describe() for command in self.by_pid.values()])
