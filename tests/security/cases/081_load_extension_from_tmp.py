# expect-outcome: ok
# expect-stdout: ^(ALLOWED-INSIDE|BLOCKED)
# forbid-stdout: LEAKED
# why: copies a compiled extension (.so) from the interpreter's lib-dynload into the workspace and imports it (arbitrary native code). Decision: /tmp is NOT mounted noexec today, so native code from the workspace loads (ALLOWED-INSIDE); that is acceptable because native code runs under the same namespaces, rlimits, no capabilities and seccomp as Python itself. BLOCKED is also accepted should /tmp become noexec.
import glob, importlib.util, os, shutil, sys
candidates = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "lib-dynload", "_bisect*.so")))
if not candidates:
    print("BLOCKED no extension module found to copy")
    raise SystemExit(0)
src = candidates[0]
dst = "/tmp/" + os.path.basename(src)
shutil.copy(src, dst)
spec = importlib.util.spec_from_file_location("_bisect", dst)
try:
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
except ImportError as e:
    print(f"BLOCKED loading a .so from /tmp failed: {e}")
else:
    print(f"ALLOWED-INSIDE loaded {dst}: {module.bisect_left([1, 2, 3], 2)}")
