# e2beval's warm-pool zygote: a Python interpreter started once inside a sandbox, modules imported, that
# forks one isolated child per execution. Embedded into the library at build time (python_zygote.hpp).
#
# It runs as the sandbox user with CAP_SYS_ADMIN and CAP_SETPCAP inside the sandbox's user namespace only,
# fd 3 being its control channel (SOCK_SEQPACKET) to the supervisor. It serves one execution at a time.
# Ahead of each request it forks a standby process into a new pid namespace (pid 1 there), which unshares
# new mount and ipc namespaces and mounts its own workspace, /dev/shm and /proc, and reports it (a pidfd)
# to the supervisor, which moves it into the cgroup of the execution it will run before it sends that
# request. On the request, the standby reads the code, sets rlimits, drops every capability, sets
# no_new_privs, installs the seccomp filter and runs the code: the same steps, in the same order, as a
# cold sandbox. The zygote reports the program's end.
#
# Every one of those steps, and every report to the supervisor, is compiled code: the library built from
# the cold path's own sources (src/local/warm_steps.cpp), which the supervisor sends with the settings and
# this file loads with ctypes. What stays in Python is only what must happen in this interpreter: forking,
# file descriptors, the environment, and running the code.
import ctypes
import json
import os
import signal
import socket
import sys

# What generated code and its tests commonly import: importing it once here makes every execution start
# warm. Kept to light modules: every page of the zygote is copied (as page tables) on each fork.
import atexit, bisect, builtins, collections, contextlib, copy, functools, heapq, io  # noqa: E401,F401
import itertools, math, operator, random, re, string, traceback, types, typing  # noqa: E401,F401


class Failure(Exception):
    """A compiled step failed; the library keeps what failed and reports it (e2beval_warm_report_failure)."""


def check(result):
    if result != 0:
        raise Failure()


def run_code(path):
    """Runs /tmp/main.py as __main__ like `python -I -B -u main.py` would, and returns the exit status."""
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    sys.argv = [path]
    status = 0
    try:
        with open(path, "rb") as source:
            code = compile(source.read(), path, "exec")
        exec(code, main.__dict__)
    except SystemExit as exit:
        if exit.code is None:
            status = 0
        elif isinstance(exit.code, int):
            status = exit.code & 0xFF
        else:
            print(exit.code, file=sys.stderr)
            status = 1
    except BaseException as error:
        # Drop this function's frame so the traceback starts at the program, as in a cold run. Python 3.11+
        # prints the exception's own __traceback__ whatever excepthook is given, so that is replaced too.
        error.__traceback__ = error.__traceback__.tb_next
        sys.excepthook(type(error), error, error.__traceback__)
        status = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    return status


def program(message, fds, channel):
    """pid 1 of a fresh pid namespace, its own mounts already made: the cold path's last steps."""
    code_fd, stdin_fd, stdout_fd, stderr_fd = fds
    request = json.loads(message)
    steps = bytes.fromhex(request["steps"])
    check(warm.e2beval_warm_prepare(steps, len(steps)))
    with open("/tmp/main.py", "wb") as program_file:
        while True:
            chunk = os.read(code_fd, 1 << 16)
            if not chunk:
                break
            program_file.write(chunk)
    os.chdir("/tmp")
    for target, fd in ((0, stdin_fd), (1, stdout_fd), (2, stderr_fd)):
        os.dup2(fd, target)
    os.environ.clear()
    os.environ.update(request["env"])
    check(warm.e2beval_warm_contain(channel.fileno()))
    channel.close()
    os.closerange(3, 1 << 16)
    os._exit(run_code("/tmp/main.py"))


