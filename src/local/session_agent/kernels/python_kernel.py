# The Python kernel of one code context, run as `python -I -B -X utf8 -c python_kernel.py <in fd> <out fd> <ipython|plain>`.
# Cells arrive as JSON lines on the control pipe and run in one persistent namespace; results, display() output
# and the cell's outcome go back as JSON lines. The cell's own output uses the real fds 1 and 2.
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
        tb = without_kernel_frames(tb)
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
