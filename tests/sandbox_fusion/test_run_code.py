"""SandboxFusion's /run_code on `e2beval serve`, through the official client (`sandbox-fusion` 0.3.7), as RL and
evaluation pipelines call it: every served language with stdin, compile errors, time and memory limits, files in
and out, 64 concurrent requests, an unsupported language, /v1/ping (docs/sandbox-fusion.md)."""
import base64

import pytest
import requests
import sandbox_fusion
from sandbox_fusion import RunCodeRequest, RunStatus, SummaryMapping, run_code, run_concurrent, summary_run_code_result

# A program per served language that reads one word from stdin and prints it back twice, in SandboxFusion's name.
ECHO = {
    "python": "w = input().strip()\nprint(w + w)\n",
    "cpp": "#include <iostream>\n#include <string>\nint main() { std::string w; std::cin >> w; std::cout << w << w << std::endl; }\n",
    "go": 'package main\nimport "fmt"\nfunc main() { var w string; fmt.Scan(&w); fmt.Println(w + w) }\n',
    "java": "import java.util.Scanner;\npublic class Main { public static void main(String[] a) {"
            " String w = new Scanner(System.in).next(); System.out.println(w + w); } }\n",
    "rust": "use std::io::Read;\nfn main() { let mut s = String::new(); std::io::stdin().read_to_string(&mut s).unwrap();"
            " let w = s.trim(); println!(\"{}{}\", w, w); }\n",
    # e2beval type-checks TypeScript (no @types/node in the sandbox): `require` is declared.
    "typescript": "declare const require: any;\nconst w: string = require('fs').readFileSync(0, 'utf8').trim();\n"
                  "console.log(w + w);\n",
    "nodejs": "const w = require('fs').readFileSync(0, 'utf8').trim();\nconsole.log(w + w);\n",
    "bash": "read w\necho \"$w$w\"\n",
}
# Test programs, passing with the first input and failing with the second. go_test reads stdin; pytest captures
# stdin (as in SandboxFusion, which runs `pytest FILE` too), so its tests read a file instead.
TESTS = {
    "go_test": ('package main\nimport (\n "bufio"\n "os"\n "testing"\n)\nfunc TestStdin(t *testing.T) {\n'
                ' w, _ := bufio.NewReader(os.Stdin).ReadString(\'\\n\')\n if w != "ping\\n" { t.Fatalf("read %q", w) }\n}\n'),
    "pytest": "import pathlib\n\ndef test_word():\n    assert pathlib.Path('word.txt').read_text() == 'ping\\n'\n",
}


def request(**fields):
    return RunCodeRequest(**{"compile_timeout": 60, "run_timeout": 20, **fields})


