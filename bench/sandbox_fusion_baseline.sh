#!/usr/bin/env bash
# Installs SandboxFusion's server (the baseline of bench/sandbox_fusion_bench.py) from a checkout of its
# repository into DEST, from PyPI only, with the exact pins of its poetry.lock, and makes it run with isolation
# `none` as an unprivileged user. Usage: sandbox_fusion_baseline.sh SANDBOXFUSION_CHECKOUT DEST
# Then: bench/sandbox_fusion_bench.py --sandbox-fusion DEST
set -euo pipefail
SRC=$(realpath "${1:?usage: $0 SANDBOXFUSION_CHECKOUT DEST}")
DEST=$(realpath -m "${2:?usage: $0 SANDBOXFUSION_CHECKOUT DEST}")
PY=${PYTHON:-/usr/bin/python3.11}
RUN_USER=${SF_USER:-sfbaseline}
[ -f "$SRC/poetry.lock" ] && [ -f "$SRC/sandbox/server/server.py" ] || { echo "$SRC is not a SandboxFusion checkout (no poetry.lock / sandbox/server/server.py)" >&2; exit 2; }
mkdir -p "$DEST"
# 1. Its source, copied (the checkout is left as it is).
rm -rf "$DEST/SandboxFusion"; cp -a "$SRC" "$DEST/SandboxFusion"
# 2. Workaround 1: server.py mounts StaticFiles('docs/build') at import; the docs are not built here.
mkdir -p "$DEST/SandboxFusion/docs/build"
# 3. A Python 3.11 venv with every package of poetry.lock at its exact version (lock-version 2.0 records no
#    groups, so main and dev alike: dev brings numpy, which HumanEval's IMPORT_HELPER imports). --no-deps: the
#    lock is the full set.
"$PY" -m venv "$DEST/venv"
"$DEST/venv/bin/python" - "$DEST/SandboxFusion/poetry.lock" > "$DEST/requirements.lock.txt" <<'PYEOF'
import sys, tomllib
for p in tomllib.load(open(sys.argv[1], 'rb'))['package']:
    print(f"{p['name']}=={p['version']}")
PYEOF
"$DEST/venv/bin/pip" install -q --disable-pip-version-check --no-deps -r "$DEST/requirements.lock.txt"
"$DEST/venv/bin/pip" check || true
# 4. Workaround 2: the python runner asks conda for the env `sandbox-runtime` (find_conda_root walks up from
#    sys.executable to a dir holding `condabin`, then `source <root>/bin/activate sandbox-runtime && which python`).
#    An empty condabin in the venv makes that the venv's own activate (which ignores its argument), so user code
#    runs with the venv's Python 3.11.
mkdir -p "$DEST/venv/condabin"
# 5. User code runs unisolated (isolation: none) as the server's user: make that an unprivileged system user.
if [ "$(id -u)" = 0 ]; then
  id -u "$RUN_USER" >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$RUN_USER"
  RUNAS="runuser -u $RUN_USER --"
  # the venv's interpreter is a link to $PY's: the user must reach it (a pyenv under /root does not qualify)
  real_py=$(readlink -f "$DEST/venv/bin/python")
  runuser -u "$RUN_USER" -- test -x "$real_py" || { echo "$RUN_USER cannot run $real_py: set PYTHON to an interpreter outside /root (e.g. /usr/bin/python3.11)" >&2; exit 2; }
else
  RUNAS=""
fi
chmod -R a+rX "$DEST"
# 6. The start script the bench calls: run.sh PORT (binds 127.0.0.1 only; config sandbox/configs/local.yaml,
#    which has isolation: none, cleanup_process: false).
cat > "$DEST/run.sh" <<RUNEOF
#!/usr/bin/env bash
set -e
cd "$DEST/SandboxFusion"
export SANDBOX_CONFIG=local HOME=/tmp
exec $RUNAS "$DEST/venv/bin/python" -m uvicorn sandbox.server.server:app --host 127.0.0.1 --port "\${1:?port}" --log-level warning
RUNEOF
chmod 755 "$DEST/run.sh"
echo "installed SandboxFusion's server in $DEST; start it with $DEST/run.sh PORT"
