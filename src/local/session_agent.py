# e2beval's session agent: the program a session's sandbox runs for its whole life. It serves the protocol of
# docs/session-protocol.md on stdin (requests) and stdout (events): notebook-like code contexts in Python and
# JavaScript, bash commands (also in the background), files. Embedded into the library at build time
# (session_agent.hpp), so it is one file, standard library only, Python 3.9+.
#
# One thread. A selector waits on the host's requests, on every child's pipes and on SIGCHLD, so output streams
# while a cell runs, background output is drained (never blocking its writer) and an `interrupt` is seen at
# once. Requests are served one at a time; a streaming one pumps the selector until its final event.
import base64
import codecs
import collections
import ctypes
import datetime
import errno
import grp
import json
import os
import pwd
import re
import secrets
import select
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import time

OUTPUT_CAP_BYTES = 1 << 20  # per stream, per cell or per command
# Ends a stream that reached OUTPUT_CAP_BYTES, on that stream (docs/sessions.md quotes it).
TRUNCATION_MARKER = "[e2beval: %s truncated after 1 MiB; the rest of it was dropped]\n"
# A Python cell's output is held this long from its first write and sent as one event (ipykernel's
# OutStream.flush_interval: E2B's Python kernel sends a cell's output so).
OUTPUT_FLUSH_SECONDS = 0.2
KERNEL_START_SECONDS = 10.0  # how long ready waits for a pre-started default context (the host waits 30 s)
INTERRUPT_GRACE_SECONDS = 2.0  # after SIGINT, how long a kernel gets before it is killed and restarted
JS_SIGINT_DELAY_SECONDS = 0.5  # JS: node's own vm timeout ends synchronous code first; SIGINT is the backstop
DEFAULT_COMMAND_TIMEOUT_SECONDS = 60.0  # E2B's default
STREAMS = ("stdout", "stderr")
# What a cell may send the host besides its output streams: rich results (display(), the last expression),
# each checked and capped here, whatever the kernel (or code writing on its channel) sent. Excess is dropped
# with RESULT_DROPPED_MARKER on the cell's stderr (docs/sessions.md quotes these caps).
RESULTS_PER_CELL = 256
RESULTS_BYTES_PER_CELL = 16 << 20
RESULT_FIELD_CAP_BYTES = 4 << 20  # each field of a result (text, html, png, ...)
RESULT_TEXT_FIELDS = ("text", "html", "markdown", "svg", "png", "jpeg", "pdf", "latex", "javascript")
RESULT_DROPPED_MARKER = "[e2beval: %s; the limits per cell are %d results, %d MiB of results and %d MiB per field]\n"
ERROR_FIELD_CAP_BYTES = 1 << 20  # name, value and traceback of a cell's error
CONTROL_LINE_CAP_BYTES = 64 << 20  # a longer line from a kernel's channel is no message of the kernel's
LANGUAGES = {"python": "python", "py": "python", "python3": "python", "javascript": "javascript", "js": "javascript",
             "typescript": "typescript", "ts": "typescript", "bash": "bash", "sh": "bash", "shell": "bash"}
NODE_LANGUAGES = ("javascript", "typescript")  # run by the JavaScript kernel
OUTPUT_MODES = {"python": "interval", "bash": "lines", "javascript": "writes", "typescript": "writes"}  # CellOutput
# TypeScript cells are JavaScript cells whose types node strips first (module.stripTypeScriptTypes, which
# keeps every position, so line numbers hold): node 22.13 or 23.2 and later have it.
TYPE_STRIPPING_NODE = ((22, 13), (23, 2))
BASH = "/bin/bash"
BASH_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # what bash can export
FAILURE_KINDS = ("invalid", "not_found", "io", "unsupported", "internal")

