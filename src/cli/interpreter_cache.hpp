// What the CLI learned about a Python interpreter, kept on disk so the next command (a new process) does not
// start the interpreter again to ask where it lives — through a pyenv shim that is about 14 processes.
//
// The cache decides which host paths are bound read-only into sandboxes, so an entry is used only when
// everything that decided its answer is unchanged (docs/cli.md, "The interpreter cache"), and the file is used
// only when it is this user's own and nobody else can write it. Any doubt — a missing, corrupt, foreign or
// unreadable cache, an interpreter whose resolution cannot be checked — means discovering as before, silently.
#pragma once

#include <filesystem>
#include <string>

#include "e2beval/local/local_sandbox.hpp"

namespace e2beval::cli {

// The interpreter at `located` (an absolute path, after the PATH lookup) as discover_python reports it: from
// the cache when the entry is still valid, else discovered (and remembered when its resolution can be
// validated later). Throws what discover_python throws. E2BEVAL_NO_CACHE=1 turns the cache off.
InterpreterInfo cached_python_discovery(const std::filesystem::path& located);

}  // namespace e2beval::cli
