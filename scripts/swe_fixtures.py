#!/usr/bin/env python3
"""Builds the SWE fixtures (docs/swe.md): real projects from PyPI source distributions turned into git
repositories, each with a deliberate bug, plus SWE-bench-format instances and predictions.

For each project of tests/swe/fixtures/projects.json: download its sdist (pinned version and sha256; cached
under build/swe-fixtures/cache, so re-runs need no network), unpack it, commit it as it is, commit the
recorded bug (bug.patch) — that commit is the instance's base_commit — and write:

  build/swe-fixtures/instances.jsonl     one instance per project (repo: a checkout or a git bundle)
  build/swe-fixtures/predictions.jsonl   every recorded prediction, model_name_or_path = its kind
  build/swe-fixtures/expected.json       instance_id -> kind -> the verdict it must get

A project with `swebench_ids` also gets a second instance, the same one with its test ids as SWE-bench's datasets
write them (cut at the first whitespace, as its pytest log parser saw them), and the predictions it names.

Commits have fixed authors and dates, so base commits are the same on every machine. Usage:
  python scripts/swe_fixtures.py [--out build/swe-fixtures]
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "swe" / "fixtures"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "e2beval fixtures", "GIT_AUTHOR_EMAIL": "fixtures@e2beval.invalid",
    "GIT_COMMITTER_NAME": "e2beval fixtures", "GIT_COMMITTER_EMAIL": "fixtures@e2beval.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(repo, *args, capture=False):
    result = subprocess.run(["git", "-C", str(repo), *args], env={**os.environ, **GIT_ENV}, check=True,
                            capture_output=capture, text=True)
    return result.stdout if capture else None


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def sdist(project, cache):
    """The project's sdist from the cache, else downloaded with pip (PyPI), checked against its sha256."""
    cache.mkdir(parents=True, exist_ok=True)
    name = f"{project['name']}-{project['version']}.tar.gz"
    path = cache / name
    if not path.exists() or sha256(path) != project["sha256"]:
        with tempfile.TemporaryDirectory() as download:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                            f"{project['name']}=={project['version']}", "-d", download], check=True)
            shutil.move(str(Path(download) / name), path)
    if sha256(path) != project["sha256"]:
        sys.exit(f"swe_fixtures: {name} has sha256 {sha256(path)}, expected {project['sha256']}: not the pinned sdist")
    return path