# ---------------------------------------------------------------------------------------------------------------
# The Python kernel of one code context, run as `python -I -B -X utf8 -c PYTHON_KERNEL <in fd> <out fd> <ipython|plain>`.
# Cells arrive as JSON lines on the control pipe and run in one persistent namespace; results, display() output
# and the cell's outcome go back as JSON lines. The cell's own output uses the real fds 1 and 2.
PYTHON_KERNEL = r'''
import _thread, ast, base64, builtins, json, linecache, os, signal, sys, traceback, types

CO_COROUTINE = 0x80
MARK_PREFIX = b"\0\1e2beval-mark:"  # + "<pid>.<n>" + NUL: where a message sits in the output (send())
TEXT_CAP = 1 << 20
TRACEBACK_FRAMES_KEPT = 50  # at each end of a deep traceback that IPython formats (shortened())
RICH = (("html", "_repr_html_"), ("markdown", "_repr_markdown_"), ("svg", "_repr_svg_"), ("png", "_repr_png_"),
        ("jpeg", "_repr_jpeg_"), ("latex", "_repr_latex_"), ("json", "_repr_json_"),
        ("javascript", "_repr_javascript_"))
ASYNC_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT


def serve(control_in_fd, control_out_fd, kernel):
    os.set_inheritable(control_in_fd, False)  # processes the cells start must not hold the kernel's channel
    os.set_inheritable(control_out_fd, False)
    control_in = os.fdopen(control_in_fd, "rb")
    kernel_pid = os.getpid()

    def pipe_identity(fd):
        try:
            info = os.fstat(fd)
            return (info.st_dev, info.st_ino)
        except OSError:
            return None

    stdout_pipe, stderr_pipe = pipe_identity(1), pipe_identity(2)  # the agent's output pipes
    sys.argv = [""]
    # Line-buffered, not unbuffered (-u): a print() arrives as one chunk ("hi\n", not "hi" then "\n"), as in
    # a notebook, and output still streams line by line; partial lines go out when the cell ends.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(line_buffering=True)
        except Exception:
            pass
    if "" not in sys.path:
        sys.path.insert(0, "")  # as in a notebook: modules written to the working directory can be imported
    # The cells' namespace is a fresh __main__ module, so `import __main__` and pickle see the cells' names
    # and none of the kernel's.
    main_module = types.ModuleType("__main__")
    main_module.__builtins__ = builtins
    sys.modules["__main__"] = main_module
    namespace = main_module.__dict__
    # "cell": the nonce of the cell being run, which every message carries; the agent takes a message only
    # for the cell whose nonce it has, so nothing written on this channel reaches another cell's results.
    # "interrupted": a SIGINT hit the running cell (IPython reports the KeyboardInterrupt as the cell's error);
    # "error": the cell's error as IPython's shell showed it.
    state = {"running": False, "sending": False, "deferred": False, "loop": None, "cell": "", "interrupted": False,
             "error": None, "marks": 0}
    kernel_code = set()  # the code of the kernel's own functions: no frame of them is shown in a cell's traceback
    send_lock = _thread.allocate_lock()  # display() from a cell's thread must not interleave with the kernel
    main_thread = _thread.get_ident()

    def on_sigint(signum, frame):
        # Only a running cell is interrupted; a SIGINT that arrives between cells (a timeout racing the cell's
        # end) must not hit the kernel's own code, and one that arrives while a message is being written waits
        # until it is whole.
        __tracebackhide__ = True  # IPython leaves this frame out of the cell's traceback
        if state["running"]:
            if state["sending"]:
                state["deferred"] = True
            else:
                state["interrupted"] = True
                raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)

    def flush_streams():
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except Exception:
                pass

    def send(message):
        # Output written before this message must reach the agent before it, and output written after it after
        # it: the streams are flushed, then a mark goes on each output pipe and the message names it; the agent
        # sends what its pipes held before the mark, then the message, then the rest (docs/session-protocol.md).
        # No mark where the cell pointed fd 1 or 2 elsewhere (a file of its own must not get one).
        __tracebackhide__ = True  # IPython leaves this frame out of a traceback that passes through it
        flush_streams()
        if not state["cell"]:
            write_message(message)  # "started": no cell's output to order it in
            return
        state["marks"] += 1
        mark = "%d.%d" % (os.getpid(), state["marks"])
        marker = MARK_PREFIX + mark.encode() + b"\0"
        for fd, pipe in ((1, stdout_pipe), (2, stderr_pipe)):
            try:
                if pipe is not None and (os.fstat(fd).st_dev, os.fstat(fd).st_ino) == pipe:
                    os.write(fd, marker)
            except OSError:
                pass
        message["mark"] = mark
        write_message(message)

    def write_message(message):
        __tracebackhide__ = True
        message["cell"] = state["cell"]
        # A leading newline ends whatever partial line the cell's code may have written on this channel, so
        # this message is read whole.
        data = ("\n" + json.dumps(message) + "\n").encode()
        on_main = _thread.get_ident() == main_thread
        with send_lock:
            state["sending"] = on_main
            try:
                while data:
                    data = data[os.write(control_out_fd, data):]
            finally:
                state["sending"] = False
        if on_main and state["deferred"]:
            state["deferred"] = False
            if state["running"]:
                state["interrupted"] = True
                raise KeyboardInterrupt

    def capped(text):
        return text if len(text) <= TEXT_CAP else text[:TEXT_CAP] + "...[truncated]"

    def bundle(value, is_main):
        try:
            text = repr(value)
        except Exception as exc:
            text = "<repr() failed: %s: %s>" % (type(exc).__name__, exc)
        result = {"type": "result", "is_main_result": is_main, "text": capped(text)}
        if isinstance(value, type):
            return result  # a class's _repr_*_ are unbound methods, not this value's representations
        for key, name in RICH:
            try:
                method = getattr(value, name, None)
                if not callable(method):
                    continue
                data = method()
                if isinstance(data, tuple) and len(data) == 2:
                    data = data[0]  # IPython allows (data, metadata)
                if data is None:
                    continue
                if key in ("png", "jpeg"):
                    if isinstance(data, (bytes, bytearray)):
                        data = base64.b64encode(bytes(data)).decode("ascii")
                    elif not isinstance(data, str):
                        continue
                elif key == "json":
                    json.dumps(data, allow_nan=False)
                elif not isinstance(data, str):
                    continue
                result[key] = data
            except Exception:
                continue
        if isinstance(value, (list, dict)) and "json" not in result:
            try:  # E2B's JSON formatter gives lists and dicts as JSON too (its startup script 0002_data.py)
                result["json"] = jsonable(value, strict=True)
            except (TypeError, ValueError, RecursionError):
                pass
        try:
            data = frame_data(value)
            if data is not None:
                result["data"] = data
            png = figure_png(value)
            if png is not None:
                result["png"] = png
        except Exception:
            pass
        return result

    def display(*objects, **ignored):
        for obj in objects:
            send(bundle(obj, False))

    # Rich results as E2B's code interpreter (a Jupyter kernel with the inline matplotlib backend and E2B's
    # e2b/data formatter) gives them: a DataFrame's columns as `data`, a matplotlib figure as a PNG, figures shown
    # with plt.show() or left open at the end of a cell as display results (not the main one), then closed.
    def jsonable(value, strict=False):
        # pandas leaves NaN and infinities in to_dict(); JSON has no such numbers: null, as pandas' to_json does.
        # strict: what orjson (E2B's JSON formatter) cannot serialise raises TypeError instead of becoming text.
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            return None
        if isinstance(value, dict):
            return {str(key): jsonable(item, strict) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [jsonable(item, strict) for item in value]
        tolist = getattr(value, "tolist", None)  # a numpy array
        if strict and callable(tolist) and type(value).__module__ == "numpy":
            return jsonable(tolist(), strict)
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        isoformat = getattr(value, "isoformat", None)
        if callable(isoformat):
            return isoformat()  # pandas.Timestamp, datetime: as E2B's formatter gives them
        item = getattr(value, "item", None)  # a numpy scalar
        if callable(item):
            try:
                return jsonable(item(), strict)
            except Exception:
                pass
        if strict:
            raise TypeError("not JSON: %s" % type(value).__name__)
        return str(value)

    def frame_data(value):
        pandas = sys.modules.get("pandas")
        if pandas is None or not isinstance(value, pandas.DataFrame):
            return None
        try:
            return jsonable(value.to_dict(orient="list"))
        except Exception:
            return None

    def figure_png(value):
        figure_module = sys.modules.get("matplotlib.figure")
        if figure_module is None or not isinstance(value, figure_module.Figure):
            return None
        import io
        buffer = io.BytesIO()
        value.savefig(buffer, format="png", bbox_inches="tight")  # as the inline backend renders figures
        return base64.b64encode(buffer.getvalue()).decode("ascii")

    def flush_figures(*args, **kwargs):
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is None:
            return
        try:
            figures = [manager.canvas.figure for manager in __import__("matplotlib._pylab_helpers").
                       _pylab_helpers.Gcf.get_all_fig_managers()]
        except Exception:
            return
        try:
            for figure in figures:
                send(bundle(figure, False))
        finally:
            pyplot.close("all")

    class PatchOnImport:
        # Adjusts a module once the cells import it (matplotlib.pyplot's show, PIL's viewer), without importing
        # it in every kernel: patches maps a module's name to a function called with the module, once loaded.
        def __init__(self, patches):
            self.patches = patches

        def find_spec(self, name, path=None, target=None):
            patch = self.patches.get(name)
            if patch is None:
                return None
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                spec = find(name, path, target)
                if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    original = spec.loader.exec_module

                    def exec_module(module, original=original, patch=patch):
                        original(module)
                        patch(module)

                    spec.loader.exec_module = exec_module
                    return spec
            return None

    # -- IPython ------------------------------------------------------------------------------------------------
    # E2B's Python kernel is ipykernel: IPython's InteractiveShell behind Jupyter's messages, with E2B's startup
    # formatters. Here the same shell runs the cells, and its outputs become this channel's messages as E2B's
    # server maps Jupyter's: execute_result -> the main result, display_data -> other results (mime types to
    # fields), error -> name, value and the traceback's lines joined. Nothing is written to the user's home: no
    # profile directory, history in memory.
    MIME_FIELDS = {"text/plain": "text", "text/html": "html", "text/markdown": "markdown", "image/svg+xml": "svg",
                   "image/png": "png", "image/jpeg": "jpeg", "application/pdf": "pdf", "text/latex": "latex",
                   "application/json": "json", "application/javascript": "javascript", "e2b/data": "data",
                   "e2b/chart": "chart"}

    def mime_result(data, is_main):
        result = {"type": "result", "is_main_result": is_main}
        extra = {}
        for mime, value in data.items():
            if isinstance(value, (bytes, bytearray, memoryview)):
                value = base64.b64encode(bytes(value)).decode("ascii")  # as Jupyter's JSON carries binary data
            elif not isinstance(value, str):
                try:
                    json.dumps(value, allow_nan=False)
                except Exception:
                    try:
                        value = jsonable(value)
                    except Exception:
                        continue
            field = MIME_FIELDS.get(mime)
            if field == "text":
                value = capped(value) if isinstance(value, str) else value
            if field is None:
                extra[str(mime)] = value
            else:
                result[field] = value
        if extra:
            result["extra"] = extra
        return result

    def start_ipython():
        try:
            import IPython
            if int(IPython.__version__.split(".")[0]) < 8:
                return None  # older shells differ in the hooks used here: the plain kernel serves
            import IPython.core.interactiveshell as shell_module
            from traitlets import Type, Unicode, ObjectName
            from traitlets.config import Config
            from IPython.core.interactiveshell import InteractiveShell
            from IPython.core.displayhook import DisplayHook
            from IPython.core.displaypub import DisplayPublisher
            from IPython.core.profiledir import ProfileDir
            from IPython.core.formatters import BaseFormatter, JSONFormatter
        except Exception:
            return None

        class CellDisplayHook(DisplayHook):
            # The value of the cell's last expression: the main result (ipykernel's ZMQShellDisplayHook).
            format_data = None

            def start_displayhook(self):
                self.format_data = None

            def write_output_prompt(self):
                pass

            def write_format_data(self, format_dict, md_dict=None):
                self.format_data = format_dict

            def finish_displayhook(self):
                data, self.format_data = self.format_data, None
                if data:
                    send(mime_result(data, True))

        class CellDisplayPublisher(DisplayPublisher):
            # display(): a result that is not the main one (ipykernel's display_data).
            def publish(self, data, metadata=None, *args, **kwargs):
                send(mime_result(data, False))

            def clear_output(self, wait=False):
                pass

        class CellShell(InteractiveShell):
            displayhook_class = Type(CellDisplayHook)
            display_pub_class = Type(CellDisplayPublisher)

            def _showtraceback(self, etype, evalue, stb):
                # The cell's error, as E2B's server takes it from ipykernel's error message (the first of a cell).
                flush_streams()
                if state["error"] is None:
                    state["error"] = {"name": str(etype.__name__)[:TEXT_CAP], "value": capped(str(evalue)),
                                      "traceback": capped("".join(stb))}

            def enable_gui(self, gui=None):
                pass  # no event loop of a GUI in a sandbox (%matplotlib inline asks for none)

            def _get_exc_info(self, exc_tuple=None):
                etype, value, tb = InteractiveShell._get_exc_info(self, exc_tuple)
                return etype, value, shortened(without_kernel_frames(tb))

            def system_piped(self, cmd):
                # !cmd. IPython runs it through pexpect on a pseudo-terminal, which a sandbox has none of: here it
                # runs as `sh -c cmd` on the cell's own stdout and stderr (so its lines end in "\n", not the
                # terminal's "\r\n"), with `_exit_code` and the errors as IPython's.
                if cmd.rstrip().endswith("&"):
                    raise OSError("Background processes not supported.")
                import subprocess
                flush_streams()
                code = subprocess.call(self.var_expand(cmd, depth=1), shell=True, executable="/bin/sh")
                self.user_ns["_exit_code"] = code
                if getattr(self, "system_raise_on_error", False) and code != 0:  # IPython 9 has it
                    raise subprocess.CalledProcessError(code, cmd)

            system = system_piped

            def ask_exit(self):
                self.exit_now = False  # exit() keeps the context, as ipykernel's kernel stays (it asks its client)

        class DataFormatter(BaseFormatter):
            # E2B's e2b/data: a DataFrame's columns (its startup script 0002_data.py).
            format_type = Unicode("e2b/data")
            print_method = ObjectName("_repr_e2b_data_")
            _return_type = (dict, str)

            def __call__(self, obj):
                data = frame_data(obj)
                return data if data is not None else BaseFormatter.__call__(self, obj)

        class ChartFormatter(BaseFormatter):
            # E2B's e2b/chart: a matplotlib figure's data, extracted by e2b_charts where it is installed.
            format_type = Unicode("e2b/chart")
            print_method = ObjectName("_repr_e2b_chart_")
            _return_type = (dict, str)

            def __call__(self, obj):
                figure_module = sys.modules.get("matplotlib.figure")
                if figure_module is None or not isinstance(obj, figure_module.Figure):
                    return BaseFormatter.__call__(self, obj)
                try:
                    from e2b_charts import chart_figure_to_dict
                except Exception:
                    return None  # not installed in this sandbox: no chart
                try:
                    return chart_figure_to_dict(obj)
                except Exception:
                    return {}

        class ListJSONFormatter(JSONFormatter):
            # E2B's application/json: lists and dicts as JSON (through orjson there; the same rules here).
            def __call__(self, obj):
                if isinstance(obj, (list, dict)):
                    try:
                        import orjson
                        return orjson.loads(orjson.dumps(obj, option=orjson.OPT_SERIALIZE_NUMPY
                                                         | orjson.OPT_NON_STR_KEYS)), {"expanded": True}
                    except ImportError:
                        try:
                            return jsonable(obj, strict=True), {"expanded": True}
                        except (TypeError, ValueError, RecursionError):
                            pass
                    except TypeError:
                        pass
                return JSONFormatter.__call__(self, obj)

        config = Config()
        config.HistoryManager.enabled = False  # history in memory: no sqlite file in the user's home
        config.InteractiveShell.colors = "nocolor"  # E2B's ipython_kernel_config.py: plain tracebacks
        config.PlainTextFormatter.max_seq_length = 0  # E2B's too: reprs of long lists are not cut
        class MemoryDB(dict):
            # shell.db (%store) in memory: IPython's PickleShareDB would make a `db` directory in the profile
            def __init__(self, root=None):
                dict.__init__(self)

            def keys(self, pattern=None):
                import fnmatch
                return [key for key in dict.keys(self) if pattern is None or fnmatch.fnmatch(key, pattern)]

        disk_db = shell_module.PickleShareDB
        try:
            # ipython_dir (an existing directory: IPython would create a missing one), profile_dir and db given,
            # so IPython writes nothing (E2B's profile is in root's home, out of the user's sight)
            shell_module.PickleShareDB = MemoryDB
            try:
                shell = CellShell.instance(config=config, user_module=main_module,
                                           ipython_dir="/tmp" if os.path.isdir("/tmp") else "/",
                                           profile_dir=ProfileDir())
            finally:
                shell_module.PickleShareDB = disk_db
            formatters = shell.display_formatter.formatters
            formatters["e2b/data"] = DataFormatter(parent=shell.display_formatter)
            formatters["e2b/chart"] = ChartFormatter(parent=shell.display_formatter)
            formatters["application/json"] = ListJSONFormatter(parent=shell.display_formatter)
        except Exception as exc:
            # Said on the first cell's stderr: a context that quietly lost IPython would puzzle its user.
            state["ipython_failure"] = "[e2beval: IPython %s is installed but its shell did not start (%s: %s); " \
                "this context runs e2beval's plain Python kernel]\n" % (IPython.__version__, type(exc).__name__, exc)
            return None
        try:
            shell.extension_manager.load_extension("storemagic")  # %store, as ipykernel loads it by default
        except Exception:
            pass
        kernel_code.update(function.__code__ for function in (CellDisplayHook.finish_displayhook,
                                                              CellDisplayPublisher.publish, mime_result))
        sys.meta_path.insert(0, PatchOnImport({"PIL.Image": patch_pil_image, "PIL.ImageShow": patch_pil_viewer}))
        # ipykernel's default backend (its figures shown with plt.show() and flushed after each cell as display
        # results, a Figure as the last expression a png result), unless the cells' environment chose another.
        if os.environ.get("MPLBACKEND", "Agg") == "Agg":
            os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
        return shell

    def patch_pil_image(module):
        # E2B's startup script 0003_images.py: an image saved to a named file is displayed too.
        original_save = module.Image.save

        def save(image, fp, format=None, **options):
            if isinstance(fp, str):
                import IPython.display
                IPython.display.display(image)
            return original_save(image, fp, format, **options)

        module.Image.save = save

    def patch_pil_viewer(module):
        # ... and image.show() opens no viewer (there is no display): it does nothing, as there.
        module.UnixViewer.show_file = lambda self, path, **options: 0

    def without_kernel_frames(tb):
        """The traceback `tb` cut before the kernel's own frames at its end (the SIGINT handler that raised
        KeyboardInterrupt, display's sending)."""
        last_kept, walker = None, tb
        while walker is not None:
            if walker.tb_frame.f_code not in kernel_code:
                last_kept = walker
            walker = walker.tb_next
        if last_kept is not None:
            last_kept.tb_next = None
        return tb

    def shortened(tb):
        """The traceback `tb` with its first and last TRACEBACK_FRAMES_KEPT frames when it is much deeper: IPython
        formats every frame it is given, which takes seconds for a RecursionError's thousands (it then says
        "[... skipping similar frames: f at line 2 (N times)]" with a smaller N)."""
        frames, walker = [], tb
        while walker is not None:
            frames.append(walker)
            walker = walker.tb_next
        if len(frames) > 3 * TRACEBACK_FRAMES_KEPT:
            frames[TRACEBACK_FRAMES_KEPT - 1].tb_next = frames[-TRACEBACK_FRAMES_KEPT]
        return tb

    def run_ipython_cell(source, count):
        """Runs one cell in IPython's shell; the cell's error (or None)."""
        state["error"] = None
        shell.execution_count = count
        outcome = shell.run_cell(source, store_history=True)
        error = state["error"]
        failure = outcome.error_before_exec or outcome.error_in_exec
        if error is None and failure is not None:
            error = describe(failure)  # a failure IPython did not show through _showtraceback
        return error

    # IPython's own shell when the sandbox's Python has it (as E2B's kernel: its syntax, magics, display
    # machinery and formatters); without it, this plain kernel with the same results for the common cases.
    shell = start_ipython() if kernel == "ipython" else None
    if shell is None:
        builtins.display = display
        sys.meta_path.insert(0, PatchOnImport({"matplotlib.pyplot": lambda module: setattr(module, "show", flush_figures)}))
        # No display here: figures render with Agg (processes the cells start inherit it, and stay headless too).
        os.environ.setdefault("MPLBACKEND", "Agg")

    def describe(exc):
        try:
            value = str(exc)
        except Exception:
            value = "<str() failed>"
        # The kernel's own frames are no business of the cell's author: those before the first cell frame, and
        # those at the end (the SIGINT handler that raised KeyboardInterrupt, display() and send()).
        tb = exc.__traceback__
        while tb is not None and not tb.tb_frame.f_code.co_filename.startswith("<cell "):
            tb = tb.tb_next
        last_kept = None
        walker = tb
        while walker is not None:
            if walker.tb_frame.f_code not in kernel_code:
                last_kept = walker
            walker = walker.tb_next
        if last_kept is not None:
            last_kept.tb_next = None
        try:
            if tb is None:
                lines = traceback.format_exception_only(type(exc), exc)
            else:
                lines = traceback.format_exception(type(exc), exc, tb)
            text = "".join(lines)
        except Exception:
            text = "%s: %s\n" % (type(exc).__name__, value)
        # An exception's message is the cell's to make as large as it likes; the error that goes back is not
        # (a 50 MB message would otherwise travel twice, as value and inside the traceback).
        return {"name": type(exc).__name__[:TEXT_CAP], "value": capped(value), "traceback": capped(text)}

    def run_coroutine(coroutine):
        import asyncio
        loop = state["loop"]
        if loop is None or loop.is_closed():
            loop = state["loop"] = asyncio.new_event_loop()  # one loop for all cells: tasks outlive a cell
        try:
            return loop.run_until_complete(coroutine)
        except KeyboardInterrupt:
            state["loop"] = None  # stopped in the middle of a task: start the next async cell on a fresh loop
            raise

    def run(code):
        if code.co_flags & CO_COROUTINE:  # the cell uses top-level await
            return run_coroutine(eval(code, namespace))
        return eval(code, namespace)

    def execute(source, filename):
        tree = compile(source, filename, "exec", ast.PyCF_ONLY_AST | ASYNC_FLAGS, dont_inherit=True)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        run(compile(tree, filename, "exec", ASYNC_FLAGS, dont_inherit=True))
        if last is not None:
            value = run(compile(last, filename, "eval", ASYNC_FLAGS, dont_inherit=True))
            if value is not None:
                send(bundle(value, True))

    kernel_code.update(function.__code__ for function in (on_sigint, flush_streams, send, write_message, bundle,
                                                          display, run_coroutine, run, execute, flush_figures))

    # Up and serving: the agent waits for this before it reports a session with a pre-started default context
    # ready (E2BEVAL_AGENT_DEFAULT_CONTEXT), so that session's first cell pays only for the cell.
    send({"type": "started"})
    while True:
        line = control_in.readline()
        if not line:
            os._exit(0)  # the agent is gone
        try:
            request = json.loads(line)
            source = str(request["code"])
            filename = "<cell %d>" % int(request["count"])
            envs = dict(request.get("envs") or {})
            state["cell"] = str(request["cell"])
        except Exception:
            continue
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        saved = {name: os.environ.get(name) for name in envs}
        os.environ.update(envs)
        error, interrupted = None, False
        state["sending"] = state["deferred"] = state["interrupted"] = False
        failure = state.pop("ipython_failure", None)
        if failure is not None:
            sys.stderr.write(failure)
        try:
            try:
                state["running"] = True
                if shell is not None:
                    error = run_ipython_cell(source, int(request["count"]))
                else:
                    execute(source, filename)
                    flush_figures()  # as the inline backend does after every cell
            finally:
                state["running"] = False
        except KeyboardInterrupt as exc:
            interrupted, error = True, describe(exc)
        except BaseException as exc:  # SystemExit too: a cell cannot end the kernel by accident
            error = describe(exc)
        interrupted = interrupted or (state["interrupted"] and error is not None
                                      and error.get("name") == "KeyboardInterrupt")
        if os.getpid() != kernel_pid:
            os._exit(0)  # a process the cell forked has come back here: only the kernel serves cells
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        send({"type": "done", "error": error, "interrupted": interrupted})


serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "plain")
'''

