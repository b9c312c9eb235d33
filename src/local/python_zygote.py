# e2beval's warm-pool zygote: a Python interpreter started once inside a sandbox, modules imported, that
# forks one isolated child per execution. Embedded into the library at build time (python_zygote.hpp).
#
# It runs as the sandbox user with CAP_SYS_ADMIN and CAP_SETPCAP inside the sandbox's user namespace only,
# fd 3 being its control channel (SOCK_SEQPACKET) to the supervisor. It serves one execution at a time.
# Ahead of each request it forks a standby process into a new pid namespace (pid 1 there), which unshares
# new mount and ipc namespaces and mounts its own workspace, /dev/shm and /proc; on the request, the
# standby reads the code, waits until the supervisor has put it into its cgroup, then sets rlimits, drops
# every capability, sets no_new_privs, installs the seccomp filter and runs the code: the same steps, in
# the same order, as a cold sandbox. The zygote reports the program's end.
import ctypes
import json
import os
import resource
import signal
import socket
import struct
import sys

# What generated code and its tests commonly import: importing it once here makes every execution start
# warm. Kept to light modules: every page of the zygote is copied (as page tables) on each fork.
import atexit, bisect, builtins, collections, contextlib, copy, functools, heapq, io  # noqa: E401,F401
import itertools, math, operator, random, re, string, traceback, types, typing  # noqa: E401,F401

REPORT = struct.Struct("=iiqq160s256s")  # ChildReport in src/local/spawn_plan.hpp
SETUP_FAILED, PROGRAM_ENDED, SECCOMP_LISTENER, PROGRAM_STARTED, ZYGOTE_READY = 1, 2, 3, 4, 5
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x08000000, 0x20000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 2, 4, 8, 32
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4
SYS_CAPSET, SYS_SECCOMP = 126, 317  # x86_64
CAP_SETPCAP, CAP_SYS_ADMIN = 8, 21
SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER = 1, 8

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
libc.syscall.restype = ctypes.c_long


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Failure(Exception):
    def __init__(self, call, path=""):
        super().__init__(call)
        self.call, self.path, self.errno = call, path, ctypes.get_errno()


def report(channel, kind, value=0, fds=(), call="", path="", peak_rss_kib=-1, cpu_us=-1):
    message = REPORT.pack(kind, value, peak_rss_kib, cpu_us, call.encode()[:159], path.encode()[:255])
    socket.send_fds(channel, [message], list(fds))


def check(result, call, path=""):
    if result != 0:
        raise Failure(call, path)


def mount(source, target, fstype, flags, data):
    check(libc.mount(source, target, fstype, flags, data), "mount(%s)" % (fstype or b"remount").decode(), target.decode())


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


DEFAULT_WORKSPACE_BYTES = 64 << 20  # Limits::workspace_bytes; other sizes are applied with a remount


def tmpfs_options(workspace_bytes, remount=False):
    workspace = "size=%d,nr_inodes=4096" % workspace_bytes
    shm = "size=%d,nr_inodes=256" % (workspace_bytes // 4 + 4096)
    if not remount:
        workspace += ",mode=0755,uid=1000,gid=1000"
        shm += ",mode=0755,uid=1000,gid=1000"
    return workspace.encode(), shm.encode()


def own_mounts():
    """The program's own workspace, /dev/shm and /proc, in the mount namespace it has just unshared."""
    workspace, shm = tmpfs_options(DEFAULT_WORKSPACE_BYTES)
    mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, workspace)
    mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, shm)
    mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)


