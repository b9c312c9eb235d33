# One run_code request while it streams (CellRun): its output in order among its results, its results checked
# and capped, its clock (timeout, interrupt grace) and its outcome as the kernel reported it.
import json
import secrets
import time

from session_agent.limits import (ERROR_FIELD_CAP_BYTES, INTERRUPT_GRACE_SECONDS, JS_SIGINT_DELAY_SECONDS,
                                  NODE_LANGUAGES, OUTPUT_MODES, RESULT_DROPPED_MARKER, RESULT_FIELD_CAP_BYTES,
                                  RESULT_TEXT_FIELDS, RESULTS_BYTES_PER_CELL, RESULTS_PER_CELL, STREAMS)
from session_agent.output import (MARK_HOLD_CAP_BYTES, MARK_WAIT_SECONDS, OUTPUT_MARK, CellOutput, OutputStreams,
                                  now_iso, partial_mark_length)


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

    # The Python kernel puts a mark on its output pipes before each message (kernels/python_kernel.py's send): pipe bytes
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

    def settle(self):
        """Called by the event loop after every round: a finished cell sends its last events."""
        if self.finished:
            self.agent.contexts.settle_cell(self)

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