# ---------------------------------------------------------------------------------------------------------------
# The JavaScript kernel, run as `node -e JS_KERNEL <in fd> <out fd>`. Cells run with
# vm.Script.runInThisContext, so they share node's main context (top-level let/const/var/functions persist, and
# values are of the same realm as require()'d modules'). A cell with top-level await goes through the public
# eval of node's REPL (repl.start with useGlobal), whose rewriter keeps `let x = await ...` declarations alive
# across cells; node's internals stay unexposed (no --expose-internals: the cells could reach them too).
JS_KERNEL = r'''
'use strict';
(function kernel() {  // a function scope: none of the kernel's names may collide with the cells' globals
  const vm = require('vm');
  const fs = require('fs');
  const net = require('net');
  const path = require('path');
  const url = require('url');
  const util = require('util');
  const Module = require('module');
  const controlIn = Number(process.argv[1]);
  const controlOut = Number(process.argv[2]);
  // A TypeScript context: each cell's types are stripped first (positions kept, so its lines stay).
  const stripTypes = process.argv[3] === 'typescript' ? Module.stripTypeScriptTypes : null;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const inspect = util.inspect;
  const TEXT_CAP = 1 << 20;
  // Top-level await: the REPL server's eval, on streams nobody writes. Starting it defines globals (the
  // built-in modules, _, _error, module, require): the cells' global scope must not change, so they go.
  const repl = require('repl');
  const { PassThrough } = require('stream');
  const globalsBefore = new Set(Object.getOwnPropertyNames(globalThis));
  const awaitRepl = repl.start({ input: new PassThrough(), output: new PassThrough(), terminal: false,
                                 useGlobal: true, prompt: '' });
  for (const name of Object.getOwnPropertyNames(globalThis)) if (!globalsBefore.has(name)) delete globalThis[name];
  // A rejected cell reaches the REPL's domain, not the eval's callback: it is this cell's error. Errors of
  // callbacks an earlier such cell left behind are reported as the uncaught errors they are.
  let awaitDone = null;
  awaitRepl._domain.removeAllListeners('error');
  awaitRepl._domain.on('error', (error) => {
    if (awaitDone !== null) awaitDone(error);
    else process.emit('uncaughtException', error);
  });
  function evalWithAwait(code, filename) {
    return new Promise((resolve, reject) => {
      awaitDone = (error, value) => { awaitDone = null; if (error) reject(error); else resolve(value); };
      awaitRepl.eval(code, globalThis, filename, (error, value) => { if (awaitDone !== null) awaitDone(error, value); });
    });
  }
  // import() in cells uses node's own loader; node 20 flags that option as experimental on every use, a
  // warning about the kernel that the cells' authors should not see.
  const dynamicImport = vm.constants ? vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER : undefined;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const text = String(warning && warning.message ? warning.message : warning);
    if (text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER') || text.includes('stripTypeScriptTypes')) return;
    return emitWarning.call(process, warning, ...rest);
  };
  process.argv.splice(1);
  globalThis.require = Module.createRequire(path.join(process.cwd(), '[cell]'));

  // The nonce of the cell being run: every message carries it, and the agent takes a message only for the
  // cell whose nonce it has, so nothing written on this channel reaches another cell's results.
  let currentCell = '';
  function send(message) {
    message.cell = currentCell;
    // A leading newline ends whatever partial line the cell's code may have written on this channel.
    const data = Buffer.from('\n' + stringify(message) + '\n', 'utf8');
    let offset = 0;
    while (offset < data.length) {
      try {
        offset += fs.writeSync(controlOut, data, offset, data.length - offset);
      } catch (error) {
        if (error.code !== 'EAGAIN') process.exit(0);  // the agent is gone
      }
    }
  }

  // Every write to process.stdout/stderr goes to the agent as a message of its own, as E2B's JavaScript kernel
  // (ijavascript) forwards each write: console.log('a'); console.log('b') is two chunks, whatever the timing.
  // Past the agent's cap per cell the writes go to the real fd, where the agent drops them cheaply; what child
  // processes write there arrives as it comes.
  const { StringDecoder } = require('string_decoder');
  const framedBytes = { stdout: 0, stderr: 0 };
  function frameWrites(name, stream) {
    const decoder = new StringDecoder('utf8');
    const direct = stream.write.bind(stream);
    stream.write = function write(chunk, encoding, callback) {
      if (typeof encoding === 'function') { callback = encoding; encoding = undefined; }
      if (framedBytes[name] > TEXT_CAP) return direct(chunk, encoding, callback);
      let text;
      if (typeof chunk === 'string') text = chunk;
      else if (chunk instanceof Uint8Array) text = decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      else return direct(chunk, encoding, callback);  // node's own error for what is no chunk
      if (text.length > 0) {
        framedBytes[name] += Buffer.byteLength(text);
        send({ type: 'stream', name, text });
      }
      if (typeof callback === 'function') process.nextTick(callback);
      return true;
    };
  }
  frameWrites('stdout', process.stdout);
  frameWrites('stderr', process.stderr);

  // Errors of callbacks and promises that outlive their cell are reported, not fatal: the context lives on.
  process.on('uncaughtException', (error) => {
    try { process.stderr.write('Uncaught ' + (error && error.stack ? error.stack : inspect(error)) + '\n'); } catch (_) { }
  });
  process.on('unhandledRejection', (reason) => {
    try { process.stderr.write('Unhandled rejection: ' + (reason && reason.stack ? reason.stack : inspect(reason)) + '\n'); } catch (_) { }
  });

  // SIGINT interrupts synchronous code through breakOnSigint; this listener ends an awaiting cell. Between
  // cells it does nothing (a timeout may race the cell's end).
  let rejectPending = null;
  process.on('SIGINT', () => {
    if (rejectPending === null) return;
    const reject = rejectPending;
    rejectPending = null;
    const error = new Error('Script execution was interrupted by `SIGINT`');
    error.code = 'ERR_SCRIPT_EXECUTION_INTERRUPTED';
    reject(error);
  });
  function untilInterrupted(promise) {
    return new Promise((resolve, reject) => {
      rejectPending = reject;
      Promise.resolve(promise).then(resolve, reject);
    }).finally(() => { rejectPending = null; });
  }

  function show(value) {
    let text;
    try { text = inspect(value); } catch (error) { text = String(value); }
    return text.length > TEXT_CAP ? text.slice(0, TEXT_CAP) + '...[truncated]' : text;
  }

  // The stack without the kernel's frames: everything from the vm call (or the kernel's own [eval] code) on.
  function cleanStack(stack) {
    const kept = [];
    for (const line of stack.split('\n')) {
      if (/^\s+at /.test(line) && /node:vm|node:repl|\[eval\]/.test(line)) break;
      kept.push(line);
    }
    while (kept.length > 0 && /^\s+at .*node:internal\/process\/task_queues/.test(kept[kept.length - 1])) kept.pop();
    return kept.join('\n') + '\n';
  }

  // An error's message is the cell's to make as large as it likes; the error that goes back is capped.
  function describe(thrown) {
    const cap = (text) => (text.length > TEXT_CAP ? text.slice(0, TEXT_CAP) + '...[truncated]' : text);
    try {
      if (thrown !== null && typeof thrown === 'object' && typeof thrown.stack === 'string') {
        return { name: cap(String(thrown.name || 'Error')), value: cap(String(thrown.message || '')), traceback: cap(cleanStack(thrown.stack)) };
      }
    } catch (_) { }
    const text = cap(show(thrown));
    return { name: 'Error', value: text, traceback: 'Uncaught ' + text + '\n' };
  }

  function errorCode(thrown) {
    try { return thrown !== null && typeof thrown === 'object' ? thrown.code : undefined; } catch (_) { return undefined; }
  }

  // ES module syntax in a cell. E2B's JavaScript kernel turns a cell's `import` declarations into require()
  // calls (Babel) before it runs it; here each `import` declaration becomes, on its own lines, a `var`
  // declaration of what `await import()` gives, so the imported names stay for later cells (as any top-level
  // `var`), ES modules (.mjs) load as well as CommonJS ones, and the cell's line numbers hold. `export` is
  // dropped (a cell is no module others import). A small lexer skips strings, comments, template literals and
  // regular expressions, so only real declarations are rewritten; only a cell that does not compile as a
  // script because of them is rewritten at all.
  const MODULE_SYNTAX = /Cannot use import statement outside a module|Unexpected token 'export'/;
  function rewriteModuleSyntax(code) {
    const n = code.length;
    const edits = [];
    let last = '';  // the previous significant token: a punctuator, a word, or 'value' (a literal)
    const templates = [];  // brace depth at each open `${` of a template literal
    let braces = 0;
    const word = /[A-Za-z0-9_$\u0080-\uffff]/;
    function space(j) {
      for (;;) {
        while (j < n && /\s/.test(code[j])) j++;
        if (code.startsWith('//', j)) { while (j < n && code[j] !== '\n') j++; continue; }
        if (code.startsWith('/*', j)) { const end = code.indexOf('*/', j + 2); j = end < 0 ? n : end + 2; continue; }
        return j;
      }
    }
    function string(j) {  // j at the quote; returns the index after the closing quote
      const quote = code[j++];
      while (j < n && code[j] !== quote && code[j] !== '\n') j += code[j] === '\\' ? 2 : 1;
      return j + 1;
    }
    function template(j) {  // j after ` or after the } that closes a ${; returns [index, opened a ${]
      while (j < n) {
        if (code[j] === '\\') { j += 2; continue; }
        if (code[j] === '`') return [j + 1, false];
        if (code[j] === '$' && code[j + 1] === '{') return [j + 2, true];
        j++;
      }
      return [n, false];
    }
    function regex(j) {  // j at the opening /
      let inClass = false;
      for (j++; j < n && code[j] !== '\n'; j++) {
        if (code[j] === '\\') { j++; continue; }
        if (code[j] === '[') inClass = true;
        else if (code[j] === ']') inClass = false;
        else if (code[j] === '/' && !inClass) { j++; break; }
      }
      while (j < n && word.test(code[j])) j++;  // flags
      return j;
    }
    function regexMayStart() {
      if (last === '' || last === 'value') return last === '';
      if (/^[A-Za-z_$]/.test(last)) {
        return /^(return|typeof|case|do|else|in|instanceof|new|delete|void|throw|yield|await|of)$/.test(last);
      }
      return last !== ')' && last !== ']';
    }
    function readWord(j) { let k = j; while (k < n && word.test(code[k])) k++; return code.slice(j, k); }
    // One import declaration from `start` (at "import"); null when it is not one this rewrite understands.
    function importDeclaration(start) {
      let j = space(start + 6);
      let names = null, namespace = null, defaultName = null;
      if (code[j] !== '"' && code[j] !== "'") {
        if (word.test(code[j]) && code[j] !== '{') {
          defaultName = readWord(j);
          j = space(j + defaultName.length);
          if (code[j] === ',') j = space(j + 1);
        }
        if (code[j] === '*') {
          j = space(j + 1);
          if (readWord(j) !== 'as') return null;
          j = space(j + 2);
          namespace = readWord(j);
          if (!namespace) return null;
          j = space(j + namespace.length);
        } else if (code[j] === '{') {
          const close = code.indexOf('}', j);
          if (close < 0) return null;
          names = code.slice(j + 1, close).split(',').map((part) => part.trim()).filter((part) => part.length > 0)
            .map((part) => part.replace(/\s+as\s+/, ': '));
          j = space(close + 1);
        }
        if (readWord(j) !== 'from') return null;
        j = space(j + 4);
      }
      if (code[j] !== '"' && code[j] !== "'") return null;
      const specifierEnd = string(j);
      let specifier = code.slice(j + 1, specifierEnd - 1);
      j = space(specifierEnd);
      let options = '';
      const keyword = readWord(j);
      if (keyword === 'with' || keyword === 'assert') {
        const open = space(j + keyword.length);
        const close = code.indexOf('}', open);
        if (code[open] !== '{' || close < 0) return null;
        options = ', { with: ' + code.slice(open, close + 1) + ' }';
        j = close + 1;
      }
      const end = code[space(j)] === ';' ? space(j) + 1 : j;
      if (/^\.{1,2}\//.test(specifier) || specifier.startsWith('/')) {
        specifier = url.pathToFileURL(path.resolve(process.cwd(), specifier)).href;  // as from a file in the cwd
      }
      const load = 'await import(' + stringify(specifier) + options + ')';
      let statement;
      if (namespace !== null) statement = 'var ' + namespace + ' = ' + load + (defaultName ? ', ' + defaultName + ' = ' + namespace + '.default' : '') + ';';
      else if (names !== null) statement = 'var { ' + (defaultName ? 'default: ' + defaultName + ', ' : '') + names.join(', ') + ' } = ' + load + ';';
      else if (defaultName !== null) statement = 'var ' + defaultName + ' = (' + load + ').default;';
      else statement = load + ';';
      return [end, statement];
    }
    function exportDeclaration(start) {  // `export` and what goes with it: the statement stays, the export goes
      const j = space(start + 6);
      const next = readWord(j);
      if (next === 'default') return [space(j + 7), ''];
      if (/^(const|let|var|function|class|async)$/.test(next)) return [j, ''];
      let end = j;  // export { ... } [from '...'], export * [as x] from '...': nothing of it stays
      while (end < n && code[end] !== ';' && code[end] !== '\n') end = code[end] === '"' || code[end] === "'" ? string(end) : end + 1;
      return [end < n && code[end] === ';' ? end + 1 : end, ''];
    }
    let i = 0;
    while (i < n) {
      i = space(i);
      if (i >= n) break;
      const c = code[i];
      if (c === '"' || c === "'") { i = string(i); last = 'value'; continue; }
      if (c === '`') { const [next, opened] = template(i + 1); if (opened) templates.push(braces); i = next; last = 'value'; continue; }
      if (c === '}' && templates.length > 0 && templates[templates.length - 1] === braces) {
        templates.pop();
        const [next, opened] = template(i + 1);
        if (opened) templates.push(braces);
        i = next; last = 'value'; continue;
      }
      if (c === '/' && regexMayStart()) { i = regex(i); last = 'value'; continue; }
      if (word.test(c)) {
        const name = readWord(i);
        const after = space(i + name.length);
        if (last !== '.' && /^[A-Za-z_$]/.test(name) && (name === 'import' || name === 'export')) {
          const follows = code[after];
          const declaration = name === 'import' ? (follows !== '(' && follows !== '.' ? importDeclaration(i) : null)
            : exportDeclaration(i);
          if (declaration !== null) {
            const lines = code.slice(i, declaration[0]).split('\n').length - 1;  // kept, so line numbers hold
            edits.push([i, declaration[0], declaration[1] + '\n'.repeat(lines)]);
            i = declaration[0]; last = ';'; continue;
          }
        }
        i += name.length; last = /^[0-9]/.test(name) ? 'value' : name; continue;
      }
      if (c === '{') braces++;
      else if (c === '}') braces--;
      last = c; i++;
    }
    if (edits.length === 0) return null;
    let rewritten = '', from = 0;
    for (const [start, end, text] of edits) { rewritten += code.slice(from, start) + text; from = end; }
    return rewritten + code.slice(from);
  }

  async function runCell(request) {
    currentCell = String(request.cell);
    framedBytes.stdout = framedBytes.stderr = 0;
    const envs = request.envs || {};
    const saved = {};
    for (const name of Object.keys(envs)) { saved[name] = process.env[name]; process.env[name] = envs[name]; }
    let error = null, interrupted = false, timedOut = false;
    try {
      let code = stripTypes === null ? String(request.code) : stripTypes(String(request.code));
      const scriptOptions = { filename: `<cell ${request.count}>` };
      if (dynamicImport !== undefined) scriptOptions.importModuleDynamically = dynamicImport;
      let script = null, syntaxError = null;
      try { script = new vm.Script(code, scriptOptions); } catch (thrown) { syntaxError = thrown; }
      const rewritten = script === null && MODULE_SYNTAX.test(String(syntaxError && syntaxError.message))
        ? rewriteModuleSyntax(code) : null;
      if (rewritten !== null) {  // its import declarations are awaits now: the await path below runs it
        code = rewritten;
        try { script = new vm.Script(code, scriptOptions); syntaxError = null; } catch (thrown) { syntaxError = thrown; }
      }
      let value;
      if (script !== null) {
        const runOptions = { breakOnSigint: true };
        if (request.timeout > 0) runOptions.timeout = Math.max(1, Math.ceil(request.timeout * 1000));
        value = script.runInThisContext(runOptions);
      } else if (code.includes('await')) {  // not a script: a cell with top-level await, or a real SyntaxError
        try {
          value = await untilInterrupted(evalWithAwait(code, scriptOptions.filename));
        } catch (thrown) {
          throw thrown instanceof repl.Recoverable ? syntaxError : thrown;  // unfinished input: a SyntaxError
        }
      } else {
        throw syntaxError;
      }
      if (value !== undefined) send({ type: 'result', is_main_result: true, text: show(value) });
    } catch (thrown) {
      const code = errorCode(thrown);
      interrupted = code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED';
      timedOut = code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
      error = describe(thrown);
    } finally {
      for (const name of Object.keys(saved)) {
        if (saved[name] === undefined) delete process.env[name]; else process.env[name] = saved[name];
      }
    }
    send({ type: 'done', error, interrupted, timed_out: timedOut });
  }

  const input = new net.Socket({ fd: controlIn, readable: true, writable: false });
  input.setEncoding('utf8');
  let buffered = '';
  let queue = Promise.resolve();
  input.on('data', (chunk) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let request;
      try { request = parse(line); } catch (_) { continue; }
      queue = queue.then(() => runCell(request));
    }
  });
  input.on('end', () => process.exit(0));
  input.on('error', () => process.exit(0));
})();
'''


