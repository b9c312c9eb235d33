# Files (files_write, files_read, files_list, files_exists, files_info, files_remove, files_make_dir,
# files_rename), with envd's semantics: a write is whole or not at all, a missing path is not_found, and what a
# change does is what a watcher of envd would see (STAGED_WRITE_EVENTS, ensure_directories).
import base64
import errno
import functools
import grp
import os
import pwd
import secrets
import shutil
import stat

from session_agent.output import iso_from_timestamp
from session_agent.protocol import Failure, field, kind, op, path_field

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


# The hint about writable places belongs to a refused change, not to a refused read.
WRITING_OPS = frozenset({op.files_write, op.files_remove, op.files_make_dir, op.files_rename})


def os_failure(request_op, path, exc, home):
    code = exc.errno
    name = errno.errorcode.get(code, str(code))
    message = "%s %s: %s (%s)" % (request_op, path, exc.strerror or exc, name)
    if code == errno.ENOENT:
        return Failure(kind.not_found, "%s %s: no such file or directory" % (request_op, path))
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) and request_op in WRITING_OPS:
        return Failure(kind.io, message + "; only %s, /tmp and /dev/shm are writable" % home)
    if code in (errno.EISDIR, errno.ENOTDIR, errno.ENOTEMPTY, errno.EEXIST, errno.EINVAL, errno.ENAMETOOLONG,
                errno.ELOOP):
        return Failure(kind.invalid, message)
    return Failure(kind.io, message)


@functools.lru_cache(maxsize=512)
def account_name(lookup, number):
    """The name of user or group `number` (lookup: pwd.getpwuid or grp.getgrgid), or the number as text."""
    try:
        return lookup(number)[0]
    except (KeyError, OSError):
        return str(number)


def entry_info(path):
    st = os.lstat(path)
    kind_of_entry = "symlink" if stat.S_ISLNK(st.st_mode) else "dir" if stat.S_ISDIR(st.st_mode) else "file"
    info = {"name": os.path.basename(path) or "/", "type": kind_of_entry, "path": path, "size": st.st_size,
            "mode": stat.S_IMODE(st.st_mode), "permissions": stat.filemode(st.st_mode),
            "owner": account_name(pwd.getpwuid, st.st_uid), "group": account_name(grp.getgrgid, st.st_gid),
            "modified_time": iso_from_timestamp(st.st_mtime)}
    if kind_of_entry == "symlink":
        info["symlink_target"] = os.readlink(path)
    return info


