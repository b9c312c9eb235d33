# Directory watchers (watch_start, watch_events, watch_stop): inotify through ctypes on libc, one inotify
# instance per watcher, read by the agent's selector as events come (so the kernel's queue never overflows while
# nobody asks) and buffered here until the host drains them. The agent itself runs without seccomp, so it may
# call inotify_*; its children, whose filter is stricter, never do. E2B's envd watcher is what they imitate
# (server/envd_watch.cpp serves them to the SDKs; e2beval's Python Sandbox.files.watch_dir to Python).
import ctypes
import errno
import os
import secrets
import selectors
import sys

from session_agent.files import STAGED_WRITE_EVENTS, STAGING_PREFIX, entry_info, os_failure
from session_agent.protocol import Failure, field, kind, op, path_field

IN_MODIFY, IN_ATTRIB, IN_MOVED_FROM, IN_MOVED_TO = 0x2, 0x4, 0x40, 0x80
IN_CREATE, IN_DELETE, IN_DELETE_SELF, IN_MOVE_SELF = 0x100, 0x200, 0x400, 0x800
IN_Q_OVERFLOW, IN_IGNORED, IN_ONLYDIR, IN_DONT_FOLLOW, IN_ISDIR = 0x4000, 0x8000, 0x01000000, 0x02000000, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
WATCH_MASK = (IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF
              | IN_MOVE_SELF | IN_ONLYDIR)
WATCH_EVENT_CAP = 10000  # buffered per watcher; past it new events are dropped and counted (watch_events says so)
WATCHERS_PER_SESSION = 64


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
            raise Failure(kind.io, "watch_start %s: inotify_init1 failed: %s (%s); stop a watcher you no longer need"
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
                    raise Failure(kind.io, "watch_start %s: the host's limit of inotify watches is reached "
                                  "(fs.inotify.max_user_watches); watch fewer directories" % directory)
                raise os_failure(op.watch_start, directory, error, self.agent.home)
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

    def push(self, name, event_type):
        if len(self.events) >= WATCH_EVENT_CAP:
            self.dropped += 1
            return
        event = {"name": name or ".", "type": event_type}
        if self.include_entry:
            try:  # best effort, as envd's: the entry as it is when the event is read, if it still exists
                event["entry"] = entry_info(os.path.join(self.root, name) if name else self.root)
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
            for event_type in self.staged.pop(cookie):  # files_write renamed its staging file over the target
                self.push(path, event_type)
            return
        event_type = ("create" if flags & (IN_CREATE | IN_MOVED_TO) else "write" if flags & IN_MODIFY
                      else "remove" if flags & IN_DELETE else "rename" if flags & IN_MOVED_FROM
                      else "chmod" if flags & IN_ATTRIB else None)
        if event_type is None:
            return
        self.push(path, event_type)
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


class Watches:
    """The session's directory watchers, by id."""

    def __init__(self, agent):
        self.agent = agent
        self.by_id = {}

    def handlers(self):
        return {op.watch_start: self.watch_start, op.watch_events: self.watch_events, op.watch_stop: self.watch_stop}

    def catch_up(self):
        """Reads what every watcher's inotify holds now (a change the agent makes itself is seen in order)."""
        for watcher in self.by_id.values():
            watcher.on_readable(selectors.EVENT_READ)

    def close_all(self):
        for watcher in self.by_id.values():
            watcher.close()
        self.by_id.clear()

    def watcher_of(self, request):
        watcher_id = field(request, "watcher", str, "a watcher id", required=True)
        watcher = self.by_id.get(watcher_id)
        if watcher is None:
            raise Failure(kind.not_found, "watcher %s not found: it was stopped, or never started (watch_start)"
                          % watcher_id)
        return watcher

    def watch_start(self, request_id, request):
        path = path_field(request, self.agent.home)
        recursive = field(request, "recursive", bool, "true or false", default=False)
        include_entry = field(request, "include_entry", bool, "true or false", default=False)
        try:
            if not os.path.isdir(path):
                os.stat(path)  # missing → ENOENT → not_found
                raise Failure(kind.invalid, "watch_start %s: not a directory; watch the directory that holds it"
                              % path)
        except OSError as exc:
            raise os_failure(op.watch_start, path, exc, self.agent.home)
        if len(self.by_id) >= WATCHERS_PER_SESSION:
            raise Failure(kind.invalid, "watch_start %s: a session has at most %d watchers; stop one (watch_stop)"
                          % (path, WATCHERS_PER_SESSION))
        watcher_id = secrets.token_hex(8)
        self.by_id[watcher_id] = DirectoryWatcher(self.agent, watcher_id, path, recursive, include_entry)
        self.agent.reply(request_id, watcher=watcher_id)

    def watch_events(self, request_id, request):
        watcher = self.watcher_of(request)
        events, dropped = watcher.drain()
        self.agent.reply(request_id, events=events, dropped=dropped, ended=watcher.ended)

    def watch_stop(self, request_id, request):
        watcher = self.watcher_of(request)
        del self.by_id[watcher.id]
        watcher.close()
        self.agent.reply(request_id)