# The bash kernel of one code context, run as `/bin/bash --norc --noprofile -c BASH_KERNEL bash <in fd> <out fd>`:
# one bash process whose own shell runs every cell (`eval`), so what a cell changes in the shell — the working
# directory (`cd`), variables, functions, aliases, options — is there for the next cell, as in E2B's bash
# kernel (Jupyter's bash_kernel: one long-lived bash). A cell arrives as NUL-terminated fields (bash holds no
# NUL, and reads them without any parser): the nonce, the execution count, the number of envs, then each env's
# name and value, then the code. The kernel answers with the same JSON messages as the others: `started`, and
# `done` with the exit status of the cell's last command as its error when it is not 0. Bash cannot mark its
# control fds close-on-exec, so the cell's processes inherit them: like any cell's code (which can write the
# kernel's channel), they can at most end or fill their own cell.
BASH_KERNEL = r'''
__e2beval_in=$1 __e2beval_out=$2
set --
# SIGINT reaches this shell only (its init forwards it to the program), never the command a cell waits for, and
# bash runs its trap once that command ends: a cell that does not end within the interrupt's grace period is
# ended by restarting the context (ContextRestarted). The trap only keeps the shell itself alive.
trap : INT
__e2beval_send() { printf '\n%s\n' "$1" >&"$__e2beval_out" || exit 0; }
__e2beval_send '{"type":"started","cell":""}'
while IFS= read -r -d '' __e2beval_cell <&"$__e2beval_in"; do
  IFS= read -r -d '' __e2beval_count <&"$__e2beval_in" || exit 0
  IFS= read -r -d '' __e2beval_envs <&"$__e2beval_in" || exit 0
  __e2beval_restore=()
  while (( __e2beval_envs-- > 0 )); do
    IFS= read -r -d '' __e2beval_name <&"$__e2beval_in" || exit 0
    IFS= read -r -d '' __e2beval_value <&"$__e2beval_in" || exit 0
    # After the cell, each variable gets back what it was (E2B's bash kernel: export, then unset or reset).
    if [[ -v $__e2beval_name ]]; then
      __e2beval_restore+=("export $__e2beval_name=${!__e2beval_name@Q}")
    else
      __e2beval_restore+=("unset $__e2beval_name")
    fi
    export "$__e2beval_name=$__e2beval_value"
  done
  IFS= read -r -d '' __e2beval_code <&"$__e2beval_in" || exit 0
  eval "$__e2beval_code"
  __e2beval_status=$?
  for __e2beval_line in "${__e2beval_restore[@]}"; do eval "$__e2beval_line"; done
  if (( __e2beval_status == 0 )); then
    __e2beval_send "{\"type\":\"done\",\"cell\":\"$__e2beval_cell\",\"error\":null}"
  else
    __e2beval_send "{\"type\":\"done\",\"cell\":\"$__e2beval_cell\",\"error\":{\"name\":\"ExitCode\",\"value\":\"$__e2beval_status\",\"traceback\":\"the cell's last command exited with status $__e2beval_status\\n\"}}"
  fi
done
exit 0
'''

# Where a Python kernel's message sits in its output (PYTHON_KERNEL's send, CellRun.on_pipe).
OUTPUT_MARK = re.compile(rb"\0\x01e2beval-mark:([0-9.]{1,40})\0")
OUTPUT_MARK_PREFIX = b"\0\x01e2beval-mark:"
MARK_HOLD_CAP_BYTES = 1 << 20  # pipe bytes held behind a mark, at most (more goes on without waiting)
MARK_WAIT_SECONDS = 1.0  # a mark's message is written right after it; one that does not come stops holding output


def partial_mark_length(data):
    """How many bytes at the end of `data` could begin a mark that the next read completes."""
    start = data.rfind(b"\0", max(0, len(data) - len(OUTPUT_MARK_PREFIX) - 41))
    if start < 0:
        return 0
    tail = bytes(data[start:])
    if OUTPUT_MARK_PREFIX.startswith(tail[:len(OUTPUT_MARK_PREFIX)]) and re.fullmatch(rb"[0-9.]*", tail[len(OUTPUT_MARK_PREFIX):]):
        return len(tail)
    return 0


