#!/usr/bin/env python3
"""The reference judge for MultiPL-E rows: the programs e2beval assembles (e2beval.assemble_multipl_e), compiled and
run with the plain toolchains in a temporary directory, with no isolation, the way MultiPL-E runs them
(nuprl/MultiPL-E evaluation/src/eval_*.py; docs/languages.md): the verdict e2beval's sandboxed one is compared with.

    source scripts/env.sh
    python bench/reference_judge.py                       # every shared row, our assembly
    python bench/reference_judge.py --sandboxfusion       # also SandboxFusion's assembly, and the rows that differ
    python bench/reference_judge.py --languages cpp go --out /tmp/ref.jsonl --compare e2beval.json

Per row it writes (--out, JSONL) `{task_id, language, assembly, pass, outcome, stage, compile_ms, run_ms, detail}`;
it prints pass rates per language. `--compare FILE` reads `e2beval eval --multipl-e ... --json` output and prints
the agreement of e2beval's verdicts with these, per language, and each row where they differ.

Commands (MultiPL-E's): cpp `g++ prog.cpp -o prog -std=c++17`; java `javac -encoding UTF8 -cp javatuples -d out`,
`java -ea -cp out:javatuples CLASS`; go `go test prog_test.go` (verdict from its stdout: `[build failed]`/`[setup
failed]` a compile error, `FAIL` a failure); rust `rustc prog.rs -o prog` (edition 2015); typescript
`tsc --target esnext prog.ts` (any tsc error fails) then `node prog.js`; javascript `node prog.js`; bash
`bash prog.sh`. Run time limits are MultiPL-E's (js and rust 5 s, go 30 s with its build, others 15 s); compile
limits are 60 s, four times MultiPL-E's 15 s, because this machine's two cores are shared and a compile that
times out from load says nothing about the answer.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import e2beval

DATASET_DIR = Path(__file__).resolve().parent.parent / ".." / "shared" / "datasets" / "multipl-e"
FILES = {"cpp": "cpp", "go": "go", "java": "java", "javascript": "js", "rust": "rs", "bash": "sh", "typescript": "ts"}
RUN_TIMEOUT = {"cpp": 15, "go": 30, "java": 15, "javascript": 5, "rust": 5, "bash": 15, "typescript": 15}
COMPILE_TIMEOUT = 60
OUTPUT_CAP = 2048  # MultiPL-E reads at most 2 KiB of each stream; kept for the detail only


def javatuples_jar() -> str:
    """javatuples 1.2 (MultiPL-E's Java tests use Pair/Triplet): E2BEVAL_JAVATUPLES, else Maven's local repository
    (`mvn dependency:get -Dartifact=org.javatuples:javatuples:1.2` puts it there)."""
    candidates = [os.environ.get("E2BEVAL_JAVATUPLES", ""),
                  str(Path.home() / ".m2/repository/org/javatuples/javatuples/1.2/javatuples-1.2.jar")]
    for path in candidates:
        if path and Path(path).is_file():
            return path
    sys.exit("reference_judge: javatuples-1.2.jar not found; run `mvn dependency:get "
             "-Dartifact=org.javatuples:javatuples:1.2` or set E2BEVAL_JAVATUPLES")


def tsc_command() -> list:
    """TypeScript 5's tsc (E2BEVAL_TSC, else tools/typescript or /tmp/ts from `npm i --prefix /tmp/ts typescript@5`)."""
    root = Path(__file__).resolve().parent.parent
    for path in [os.environ.get("E2BEVAL_TSC", ""), str(root / "tools/typescript/node_modules/typescript/bin/tsc"),
                 "/tmp/ts/node_modules/typescript/bin/tsc"]:
        if path and Path(path).is_file():
            return ["node", path]
    sys.exit("reference_judge: tsc not found; run `npm i --prefix /tmp/ts typescript@5` or set E2BEVAL_TSC")


def run(command: list, cwd: str, timeout: float, env: dict, stdin_text: str | None = None) -> dict:
    """One command as MultiPL-E's safe_subprocess runs it: a new session, stdin from /dev/null (or `stdin_text`,
    then EOF: bench/sandbox_fusion_bench.py's stdin programs), the whole group killed at the end."""
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL if stdin_text is None else subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, env=env)
    timed_out = False
    try:
        out, err = process.communicate(None if stdin_text is None else stdin_text.encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
    try:
        os.killpg(process.pid, signal.SIGKILL)  # what the program left behind
    except ProcessLookupError:
        pass
    return {"rc": process.returncode, "timeout": timed_out, "ms": round((time.monotonic() - started) * 1000, 1),
            "out": out.decode("utf-8", "replace"), "err": err.decode("utf-8", "replace")}


# The compile flags of e2beval's descriptors (src/core/languages/) where they differ from MultiPL-E's only in
# optimization, edition and checks, for benches that measure what isolation costs (bench/polyglot_bench.py): the
# same compiler work on both sides. Java's and TypeScript's JVM/node options are e2beval's own speed work, so the
# reference keeps MultiPL-E's plain commands there.
E2BEVAL_FLAGS = {"cpp": ["-std=c++17", "-O2", "-pipe"],
                 "rust": ["--edition", "2021", "-O", "-C", "overflow-checks=on"]}
MULTIPL_E_FLAGS = {"cpp": ["-std=c++17"], "rust": []}


class Toolchains:
    def __init__(self, languages, flags: str = "multipl-e"):
        self.flags = E2BEVAL_FLAGS if flags == "e2beval" else MULTIPL_E_FLAGS
        self.env = dict(os.environ)
        self.env["GOTOOLCHAIN"] = "local"
        self.env["GOFLAGS"] = "-buildvcs=false"
        self.jar = javatuples_jar() if "java" in languages else ""
        self.tsc = tsc_command() if "typescript" in languages else []


def judge(program: dict, tools: Toolchains) -> dict:
    """Compile and run one assembled program; MultiPL-E's verdict."""
    language = program["language"]
    # Not "e2beval-*": the security corpus's host check counts those in /tmp as left behind by a sandbox.
    directory = tempfile.mkdtemp(prefix="multipl-e-reference-")
    result = {"compile_ms": 0.0, "run_ms": 0.0}
    try:
        Path(directory, program["file_name"]).write_text(program["source"], encoding="utf-8")
        compile_step, run_step = None, None
        if language == "cpp":
            compile_step = ["g++", program["file_name"], "-o", "prog"] + tools.flags["cpp"]
            run_step = ["./prog"]
        elif language == "rust":
            compile_step = ["rustc", program["file_name"], "-o", "prog"] + tools.flags["rust"]
            run_step = ["./prog"]
        elif language == "java":
            os.mkdir(Path(directory, "out"))
            compile_step = ["javac", "-encoding", "UTF8", "-cp", tools.jar, "-d", "out", program["file_name"]]
            run_step = ["java", "-ea", "-cp", "out:" + tools.jar, program["main_class"]]
        elif language == "typescript":
            compile_step = tools.tsc + ["--target", "esnext", program["file_name"]]
            run_step = ["node", program["file_name"][:-3] + ".js"]
        elif language == "javascript":
            run_step = ["node", program["file_name"]]
        elif language == "bash":
            run_step = ["bash", program["file_name"]]
        elif language == "go":
            step = run(["go", "test", program["file_name"]], directory, RUN_TIMEOUT["go"], tools.env)
            result["compile_ms"] = step["ms"]  # go test builds and runs in one command
            out = step["out"]
            if step["timeout"]:
                result.update(outcome="timeout", stage="run")
            elif "[setup failed]" in out or "[build failed]" in out:
                result.update(outcome="compile_error", stage="compile")
            elif "FAIL" in out or step["rc"] != 0:
                result.update(outcome="exit_nonzero", stage="run")
            else:
                result.update(outcome="ok", stage="run")
            result["detail"] = (out + step["err"])[-OUTPUT_CAP:]
            return result
        if compile_step:
            step = run(compile_step, directory, COMPILE_TIMEOUT, tools.env)
            result["compile_ms"] = step["ms"]
            if step["timeout"] or step["rc"] != 0:
                result.update(outcome="compile_timeout" if step["timeout"] else "compile_error", stage="compile",
                              detail=(step["out"] + step["err"])[:OUTPUT_CAP])
                return result
        step = run(run_step, directory, RUN_TIMEOUT[language], tools.env)
        result["run_ms"] = step["ms"]
        if step["timeout"]:
            result["outcome"] = "timeout"
        elif step["rc"] == 0:
            result["outcome"] = "ok"
        elif step["rc"] < 0:
            result["outcome"] = "signaled"
        else:
            result["outcome"] = "exit_nonzero"
        result["stage"] = "run"
        result["detail"] = (step["out"][-OUTPUT_CAP // 2:] + step["err"][-OUTPUT_CAP // 2:])
        return result
    finally:
        shutil.rmtree(directory, ignore_errors=True)


# ---- SandboxFusion's assembly (bytedance/SandboxFusion sandbox/datasets/multiple.py, free-form path), for comparison
SF_TAGS = {"cpp": {"cpp", "c++", "C++", "Cpp", "CPP"}, "java": {"java", "Java"}, "go": {"go", "Go"},
           "rust": {"rust", "Rust", "rs"}, "bash": {"bash", "Bash", "BASH", "sh", "shell"},
           "typescript": {"typescript"}, "javascript": {"javascript", "Javascript", "JavaScript", "JS", "js"}}
SF_IMPORTS = {
    "cpp": ["using namespace std;"] + ["#include<%s>" % h for h in (
        "optional", "cassert", "stdlib.h", "algorithm", "cmath", "math.h", "numeric", "stdio.h", "vector", "set", "map",
        "queue", "stack", "list", "deque", "boost/any.hpp", "string", "climits", "cstring", "iostream", "sstream",
        "fstream")],
    "java": ["import java.util.*;", "import java.lang.reflect.*;", "import org.javatuples.*;", "import java.security.*;",
             "import java.math.*;", "import java.io.*;", "import java.util.stream.*;"],
    "go": ['import ("fmt")'],
}


def sf_blocks(answer: str, complete: bool = True):
    pattern = r"```([^\n]*)\n(.*?)\n\s*```" if complete else r"```([^\n]*)\n(.*)"
    return [(tag.strip(), code) for tag, code in re.findall(pattern, answer, re.DOTALL | re.MULTILINE)]


def sandboxfusion_program(row: dict, language: str, answer: str) -> dict:
    """The program SandboxFusion builds from a free-form answer: the first fenced block, its cuts (cpp at the first
    `int main()`, Java's `public class Main` renamed, `# Example usage`), every stop token applied for cpp, java,
    rust and bash, no prompt, its import lists prepended, Java's class renamed Main, Go's package/import rewrite."""
    if language in ("go", "typescript", "javascript"):
        blocks = sf_blocks(answer) or sf_blocks(answer, complete=False)
        wanted = [code for tag, code in blocks if tag in SF_TAGS[language]]
        code = (wanted or [code for _, code in blocks] or [""])[0]
    else:
        blocks = sf_blocks(answer) or sf_blocks(answer, complete=False)
        if not blocks and language == "bash":
            blocks = [("bash", "\n".join(line for line in answer.split("\n") if line.strip()) + "\n")]
        code = blocks[0][1].replace("\r", "") if blocks else ""
        if language == "cpp" and "int main()" in code:
            code = code[:code.index("int main()")].strip()
        if language == "java" and "public class Main {\n" in code:
            code = code.replace("public class Main {\n", "class Solution {\n").replace(
                "public static void main(String[] args)", "")
        if "# Example usage" in code:
            code = code[:code.index("# Example usage")].strip()
        for stop in row["stop_tokens"]:
            if stop != "\n\n" and stop in code:
                code = code[:code.index(stop)]
    full = "\n".join(SF_IMPORTS.get(language, [])) + "\n" + code + "\n" + row["tests"]
    program = {"language": language, "file_name": e2beval.assemble_multipl_e(row, "", "continuation")["file_name"],
               "main_class": ""}
    if language == "java":
        full = full.replace("class Problem", "class Main")
        program.update(file_name="Main.java", main_class="Main")
    if language == "go":
        packages = sorted(set(re.findall(r"package\s+(\w+)", full)))
        full = re.sub(r"package\s+(\w+)", "", full)
        single = re.findall(r'import\s+("\w+")', full)
        grouped = [line.strip() for group in re.findall(r"import\s+\((.*?)\)", full, flags=re.DOTALL)
                   for line in group.split("\n")]
        imports = sorted(set(single + grouped) - {""})
        full = re.sub(r'import\s+("\w+")', "", full)
        full = re.sub(r"import\s+\((.*?)\)", "", full, flags=re.DOTALL)
        full = "\n".join("package " + p for p in packages) + "\n\n" + "\n".join("import " + i for i in imports) + \
            "\n\n" + full
    program["source"] = full
    return program


def load_rows(languages, dataset_dir: Path, ids):
    rows = []
    for language in languages:
        path = dataset_dir / f"humaneval-{FILES[language]}.jsonl.gz"
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                if ids and row["name"] not in ids:
                    continue
                rows.append((language, row))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--languages", nargs="+", default=list(FILES), choices=list(FILES))
    parser.add_argument("--dataset-dir", type=Path, default=DATASET_DIR)
    parser.add_argument("--field", default="gpt_solution", help="the row field that holds the answer")
    parser.add_argument("--kind", default="auto", choices=["auto", "freeform", "continuation"])
    parser.add_argument("--ids", nargs="*", help="only these task names")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, help="one JSON line per row and assembly")
    parser.add_argument("--emit-programs", type=Path, help="write each assembled program to DIR/<language>/<task>/")
    parser.add_argument("--sandboxfusion", action="store_true", help="also judge SandboxFusion's assembly")
    parser.add_argument("--compare", type=Path, help="`e2beval eval --multipl-e --json` output to compare with")
    parser.add_argument("--results", type=Path, help="read the verdicts of an earlier run (its --out) instead of judging")
    parser.add_argument("--flags", choices=["multipl-e", "e2beval"], default="multipl-e",
                        help="C++ and Rust compile flags: MultiPL-E's (default) or e2beval's (-O2, -O, edition 2021)")
    args = parser.parse_args()

    if args.results:
        # An earlier run's verdicts: only the comparison is printed.
        earlier = [json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]
        earlier = [v for v in earlier if v["assembly"] == "e2beval" and v["language"] in args.languages]
        if not args.compare:
            sys.exit("reference_judge: --results goes with --compare")
        compare(json.loads(args.compare.read_text()), earlier)
        return 0
    rows = load_rows(args.languages, args.dataset_dir, set(args.ids or []))
    tools = Toolchains(args.languages, args.flags)
    work = []
    for language, row in rows:
        program = e2beval.assemble_multipl_e(row, row[args.field], args.kind)
        work.append((language, row["name"], "e2beval", program))
        if args.sandboxfusion:
            work.append((language, row["name"], "sandboxfusion", sandboxfusion_program(row, language, row[args.field])))
    if args.emit_programs:
        for language, name, assembly, program in work:
            target = args.emit_programs / assembly / language / name
            target.mkdir(parents=True, exist_ok=True)
            (target / program["file_name"]).write_text(program["source"], encoding="utf-8")

    def one(item):
        language, name, assembly, program = item
        verdict = judge(program, tools)
        verdict.update(task_id=name, language=language, assembly=assembly, pass_=verdict["outcome"] == "ok")
        verdict["pass"] = verdict.pop("pass_")
        return verdict

    started = time.monotonic()
    results = []
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for index, verdict in enumerate(pool.map(one, work), 1):
            results.append(verdict)
            if out:
                out.write(json.dumps(verdict) + "\n")
                out.flush()
            print(f"\r{index}/{len(work)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if out:
        out.close()
    elapsed = time.monotonic() - started

    by = {}
    for verdict in results:
        by.setdefault((verdict["assembly"], verdict["language"]), []).append(verdict)
    print(f"reference judge: {len(work)} programs in {elapsed:.0f} s, {args.jobs} at a time, no isolation")
    header = f"{'language':<11} {'rows':>5} {'e2beval assembly':>18}" + (f" {'SandboxFusion':>15}" if args.sandboxfusion else "")
    print(header)
    for language in args.languages:
        ours = by.get(("e2beval", language), [])
        passed = sum(v["pass"] for v in ours)
        line = f"{language:<11} {len(ours):>5} {passed:>6} ({100.0 * passed / max(len(ours), 1):5.1f}%)    "
        if args.sandboxfusion:
            theirs = by.get(("sandboxfusion", language), [])
            sf = sum(v["pass"] for v in theirs)
            line += f" {sf:>5} ({100.0 * sf / max(len(theirs), 1):5.1f}%)"
        print(line)
    if args.sandboxfusion:
        print("\nrows where the assemblies differ (ours / SandboxFusion's outcome):")
        theirs = {(v["language"], v["task_id"]): v for v in results if v["assembly"] == "sandboxfusion"}
        for verdict in results:
            if verdict["assembly"] != "e2beval":
                continue
            other = theirs[(verdict["language"], verdict["task_id"])]
            if other["pass"] != verdict["pass"]:
                reason = " ".join((other if verdict["pass"] else verdict).get("detail", "").split())[:110]
                print(f"  {verdict['language']:<10} {verdict['task_id']:<40} {verdict['outcome']:>14} / "
                      f"{other['outcome']:<14} {reason}")
    if args.compare:
        compare(json.loads(args.compare.read_text()), [v for v in results if v["assembly"] == "e2beval"])
    return 0


def compare(e2beval_output: dict, reference: list) -> None:
    """Agreement of e2beval's verdicts with the reference's, per language."""
    ours = {}
    for item in e2beval_output["results"]:
        ours.setdefault((item["language"], item["task_id"]), item)
    print("\ne2beval vs the reference (same assembled programs):")
    print(f"{'language':<11} {'rows':>5} {'agree':>6} {'rate':>7}")
    differences = []
    for language in sorted({v["language"] for v in reference}):
        rows = [v for v in reference if v["language"] == language]
        agree = 0
        for verdict in rows:
            theirs = ours.get((language, verdict["task_id"]))
            if theirs is not None and theirs["pass"] == verdict["pass"]:
                agree += 1
            else:
                differences.append((verdict, theirs))
        print(f"{language:<11} {len(rows):>5} {agree:>6} {100.0 * agree / max(len(rows), 1):6.1f}%")
    for verdict, theirs in differences:
        print(f"  {verdict['language']:<10} {verdict['task_id']:<40} reference {verdict['outcome']:<14} "
              f"e2beval {theirs['outcome'] if theirs else 'missing'}: {' '.join((theirs or {}).get('detail', '').split())[:100]}")


if __name__ == "__main__":
    sys.exit(main())
