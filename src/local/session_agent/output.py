# What the agent writes: its events on stdout (write_all), and the output of cells and commands turned into
# text events (OutputStreams: decoding and caps; CellOutput: chunking as E2B's kernels chunk; the marks that keep
# a Python cell's output in its place among its results).
import codecs
import datetime
import os
import re
import select
import time

from session_agent.limits import OUTPUT_CAP_BYTES, OUTPUT_FLUSH_SECONDS, STREAMS, TRUNCATION_MARKER
from session_agent.protocol import HostGone

# Where a Python kernel's message sits in its output (kernels/python_kernel.py's send, CellRun.on_pipe).
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