# ---------------------------------------------------------------------------------------------------------------
class Failure(Exception):
    """A request that cannot be carried out; becomes a `failure` event."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind, self.message = kind, message


class HostGone(Exception):
    """stdin reached EOF or stdout is broken: the session is over."""


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
        raise Failure("invalid", "bash code cannot contain NUL characters (bash strings end at NUL); remove them")
    for name in envs or {}:  # NUL in values is refused for every language (envs_field)
        if not BASH_NAME.match(name):
            raise Failure("invalid", "envs name %r cannot be a bash variable; use letters, digits and underscores, "
                          "not starting with a digit" % name)


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def iso_from_timestamp(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:  # whoever set up our stdout made it non-blocking: wait until it drains
            select.select([], [fd], [])
            continue
        except (BrokenPipeError, ConnectionResetError):
            raise HostGone()
        view = view[written:]


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


def checked_outcome(message):
    """A kernel's "done" message reduced to what the agent uses, each field of its type (whatever else it
    held is dropped): {"error": None or {name, value, traceback}, "interrupted": bool, "timed_out": bool}."""
    error = message.get("error")
    if isinstance(error, dict):
        error = {key: str(error.get(key) or "")[:ERROR_FIELD_CAP_BYTES] for key in ("name", "value", "traceback")}
        error["name"] = error["name"] or "Error"
    elif error is not None:
        error = {"name": "Error", "value": "the kernel reported an error it could not describe", "traceback": ""}
    return {"error": error, "interrupted": message.get("interrupted") is True,
            "timed_out": message.get("timed_out") is True}


# ---------------------------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------------------------
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


class OutputStreams:
    """Turns one producer's raw stdout/stderr bytes into text chunks: UTF-8 decoded across chunk boundaries
    (errors replaced), at most OUTPUT_CAP_BYTES per stream, then TRUNCATION_MARKER on that same stream (where a
    reader of the cut output looks for it) and nothing more."""

    def __init__(self, deliver):
        self.deliver = deliver  # deliver(stream, text, timestamp)
        self.decoders = {s: codecs.getincrementaldecoder("utf-8")("replace") for s in STREAMS}
        self.counts = {s: 0 for s in STREAMS}
        self.ends_line = {s: True for s in STREAMS}  # whether the last text delivered on the stream ended a line
        self.truncated = set()

    def emit(self, stream, text):
        if text:
            self.ends_line[stream] = text.endswith("\n")
            self.deliver(stream, text, now_iso())

    def feed(self, stream, data):
        room = OUTPUT_CAP_BYTES - self.counts[stream]
        if len(data) <= room:
            self.counts[stream] += len(data)
            self.emit(stream, self.decoders[stream].decode(data))
            return
        # Past the cap: keep reading (so the writer never blocks) but drop the bytes, with one marker.
        if room > 0:
            self.counts[stream] = OUTPUT_CAP_BYTES
            self.emit(stream, self.decoders[stream].decode(data[:room], final=True))
        if stream not in self.truncated:
            self.truncated.add(stream)
            self.emit(stream, ("" if self.ends_line[stream] else "\n") + TRUNCATION_MARKER % stream)

    def feed_text(self, stream, text):
        """Text a kernel sent as a message of its own (one write of the cell's code), under the same cap."""
        self.feed(stream, text.encode("utf-8", "replace"))

    def finish(self):
        for stream in STREAMS:
            self.emit(stream, self.decoders[stream].decode(b"", final=True))


class CellOutput:
    """How a cell's output text becomes stdout/stderr events: as E2B's kernel for the language sends it, so a
    client that joins or counts the chunks sees what it would see there, whatever the timing of the pipes.

    - "interval" (Python, as ipykernel's OutStream): text is held from its first write for OUTPUT_FLUSH_SECONDS
      and sent as one event, so output written close together arrives together and a long cell still streams;
      everything held goes out before each result and at the cell's end.
    - "lines" (bash, as bash_kernel, which reads its shell line by line): one event per line; a partial line waits
      for its end, or for a result or the cell's end.
    - "writes" (JavaScript, as ijavascript, which forwards every write): one event per write the kernel framed
      on its channel, and what the pipes hold as it comes.
    Held text is sent in the order of its first write, per stream."""

    def __init__(self, deliver, mode):
        self.deliver, self.mode = deliver, mode  # deliver(stream, text)
        self.held = {}  # stream -> text waiting to be sent (insertion order: order of first write)
        self.flush_at = None

    def add(self, stream, text, timestamp=None):
        if not text:
            return
        if self.mode == "writes":
            self.deliver(stream, text)
            return
        self.held[stream] = self.held.get(stream, "") + text
        if self.mode == "lines":
            held = self.held[stream]
            end = held.rfind("\n") + 1
            if end:
                self.held[stream] = held[end:]
                for line in held[:end].splitlines(True):
                    self.deliver(stream, line)
            if not self.held[stream]:
                del self.held[stream]
        elif self.flush_at is None:
            self.flush_at = time.monotonic() + OUTPUT_FLUSH_SECONDS

    def flush(self):
        held, self.held, self.flush_at = self.held, {}, None
        for stream, text in held.items():
            if text:
                self.deliver(stream, text)

    def next_wakeup(self):
        return None if self.flush_at is None else self.flush_at - time.monotonic()

    def check_clock(self):
        if self.flush_at is not None and time.monotonic() >= self.flush_at:
            self.flush()


# ---------------------------------------------------------------------------------------------------------------
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
            argv = [sys.executable, "-I", "-B", "-X", "utf8", "-c", PYTHON_KERNEL, *fds, self.agent.python_kernel]
        elif self.language == "bash":
            argv = [BASH, "--norc", "--noprofile", "-c", BASH_KERNEL, "bash", *fds]
        else:
            argv = [self.agent.node, "-e", JS_KERNEL, *fds, self.language]
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
            raise Failure("io", "could not start the %s kernel of context %s: %s" % (self.language, self.id, exc))
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
        if self.language == "bash":  # NUL-terminated fields, read by bash's `read -d ''` (see BASH_KERNEL)
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


class CellRun:
    """The state of one run_code request while it streams: waiting for its context (cells of one context run
    one after another), running, then collecting its kernel's exit status when the kernel died. The event loop
    advances it (Agent.advance); nothing here waits."""

    def __init__(self, agent, request_id, context, timeout, code, envs):
        self.agent, self.id, self.context, self.timeout = agent, request_id, context, timeout
        self.code, self.envs = code, envs
        self.count = None  # the execution count, once it runs
        self.collect_until = None  # the kernel died: until when to wait for its exit status (for the message)
        self.ended_by = None  # "restart" or "remove": restart_context / remove_context ended it
        self.cancelled = False  # interrupted or timed out before it ran
        self.output = CellOutput(lambda stream, text: agent.emit(
            {"id": request_id, "type": stream, "text": text, "timestamp": now_iso()}), OUTPUT_MODES[context.language])
        self.streams = OutputStreams(lambda stream, text, ts: self.output.add(stream, text))
        self.nonce = secrets.token_hex(12)  # binds the kernel's messages to this cell (see on_message)
        self.pipe_held = {stream: bytearray() for stream in STREAMS}  # pipe bytes not sent yet (on_pipe)
        self.pipe_waiting = {stream: None for stream in STREAMS}  # the mark whose message they wait for
        self.pipe_waiting_since = None
        self.results_sent = 0
        self.result_bytes = 0
        self.drops_reported = set()
        self.finished = False
        self.outcome = None  # the kernel's "done" message, checked
        self.kernel_gone = False
        self.interrupt_reason = None  # "timeout" or "request"
        self.kill_at = None
        self.restarted = False
        # The timeout counts from the request's arrival, as the host's own deadline does, also while the cell
        # waits for its context's previous cell.
        arrived = time.monotonic()
        delay = JS_SIGINT_DELAY_SECONDS if context.language in NODE_LANGUAGES else 0.0
        self.sigint_at = arrived + timeout + delay if timeout else None

    @property
    def running(self):
        return self.count is not None

    def on_message(self, message):
        """A message from the kernel's channel, which the cell's code can write too: only this cell's (by its
        nonce), only typed fields, and the envelope (id, type) is the agent's own."""
        if message.get("cell") != self.nonce:
            if isinstance(message.get("mark"), str):  # an earlier cell's process: its mark goes, nothing else
                for stream in STREAMS:
                    if self.pipe_waiting[stream] == message["mark"].encode():
                        self.pipe_release(stream)
            return  # an earlier cell's late message, or anything else: never this cell's
        kind = message.get("type")
        if kind == "stream":  # one write of the cell's code, framed by its kernel (CellOutput's "writes")
            if message.get("name") in STREAMS and isinstance(message.get("text"), str):
                self.streams.feed_text(message["name"], message["text"])
            return
        mark = message.get("mark")
        mark = mark if isinstance(mark, str) else None
        for stream in STREAMS:
            self.pipe_to_mark(stream, mark)  # what the pipes held before the message's mark (all of it: no mark)
        self.output.flush()  # what the cell wrote before this message goes out before it
        if kind == "result":
            self.on_result(message)
        elif kind == "done":
            self.outcome = checked_outcome(message)
            self.finished = True
        for stream in STREAMS:
            self.pipe_release(stream)  # what came after the mark, up to the next one

    # The Python kernel puts a mark on its output pipes before each message (PYTHON_KERNEL's send): pipe bytes
    # after a mark wait until its message is handled, so output keeps its place among results. Marks are
    # stripped; a mark whose message never comes (a forked process's, or one the cell wrote itself) is dropped
    # at the next message or at the cell's end.
    def on_pipe(self, stream, data):
        self.pipe_held[stream] += data
        if self.pipe_waiting[stream] is None:
            self.pipe_release(stream)
        # A mark the cell wrote itself, with a flood after it, must not grow the agent: past the bound the held
        # bytes go on (each release passes at least one mark, so this ends).
        while self.pipe_waiting[stream] is not None and len(self.pipe_held[stream]) > MARK_HOLD_CAP_BYTES:
            self.pipe_release(stream)

    def pipe_release(self, stream, final=False):
        """Sends the held pipe bytes up to the next mark (which then waits for its message); all with final."""
        held = self.pipe_held[stream]
        self.pipe_waiting[stream] = None
        while held:
            found = OUTPUT_MARK.search(held)
            if found is None:
                keep = 0 if final else partial_mark_length(held)
                if len(held) > keep:
                    self.streams.feed(stream, bytes(held[:len(held) - keep]))
                    del held[:len(held) - keep]
                return
            name = bytes(found.group(1))  # before held changes: a match reads its bytearray lazily
            if found.start():
                self.streams.feed(stream, bytes(held[:found.start()]))
            del held[:found.end()]
            if not final:
                self.pipe_waiting[stream] = name
                self.pipe_waiting_since = time.monotonic()
                return

    def pipe_to_mark(self, stream, mark):
        """Sends the held pipe bytes that precede `mark` (every held byte when it is not there) and drops it."""
        held = self.pipe_held[stream]
        if mark is not None and self.pipe_waiting[stream] == mark.encode():
            self.pipe_waiting[stream] = None
            return
        self.pipe_waiting[stream] = None
        while held:
            found = OUTPUT_MARK.search(held)
            name = bytes(found.group(1)) if found is not None else None
            end = found.start() if found is not None else len(held) - partial_mark_length(held)
            if end:
                self.streams.feed(stream, bytes(held[:end]))
                del held[:end]
            if found is None:
                return
            del held[:found.end() - found.start()]
            if mark is not None and name == mark.encode():
                return

    def on_result(self, message):
        result = {"is_main_result": message.get("is_main_result") is True}
        dropped = []
        for key in RESULT_TEXT_FIELDS:
            value = message.get(key)
            if key == "text" and value is None:
                value = ""
            if value is None:
                continue
            if not isinstance(value, str):
                dropped.append("its %s was not text" % key)
            elif len(value) > RESULT_FIELD_CAP_BYTES:
                dropped.append("its %s of %d bytes was too large" % (key, len(value)))
            else:
                result[key] = value
        # data: a DataFrame's columns (E2B's e2b/data formatter); chart: a figure's data (e2b/chart); extra: the
        # other mime types of an IPython kernel's output, an object as in E2B's Result.
        for key in ("json", "data", "chart", "extra"):
            if key not in message:
                continue
            if key == "extra" and not isinstance(message[key], dict):
                dropped.append("its extra was not an object")
                continue
            try:
                encoded = json.dumps(message[key], allow_nan=False)
            except (TypeError, ValueError, RecursionError):
                encoded = None
                dropped.append("its %s was not JSON" % key)
            if encoded is not None and len(encoded) > RESULT_FIELD_CAP_BYTES:
                dropped.append("its %s of %d bytes was too large" % (key, len(encoded)))
            elif encoded is not None:
                result[key] = message[key]
        result.setdefault("text", "")
        size = sum(len(value) if isinstance(value, str) else len(json.dumps(value)) for value in result.values()
                   if not isinstance(value, bool))
        if self.results_sent >= RESULTS_PER_CELL:
            self.drop("a result was dropped: the cell sent more than %d" % RESULTS_PER_CELL)
            return
        if self.result_bytes + size > RESULTS_BYTES_PER_CELL:
            self.drop("a result was dropped: the cell's results passed %d MiB" % (RESULTS_BYTES_PER_CELL >> 20))
            return
        self.results_sent += 1
        self.result_bytes += size
        for reason in dropped:
            self.drop("a field of a result was dropped: " + reason)
        self.agent.emit({"id": self.id, "type": "result", **result})

    def drop(self, what):
        if what in self.drops_reported:
            return  # one marker per kind of drop and cell
        self.drops_reported.add(what)
        self.output.flush()
        self.agent.emit({"id": self.id, "type": "stderr", "timestamp": now_iso(), "text": RESULT_DROPPED_MARKER % (
            what, RESULTS_PER_CELL, RESULTS_BYTES_PER_CELL >> 20, RESULT_FIELD_CAP_BYTES >> 20)})

    def on_kernel_gone(self):
        self.kernel_gone = True
        self.finished = True

    def interrupt(self, reason, mode=None):
        if self.interrupt_reason is not None or self.finished:
            return
        self.interrupt_reason = reason
        if not self.running:  # still waiting for its context: it never runs
            self.cancelled = True
            self.finished = True
            return
        self.context.child.interrupt()
        self.kill_at = time.monotonic() + INTERRUPT_GRACE_SECONDS

    def next_wakeup(self):
        if self.collect_until is not None:
            return 0.05  # polling the dead kernel's exit status, briefly
        moment = self.kill_at if self.interrupt_reason else self.sigint_at
        moments = [moment - time.monotonic()] if moment is not None else []
        flush = self.output.next_wakeup()
        if any(self.pipe_waiting.values()) and self.pipe_waiting_since is not None:
            moments.append(self.pipe_waiting_since + MARK_WAIT_SECONDS - time.monotonic())
        return min(moments + [flush]) if flush is not None else (min(moments) if moments else None)

    def check_clock(self):
        if any(self.pipe_waiting.values()) and time.monotonic() >= self.pipe_waiting_since + MARK_WAIT_SECONDS:
            for stream in STREAMS:  # a mark whose message never came (its process died): output goes on
                if self.pipe_waiting[stream] is not None:
                    self.pipe_release(stream)
        self.output.check_clock()
        now = time.monotonic()
        if self.interrupt_reason is None and self.sigint_at is not None and now >= self.sigint_at:
            self.interrupt("timeout")
        elif self.kill_at is not None and now >= self.kill_at and not self.finished:
            self.context.drain_output()
            self.restarted = True
            self.finished = True


# ---------------------------------------------------------------------------------------------------------------
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
            raise Failure("io", "could not start %s: %s" % (argv[0], exc))
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
        self.agent.commands.pop(self.pid, None)

    def end_event(self, request_id):
        exit_code, error = exit_status(self.returncode)
        return {"id": request_id, "type": "end", "exit_code": exit_code, "error": error, "timed_out": self.timed_out}

    def describe(self):
        return {"pid": self.pid, "cmd": self.cmd, "args": self.args, "envs": self.envs, "cwd": self.cwd,
                "tag": self.tag, "running": not (self.finished or self.killed), "background": self.background}


# ---------------------------------------------------------------------------------------------------------------
class Agent:
    def __init__(self, home):
        self.home = home
        self.selector = selectors.DefaultSelector()
        self.requests = collections.deque()  # lines that arrived before the agent served requests (start-up)
        self.serving = False
        self.stdin_buffer = bytearray()
        # Every request still streaming, by id: a CellRun or a CommandFollower, each with interrupt(reason,
        # mode). Several stream at once; the event loop advances each (advance()); no request waits for another.
        self.streaming = {}
        self.contexts = {}
        self.commands = {}  # pid -> Command, until waited for (background) or ended (foreground)
        self.children = {}  # pid -> (Popen, owner) for every child not yet reaped
        self.groups = set()  # every process group started, for the final cleanup
        self.watchers = {}  # watcher id -> DirectoryWatcher (watch_start .. watch_stop)
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
        # E2B's default contexts, listed from the start as there (its server starts them with the sandbox).
        # Each starts its kernel for its first cell (Python's before ready, prestart_default_context), so a
        # session that runs no JavaScript never starts node.
        for language in ("python", "javascript") if self.node is not None else ("python",):
            self.contexts[language] = Context(self, language, language, home)
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
        now = time.monotonic()
        moments = [c.deadline - now for c in self.commands.values() if c.deadline is not None and not c.finished]
        moments += [w for w in (r.next_wakeup() for r in list(self.streaming.values())) if w is not None]
        if moments:
            until = max(0.0, min(moments))
            timeout = until if timeout is None else min(timeout, until)
        if timeout is not None:
            timeout = max(0.0, timeout)
        for key, mask in self.selector.select(timeout):
            key.data(mask)
        now = time.monotonic()
        for command in list(self.commands.values()):
            if command.deadline is not None and not command.finished and now >= command.deadline:
                command.deadline = None
                command.timed_out = True
                command.kill()
        self.advance()

    def advance(self):
        """Moves every streaming cell on: its clock (timeout, interrupt grace), its end, and the next cell of
        its context. Command followers need nothing here but their wait timeout: a command's end reaches its
        followers from the loop's callbacks (Command.on_exit)."""
        for request in list(self.streaming.values()):
            request.check_clock()
            if isinstance(request, CellRun) and request.finished:
                self.settle_cell(request)

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
            if isinstance(owner, Command):
                owner.on_program_status()
            elif isinstance(owner, Context) and owner.proc is proc and self.isolation.steps is None:
                owner.on_program_end()  # a host run: the Popen is the kernel itself, not its init

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
                "invalid", "the request is not valid UTF-8 (bad byte at offset %d); send JSON encoded as UTF-8"
                % exc.start))
        try:
            request = json.loads(text)
        except (ValueError, RecursionError) as exc:
            return None, (self.guess_id(text), Failure(
                "invalid", "the request is not valid JSON (%s); send one JSON object per line" % exc))
        if not isinstance(request, dict):
            return None, (-1, Failure("invalid", "the request must be a JSON object with \"id\" and \"op\""))
        request_id = request.get("id")
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            return None, (-1, Failure("invalid", "the request needs an integer \"id\""))
        if not isinstance(request.get("op"), str):
            return None, (request_id, Failure("invalid", "the request needs an \"op\" (a string); one of: "
                                              + ", ".join(sorted(OPS))))
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
        request_id, op = request["id"], request["op"]
        handler = OPS.get(op)
        try:
            if handler is None:
                raise Failure("invalid", "unknown op %r; the ops are: %s" % (op, ", ".join(sorted(OPS))))
            handler(self, request_id, request)
        except Failure as error:
            self.emit({"id": request_id, "type": "failure", "kind": error.kind, "message": error.message})
        except HostGone:
            raise
        except Exception as exc:  # a bug of the agent: report it, keep serving
            import traceback
            sys.stderr.write(traceback.format_exc())
            self.emit({"id": request_id, "type": "failure", "kind": "internal",
                       "message": "the session agent failed on %s: %s: %s" % (op, type(exc).__name__, exc)})

    def prestart_default_context(self):
        """With E2BEVAL_AGENT_DEFAULT_CONTEXT=python (the host sets it for every session), the default Python
        context is started before the agent reports ready, and ready waits until its kernel serves cells: a
        session's first cell then pays only for itself, and a session the host keeps in its pool of ready
        sessions is fully warm when it is handed out. No user code runs here. A kernel that cannot start is
        left for the first cell, which starts it again and says what happened."""
        if os.environ.get("E2BEVAL_AGENT_DEFAULT_CONTEXT") != "python":
            return
        context = self.contexts["python"]
        try:
            context.start()
        except Failure:
            return
        deadline = time.monotonic() + KERNEL_START_SECONDS
        # Nothing streams yet and requests are only queued (on_line), so this loop serves nobody but the kernel.
        while not context.started and context.alive and time.monotonic() < deadline:
            self.pump(max(0.0, deadline - time.monotonic()))

    def serve(self):
        self.prestart_default_context()
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
        for proc, owner in list(self.children.values()):
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    # -- field checks -----------------------------------------------------------------------------------------
    @staticmethod
    def field(request, name, kinds, what, required=False, default=None):
        value = request.get(name)
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        if value is None:
            if required:
                raise Failure("invalid", "%s needs \"%s\" (%s)" % (request["op"], name, what))
            return default
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise Failure("invalid", "\"%s\" of %s must be %s, not %s" % (name, request["op"], what,
                                                                          type(value).__name__))
        return value

    def timeout_field(self, request, name="timeout", default=None):
        value = self.field(request, name, (int, float), "a number of seconds or null", default=default)
        if value is not None and (value != value or value < 0 or value == float("inf")):
            raise Failure("invalid", "\"%s\" of %s must be a non-negative number of seconds" % (name, request["op"]))
        return value

    def envs_field(self, request):
        envs = self.field(request, "envs", dict, "an object of strings")
        if envs is not None:
            for key, value in envs.items():
                if not isinstance(value, str) or not key or "=" in key or "\0" in key or "\0" in value:
                    raise Failure("invalid", "\"envs\" of %s must map names (no '=' or NUL) to strings; %r is not"
                                  % (request["op"], key))
        return envs

    def path_field(self, request, name="path"):
        raw = self.field(request, name, str, "a path", required=True)
        if not raw or "\0" in raw:
            raise Failure("invalid", "\"%s\" of %s must be a non-empty path without NUL bytes" % (name, request["op"]))
        path = os.path.normpath(os.path.join(self.home, raw))  # join keeps an absolute `raw` as it is
        return "/" + path.lstrip("/")

    def directory_field(self, request, name="cwd"):
        raw = self.field(request, name, str, "a directory path")
        if raw is None:
            return self.home
        path = os.path.normpath(os.path.join(self.home, raw))
        if not os.path.isdir(path):
            raise Failure("invalid", "\"%s\" %s is not an existing directory; create it first (files_make_dir)"
                          % (name, path))
        return path

    # -- code contexts ----------------------------------------------------------------------------------------
    def language_of(self, raw):
        language = LANGUAGES.get(raw.strip().lower()) if isinstance(raw, str) else None
        if language is None:
            raise Failure("unsupported", "language %r is not supported; use \"python\" (py, python3), "
                          "\"javascript\" (js), \"typescript\" (ts) or \"bash\" (sh, shell)" % (raw,))
        if language == "bash" and not os.access(BASH, os.X_OK):
            raise Failure("unsupported", "%s is not available in this sandbox, so bash contexts cannot run; use "
                          "Python or JavaScript" % BASH)
        if language in NODE_LANGUAGES and self.node is None:
            raise Failure("unsupported", "node is not available in this sandbox (E2BEVAL_NODE is unset or does "
                          "not run), so JavaScript contexts cannot run; use Python or a host with node")
        if language == "typescript" and not node_strips_types(self.node_version):
            raise Failure("unsupported", "TypeScript cells need node 22.13 or later (its type stripping, "
                          "module.stripTypeScriptTypes); this sandbox's node is %s: set E2BEVAL_NODE to a newer "
                          "node, or run the code as JavaScript" % self.node_version)
        return language

    def new_context(self, context_id, language, cwd):
        context = Context(self, context_id, language, cwd)
        context.start()
        self.contexts[context_id] = context
        return context

    def op_run_code(self, request_id, request):
        code = self.field(request, "code", str, "a string", required=True)
        language = request.get("language")
        context_id = self.field(request, "context", str, "a context id")
        envs = self.envs_field(request)
        timeout = self.timeout_field(request)
        try:
            code.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise Failure("invalid", "code is not valid Unicode text (a lone surrogate at index %d)" % exc.start)
        if language is not None and context_id is not None:
            raise Failure("invalid", "give either \"language\" or \"context\", not both: a context has its language")
        if context_id is not None:
            context = self.contexts.get(context_id)
            if context is None:
                raise Failure("not_found", "Context %s not found; create it with create_context or use the "
                              "default context of a language" % context_id)
        else:
            language = self.language_of("python" if language is None else language)
            context = self.contexts.get(language)
        if (language if context is None else context.language) == "bash":
            check_bash_cell(code, envs)
        if context is None:
            context = self.new_context(language, language, self.home)
        cell = CellRun(self, request_id, context, timeout, code, envs)
        self.streaming[request_id] = cell
        context.waiting.append(cell)
        if context.cell is None:
            self.start_next_cell(context)

    def start_next_cell(self, context):
        """Sends the context's next waiting cell to its kernel (cells of one context run one at a time)."""
        while context.cell is None and context.waiting:
            cell = context.waiting.popleft()
            if cell.finished:
                continue  # interrupted or timed out while it waited: settled by advance()
            if not context.launched:  # a default context's first cell: its kernel starts now
                try:
                    context.start()
                except Failure as error:
                    self.streaming.pop(cell.id, None)
                    self.emit({"id": cell.id, "type": "failure", "kind": error.kind, "message": error.message})
                    continue
            elif not context.alive:
                try:
                    context.restart()
                except Failure as error:
                    self.streaming.pop(cell.id, None)
                    self.emit({"id": cell.id, "type": "failure", "kind": error.kind, "message": error.message})
                    continue
                self.emit({"id": cell.id, "type": "stderr", "timestamp": now_iso(),
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
        self.streaming.pop(cell.id, None)
        if cell.running and context.cell is cell:
            context.cell = None
        self.finish_cell(cell.id, context, cell, cell.count)
        if context.id in self.contexts and self.contexts[context.id] is context:
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
                self.emit({"id": request_id, "type": "timeout", "seconds": cell.timeout, "context_restarted": False})
            else:
                self.emit({"id": request_id, "type": "error", "name": "KeyboardInterrupt", "traceback": "",
                           "value": "interrupted before it ran (it was waiting for the context's previous cell)"})
            self.emit({"id": request_id, "type": "end_of_execution"})
            return
        if cell.ended_by is not None:
            self.emit({"id": request_id, "type": "error", "name": "ContextRestarted", "traceback": "",
                       "value": "the context was %s while the cell ran; its state is lost" % (
                           "restarted (restart_context)" if cell.ended_by == "restart" else "removed (remove_context)")})
        elif cell.restarted or cell.kernel_gone:
            returncode = context.child.returncode() if cell.kernel_gone and context.child is not None else None
            context.restart()
            if timed_out:
                self.emit({"id": request_id, "type": "timeout", "seconds": cell.timeout, "context_restarted": True})
            elif cell.restarted:
                self.emit({"id": request_id, "type": "error", "name": "ContextRestarted", "traceback": "",
                           "value": "the cell did not stop within %g s of the interrupt; the context was restarted "
                                    "and its state is lost" % INTERRUPT_GRACE_SECONDS})
            else:
                how = ("exit code %d" % returncode if returncode is not None and returncode >= 0 else
                       exit_status(returncode)[1] if returncode is not None else "its control channel closed")
                self.emit({"id": request_id, "type": "error", "name": "KernelDied", "traceback": "",
                           "value": "the context's process ended while running the cell (%s); the context was "
                                    "restarted and its state is lost" % how})
        elif timed_out:
            if error is not None and not outcome.get("interrupted") and not outcome.get("timed_out"):
                self.emit({"id": request_id, "type": "error", **error})  # a real error, not the interruption
            self.emit({"id": request_id, "type": "timeout", "seconds": cell.timeout, "context_restarted": False})
        elif error is not None:
            self.emit({"id": request_id, "type": "error", **error})
        self.emit({"id": request_id, "type": "number_of_executions", "execution_count": count})
        self.emit({"id": request_id, "type": "end_of_execution"})

    def op_create_context(self, request_id, request):
        language = self.language_of(request.get("language") or "python")
        cwd = self.directory_field(request)
        context_id = secrets.token_hex(6)
        self.reply(request_id, context=self.new_context(context_id, language, cwd).describe())

    def op_list_contexts(self, request_id, request):
        self.reply(request_id, contexts=[context.describe() for context in self.contexts.values()])

    def context_field(self, request):
        context_id = self.field(request, "context", str, "a context id", required=True)
        context = self.contexts.get(context_id)
        if context is None:
            raise Failure("not_found", "Context %s not found; list_contexts shows the existing ones" % context_id)
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

    def op_restart_context(self, request_id, request):
        context = self.context_field(request)
        cell = self.end_running_cell(context, "restart")
        context.restart()
        if cell is not None:
            self.settle_cell(cell)  # then the cells waiting for the context run on the fresh kernel
        else:
            self.start_next_cell(context)
        self.reply(request_id)

    def op_remove_context(self, request_id, request):
        context = self.context_field(request)
        del self.contexts[context.id]
        cell = self.end_running_cell(context, "remove")
        context.stop()
        if cell is not None:
            self.settle_cell(cell)
        while context.waiting:  # cells waiting for it: their context is gone
            cell = context.waiting.popleft()
            if self.streaming.pop(cell.id, None) is not None:
                self.emit({"id": cell.id, "type": "failure", "kind": "not_found",
                           "message": "Context %s was removed before the cell ran" % context.id})
        self.reply(request_id)

    # -- commands ---------------------------------------------------------------------------------------------
    def op_run_command(self, request_id, request):
        cmd = self.field(request, "cmd", str, "a bash command line", required=True)
        args = self.field(request, "args", list, "a list of strings")
        if args is not None and not all(isinstance(arg, str) and "\0" not in arg for arg in args):
            raise Failure("invalid", "\"args\" of run_command must be strings without NUL bytes")
        tag = self.field(request, "tag", str, "a string")
        envs = self.envs_field(request)
        cwd = self.directory_field(request)
        timeout = self.timeout_field(request, default=DEFAULT_COMMAND_TIMEOUT_SECONDS)
        background = self.field(request, "background", bool, "true or false", default=False)
        with_stdin = self.field(request, "stdin", bool, "true or false", default=False)
        self.field(request, "user", str, "a user name")  # one user in the sandbox: accepted, ignored
        if "\0" in cmd:
            raise Failure("invalid", "\"cmd\" must not contain NUL bytes")
        if tag is not None and any(c.tag == tag and not c.finished for c in self.commands.values()):
            raise Failure("invalid", "a running command already has the tag %r; tags name one command" % tag)
        command = Command(self, cmd, args, cwd, self.child_env(envs), envs, tag, timeout, background, with_stdin)
        self.track(command.proc, command)
        self.commands[command.pid] = command
        self.emit({"id": request_id, "type": "start", "pid": command.pid})
        if background:
            self.reply(request_id, pid=command.pid)
            return
        self.follow(request_id, command, None)

    def follow(self, request_id, command, wait_timeout):
        """Makes `request_id` a follower of the command: it streams the command's output until the command
        ends (then `end`, and the command is forgotten), or until it is interrupted in detach mode."""
        follower = CommandFollower(self, request_id, command, wait_timeout)
        self.streaming[request_id] = follower
        command.attach(follower)  # a command that already ended sends `end` at once

    def command_field(self, request):
        """The command a request names by "pid" or by "tag" (one of them)."""
        pid = self.field(request, "pid", int, "a process id")
        tag = self.field(request, "tag", str, "a command's tag")
        if (pid is None) == (tag is None):
            raise Failure("invalid", "%s needs \"pid\" or \"tag\" (one of them) to name the command" % request["op"])
        if pid is not None:
            command = self.commands.get(pid)
            if command is None:
                raise Failure("not_found", "no command with pid %d; command_list shows the commands this session "
                              "started" % pid)
            return command
        for command in self.commands.values():
            if command.tag == tag:
                return command
        raise Failure("not_found", "no command with tag %r; command_list shows the commands this session started"
                      % tag)

    def op_command_wait(self, request_id, request):
        command = self.command_field(request)
        self.follow(request_id, command, self.timeout_field(request))

    def op_command_kill(self, request_id, request):
        how = self.field(request, "signal", str, "\"SIGKILL\" or \"SIGTERM\"", default="SIGKILL")
        if how not in ("SIGKILL", "SIGTERM"):
            raise Failure("invalid", "\"signal\" of command_kill must be \"SIGKILL\" or \"SIGTERM\", not %r" % how)
        try:
            command = self.command_field(request)
        except Failure as error:
            if error.kind != "not_found":
                raise
            command = None
        if command is None or command.finished or command.killed:
            self.reply(request_id, killed=False)
            return
        if how == "SIGKILL":
            command.kill()
        else:
            command.terminate()
        self.reply(request_id, killed=True)

    def stdin_of(self, request):
        command = self.command_field(request)
        if command.stdin is None:
            raise Failure("invalid", "command %d was started without stdin; run it with \"stdin\": true"
                          % command.pid)
        if command.finished:
            raise Failure("invalid", "command %d has already exited" % command.pid)
        if not command.stdin.open:
            raise Failure("invalid", "the stdin of command %d is already closed" % command.pid)
        return command.stdin

    def op_command_send_stdin(self, request_id, request):
        text = self.field(request, "data", str, "a string")
        encoded = self.field(request, "data_base64", str, "base64 of the bytes")
        if (text is None) == (encoded is None):
            raise Failure("invalid", "command_send_stdin needs \"data\" (text) or \"data_base64\" (bytes), one of them")
        if encoded is not None:
            try:
                data = base64.b64decode(encoded, validate=True)
            except ValueError:  # binascii.Error is one
                raise Failure("invalid", "\"data_base64\" of command_send_stdin is not valid base64")
        else:
            data = text.encode("utf-8", "surrogatepass")
        self.stdin_of(request).write(data)
        self.reply(request_id)

    def op_command_close_stdin(self, request_id, request):
        self.stdin_of(request).close_after_flush()
        self.reply(request_id)

    def op_command_list(self, request_id, request):
        self.reply(request_id, processes=[command.describe() for command in self.commands.values()])

    # -- files ------------------------------------------------------------------------------------------------
    # The hint about writable places belongs to a refused change, not to a refused read.
    WRITING_OPS = frozenset({"files_write", "files_remove", "files_make_dir", "files_rename"})

    def os_failure(self, op, path, exc):
        code = exc.errno
        name = errno.errorcode.get(code, str(code))
        message = "%s %s: %s (%s)" % (op, path, exc.strerror or exc, name)
        if code == errno.ENOENT:
            return Failure("not_found", "%s %s: no such file or directory" % (op, path))
        if code in (errno.EROFS, errno.EACCES, errno.EPERM) and op in self.WRITING_OPS:
            return Failure("io", message + "; only %s, /tmp and /dev/shm are writable" % self.home)
        if code in (errno.EISDIR, errno.ENOTDIR, errno.ENOTEMPTY, errno.EEXIST, errno.EINVAL, errno.ENAMETOOLONG,
                    errno.ELOOP):
            return Failure("invalid", message)
        return Failure("io", message)

    @staticmethod
    def user_name(uid, cache={}):
        if uid not in cache:
            try:
                cache[uid] = pwd.getpwuid(uid).pw_name
            except (KeyError, OSError):
                cache[uid] = str(uid)
        return cache[uid]

    @staticmethod
    def group_name(gid, cache={}):
        if gid not in cache:
            try:
                cache[gid] = grp.getgrgid(gid).gr_name
            except (KeyError, OSError):
                cache[gid] = str(gid)
        return cache[gid]

    def entry_info(self, path):
        st = os.lstat(path)
        kind = "symlink" if stat.S_ISLNK(st.st_mode) else "dir" if stat.S_ISDIR(st.st_mode) else "file"
        info = {"name": os.path.basename(path) or "/", "type": kind, "path": path, "size": st.st_size,
                "mode": stat.S_IMODE(st.st_mode), "permissions": stat.filemode(st.st_mode),
                "owner": self.user_name(st.st_uid), "group": self.group_name(st.st_gid),
                "modified_time": iso_from_timestamp(st.st_mtime)}
        if kind == "symlink":
            info["symlink_target"] = os.readlink(path)
        return info

    def op_files_write(self, request_id, request):
        path = self.path_field(request)
        encoded = self.field(request, "data", str, "base64 text", required=True)
        try:
            data = base64.b64decode(encoded, validate=True)
        except ValueError as exc:
            raise Failure("invalid", "\"data\" of files_write is not valid base64 (%s)" % exc)
        # Written whole or not at all: into a new file beside the target, renamed over it once complete, so a
        # write refused half-way (the file size limit, a full workspace) leaves the old file, or none.
        target = os.path.realpath(path) if os.path.islink(path) else path  # a link is written through
        try:
            parent = os.path.dirname(target)
            if not os.path.isdir(parent):
                self.ensure_directories(parent, "files_write", path)
            try:
                existing = os.stat(target)
            except FileNotFoundError:
                existing = None
            if existing is not None and not stat.S_ISREG(existing.st_mode):
                raise Failure("invalid", "files_write %s: not a regular file" % path)
            staging = os.path.join(parent, staging_name(existing is not None, bool(data)))
            fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            raise Failure("invalid", "files_write %s: a parent of it is a file, not a directory" % path)
        except OSError as exc:
            if exc.errno == errno.ENOENT and os.path.isdir(parent):  # a directory that takes no new files: /proc
                raise Failure("io", "files_write %s: no file can be created in %s; only %s, /tmp and /dev/shm are "
                              "writable" % (path, parent, self.home))
            raise self.os_failure("files_write", path, exc)
        try:
            try:
                if existing is not None:
                    os.fchmod(fd, stat.S_IMODE(existing.st_mode))
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            os.rename(staging, target)
        except OSError as exc:
            try:
                os.unlink(staging)
            except OSError:
                pass
            raise self.os_failure("files_write", path, exc)
        self.reply(request_id, entry=self.entry_info(path))

    def op_files_read(self, request_id, request):
        path = self.path_field(request)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise self.os_failure("files_read", path, exc)
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                raise Failure("invalid", "files_read %s: it is a directory; use files_list" % path)
            if not stat.S_ISREG(mode):  # /dev/zero or a FIFO would never end
                raise Failure("invalid", "files_read %s: not a regular file" % path)
            os.set_blocking(fd, True)
            chunks = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError as exc:
            raise self.os_failure("files_read", path, exc)
        finally:
            os.close(fd)
        self.reply(request_id, data=base64.b64encode(b"".join(chunks)).decode("ascii"))

    def op_files_list(self, request_id, request):
        path = self.path_field(request)
        depth = self.field(request, "depth", int, "a whole number of levels", default=1)
        if depth < 1:
            raise Failure("invalid", "\"depth\" of files_list must be 1 or more")
        try:
            if not os.path.isdir(path):
                os.stat(path)  # not found → ENOENT
                raise Failure("invalid", "files_list %s: not a directory; use files_info" % path)
        except OSError as exc:
            raise self.os_failure("files_list", path, exc)
        entries = []

        def walk(directory, level, required):
            try:
                with os.scandir(directory) as found:
                    names = sorted(entry.name for entry in found)
            except OSError as exc:
                if required:
                    raise self.os_failure("files_list", directory, exc)
                return  # an unreadable subdirectory: list what can be listed
            for name in names:
                full = os.path.join(directory, name)
                try:
                    info = self.entry_info(full)
                except OSError:
                    continue  # removed meanwhile
                entries.append(info)
                if level < depth and info["type"] == "dir":
                    walk(full, level + 1, False)

        walk(path, 1, True)
        self.reply(request_id, entries=entries)

    def op_files_exists(self, request_id, request):
        path = self.path_field(request)
        try:
            os.lstat(path)
            exists = True
        except (FileNotFoundError, NotADirectoryError):
            exists = False
        except OSError as exc:
            raise self.os_failure("files_exists", path, exc)
        self.reply(request_id, exists=exists)

    def op_files_info(self, request_id, request):
        path = self.path_field(request)
        try:
            entry = self.entry_info(path)
            if entry["type"] == "symlink" and os.path.isdir(path):
                # A link to a directory is used as that directory: watch_dir and the like take it;
                # symlink_target still says what it is.
                entry["type"] = "dir"
            self.reply(request_id, entry=entry)
        except OSError as exc:
            raise self.os_failure("files_info", path, exc)

    def op_files_remove(self, request_id, request):
        """As envd's Remove (os.RemoveAll): a path that does not exist is already removed, not an error."""
        path = self.path_field(request)
        try:
            if stat.S_ISDIR(os.lstat(path).st_mode):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise self.os_failure("files_remove", path, exc)
        self.reply(request_id)

    def ensure_directories(self, directory, op, path):
        """Makes `directory` and its missing parents the way envd does (permissions.EnsureDirs): each new one
        with mode 0755, then chowned to the sandbox's user. The chown changes nothing (that user made it) but
        is what makes a watcher see CREATE then CHMOD for it, as E2B's watchers do. Watchers read their events
        after each directory is made, as envd's watcher (a goroutine of its own) keeps up: a recursive watcher
        watches a new level before the next is made in it."""
        missing = []
        while not os.path.lexists(directory):
            missing.append(directory)
            directory = os.path.dirname(directory)
        if not os.path.isdir(directory):
            raise Failure("invalid", "%s %s: %s, a parent of it, is not a directory" % (op, path, directory))
        for level in reversed(missing):
            try:
                os.mkdir(level, 0o755)
            except FileExistsError:
                if os.path.isdir(level):
                    continue  # made meanwhile by a command: not ours to chown
                raise
            for watcher in self.watchers.values():
                watcher.on_readable(selectors.EVENT_READ)
            os.chown(level, os.getuid(), os.getgid(), follow_symlinks=False)

    def op_files_make_dir(self, request_id, request):
        path = self.path_field(request)
        try:
            if os.path.isdir(path):
                self.reply(request_id, created=False)
                return
            if os.path.lexists(path):
                raise Failure("invalid", "files_make_dir %s: it exists and is not a directory" % path)
            self.ensure_directories(path, "files_make_dir", path)
        except FileExistsError:
            raise Failure("invalid", "files_make_dir %s: a parent of it is a file, not a directory" % path)
        except OSError as exc:
            raise self.os_failure("files_make_dir", path, exc)
        self.reply(request_id, created=True)

    def op_files_rename(self, request_id, request):
        old = self.path_field(request, "old_path")
        new = self.path_field(request, "new_path")
        try:
            os.lstat(old)
        except OSError as exc:
            raise self.os_failure("files_rename", old, exc)
        try:
            self.ensure_directories(os.path.dirname(new), "files_rename", new)
            try:
                os.rename(old, new)
            except OSError as exc:
                if exc.errno != errno.EXDEV or os.path.lexists(new):
                    raise
                shutil.move(old, new)  # between mounts (/home/user, /tmp, /dev/shm): copy, then remove
        except FileExistsError:
            raise Failure("invalid", "files_rename %s: a parent of it is a file, not a directory" % new)
        except OSError as exc:
            raise self.os_failure("files_rename", "%s -> %s" % (old, new), exc)
        self.reply(request_id, entry=self.entry_info(new))

    # -- other ------------------------------------------------------------------------------------------------
    def op_ping(self, request_id, request):
        self.reply(request_id, python="%d.%d.%d" % sys.version_info[:3], node=self.node_version)

    def op_interrupt(self, request_id, request):
        """Interrupts the streaming request `target` (without one: the request whose id the interrupt carries).
        No event of its own; a target that is not streaming (it ended, the interrupt raced it) is ignored."""
        target = self.field(request, "target", int, "the id of the request to interrupt", default=request_id)
        mode = self.field(request, "mode", str, "\"stop\" or \"detach\"", default="stop")
        if mode not in ("stop", "detach"):
            raise Failure("invalid", "\"mode\" of interrupt must be \"stop\" or \"detach\", not %r" % mode)
        streaming = self.streaming.get(target)
        if streaming is not None:
            streaming.interrupt("request", mode)


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

    def check_clock(self):
        if self.deadline is not None and time.monotonic() >= self.deadline and not self.command.finished:
            self.deadline = None  # waited long enough: the command is killed, and `end` says timed_out
            self.command.timed_out = True
            self.command.kill()



# ---------------------------------------------------------------------------------------------------------------
# Directory watchers (watch_start / watch_events / watch_stop): inotify through ctypes on libc, one inotify
# instance per watcher, read by the agent's selector as events come (so the kernel's queue never overflows while
# nobody asks) and buffered here until the host drains them. The agent itself runs without seccomp, so it may
# call inotify_*; its children, whose filter is stricter, never do.
IN_MODIFY, IN_ATTRIB, IN_MOVED_FROM, IN_MOVED_TO = 0x2, 0x4, 0x40, 0x80
IN_CREATE, IN_DELETE, IN_DELETE_SELF, IN_MOVE_SELF = 0x100, 0x200, 0x400, 0x800
IN_Q_OVERFLOW, IN_IGNORED, IN_ONLYDIR, IN_DONT_FOLLOW, IN_ISDIR = 0x4000, 0x8000, 0x01000000, 0x02000000, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
WATCH_MASK = (IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF
              | IN_MOVE_SELF | IN_ONLYDIR)
WATCH_EVENT_CAP = 10000  # buffered per watcher; past it new events are dropped and counted (watch_events says so)
WATCHERS_PER_SESSION = 64
STAGING_PREFIX = ".e2beval-write-"  # files_write's staging files: an implementation detail, never reported
# What envd's own write of a file makes its watchers report (open O_CREAT|O_TRUNC, chown to the user, write:
# its api/upload.go), as E2B's SDK tests expect it, keyed by the two letters that end a staging file's name:
# whether the target existed (r) or not (n), and whether data was written (d) or not (e). The truncation of an
# existing file is a write of its own.
STAGED_WRITE_EVENTS = {"nd": ("create", "chmod", "write"), "ne": ("create", "chmod"),
                       "rd": ("chmod", "write", "write"), "re": ("chmod", "write")}


def staging_name(existed, has_data):
    """The name of files_write's staging file for a target: random, and saying what the write will be."""
    return "%s%s.%s%s" % (STAGING_PREFIX, secrets.token_hex(8), "r" if existed else "n", "d" if has_data else "e")


class DirectoryWatcher:
    """One watched directory (and, recursive, every directory below it, also those made later), reporting what
    envd's watcher (fsnotify over inotify) reports: each inotify event is one event, named relative to the
    watched directory ("." for the directory itself) and typed create (IN_CREATE, IN_MOVED_TO), write
    (IN_MODIFY), remove (IN_DELETE, IN_DELETE_SELF), rename (IN_MOVED_FROM, IN_MOVE_SELF) or chmod (IN_ATTRIB).
    As there: a subdirectory's own delete or move is not reported twice (its parent reports it); entries found
    in a directory made (or moved in from outside) after the watch started are reported as created; a
    directory renamed inside the tree keeps its watches under the new name, its entries not reported again."""

    libc = None

    def __init__(self, agent, watcher_id, root, recursive, include_entry=False):
        if DirectoryWatcher.libc is None:
            DirectoryWatcher.libc = ctypes.CDLL(None, use_errno=True)
        self.agent, self.id, self.root, self.recursive = agent, watcher_id, root, recursive
        self.include_entry = include_entry
        self.events = []
        self.dropped = 0
        self.ended = False  # the watched directory itself was removed or moved away
        self.directories = {}  # watch descriptor -> directory relative to root ("" for root)
        self.staged = {}  # cookie of a staging file's move -> the events its arrival at the target stands for
        self.moving = None  # (cookie, relative path) of a subdirectory just moved away, until its arrival is seen
        self.fd = self.libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self.fd < 0:
            code = ctypes.get_errno()
            raise Failure("io", "watch_start %s: inotify_init1 failed: %s (%s); stop a watcher you no longer need"
                          % (root, os.strerror(code), errno.errorcode.get(code, code)))
        try:
            self.add(root, "", True)
        except BaseException:
            os.close(self.fd)
            raise
        agent.selector.register(self.fd, selectors.EVENT_READ, self.on_readable)

    def add(self, directory, relative, required):
        """Watches `directory` and, recursive, the directories below it. Entries found in a directory made after
        the watch started are reported as created: they may have been made before its watch was in place."""
        flags = WATCH_MASK if relative == "" else WATCH_MASK | IN_DONT_FOLLOW  # the root may be a link
        wd = self.libc.inotify_add_watch(self.fd, os.fsencode(directory), flags)
        if wd < 0:
            code = ctypes.get_errno()
            if required:
                error = OSError(code, os.strerror(code))
                if code == errno.ENOSPC:
                    raise Failure("io", "watch_start %s: the host's limit of inotify watches is reached "
                                  "(fs.inotify.max_user_watches); watch fewer directories" % directory)
                raise self.agent.os_failure("watch_start", directory, error)
            return  # gone meanwhile, or over the limit: the rest of the tree is still watched
        self.directories[wd] = relative
        if not self.recursive:
            return
        try:
            with os.scandir(directory) as found:
                entries = sorted((entry.name, entry.is_dir(follow_symlinks=False)) for entry in found)
        except OSError:
            return
        for name, is_dir in entries:
            if name.startswith(STAGING_PREFIX):
                continue
            child = os.path.join(relative, name) if relative else name
            if not required:
                self.push(child, "create")
            if is_dir:
                self.add(os.path.join(directory, name), child, False)

    def push(self, name, kind):
        if len(self.events) >= WATCH_EVENT_CAP:
            self.dropped += 1
            return
        event = {"name": name or ".", "type": kind}
        if self.include_entry:
            try:  # best effort, as envd's: the entry as it is when the event is read, if it still exists
                event["entry"] = self.agent.entry_info(os.path.join(self.root, name) if name else self.root)
            except OSError:
                pass
        self.events.append(event)

    def on_readable(self, mask):
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:  # BlockingIOError: nothing more queued now
                data = b""
            if not data:
                self.settle_move()
                return
            offset = 0
            while offset + 16 <= len(data):
                wd, flags, cookie, length = struct_unpack_event(data, offset)
                raw = data[offset + 16:offset + 16 + length].split(b"\0", 1)[0]
                offset += 16 + length
                self.on_event(wd, flags, cookie, os.fsdecode(raw))

    def on_event(self, wd, flags, cookie, name):
        if flags & IN_Q_OVERFLOW:
            self.dropped += 1  # the kernel's queue overflowed: some events are lost
            return
        if self.moving is not None and not (flags & IN_MOVED_TO and cookie == self.moving[0]):
            self.settle_move()  # the move's other half (queued right after it) is not here: it left the tree
        relative = self.directories.get(wd)
        if relative is None:
            return
        if flags & IN_IGNORED:
            del self.directories[wd]
            if relative == "":
                self.ended = True
            return
        if flags & (IN_DELETE_SELF | IN_MOVE_SELF):
            if relative == "":  # the watched directory itself; a subdirectory's own event came from its parent
                self.push("", "remove" if flags & IN_DELETE_SELF else "rename")
                self.ended = True
            return
        if name.startswith(STAGING_PREFIX):
            if flags & IN_MOVED_FROM:
                self.staged[cookie] = STAGED_WRITE_EVENTS.get(name[-2:], ("create", "write"))
            return
        # An event of a watched directory itself (its chmod) has no name: it is named as that directory is.
        path = os.path.join(relative, name) if relative and name else name or relative
        if flags & IN_MOVED_TO and cookie in self.staged:
            for kind in self.staged.pop(cookie):  # files_write renamed its staging file over the target
                self.push(path, kind)
            return
        kind = ("create" if flags & (IN_CREATE | IN_MOVED_TO) else "write" if flags & IN_MODIFY
                else "remove" if flags & IN_DELETE else "rename" if flags & IN_MOVED_FROM
                else "chmod" if flags & IN_ATTRIB else None)
        if kind is None:
            return
        self.push(path, kind)
        if not (self.recursive and flags & IN_ISDIR):
            return
        if flags & IN_MOVED_FROM:
            # Renamed inside the tree (its arrival comes next, with the same cookie) or moved out of it.
            self.moving = (cookie, path)
        elif flags & IN_MOVED_TO and self.moving is not None:
            # Renamed inside the tree: its watches stay, under the new name; its entries are not new.
            old = self.moving[1]
            self.moving = None
            for wd, directory in list(self.directories.items()):
                if directory == old or directory.startswith(old + "/"):
                    self.directories[wd] = path + directory[len(old):]
        elif flags & (IN_CREATE | IN_MOVED_TO):
            self.add(os.path.join(self.root, path), path, False)

    def settle_move(self):
        """A subdirectory moved away whose arrival did not follow: it left the tree, and so do its watches."""
        if self.moving is not None:
            self.forget(self.moving[1])
            self.moving = None

    def forget(self, relative):
        """Stops watching the directory `relative` and those below it (their events would carry old names)."""
        for wd, directory in list(self.directories.items()):
            if directory == relative or directory.startswith(relative + "/"):
                del self.directories[wd]
                self.libc.inotify_rm_watch(self.fd, wd)

    def drain(self):
        self.on_readable(selectors.EVENT_READ)  # what the kernel holds now is part of this answer
        events, dropped = self.events, self.dropped
        self.events, self.dropped = [], 0
        return events, dropped

    def close(self):
        try:
            self.agent.selector.unregister(self.fd)
        except (KeyError, ValueError):
            pass
        os.close(self.fd)


def struct_unpack_event(data, offset):
    """struct inotify_event's header: int wd; uint32_t mask, cookie, len."""
    return (int.from_bytes(data[offset:offset + 4], sys.byteorder, signed=True),
            int.from_bytes(data[offset + 4:offset + 8], sys.byteorder),
            int.from_bytes(data[offset + 8:offset + 12], sys.byteorder),
            int.from_bytes(data[offset + 12:offset + 16], sys.byteorder))


def watcher_of(agent, request):
    watcher_id = agent.field(request, "watcher", str, "a watcher id", required=True)
    watcher = agent.watchers.get(watcher_id)
    if watcher is None:
        raise Failure("not_found", "watcher %s not found: it was stopped, or never started (watch_start)" % watcher_id)
    return watcher


def op_watch_start(agent, request_id, request):
    path = agent.path_field(request)
    recursive = agent.field(request, "recursive", bool, "true or false", default=False)
    include_entry = agent.field(request, "include_entry", bool, "true or false", default=False)
    try:
        if not os.path.isdir(path):
            os.stat(path)  # missing → ENOENT → not_found
            raise Failure("invalid", "watch_start %s: not a directory; watch the directory that holds it" % path)
    except OSError as exc:
        raise agent.os_failure("watch_start", path, exc)
    if len(agent.watchers) >= WATCHERS_PER_SESSION:
        raise Failure("invalid", "watch_start %s: a session has at most %d watchers; stop one (watch_stop)"
                      % (path, WATCHERS_PER_SESSION))
    watcher_id = secrets.token_hex(8)
    agent.watchers[watcher_id] = DirectoryWatcher(agent, watcher_id, path, recursive, include_entry)
    agent.reply(request_id, watcher=watcher_id)


def op_watch_events(agent, request_id, request):
    watcher = watcher_of(agent, request)
    events, dropped = watcher.drain()
    agent.reply(request_id, events=events, dropped=dropped, ended=watcher.ended)


def op_watch_stop(agent, request_id, request):
    watcher = watcher_of(agent, request)
    del agent.watchers[watcher.id]
    watcher.close()
    agent.reply(request_id)


OPS = {
    "run_code": Agent.op_run_code,
    "create_context": Agent.op_create_context,
    "list_contexts": Agent.op_list_contexts,
    "restart_context": Agent.op_restart_context,
    "remove_context": Agent.op_remove_context,
    "interrupt": Agent.op_interrupt,
    "run_command": Agent.op_run_command,
    "command_wait": Agent.op_command_wait,
    "command_kill": Agent.op_command_kill,
    "command_send_stdin": Agent.op_command_send_stdin,
    "command_close_stdin": Agent.op_command_close_stdin,
    "command_list": Agent.op_command_list,
    "files_write": Agent.op_files_write,
    "files_read": Agent.op_files_read,
    "files_list": Agent.op_files_list,
    "files_exists": Agent.op_files_exists,
    "files_info": Agent.op_files_info,
    "files_remove": Agent.op_files_remove,
    "files_make_dir": Agent.op_files_make_dir,
    "files_rename": Agent.op_files_rename,
    "ping": Agent.op_ping,
    "watch_start": op_watch_start,
    "watch_events": op_watch_events,
    "watch_stop": op_watch_stop,
}


def main():
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(script) == ".e2beval-agent.py":
        try:
            os.unlink(script)  # the user's file listing shows nothing of the agent
        except OSError:
            pass
    # Kernels and commands inherit ignored signals and the signal mask across exec: whatever the agent was
    # started with, they start with default handling (SIGINT must interrupt a cell; Ctrl-C semantics hold).
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in (signal.SIGTERM, signal.SIGQUIT, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    home = os.environ.get("E2BEVAL_AGENT_HOME", "/home/user")
    try:
        os.chdir(home)
    except OSError as exc:
        sys.stderr.write("e2beval agent: cannot enter its home %s: %s\n" % (home, exc))
    try:
        Agent(home).serve()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
