// A C++ evaluation harness that uses only e2beval's public API, built by both consumer projects
// (find_package/ and add_subdirectory/). docs/cpp.md shows its marked parts; run.sh checks they agree.
// Exits 0 when every recorded answer gets the verdict it should.
// [snippet:include]
#include <e2beval/e2beval.hpp>
// [end]

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <string>
#include <vector>

namespace {

// Recorded model answers: one right, one wrong, judged by the same test.
const std::string kRightAnswer =
    "Here is the function:\n"
    "```python\n"
    "def is_palindrome(text):\n"
    "    return text == text[::-1]\n"
    "```\n";
const std::string kWrongAnswer =
    "```python\n"
    "def is_palindrome(text):\n"
    "    return True\n"
    "```\n";
// A promptfoo test's vars, as JSON (docs/test-shapes.md).
const std::string kTestVars = R"({
  "function_name": "is_palindrome",
  "test_cases": [
    {"input": "'racecar'", "expected_output": "True"},
    {"input": "'hello'", "expected_output": "False"}
  ]
})";

int failures = 0;

void expect(const char* what, const e2beval::Verdict& verdict, bool expected_pass) {
    std::cout << what << ": pass=" << (verdict.pass ? "true" : "false") << " reason=" << verdict.reason << "\n";
    if (verdict.pass != expected_pass) {
        std::cout << "  expected pass=" << (expected_pass ? "true" : "false") << "\n";
        ++failures;
    }
}

}  // namespace

int main() {
    std::cout << "e2beval " << e2beval::kVersion << "\n";
    try {
        // [snippet:blocking]
        e2beval::LocalSandbox sandbox;  // finds python3; throws sandbox_error when it cannot
        e2beval::Runner runner(sandbox);
        const auto spec = e2beval::TestSpec::from_vars_json(kTestVars);
        const e2beval::Verdict verdict = runner.evaluate(kRightAnswer, spec);
        // verdict.pass, verdict.score, verdict.reason, verdict.cases[i].actual ...
        // [end]
        expect("blocking, right answer", verdict, true);

        // [snippet:batch]
        const std::vector<e2beval::EvaluationItem> items{{kRightAnswer, spec}, {kWrongAnswer, spec}};
        e2beval::BatchOptions batch;
        batch.jobs = 2;  // sandboxes running at once
        const std::vector<e2beval::Verdict> verdicts = e2beval::evaluate_many(sandbox, {}, items, batch);
        // verdicts[i] belongs to items[i]
        // [end]
        expect("batch, right answer", verdicts.at(0), true);
        expect("batch, wrong answer", verdicts.at(1), false);

        std::string printed;
        // [snippet:async]
        boost::asio::io_context context;
        e2beval::Sandbox& backend = sandbox;  // any backend: e2beval::make_sandbox({"local"}) gives one by name
        e2beval::ExecRequest request;
        request.code = "print(6 * 7)";
        backend.async_execute(request, boost::asio::bind_executor(context, [&](boost::system::error_code ec, e2beval::ExecResult result) {
            // ec: the backend refused the request or could not run it (result.detail says why);
            // otherwise result.outcome, result.stdout_data, result.wall_time ... describe the run
            if (!ec) printed = result.stdout_data;
        }));
        context.run();  // runs every execution started on `context`, concurrently
        // [end]
        std::cout << "async: printed " << printed;
        if (printed != "42\n") ++failures;
    } catch (const e2beval::error& failure) {
        std::cout << "e2beval error: " << failure.what() << "\n";
        return 1;
    }
    std::cout << (failures == 0 ? "all verdicts as expected" : "some verdicts were not as expected") << "\n";
    return failures == 0 ? 0 : 1;
}
