# The session protocol as the agent sees it: the names of its table (session_protocol.json, bundled beside the
# package), the failures a request ends in, and the checks of a request's fields. A handler reads only the fields
# the table lists for its request (field() refuses any other: a name typed here that the table lacks is a bug of
# the agent, said at once, not a field the host never sends).
import json
import os
from types import SimpleNamespace

TABLE = json.loads(__spec__.loader.files["session_protocol.json"])
REQUESTS = TABLE["requests"]
FAILURE_KINDS = tuple(TABLE["failure_kinds"])
op = SimpleNamespace(**{name: name for name in REQUESTS})  # op.files_write is the name files_write
kind = SimpleNamespace(**{name: name for name in FAILURE_KINDS})  # kind.not_found is the kind not_found


class Failure(Exception):
    """A request that cannot be carried out; becomes a `failure` event."""

    def __init__(self, failure_kind, message):
        super().__init__(message)
        if failure_kind not in FAILURE_KINDS:
            raise ValueError("%r is no failure kind of session_protocol.json" % (failure_kind,))
        self.kind, self.message = failure_kind, message


class HostGone(Exception):
    """stdin reached EOF or stdout is broken: the session is over."""


def field(request, name, kinds, what, required=False, default=None):
    if name not in REQUESTS[request["op"]]["fields"]:
        raise AssertionError("the agent read %r of %s, which session_protocol.json does not list" % (name, request["op"]))
    value = request.get(name)
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if value is None:
        if required:
            raise Failure(kind.invalid, "%s needs \"%s\" (%s)" % (request["op"], name, what))
        return default
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise Failure(kind.invalid, "\"%s\" of %s must be %s, not %s" % (name, request["op"], what,
                                                                         type(value).__name__))
    return value


def timeout_field(request, name="timeout", default=None):
    value = field(request, name, (int, float), "a number of seconds or null", default=default)
    if value is not None and (value != value or value < 0 or value == float("inf")):
        raise Failure(kind.invalid, "\"%s\" of %s must be a non-negative number of seconds" % (name, request["op"]))
    return value


def envs_field(request):
    envs = field(request, "envs", dict, "an object of strings")
    if envs is not None:
        for key, value in envs.items():
            if not isinstance(value, str) or not key or "=" in key or "\0" in key or "\0" in value:
                raise Failure(kind.invalid, "\"envs\" of %s must map names (no '=' or NUL) to strings; %r is not"
                              % (request["op"], key))
    return envs


def path_field(request, home, name="path"):
    raw = field(request, name, str, "a path", required=True)
    if not raw or "\0" in raw:
        raise Failure(kind.invalid, "\"%s\" of %s must be a non-empty path without NUL bytes" % (name, request["op"]))
    path = os.path.normpath(os.path.join(home, raw))  # join keeps an absolute `raw` as it is
    return "/" + path.lstrip("/")


def directory_field(request, home, name="cwd"):
    raw = field(request, name, str, "a directory path")
    if raw is None:
        return home
    path = os.path.normpath(os.path.join(home, raw))
    if not os.path.isdir(path):
        raise Failure(kind.invalid, "\"%s\" %s is not an existing directory; create it first (files_make_dir)"
                      % (name, path))
    return path
