# The Runner's test harnesses (each shape's handler in src/eval/shapes/ builds its program): appended to the program after the model's code (calls,
# snippets) or instead of it (stdin/stdout), then one of the __e2beval_run_* functions is called with the test's
# cases. Each reports every case on one marker line of the real stdout, after all the program printed.
# Compiled into the library as a string at build time; every name starts with __e2beval / __E2beval.
# A program gets only the sections its shape needs (each "# @section NAME" line starts one): compiling the whole
# file would cost every execution about 1.5 ms.

# @section report
def __e2beval_report(results, marker, **dumps):
    import json, sys
    sys.stdout.flush()
    sys.__stdout__.write('\n' + marker + json.dumps(results, **dumps) + '\n')
    sys.__stdout__.flush()


# @section in_process
import io as __e2beval_io


class __E2beval_Capture(__e2beval_io.TextIOBase):
    """What a case prints: passed on to the program's stdout, where the sandbox's output limit applies as in
    every other shape (a capture in memory let 50 MB through and turned a print loop into memory_limit), with
    its first 4 KiB kept for the case's report."""

    def __init__(self, target):
        self.target, self.kept, self.room = target, [], 4096

    def writable(self):
        return True

    def write(self, text):
        self.target.write(text)
        if self.room > 0:
            piece = text[:self.room]
            self.kept.append(piece)
            self.room -= len(piece)
        return len(text)

    def flush(self):
        self.target.flush()

    def getvalue(self):
        return ''.join(self.kept)


del __e2beval_io


def __e2beval_out_of_memory(error):
    """Running out of memory is the sandbox's memory_limit in every shape, not one case's exception: the
    program ends as an uncaught MemoryError would, with only the code's own frames."""
    import os, sys, traceback
    try:
        sys.stdout.flush()
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        sys.stderr.flush()
    except BaseException:
        os.write(2, b'MemoryError\n')
    os._exit(1)


# @section calls
def __e2beval_run_calls(calls, marker):
    """Function calls: each (source of the call, whether the case expects MemoryError) is evaluated in the
    module's namespace; str() of its value, or its exception, is the case's result."""
    import contextlib, sys
    results = []
    for call, expects_memory_error in calls:
        captured = __E2beval_Capture(sys.stdout)
        entry = {}
        try:
            with contextlib.redirect_stdout(captured):
                entry['value'] = str(eval(compile(call, '<test case>', 'eval'), globals()))
        except BaseException as error:
            if isinstance(error, MemoryError) and not expects_memory_error:
                __e2beval_out_of_memory(error)
            entry['error'] = type(error).__name__
            entry['message'] = str(error)[:2000]
        entry['stdout'] = captured.getvalue()
        results.append(entry)
    __e2beval_report(results, marker)


# @section snippets
def __e2beval_run_snippets(snippets, marker):
    """Snippets (asserts, HumanEval's check program): each (filename, readings, segments) runs in the module's
    namespace, catching everything (SystemExit too: a candidate that exits must not pass). The first reading
    that compiles runs (a completion whose indentation a front end trimmed); none: the first one's error. A
    failure is reported with the line that raised it and which segment (the solution, the test) it is in."""
    import contextlib, linecache, sys, traceback
    results = []
    for name, sources, segments in snippets:
        source = sources[0]
        for reading in sources if len(sources) > 1 else ():
            try:
                compile(reading, name, 'exec')
            except (SyntaxError, ValueError):
                continue
            source = reading
            break
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        captured = __E2beval_Capture(sys.stdout)
        entry = {}
        try:
            with contextlib.redirect_stdout(captured):
                exec(compile(source, name, 'exec'), globals())
        except BaseException as error:
            if isinstance(error, MemoryError):
                __e2beval_out_of_memory(error)
            entry['error'] = type(error).__name__
            try:
                entry['message'] = (error.msg if isinstance(error, SyntaxError) else str(error))[:2000]
            except BaseException:
                entry['message'] = '(the exception cannot be printed)'
            line, text = None, ''
            if isinstance(error, SyntaxError) and error.filename == name:
                line, text = error.lineno, error.text or ''
            else:
                for frame in traceback.extract_tb(error.__traceback__):
                    if frame.filename == name:
                        line, text = frame.lineno, frame.line or ''
            if line:
                first, label = segments[0]
                for start, what in segments:
                    if start <= line:
                        first, label = start, what
                entry['where'] = 'line %d of %s' % (line - first + 1, label)
                entry['source'] = text.strip()[:300]
        entry['stdout'] = captured.getvalue()
        results.append(entry)
    __e2beval_report(results, marker)