def start_standby():
    """Forks the next execution's process ahead of its request, so the fork, its pid, mount and ipc
    namespaces and its mounts are not on the request's path. It is pid 1 of its own pid namespace (the
    zygote's children stay in the zygote's), and waits for its request on a socket of its own.
    The network namespace is the zygote's, where lo stays down; a zygote serves one execution at a
    time, so nothing an execution leaves there outlives it or reaches another."""
    zygote_end, standby_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    check(warm.e2beval_warm_enter_new_pid_namespace())
    try:
        pid = os.fork()
        if pid == 0:
            channel = None
            try:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                # Keep only our own socket: the zygote may be holding the running execution's report
                # channel, which must close when that execution ends, not when this standby does.
                keep = standby_end.fileno()
                os.closerange(3, keep)
                os.closerange(keep + 1, 1 << 16)
                check(warm.e2beval_warm_mount_own_workspace())
                message, fds, _, _ = socket.recv_fds(standby_end, 1 << 16, 8)
                if not message:
                    os._exit(0)  # the zygote is gone
                standby_end.close()
                channel = socket.socket(fileno=fds[-1])
                program(message, fds[:-1], channel)
            except Failure:
                if channel:
                    warm.e2beval_warm_report_failure(channel.fileno())
            except BaseException as error:  # the zygote's own bug: report it rather than run anything
                if channel:
                    warm.e2beval_warm_report_bug(channel.fileno(), ("zygote: %s: %s" % (type(error).__name__, error)).encode())
            os._exit(127)
    finally:
        # Our own children must stay in our pid namespace: only the program gets a new one.
        back = warm.e2beval_warm_return_to_own_pid_namespace()
    standby_end.close()
    if back != 0:
        os.kill(pid, signal.SIGKILL)
        raise Failure()
    return pid, zygote_end


def standby_alive(pid):
    try:
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return False


def report_standby(report, standby, fd):
    """Hands the supervisor a pidfd of the standby: it moves it into its execution's cgroup."""
    pidfd = os.pidfd_open(standby[0])
    try:
        check(report(fd, pidfd))
    finally:
        os.close(pidfd)


def serve():
    standby = start_standby()
    report_standby(lambda fd, pidfd: warm.e2beval_warm_report_ready(fd, os.getpid(), pidfd), standby, control.fileno())
    while True:
        message, fds, _, _ = socket.recv_fds(control, 1 << 16, 8)
        if not message:
            os._exit(0)  # the supervisor is gone (the standby follows: its socket closes)
        channel = socket.socket(fileno=fds[-1])
        try:
            # Only the standby the supervisor moved into the request's cgroup may run it: a dead one is
            # not replaced here (a new process would run outside that cgroup's limits).
            if not standby_alive(standby[0]):
                warm.e2beval_warm_report_bug(channel.fileno(), b"zygote: the process prepared for this execution died")
                channel.close()
                os._exit(127)
            pid, standby_socket = standby
            # The program's pidfd reaches the supervisor before the program can run: whatever makes the
            # supervisor kill it (a denied call in kill mode, a limit) finds it there, not only its zygote.
            pidfd = os.pidfd_open(pid)
            started = warm.e2beval_warm_report_started(channel.fileno(), pidfd)
            os.close(pidfd)
            check(started)
            socket.send_fds(standby_socket, [message], fds)
            standby_socket.close()
            for fd in fds[:-1]:
                os.close(fd)
            standby = start_standby()  # the next one, while this program runs
            report_standby(warm.e2beval_warm_report_standby, standby, channel.fileno())
            while True:
                try:
                    _, status, usage = os.wait4(pid, 0)
                    break
                except InterruptedError:
                    continue
            cpu_us = int((usage.ru_utime + usage.ru_stime) * 1e6)
            warm.e2beval_warm_report_ended(channel.fileno(), status, usage.ru_maxrss, cpu_us)
        except Failure:
            warm.e2beval_warm_report_failure(channel.fileno())
        channel.close()


def load_warm_steps():
    """The settings (opaque bytes) and the compiled steps (a shared library in a memfd) arrive first."""
    settings, fds, _, _ = socket.recv_fds(control, 1 << 20, 1)
    library = ctypes.CDLL("/proc/self/fd/%d" % fds[0])
    os.close(fds[0])  # the library stays mapped
    library.e2beval_warm_configure.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    library.e2beval_warm_prepare.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    library.e2beval_warm_report_bug.argtypes = [ctypes.c_int, ctypes.c_char_p]
    library.e2beval_warm_report_ended.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
    for name in ("e2beval_warm_report_failure", "e2beval_warm_report_bug", "e2beval_warm_report_ended"):
        getattr(library, name).restype = None
    if library.e2beval_warm_configure(settings, len(settings)) != 0:
        library.e2beval_warm_report_failure(control.fileno())
        os._exit(127)
    return library


control = socket.socket(fileno=3)
warm = load_warm_steps()
serve()
