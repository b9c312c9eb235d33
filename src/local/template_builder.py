# Builds one template (docs/templates.md) on the host: a virtualenv made with the chosen Python, pip-installed
# from a requirements file, plus copied files and manifest.json. Trusted host code, never run in a sandbox.
#
# Run by src/local/templates.cpp as `PYTHON -I -c SOURCE CONFIG_JSON`; pip's own output is the build log and
# progress display. The template is built in a hidden sibling directory and renamed into place at the end, so
# a failed or interrupted build leaves nothing; a lock file per name keeps two builds of one name apart.
import datetime, fcntl, hashlib, json, os, re, shutil, subprocess, sys, time, uuid

IN_USE = ".in-use"  # sandboxes using a template hold a shared flock on it; removal waits for none (sweep)


def say(message):
    sys.stderr.write("[template] " + message + "\n")
    sys.stderr.flush()


def sweep_removed(templates):
    # Templates removed (or replaced) while sandboxes still used them wait under .removed/ until nobody holds
    # their in-use lock; whoever builds, lists or removes next deletes them.
    removed = os.path.join(templates, ".removed")
    if not os.path.isdir(removed):
        return
    for entry in os.listdir(removed):
        path = os.path.join(removed, entry)
        try:
            fd = os.open(os.path.join(path, IN_USE), os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            shutil.rmtree(path, ignore_errors=True)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # a running sandbox still uses it
        shutil.rmtree(path, ignore_errors=True)
        os.close(fd)


def sweep_unfinished(templates, name):
    # A build that was killed (SIGKILL, a power cut) never reached its clean-up and left its half-built tree,
    # often gigabytes, as .building-NAME-PID. Called with the name's lock held: no other build of the name runs,
    # so every such tree is left over.
    unfinished = re.compile(r"\.building-%s-\d+$" % re.escape(name))
    for entry in os.listdir(templates):
        if unfinished.match(entry):
            say("removing %s, left by a build of %s that did not finish" % (entry, name))
            shutil.rmtree(os.path.join(templates, entry), ignore_errors=True)


def requirements_hash(requirements_text, python_version, base_python, files):
    digest = hashlib.sha256()
    for part in (requirements_text, python_version, base_python):
        digest.update(part.encode() + b"\0")
    for source, destination in files:
        digest.update(destination.encode() + b"\0")
        with open(source, "rb") as stream:
            digest.update(hashlib.sha256(stream.read()).digest())
    return digest.hexdigest()


def directory_size(path):
    total = 0
    for root, dirs, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


def relocate_scripts(venv, built_at, final_venv):
    # Console scripts and activate files name the venv's path; the venv is built under another name.
    bin_dir = os.path.join(venv, "bin")
    for name in os.listdir(bin_dir):
        path = os.path.join(bin_dir, name)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as stream:
            data = stream.read()
        if built_at.encode() in data:
            with open(path, "wb") as stream:
                stream.write(data.replace(built_at.encode(), final_venv.encode()))


def main():
    config = json.loads(sys.argv[1])
    name, templates = config["name"], config["templates_dir"]
    python = config["python"]
    files = [tuple(pair) for pair in config["files"]]
    os.makedirs(templates, exist_ok=True)
    final = os.path.join(templates, name)

    lock_fd = os.open(os.path.join(templates, "." + name + ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        say("another build of %s is running; waiting for it" % name)
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
    sweep_removed(templates)
    sweep_unfinished(templates, name)

    with open(config["requirements"], "r", encoding="utf-8") as stream:
        requirements_text = stream.read()
    probe = subprocess.run([python, "-I", "-c", "import sys, os; print('%d.%d.%d' % sys.version_info[:3]);"
                            " print(os.path.realpath(getattr(sys, '_base_executable', sys.executable)))"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        say("%s does not run: %s" % (python, probe.stderr.strip()))
        return 3
    python_version, base_python = probe.stdout.split("\n")[:2]
    wanted_hash = requirements_hash(requirements_text, python_version, base_python, files)

    manifest_path = os.path.join(final, "manifest.json")
    if os.path.isfile(manifest_path) and not config.get("force"):
        with open(manifest_path, encoding="utf-8") as stream:
            existing = json.load(stream)
        if existing.get("requirements_hash") == wanted_hash:
            say("already built %s (same requirements, Python and files: hash %s); reusing it" % (name, wanted_hash[:12]))
            return 0

    started = time.monotonic()
    building = os.path.join(templates, ".building-%s-%d" % (name, os.getpid()))
    shutil.rmtree(building, ignore_errors=True)
    try:
        venv = os.path.join(building, "venv")
        say("creating the virtualenv of %s with Python %s (%s)" % (name, python_version, base_python))
        subprocess.run([python, "-I", "-m", "venv", venv], check=True)
        venv_python = os.path.join(venv, "bin", "python")
        say("installing the requirements of %s (pip's log follows)" % name)
        pip = subprocess.run([venv_python, "-I", "-m", "pip", "install", "--disable-pip-version-check",
                              "--no-input", "--progress-bar", "off", "-r", config["requirements"]],
                             stdout=sys.stderr)
        if pip.returncode != 0:
            say("pip could not install the requirements of %s (exit status %d, its error is above); "
                "nothing was kept" % (name, pip.returncode))
            return 1
        for source, destination in files:
            target = os.path.join(building, "files", destination)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target)
        listing = subprocess.run(
            [venv_python, "-I", "-c",
             "import importlib.metadata as m, json\n"
             "print(json.dumps(sorted({d.metadata['Name']: d.version for d in m.distributions()}.items())))"],
            check=True, capture_output=True, text=True)
        relocate_scripts(venv, venv, os.path.join(final, "venv"))
        open(os.path.join(building, IN_USE), "w").close()
        manifest = {
            "name": name,
            "python_version": python_version,
            "base_python": base_python,
            "requirements_hash": wanted_hash,
            "requirements": requirements_text,
            "packages": dict(json.loads(listing.stdout)),
            "files": [destination for _, destination in files],
            "build_id": uuid.uuid4().hex,
            "built_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "build_seconds": round(time.monotonic() - started, 1),
        }
        manifest["size_bytes"] = directory_size(building)
        with open(os.path.join(building, "manifest.json"), "w", encoding="utf-8") as stream:
            json.dump(manifest, stream, indent=2)
        # Into place: an older build of the name goes to .removed/ (sandboxes using it keep working).
        if os.path.exists(final):
            removed = os.path.join(templates, ".removed")
            os.makedirs(removed, exist_ok=True)
            os.rename(final, os.path.join(removed, "%s-%s" % (name, uuid.uuid4().hex[:8])))
        os.rename(building, final)
        sweep_removed(templates)
        say("built %s in %.1f s: %d packages, %.1f MiB" % (name, manifest["build_seconds"], len(manifest["packages"]),
                                                           manifest["size_bytes"] / 1048576))
        return 0
    except subprocess.CalledProcessError as failure:
        say("building %s failed: %s; nothing was kept" % (name, failure))
        return 1
    except KeyboardInterrupt:
        say("building %s was interrupted; nothing was kept" % name)
        return 130
    finally:
        shutil.rmtree(building, ignore_errors=True)


sys.exit(main())
