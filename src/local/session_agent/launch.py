# Starts e2beval's session agent (the package session_agent/, docs/session-protocol.md) from AGENT_FILES:
# {path: text} of every file of the package and of the protocol's table (session_protocol.json), which the
# build writes in front of this file (CMakeLists.txt, "the session agent"). The host writes that one program
# into the sandbox and runs it with `python -I -B -u`, as it ran the agent when it was a single file: the
# modules are compiled from their texts when imported, so start-up reads, stats and compiles what the single
# file cost, and nothing else (no package directory to write into the workspace, no zip to decompress).
# Standard library only, Python 3.9+; this file is never imported, only run.
import sys
from importlib.machinery import ModuleSpec

PACKAGE = "session_agent"


class AgentModules:
    """The import system's finder and loader of the agent's modules, out of AGENT_FILES. It also gives their
    source to tracebacks (get_source), and the kernels' texts to session_agent.kernels (`files`)."""

    def __init__(self, files):
        self.files = files

    def locate(self, name):
        """(path in `files`, whether it is a package) of module `name`, or None when it is not the agent's."""
        parts = name.split(".")
        if parts[0] != PACKAGE:
            return None
        stem = "/".join(parts)
        for path, is_package in ((stem + "/__init__.py", True), (stem + ".py", False)):
            if path in self.files:
                return path, is_package
        return None

    def find_spec(self, name, path=None, target=None):
        found = self.locate(name)
        if found is None:
            return None
        spec = ModuleSpec(name, self, origin=found[0], is_package=found[1])
        if found[1]:
            spec.submodule_search_locations = []  # a package, whose submodules this finder finds
        return spec

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module):
        path = self.locate(module.__name__)[0]
        module.__file__ = path
        exec(compile(self.files[path], path, "exec", dont_inherit=True), module.__dict__)

    def get_source(self, name):
        found = self.locate(name)
        return None if found is None else self.files[found[0]]


if __name__ == "__main__":
    sys.meta_path.insert(0, AgentModules(AGENT_FILES))  # noqa: F821 (written in front of this file by the build)
    from session_agent.main import main

    sys.exit(main())