def build_repository(project, archive, work):
    """A git repository of the sdist, its first commit the sdist as published, its second the bug."""
    repo = work / project["name"]
    if repo.exists():
        shutil.rmtree(repo)
    with tempfile.TemporaryDirectory() as unpacked:
        with tarfile.open(archive) as tar:
            tar.extractall(unpacked, filter="data")
        shutil.move(str(Path(unpacked) / f"{project['name']}-{project['version']}"), repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{project['name']} {project['version']} as published on PyPI (sdist)")
    git(repo, "apply", str(FIXTURES / project["name"] / "bug.patch"))
    git(repo, "commit", "-q", "-am", f"deliberate bug: {project['bug']}")
    return repo, git(repo, "rev-parse", "HEAD", capture=True).strip()


def deletes_everything(repo, test_patch):
    """The prediction that deletes every file of the repository, made from the tree the model sees (the base
    commit with the test patch applied); too big to record, so it is made here."""
    base = git(repo, "rev-parse", "HEAD", capture=True).strip()
    if test_patch.exists():
        git(repo, "apply", str(test_patch))
        git(repo, "commit", "-q", "-am", "test patch")
    git(repo, "rm", "-rqf", ".")
    diff = git(repo, "diff", "--cached", "--binary", "HEAD", capture=True)
    git(repo, "reset", "-q", "--hard", base)
    return diff


def swebench_ids(tests):
    """Test ids as SWE-bench's datasets write them: as its pytest log parser saw them, cut at the first
    whitespace (`test_humanize[employee_salary-Employee`), each cut id once."""
    return {group: list(dict.fromkeys(test.split()[0] for test in tests[group])) for group in ("FAIL_TO_PASS", "PASS_TO_PASS")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "swe-fixtures"))
    out = Path(parser.parse_args().out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    config = json.loads((FIXTURES / "projects.json").read_text())
    instances, predictions, expected = [], [], {}
    variants = []  # the SWE-bench-id instances, listed after every project's own

    def add_instance(instance_id, project, repo, source, base_commit, tests, kinds, make_patch):
        folder = FIXTURES / project["name"]
        test_patch = folder / "test.patch"
        instances.append({
            "instance_id": instance_id,
            "repo": str(source),
            "base_commit": base_commit,
            "patch": (folder / "gold.patch").read_text(),
            "test_patch": test_patch.read_text() if test_patch.exists() else "",
            "FAIL_TO_PASS": tests["FAIL_TO_PASS"],
            "PASS_TO_PASS": tests["PASS_TO_PASS"],
            "test_cmd": project["test_cmd"],
            "test_framework": "pytest",
        })
        expected[instance_id] = kinds
        for kind in kinds:
            patch = make_patch(kind)
            predictions.append({"instance_id": instance_id, "model_name_or_path": kind, "model_patch": patch})
            # Each answer as a file too, for promptfoo's recorded-answer provider (examples/swe/).
            answer = out / "answers" / instance_id / f"{kind}.txt"
            answer.parent.mkdir(parents=True, exist_ok=True)
            answer.write_text(patch)
        # The patch-generation prompt's vars: the failing tests as the harness's log shows them, and the files
        # the fix is in, at the base commit.
        prompt_vars = out / "prompt_vars" / instance_id
        prompt_vars.mkdir(parents=True, exist_ok=True)
        (prompt_vars / "fail_log.txt").write_text("".join(f"FAILED {test}\n" for test in tests["FAIL_TO_PASS"]))
        touched = sorted({line[len("+++ b/"):] for line in (folder / "gold.patch").read_text().splitlines() if line.startswith("+++ b/")})
        (prompt_vars / "relevant_files.txt").write_text("".join(
            f"--- {path}\n{git(repo, 'show', f'{base_commit}:{path}', capture=True)}\n" for path in touched))

    for project in config["projects"]:
        folder = FIXTURES / project["name"]
        repo, base_commit = build_repository(project, sdist(project, out / "cache"), out / "repos")
        source = repo
        if project["repo_kind"] == "bundle":
            source = out / f"{project['name']}.bundle"
            git(repo, "bundle", "create", "-q", str(source), "main")
        tests = json.loads((folder / "tests.json").read_text())
        test_patch = folder / "test.patch"
        patches = {}

        def make_patch(kind, folder=folder, repo=repo, test_patch=test_patch, patches=patches):
            if kind not in patches:
                if kind == "deletes_everything":
                    patches[kind] = deletes_everything(repo, test_patch)
                else:
                    recorded = [p for p in (folder / "predictions" / f"{kind}.diff", folder / "predictions" / f"{kind}.md") if p.exists()]
                    patches[kind] = recorded[0].read_text()
            return patches[kind]

        add_instance(project["instance_id"], project, repo, source, base_commit, tests, project["predictions"], make_patch)
        if "swebench_ids" in project:
            variants.append((project["swebench_ids"]["instance_id"], project, repo, source, base_commit, swebench_ids(tests),
                             project["swebench_ids"]["predictions"], make_patch))
    for variant in variants:
        add_instance(*variant)
    (out / "instances.jsonl").write_text("".join(json.dumps(i) + "\n" for i in instances))
    (out / "predictions.jsonl").write_text("".join(json.dumps(p) + "\n" for p in predictions))
    (out / "expected.json").write_text(json.dumps(expected, indent=1))
    print(f"swe_fixtures: {len(instances)} instances, {len(predictions)} predictions in {out}")


if __name__ == "__main__":
    main()
