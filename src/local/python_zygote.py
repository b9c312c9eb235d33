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
# All of that is compiled code: the library built from the cold path's own sources (warm_serve.cpp and
# warm_steps.cpp), which the supervisor sends with the settings and this file loads with ctypes. Once
# loaded, the zygote calls its loop (e2beval_warm_serve) and never runs Python again: a page the
# interpreter writes after a fork is a page copied, so the loop is not Python. What stays here is what
# must happen in this interpreter: its imports, and, in each execution's process, a fresh seed for
# `random` ahead of the request, then the request's environment and its code.
import _random
import ctypes
import os
import random
import socket
import sys

# What generated code and its tests commonly import: importing it once here makes every execution start
# warm. Kept to light modules: every page of the zygote is copied (as page tables) on each fork.
import atexit, bisect, builtins, collections, contextlib, copy, functools, heapq, io, json  # noqa: E401,F401
import itertools, math, operator, re, string, traceback, types, typing  # noqa: E401,F401

# random's module instance and the C seed method under its Python one (prepare_ahead says why).
random_instance, seed_from_urandom = random._inst, _random.Random.seed


def run_main(path):
    """Runs the program at `path` as __main__ like `python -I -B -u main.py` would, and returns the exit
    status it asks for; what happens at exit is run_code's."""
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    sys.argv = [path]
    try:
        with open(path, "rb", buffering=0) as source:  # read at once: no buffer to allocate
            code = compile(source.read(), path, "exec")
        exec(code, main.__dict__)
    except SystemExit as exit:
        if exit.code is None:
            return 0
        if isinstance(exit.code, int):
            return exit.code & 0xFF
        print(exit.code, file=sys.stderr)
        return 1
    except BaseException as error:
        # Drop this function's frame so the traceback starts at the program, as in a cold run. Python 3.11+
        # prints the exception's own __traceback__ whatever excepthook is given, so that is replaced too.
        error.__traceback__ = error.__traceback__.tb_next
        sys.excepthook(type(error), error, error.__traceback__)
        return 1
    return 0


def run_code(path):
    """Runs /tmp/main.py as __main__, then what a cold run's interpreter does at exit, in its order (CPython's
    Py_FinalizeEx): wait for the program's non-daemon threads, run its exit functions, flush; returns the
    exit status."""
    status = run_main(path)
    threading = sys.modules.get("threading")  # imported by the program, or by the zygote's start-up
    if threading is not None:
        try:
            # Only where a thread besides this one was started: _shutdown writes ~35 pages the fork shares
            # (~0.09 ms of CPU). Read without the lock (active_count takes it: more pages), as nothing else
            # runs when no other thread does.
            if len(threading._active) + len(threading._limbo) > 1:
                threading._shutdown()
        except BaseException:
            pass
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    return status


def rehearse_execution():
    """In the zygote, once before serving: an empty program through run_code, and a seed. CPython sets up
    some of its state lazily, on a function's first use: open()'s keyword parser, the type attribute cache
    entries these calls look up. Done first in each execution, that wrote pages the fork shares (each one
    copied, ~2 µs of CPU); done here, once, every execution finds it ready. What the empty program changed
    (__main__, argv) is put back; its exit steps find no thread and no exit function (they were dropped)."""
    zygote_main, zygote_argv = sys.modules["__main__"], sys.argv
    if run_code(os.devnull) != 0:
        raise RuntimeError("the zygote's rehearsal of an empty program failed")
    sys.modules["__main__"], sys.argv = zygote_main, zygote_argv
    random_instance.gauss_next = None  # what random.seed() resets besides the state; prepare_ahead does not
    prepare_ahead()


def prepare_ahead():
    """In a standby, before its request: the seed a cold run's import of `random` would make (the fork
    skipped CPython's after-fork handlers, random's among them). Through the C method: random.seed() adds
    only argument checks and `gauss_next = None` (the rehearsal set it), and wrote ~15 pages more, ~0.04 ms
    of CPU per execution. Nothing else: running a throwaway program here to copy ahead the pages a program
    writes was tried, and cost more CPU than it saved (it writes pages the request's program would not),
    0.5 ms per execution."""
    seed_from_urandom(random_instance)


def run_execution(environment_differs):
    """In an execution's own process, contained (warm_serve.cpp made every step): its environment where it
    differs from the zygote's, then the code."""
    if environment_differs:
        size = ctypes.c_size_t()
        block = ctypes.string_at(warm.e2beval_warm_environment_block(ctypes.byref(size)), size.value)
        os.environ.clear()
        for variable in block.split(b"\0")[:-1]:
            name, _, value = variable.partition(b"=")
            os.environb[name] = value
    os._exit(run_code("/tmp/main.py"))


def load_warm_steps():
    """The settings (opaque bytes) and the compiled steps (a shared library in a memfd) arrive first."""
    control = socket.socket(fileno=3)
    settings, fds, _, _ = socket.recv_fds(control, 1 << 20, 9)
    control.detach()  # fd 3 stays open for the loop; no Python object may close it later
    library = ctypes.CDLL("/proc/self/fd/%d" % fds[0])
    os.close(fds[0])  # the library stays mapped
    cgroup_tasks = fds[1:]  # cgroup v1: the execution cgroups' tasks files (WarmSettings)
    library.e2beval_warm_configure.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    library.e2beval_warm_report_failure.restype = None
    library.e2beval_warm_environment_block.argtypes = [ctypes.POINTER(ctypes.c_size_t)]
    library.e2beval_warm_environment_block.restype = ctypes.c_void_p
    if (library.e2beval_warm_configure(settings, len(settings)) != 0 or
            library.e2beval_warm_keep_cgroup_tasks((ctypes.c_int * len(cgroup_tasks))(*cgroup_tasks), len(cgroup_tasks)) != 0):
        library.e2beval_warm_report_failure(3)
        os._exit(127)
    return library


warm = load_warm_steps()
# The loop forks without CPython's after-fork handlers, which is sound only in a process of one thread:
# a thread started at interpreter start-up (a .pth file can) would make the zygote refuse to start.
if len(os.listdir("/proc/self/task")) != 1:
    sys.stderr.write("the zygote has more than one thread (started by a .pth file?): it cannot fork safely\n")
    os._exit(127)
# The interpreter's first compile() sets up the compiler's own state (lazily, once per process): done in
# each execution, it wrote ~110 pages more (copied after the fork) and cost ~0.8 ms of CPU per execution.
# Modules load from .pyc files, so nothing compiled before unless something at start-up happened to (a
# .pth file that imports modules built with namedtuple, say), which is why the cost came and went with
# the machine. One small compile here makes every execution's compile start warm.
compile(b"def f(x):\n    return [y for y in x if y]\n", "<e2beval-warm-up>", "exec")
# Exit functions registered while this interpreter started (by site, a .pth file, an imported module)
# belong to the zygote, not to the executions it forks: a fork server's child does not run its parent's
# (multiprocessing's do not), and one that removed a file the zygote made would break every later
# execution. The zygote never exits normally, so they are dropped: an execution runs exactly the exit
# functions its own program registers. (A .pth file on this project's CI machine registers one, which
# each execution also paid for: ~0.06 ms of CPU.)
atexit._clear()
rehearse_execution()
# Looked up once here: a ctypes function's first lookup on the library builds and caches it, in whichever
# process makes it (in each execution's, ~30 pages written after the fork).
take_request = warm.e2beval_warm_take_request
# Returns only in a standby, ahead of its request.
warm.e2beval_warm_serve(3)
prepare_ahead()
run_execution(take_request() == 1)  # take_request returns contained, with the request's code in /tmp/main.py