class Files:
    """The file requests of the session, relative to its home."""

    def __init__(self, agent):
        self.agent = agent

    def handlers(self):
        return {op.files_write: self.files_write, op.files_read: self.files_read, op.files_list: self.files_list,
                op.files_exists: self.files_exists, op.files_info: self.files_info,
                op.files_remove: self.files_remove, op.files_make_dir: self.files_make_dir,
                op.files_rename: self.files_rename}

    def os_failure(self, request_op, path, exc):
        return os_failure(request_op, path, exc, self.agent.home)

    def files_write(self, request_id, request):
        path = path_field(request, self.agent.home)
        encoded = field(request, "data", str, "base64 text", required=True)
        try:
            data = base64.b64decode(encoded, validate=True)
        except ValueError as exc:
            raise Failure(kind.invalid, "\"data\" of files_write is not valid base64 (%s)" % exc)
        # Written whole or not at all: into a new file beside the target, renamed over it once complete, so a
        # write refused half-way (the file size limit, a full workspace) leaves the old file, or none.
        target = os.path.realpath(path) if os.path.islink(path) else path  # a link is written through
        try:
            parent = os.path.dirname(target)
            if not os.path.isdir(parent):
                self.ensure_directories(parent, op.files_write, path)
            try:
                existing = os.stat(target)
            except FileNotFoundError:
                existing = None
            if existing is not None and not stat.S_ISREG(existing.st_mode):
                raise Failure(kind.invalid, "files_write %s: not a regular file" % path)
            staging = os.path.join(parent, staging_name(existing is not None, bool(data)))
            fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            raise Failure(kind.invalid, "files_write %s: a parent of it is a file, not a directory" % path)
        except OSError as exc:
            if exc.errno == errno.ENOENT and os.path.isdir(parent):  # a directory that takes no new files: /proc
                raise Failure(kind.io, "files_write %s: no file can be created in %s; only %s, /tmp and /dev/shm are "
                              "writable" % (path, parent, self.agent.home))
            raise self.os_failure(op.files_write, path, exc)
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
            raise self.os_failure(op.files_write, path, exc)
        self.agent.reply(request_id, entry=entry_info(path))

    def files_read(self, request_id, request):
        path = path_field(request, self.agent.home)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise self.os_failure(op.files_read, path, exc)
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                raise Failure(kind.invalid, "files_read %s: it is a directory; use files_list" % path)
            if not stat.S_ISREG(mode):  # /dev/zero or a FIFO would never end
                raise Failure(kind.invalid, "files_read %s: not a regular file" % path)
            os.set_blocking(fd, True)
            chunks = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError as exc:
            raise self.os_failure(op.files_read, path, exc)
        finally:
            os.close(fd)
        self.agent.reply(request_id, data=base64.b64encode(b"".join(chunks)).decode("ascii"))

    def files_list(self, request_id, request):
        path = path_field(request, self.agent.home)
        depth = field(request, "depth", int, "a whole number of levels", default=1)
        if depth < 1:
            raise Failure(kind.invalid, "\"depth\" of files_list must be 1 or more")
        try:
            if not os.path.isdir(path):
                os.stat(path)  # not found → ENOENT
                raise Failure(kind.invalid, "files_list %s: not a directory; use files_info" % path)
        except OSError as exc:
            raise self.os_failure(op.files_list, path, exc)
        entries = []

        def walk(directory, level, required):
            try:
                with os.scandir(directory) as found:
                    names = sorted(entry.name for entry in found)
            except OSError as exc:
                if required:
                    raise self.os_failure(op.files_list, directory, exc)
                return  # an unreadable subdirectory: list what can be listed
            for name in names:
                full = os.path.join(directory, name)
                try:
                    info = entry_info(full)
                except OSError:
                    continue  # removed meanwhile
                entries.append(info)
                if level < depth and info["type"] == "dir":
                    walk(full, level + 1, False)

        walk(path, 1, True)
        self.agent.reply(request_id, entries=entries)

    def files_exists(self, request_id, request):
        path = path_field(request, self.agent.home)
        try:
            os.lstat(path)
            exists = True
        except (FileNotFoundError, NotADirectoryError):
            exists = False
        except OSError as exc:
            raise self.os_failure(op.files_exists, path, exc)
        self.agent.reply(request_id, exists=exists)

    def files_info(self, request_id, request):
        path = path_field(request, self.agent.home)
        try:
            entry = entry_info(path)
            if entry["type"] == "symlink" and os.path.exists(path):
                # As envd's Stat: a link is described by what it leads to (a link to a file is a file, to a
                # directory a directory, so watch_dir and the like take it), and symlink_target is the absolute
                # path it resolves to. A dangling link stays a symlink with its text.
                target = os.path.realpath(path)
                followed = entry_info(target)
                entry.update(type=followed["type"], size=followed["size"], mode=followed["mode"],
                             permissions=followed["permissions"], symlink_target=target)
            self.agent.reply(request_id, entry=entry)
        except OSError as exc:
            raise self.os_failure(op.files_info, path, exc)

    def files_remove(self, request_id, request):
        """As envd's Remove (os.RemoveAll): a path that does not exist is already removed, not an error."""
        path = path_field(request, self.agent.home)
        try:
            if stat.S_ISDIR(os.lstat(path).st_mode):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise self.os_failure(op.files_remove, path, exc)
        self.agent.reply(request_id)

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
            raise Failure(kind.invalid, "%s %s: %s, a parent of it, is not a directory" % (op, path, directory))
        for level in reversed(missing):
            try:
                os.mkdir(level, 0o755)
            except FileExistsError:
                if os.path.isdir(level):
                    continue  # made meanwhile by a command: not ours to chown
                raise
            self.agent.watches.catch_up()
            os.chown(level, os.getuid(), os.getgid(), follow_symlinks=False)

    def files_make_dir(self, request_id, request):
        path = path_field(request, self.agent.home)
        try:
            if os.path.isdir(path):
                self.agent.reply(request_id, created=False)
                return
            if os.path.lexists(path):
                raise Failure(kind.invalid, "files_make_dir %s: it exists and is not a directory" % path)
            self.ensure_directories(path, op.files_make_dir, path)
        except FileExistsError:
            raise Failure(kind.invalid, "files_make_dir %s: a parent of it is a file, not a directory" % path)
        except OSError as exc:
            raise self.os_failure(op.files_make_dir, path, exc)
        self.agent.reply(request_id, created=True)

    def files_rename(self, request_id, request):
        old = path_field(request, self.agent.home, "old_path")
        new = path_field(request, self.agent.home, "new_path")
        try:
            os.lstat(old)
        except OSError as exc:
            raise self.os_failure(op.files_rename, old, exc)
        try:
            self.ensure_directories(os.path.dirname(new), op.files_rename, new)
            try:
                os.rename(old, new)
            except OSError as exc:
                if exc.errno != errno.EXDEV or os.path.lexists(new):
                    raise
                shutil.move(old, new)  # between mounts (/home/user, /tmp, /dev/shm): copy, then remove
        except FileExistsError:
            raise Failure(kind.invalid, "files_rename %s: a parent of it is a file, not a directory" % new)
        except OSError as exc:
            raise self.os_failure(op.files_rename, "%s -> %s" % (old, new), exc)
        self.agent.reply(request_id, entry=entry_info(new))
