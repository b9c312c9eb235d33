"""The library's layers (docs/architecture.md): every #include in a layer names only that layer or one below it."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

INTERFACE = "interface"
# layer -> the layers it may include (itself always)
ALLOWED = {
    "core": set(),
    "analysis": {"core"},
    INTERFACE: {"core"},
    "local": {"core", INTERFACE},
    "e2b": {"core", INTERFACE},
    "eval": {"core", "analysis", INTERFACE},
    "report": {"core", "analysis", "eval"},
    "swe": {"core", INTERFACE},
}
INTERFACE_HEADERS = {"e2beval/sandbox.hpp", "e2beval/session.hpp"}


def layer_of_include(name: str):
    """The layer an #include "name" belongs to, or None for generated and third-party headers."""
    if name in INTERFACE_HEADERS:
        return INTERFACE
    parts = name.split("/")
    if parts[0] == "e2beval" and len(parts) > 2:
        return parts[1]
    if parts[0] in ALLOWED and len(parts) > 1:
        return parts[0]
    return None


def layer_of_file(path: Path):
    relative = path.relative_to(REPO).as_posix()
    if relative in ("src/session.cpp", "src/sandbox.cpp") or relative in {f"include/{h}" for h in INTERFACE_HEADERS}:
        return INTERFACE
    for layer in ALLOWED:
        if relative.startswith((f"src/{layer}/", f"include/e2beval/{layer}/")):
            return layer
    return None


def test_every_layer_includes_only_the_layers_below_it():
    checked, broken = 0, []
    for path in sorted([*REPO.glob("src/**/*.[ch]pp"), *REPO.glob("include/**/*.hpp")]):
        layer = layer_of_file(path)
        if layer is None:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not match:
                continue
            included = layer_of_include(match.group(1))
            checked += 1
            if included is not None and included != layer and included not in ALLOWED[layer]:
                broken.append(f"{path.relative_to(REPO)}:{number}: {layer} includes {match.group(1)} ({included})")
    assert checked > 100, f"only {checked} includes found: is the layout as docs/architecture.md says?"
    assert not broken, "layer rules broken (docs/architecture.md):\n" + "\n".join(broken)


def test_the_layout_matches_the_architecture_document():
    document = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    for layer in ("core", "analysis", "eval", "report", "local", "swe", "e2b"):
        assert (REPO / "src" / layer).is_dir(), f"src/{layer} is missing"
        assert f"`src/{layer}/`" in document, f"docs/architecture.md does not describe src/{layer}/"
    flat = sorted(p.name for p in (REPO / "src").glob("*.cpp"))
    assert flat == ["make_sandbox.cpp", "sandbox.cpp", "session.cpp"], f"sources outside the layers: {flat}"


def test_the_python_package_keeps_no_interpreter_discovery_and_no_option_lists():
    """The binding asks the interpreter where it lives with the core's own discovery script, and the option
    keys come from the core: the Python package repeats neither (issue: options were validated three times)."""
    sources = {path.name: path.read_text(encoding="utf-8") for path in (REPO / "python" / "e2beval").glob("*.py")}
    for name, text in sources.items():
        assert "base_prefix" not in text, f"python/e2beval/{name} discovers the interpreter itself"
        assert not re.search(r'^\s*"(max_processes|minimum_level)",\s*$', text, re.M), f"python/e2beval/{name} lists option keys"
    import e2beval

    assert {"limits", "isolation", "timeout", "compare"} <= set(e2beval._ASSERTION_CONFIG_KEYS)


def _string_collections(tree):
    """(line, strings) of every tuple, list, set or frozenset literal and every dict's keys in a module."""
    import ast

    for node in ast.walk(tree):
        items = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else None
        if items is None:
            continue
        strings = {item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)}
        if strings:
            yield node.lineno, strings