@pytest.mark.parametrize("language", sorted(ECHO))
def test_every_language_reads_stdin(endpoint, language):
    result = run_code(request(code=ECHO[language], language=language, stdin="ping\n"), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Success, result
    assert result.run_result.stdout == "pingping\n"
    assert result.run_result.return_code == 0
    assert result.message == "" and result.files == {}
    compiled = language in ("cpp", "go", "java", "rust", "typescript")
    assert (result.compile_result is not None) == compiled, result
    if compiled:
        assert result.compile_result.return_code == 0


@pytest.mark.parametrize("language", sorted(TESTS))
def test_test_languages_pass_and_fail(endpoint, language):
    def run(word):
        return run_code(request(code=TESTS[language], language=language, stdin=word,
                                files={"word.txt": base64.b64encode(word.encode()).decode()}),
                        endpoint=endpoint, max_attempts=1)

    passing = run("ping\n")
    assert passing.status == RunStatus.Success, passing
    failing = run("pong\n")
    assert failing.status == RunStatus.Failed, failing
    assert failing.run_result.return_code != 0


def test_a_go_test_file_in_a_test_package_works_too(endpoint):
    code = 'package solution_test\nimport "testing"\nfunc TestOne(t *testing.T) { if 1+1 != 2 { t.Fatal("no") } }\n'
    result = run_code(request(code=code, language="go_test"), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Success, result


def test_c_is_served_beside_sandbox_fusions_names(endpoint):
    # `c` is not in the 0.3.7 client's Literal: sent as raw JSON.
    code = "#include <stdio.h>\nint main(void) { char w[64]; scanf(\"%63s\", w); printf(\"%s%s\\n\", w, w); return 0; }\n"
    answer = requests.post(endpoint + "/run_code", json={"code": code, "language": "c", "stdin": "ping"}, timeout=120).json()
    assert answer["status"] == "Success", answer
    assert answer["run_result"]["stdout"] == "pingping\n"


def test_stdin_null_and_empty_are_end_of_file(endpoint):
    code = "import sys\nprint(repr(sys.stdin.read()))\n"
    for stdin in (None, ""):
        answer = requests.post(endpoint + "/run_code", json={"code": code, "language": "python", "stdin": stdin}, timeout=60).json()
        assert answer["run_result"]["stdout"] == "''\n", answer


COMPILE_ERRORS = {
    "cpp": "int main() { return x; }\n",
    "rust": "fn main() { let x: i32 = \"no\"; }\n",
    "go": "package main\nfunc main() { x := 1 }\n",
    "java": "public class Main { public static void main(String[] a) { int x = \"no\"; } }\n",
    "typescript": "const x: number = 'no';\n",
}


@pytest.mark.parametrize("language", sorted(COMPILE_ERRORS))
def test_compile_errors(endpoint, language):
    result = run_code(request(code=COMPILE_ERRORS[language], language=language), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Failed, result
    assert result.compile_result.status == "Finished"
    assert result.compile_result.return_code not in (None, 0)
    assert result.compile_result.stderr or result.compile_result.stdout  # the diagnostics
    assert result.run_result is None
    mapping = SummaryMapping(CompileFailed="compile failed", RunFailed="run failed")
    assert summary_run_code_result(result, mapping) == "compile failed"


def test_a_runtime_error_is_failed_with_the_return_code(endpoint):
    result = run_code(request(code="import sys\nsys.exit(3)\n", language="python"), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Failed
    assert result.run_result.status == "Finished" and result.run_result.return_code == 3
    assert summary_run_code_result(result, SummaryMapping(RunFailed="run failed")) == "run failed"


def test_a_signal_is_a_negative_return_code(endpoint):
    code = "#include <csignal>\nint main() { std::raise(SIGSEGV); }\n"
    result = run_code(request(code=code, language="cpp"), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Failed
    assert result.run_result.return_code == -11, result


def test_run_timeout(endpoint):
    code = "import time\nprint('started', flush=True)\ntime.sleep(60)\n"
    result = run_code(request(code=code, language="python", run_timeout=1), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Failed
    assert result.run_result.status == "TimeLimitExceeded"
    assert result.run_result.return_code is None
    assert result.run_result.stdout == "started\n"  # what was written before the limit
    assert summary_run_code_result(result, SummaryMapping(RunTimeout="run timeout")) == "run timeout"


def test_compile_timeout(endpoint):
    # Constant evaluation of ~4e10 steps: the compiler works far past a 1 s compile_timeout.
    code = ("constexpr long spin() { long s = 0; for (long i = 0; i < 200000; ++i) for (long j = 0; j < 200000; ++j)"
            " s += i ^ j; return s; }\nconstexpr long value = spin();\nint main() { return value == 0; }\n")
    result = run_code(request(code=code, language="cpp", compile_timeout=1), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Failed, result
    assert result.compile_result.status == "TimeLimitExceeded", result
    assert result.compile_result.return_code is None
    assert result.run_result is None
    assert summary_run_code_result(result, SummaryMapping(CompileTimeout="compile timeout")) == "compile timeout"


def test_memory_limit(endpoint):
    # The 0.3.7 client's model has no memory_limit_MB (verl sends it): raw requests, as verl makes them.
    code = "import sys\nblock = bytearray(int(sys.stdin.read()) * 1024 * 1024)\nprint(len(block) >> 20)\n"

    def post(megabytes, limit):
        payload = {"code": code, "language": "python", "stdin": str(megabytes), "memory_limit_MB": limit,
                   "compile_timeout": 10, "run_timeout": 20, "files": {}, "fetch_files": []}
        return requests.post(endpoint + "/run_code", json=payload, timeout=120).json()

    under = post(64, 256)
    assert under["status"] == "Success", under
    assert under["run_result"]["stdout"] == "64\n"
    over = post(400, 128)
    assert over["status"] == "Failed", over
    assert over["run_result"]["status"] == "Finished" and over["run_result"]["return_code"] != 0
    # verl passes memory_limit_MB=None when a caller gives none: the server's default, not a 422.
    assert post(16, None)["status"] == "Success"


def test_files_in_and_out(endpoint):
    binary = bytes(range(256)) * 4
    code = ("import pathlib\n"
            "data = pathlib.Path('in/deep/blob.bin').read_bytes()\n"
            "print(len(data), pathlib.Path('notes.txt').read_text())\n"
            "pathlib.Path('out/deeper').mkdir(parents=True)\n"
            "pathlib.Path('out/deeper/reversed.bin').write_bytes(data[::-1])\n")
    files = {"in/deep/blob.bin": base64.b64encode(binary).decode(), "notes.txt": base64.b64encode(b"hello").decode(),
             "skipped.txt": None}
    result = run_code(request(code=code, language="python", files=files,
                              fetch_files=["out/deeper/reversed.bin", "in/deep/blob.bin", "missing.txt"]),
                      endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Success, result
    assert result.run_result.stdout == "1024 hello\n"
    assert base64.b64decode(result.files["out/deeper/reversed.bin"]) == binary[::-1]
    assert base64.b64decode(result.files["in/deep/blob.bin"]) == binary
    assert "missing.txt" not in result.files  # as SandboxFusion: a missing file is left out


def test_files_with_a_compiled_language(endpoint):
    code = ("#include <fstream>\n#include <iostream>\nint main() { std::ifstream in(\"data/n.txt\"); int n; in >> n;"
            " std::ofstream(\"result.txt\") << n * 2; std::cout << n << std::endl; }\n")
    result = run_code(request(code=code, language="cpp", files={"data/n.txt": base64.b64encode(b"21").decode()},
                              fetch_files=["result.txt"]), endpoint=endpoint, max_attempts=1)
    assert result.status == RunStatus.Success, result
    assert base64.b64decode(result.files["result.txt"]) == b"42"


def test_output_that_is_not_utf8_is_still_json(endpoint):
    code = "import sys\nsys.stdout.buffer.write(b'ok \\xff\\xfe end\\n')\n"
    answer = requests.post(endpoint + "/run_code", json={"code": code, "language": "python"}, timeout=60).json()
    assert answer["status"] == "Success"
    assert answer["run_result"]["stdout"] == "ok \ufffd\ufffd end\n"


def test_output_past_one_mebibyte_is_cut_and_said(endpoint):
    code = "import sys\nsys.stdout.write('x' * (3 << 20))\nsys.stdout.flush()\n"
    answer = requests.post(endpoint + "/run_code", json={"code": code, "language": "python"}, timeout=60).json()
    assert answer["status"] == "Failed", answer["message"]
    assert answer["run_result"]["status"] == "Finished" and answer["run_result"]["return_code"] == -9
    assert len(answer["run_result"]["stdout"]) == 1 << 20
    assert "output" in answer["message"]


def test_64_concurrent_requests(endpoint):
    # Python and C++ mixed, each with its own input: every answer must be its own request's.
    cpp = "#include <iostream>\nint main() { long n; std::cin >> n; std::cout << n * n << std::endl; }\n"
    python = "n = int(input())\nprint(n * n)\n"
    requests_ = [request(code=cpp if i % 4 == 0 else python, language="cpp" if i % 4 == 0 else "python", stdin=f"{i}\n")
                 for i in range(64)]
    results = run_concurrent(run_code, args=[[r] for r in requests_], kwargs=[{"endpoint": endpoint} for _ in requests_],
                             concurrency=64)
    assert [r.run_result.stdout for r in results] == [f"{i * i}\n" for i in range(64)]
    assert all(r.status == RunStatus.Success for r in results)


def test_an_unsupported_language_names_the_served_ones(endpoint):
    with pytest.raises(Exception) as raised:
        run_code(request(code="<?php echo 1;", language="php"), endpoint=endpoint, max_attempts=1)
    message = str(raised.value)
    assert "SandboxError" in message or "Sandbox responded with error" in message
    for name in ("python", "cpp", "go_test", "java", "rust", "typescript", "nodejs", "bash", "pytest"):
        assert name in message
    # Raw: HTTP 200 and SandboxError, as SandboxFusion answers a language it has no runner for.
    answer = requests.post(endpoint + "/run_code", json={"code": "", "language": "junit"}, timeout=30)
    assert answer.status_code == 200
    assert answer.json()["status"] == "SandboxError" and "junit" in answer.json()["message"]
    assert answer.json()["compile_result"] is None and answer.json()["run_result"] is None


def test_ping(endpoint):
    answer = requests.get(endpoint + "/v1/ping", timeout=30)
    assert answer.status_code == 200 and answer.json() == "pong"
    assert requests.post(endpoint + "/v1/ping", timeout=30).status_code == 405
    assert requests.get(endpoint + "/run_code", timeout=30).status_code == 405


def test_the_endpoint_variable_the_server_prints(sandbox_fusion_server, monkeypatch):
    # The line `e2beval serve` prints is what the client reads (SANDBOX_FUSION_ENDPOINT, at import time).
    monkeypatch.setattr(sandbox_fusion.config, "SANDBOX_ENDPOINT", sandbox_fusion_server.sandbox_fusion_endpoint)
    assert run_code(request(code="print(6 * 7)", language="python"), max_attempts=1).run_result.stdout == "42\n"