# @section stdio
def __e2beval_run_stdio(source, inputs, seconds, budget, marker):
    """stdin/stdout programs: `source` is compiled once, then each input runs in a forked child whose fds 0, 1,
    2 are unlinked files in the workspace, so input(), sys.stdin.buffer, open(0) and os.write(1, ...) behave as
    in a real run, sys.exit() and crashes stay in that case, and no case sees another's state. A case is
    killed (with its process group) after `seconds`; its stdout is capped at `budget` bytes."""
    import builtins, json, linecache, os, select, signal, sys, time, traceback
    linecache.cache['<solution>'] = (len(source), None, source.splitlines(True), '<solution>')
    namespace = dict(globals())
    for name in [name for name in namespace if name.startswith(('__e2beval', '__E2beval'))]:
        del namespace[name]
    try:
        program, compile_error = compile(source, '<solution>', 'exec'), ''
    except (SyntaxError, ValueError) as error:
        program, compile_error = None, ''.join(traceback.format_exception_only(type(error), error))
    results = []
    for index, data in enumerate(inputs):
        if program is None:
            results.append({'exit': 1, 'stdout': '', 'truncated': False, 'stderr': compile_error[-2000:]})
            continue
        # Unlinked files: the case cannot find, delete or replace the harness's view of its streams.
        paths = ['.e2beval_case_%d.%s' % (index, kind) for kind in ('in', 'out', 'err')]
        fds = [os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600) for path in paths]
        for path in paths:
            os.unlink(path)
        pending = memoryview(data.encode('utf-8'))
        while pending:
            pending = pending[os.write(fds[0], pending):]
        os.lseek(fds[0], 0, os.SEEK_SET)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            status = 70
            try:
                os.setpgid(0, 0)
                signal.setitimer(signal.ITIMER_REAL, seconds)
                for fd, opened in enumerate(fds):
                    os.dup2(opened, fd)
                    os.close(opened)
                sys.stdin = sys.__stdin__ = open(0, 'r', encoding='utf-8', closefd=False)
                sys.stdout = sys.__stdout__ = open(1, 'w', encoding='utf-8', closefd=False)
                sys.stderr = sys.__stderr__ = open(2, 'w', encoding='utf-8', closefd=False)
                status = 0
                try:
                    exec(program, dict(namespace, __name__='__main__'))
                except SystemExit as exit:
                    if exit.code is None:
                        status = 0
                    elif isinstance(exit.code, int):
                        status = exit.code & 0xff
                    else:
                        print(exit.code, file=sys.stderr)
                        status = 1
                except BaseException:
                    traceback.print_exc()
                    status = 1
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                except BaseException:
                    status = status or 120
                os._exit(status)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        timed_out = False
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pidfd = None
        if pidfd is not None:
            ready = select.select([pidfd], [], [], seconds + 0.05)[0]
            os.close(pidfd)
            if not ready:
                timed_out = True
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    os.kill(pid, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        entry = {}
        if timed_out or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM):
            entry['timeout'] = seconds
        elif os.WIFSIGNALED(status):
            entry['signal'] = os.WTERMSIG(status)
        else:
            entry['exit'] = os.WEXITSTATUS(status)
        out = os.pread(fds[1], budget + 1, 0)
        err = os.pread(fds[2], 2000, max(0, os.fstat(fds[2]).st_size - 2000))
        for fd in fds:
            os.close(fd)
        entry['truncated'] = len(out) > budget
        entry['stdout'] = out[:budget].decode('utf-8', 'replace')
        entry['stderr'] = err.decode('utf-8', 'replace')
        # Out of memory: a MemoryError the case did not survive, or the kernel's OOM kill (SIGKILL
        # that the harness did not send). The Runner reports it as the sandbox's memory_limit.
        if (entry.get('exit') and b'MemoryError' in err) or (entry.get('signal') == signal.SIGKILL):
            entry['memory'] = True
        results.append(entry)
    __e2beval_report(results, marker, ensure_ascii=False)