def test_promptfoo_keeps_no_list_of_config_keys_and_checks_no_key_itself():
    """An assertion's or provider's `config:` is checked once, in C++ (eval/assertion_options.hpp): a tuple of its
    keys (CONFIG_KEYS, the provider keys promptfoo owns, the compare settings) or a per-key check table in the
    Python package is a second copy that drifts (issue 12: options were validated three times)."""
    import ast

    import e2beval

    config_keys = set(e2beval._ASSERTION_CONFIG_KEYS)
    owned_elsewhere = {"basePath", "pythonExecutable", "workers"}  # promptfoo's own provider keys
    compare_settings = {"tolerance", "relative_tolerance", "pattern"}
    found = []
    source = (REPO / "python" / "e2beval" / "promptfoo.py").read_text(encoding="utf-8")
    for line, strings in _string_collections(ast.parse(source)):
        if len(strings & config_keys) >= 2 or strings & owned_elsewhere or len(strings & compare_settings) >= 2:
            found.append(f"python/e2beval/promptfoo.py:{line}: {sorted(strings)}")
    for name in ("read_config", "_check_", "CONFIG_KEYS", "PROMPTFOO_PROVIDER_KEYS"):
        if re.search(rf"^\s*(def\s+{name}|{name}\w*\s*=)", source, re.M):
            found.append(f"python/e2beval/promptfoo.py defines {name}")
    assert not found, "the Python package lists or checks config keys itself:\n" + "\n".join(found)


# What isolating a program is made of, as Python would have to spell it to do it itself: syscall numbers
# and raw syscalls, the ChildReport layout, mount flags and tmpfs options, namespace and prctl constants.
ISOLATION_DEFINITIONS = re.compile(
    r"\bSYS_\w+\s*=|libc\.syscall|\.syscall\(|struct\.(Struct|pack|unpack)|\b(MS|CLONE|PR|CAP|SECCOMP)_[A-Z_]+\s*[,=]"
    r"|nr_inodes|\bsize=%|\bmode=0\d|resource\.setrlimit|libc\.(mount|unshare|setns|prctl)"
)


def test_the_isolation_steps_are_written_once_in_cpp():
    """The warm path's child runs the cold path's compiled steps (src/local/warm_steps.cpp): no Python that
    runs in or drives a sandbox defines a syscall number, the ChildReport layout or a mount option."""
    python_sources = [*(REPO / "src").rglob("*.py"), *(REPO / "python" / "e2beval").glob("*.py")]
    assert any(path.name == "python_zygote.py" for path in python_sources)
    for path in python_sources:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            assert not ISOLATION_DEFINITIONS.search(code), f"{path.relative_to(REPO)}:{number} defines an isolation step: {line.strip()}"


def test_request_names_of_the_session_protocol_are_typed_only_in_its_table():
    """The table (src/local/session_protocol.json) is the one source of request names: C++ uses the generated
    session_op:: constants, the agent and python/e2beval read the table. A name in quotes elsewhere is a second
    source. Comments may name requests; tables of signal names (SIGINT's "interrupt") are no requests."""
    import json

    table = REPO / "src" / "local" / "session_protocol.json"
    names = json.loads(table.read_text(encoding="utf-8"))["requests"]
    quoted = re.compile(r"""(["'])(%s)\1""" % "|".join(names))
    sources = [*REPO.glob("src/**/*.[ch]pp"), *REPO.glob("include/**/*.hpp"), *REPO.glob("src/**/*.py"),
               *REPO.glob("src/**/*.js"), *REPO.glob("src/**/*.sh"), *REPO.glob("python/e2beval/*.py")]
    typed = []
    for path in sorted(sources):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.strip()
            if code.startswith(("//", "#")) or "SIG" in code or '"hangup"' in code:
                continue  # a comment, or a table of signal names
            if quoted.search(code):
                typed.append(f"{path.relative_to(REPO)}:{number}: {code}")
    assert len(sources) > 100
    assert not typed, "request names typed outside src/local/session_protocol.json:\n" + "\n".join(typed)