def program(request, fds, channel):
    """pid 1 of a fresh pid namespace, its own mounts already made: the cold path's last steps."""
    code_fd, stdin_fd, stdout_fd, stderr_fd = fds
    if request["workspace_bytes"] != DEFAULT_WORKSPACE_BYTES:
        workspace, shm = tmpfs_options(request["workspace_bytes"], remount=True)
        mount(None, b"/tmp", None, MS_REMOUNT | MS_NOSUID | MS_NODEV, workspace)
        mount(None, b"/dev/shm", None, MS_REMOUNT | MS_NOSUID | MS_NODEV, shm)
    with open("/tmp/main.py", "wb") as program_file:
        while True:
            chunk = os.read(code_fd, 1 << 16)
            if not chunk:
                break
            program_file.write(chunk)
    os.chdir("/tmp")
    if channel.recv(1) != b"g":  # the supervisor has put us into this execution's cgroup
        os._exit(126)
    for target, fd in ((0, stdin_fd), (1, stdout_fd), (2, stderr_fd)):
        os.dup2(fd, target)
    os.environ.clear()
    os.environ.update(request["env"])
    os.setsid()
    # Out of memory, the kernel kills the program's tree first, not its keeper (as exec_program does cold).
    try:
        with open("/proc/self/oom_score_adj", "w") as score:
            score.write("1000")
    except OSError:
        pass
    for name, soft, hard in request["rlimits"]:
        resource.setrlimit(getattr(resource, name), (soft, hard))
    # The zygote's bounding set holds only these two (the rest went before it started).
    for cap in (CAP_SETPCAP, CAP_SYS_ADMIN):
        check(libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), "prctl(PR_CAPBSET_DROP)")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (ctypes.c_uint32 * 6)()
    check(libc.syscall(SYS_CAPSET, header, data), "capset(all zero)")
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS, 1)")
    filter_bytes = ctypes.create_string_buffer(FILTER, len(FILTER))
    program_filter = SockFprog(len(FILTER) // 8, ctypes.addressof(filter_bytes))
    flags = SECCOMP_FILTER_FLAG_NEW_LISTENER if REPORTS_DENIALS else 0
    listener = libc.syscall(SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, flags, ctypes.byref(program_filter))
    if listener < 0:
        raise Failure("seccomp(SECCOMP_SET_MODE_FILTER)")
    if REPORTS_DENIALS:
        report(channel, SECCOMP_LISTENER, fds=[listener])
        os.close(listener)
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
    check(libc.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
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
                check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare(CLONE_NEWNS|CLONE_NEWIPC)")
                own_mounts()
                message, fds, _, _ = socket.recv_fds(standby_end, 1 << 16, 8)
                if not message:
                    os._exit(0)  # the zygote is gone
                standby_end.close()
                channel = socket.socket(fileno=fds[-1])
                program(json.loads(message), fds[:-1], channel)
            except Failure as failure:
                if channel:
                    report(channel, SETUP_FAILED, failure.errno, call=failure.call, path=failure.path)
            except BaseException as error:  # the zygote's own bug: report it rather than run anything
                if channel:
                    report(channel, SETUP_FAILED, 0, call="zygote: %s: %s" % (type(error).__name__, error))
            os._exit(127)
    finally:
        # Our own children must stay in our pid namespace: only the program gets a new one.
        back = libc.setns(OWN_PID_NAMESPACE, CLONE_NEWPID)
    standby_end.close()
    if back != 0:
        os.kill(pid, signal.SIGKILL)
        raise Failure("setns(own pid namespace)")
    return pid, zygote_end


def standby_alive(pid):
    try:
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return False


def serve():
    standby = start_standby()
    report(control, ZYGOTE_READY, os.getpid())
    while True:
        message, fds, _, _ = socket.recv_fds(control, 1 << 16, 8)
        if not message:
            os._exit(0)  # the supervisor is gone (the standby follows: its socket closes)
        channel = socket.socket(fileno=fds[-1])
        try:
            if not standby_alive(standby[0]):
                standby = start_standby()
            pid, standby_socket = standby
            socket.send_fds(standby_socket, [message], fds)
            standby_socket.close()
            for fd in fds[:-1]:
                os.close(fd)
            pidfd = os.pidfd_open(pid)
            report(channel, PROGRAM_STARTED, fds=[pidfd])
            os.close(pidfd)
            standby = start_standby()  # the next one, while this program runs
            while True:
                try:
                    _, status, usage = os.wait4(pid, 0)
                    break
                except InterruptedError:
                    continue
            cpu_us = int((usage.ru_utime + usage.ru_stime) * 1e6)
            report(channel, PROGRAM_ENDED, status, peak_rss_kib=usage.ru_maxrss, cpu_us=cpu_us)
        except Failure as failure:
            report(channel, SETUP_FAILED, failure.errno, call=failure.call, path=failure.path)
        channel.close()


control = socket.socket(fileno=3)
OWN_PID_NAMESPACE = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
# The seccomp filter, compiled by the supervisor, arrives first.
_message, _fds, _, _ = socket.recv_fds(control, 1 << 20, 1)
_settings = json.loads(_message)
FILTER = bytes.fromhex(_settings["filter"])
REPORTS_DENIALS = _settings["reports_denials"]
del _message, _fds, _settings
serve()
