// One SWE-style evaluation, every step in order in evaluate_steps(): take the diff out of the answer, refuse
// it before anything runs if it reaches outside the repository, copy the repository in, apply the test patch,
// apply the model's patch with SWE-bench's fallback chain, check the result for symlinks out, run the tests,
// read what the framework reported, grade. Failures of the model's patch are verdicts; failures of the
// machinery (repository, sandbox, test patch) are status `error`, reported apart.
#include "e2beval/swe/evaluate.hpp"

#include <sys/random.h>

#include <cerrno>
#include <filesystem>

#include "e2beval/core/error.hpp"
#include "e2beval/sandbox.hpp"
#include "e2beval/swe/patch.hpp"
#include "swe/repository_source.hpp"
#include "swe/test_run.hpp"

namespace e2beval::swe {

std::string_view to_string(EvaluationStatus status) noexcept {
    switch (status) {
        case EvaluationStatus::resolved: return "resolved";
        case EvaluationStatus::unresolved: return "unresolved";
        case EvaluationStatus::empty_patch: return "empty_patch";
        case EvaluationStatus::error: return "error";
    }
    return "error";
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kRepository = "/home/user/repo";

// SWE-bench's chain, in its order; each later step is tried on a clean tree after the one before failed.
const std::vector<std::string>& apply_steps() {
    static const std::vector<std::string> steps = {
        "git apply --verbose",
        "git apply --verbose --3way",
        "git apply --verbose --reject",
        "patch --batch --forward --fuzz=5 -p1 -i",
    };
    return steps;
}

std::string nonce() {
    unsigned char bytes[16];
    std::size_t got = 0;
    while (got < sizeof bytes) {
        const auto n = ::getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw sandbox_error(describe_syscall_failure("getrandom(16 bytes, 0)", errno));
        got += static_cast<std::size_t>(n);
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string text;
    for (auto byte : bytes) {
        text += kHex[byte >> 4];
        text += kHex[byte & 15];
    }
    return text;
}

// git inside the sandbox: no system or user configuration, an identity for its commits, no hooks.
constexpr const char* kGit = "git -c user.name=e2beval -c user.email=e2beval@localhost -c core.hooksPath=/dev/null "
                             "-c commit.gpgsign=false -c advice.detachedHead=false";

std::string in_repository(const std::string& command) {
    return std::string("export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null\ncd ") + kRepository + " || exit 90\n" + command;
}

struct Step {
    CommandOutput output;
    bool ok() const { return output.exit_code == 0 && !output.timed_out && !output.error; }
    std::string log() const { return output.stdout_data + output.stderr_data; }
};

Step run(Session& session, const std::string& command, std::chrono::milliseconds timeout) {
    return Step{session.run_command(in_repository(command), timeout)};
}

std::string cap(std::string text, std::size_t bytes) {
    if (text.size() > bytes) {
        text.resize(bytes);
        text += "\n[e2beval: log cut at " + std::to_string(bytes) + " bytes]\n";
    }
    return text;
}

// An infrastructure failure: not the model's doing.
struct InfrastructureFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Verdict evaluate_steps(Sandbox& sandbox, const Instance& instance, const std::string& answer, const EvaluationOptions& options,
                       const std::string& model, bool run_without_patch) {
    const auto started = Clock::now();
    Verdict verdict;
    verdict.instance_id = instance.instance_id;
    verdict.model_name_or_path = model;
    auto finish = [&](Verdict& done) -> Verdict& {
        done.timings.total = Clock::now() - started;
        return done;
    };

    // 1. The diff, out of the model's raw answer when it is one.
    verdict.patch = extract_diff(answer);
    if (verdict.patch.empty() && !run_without_patch) {
        verdict.status = EvaluationStatus::empty_patch;
        return finish(verdict);
    }
    // 2. Refused before anything is applied: paths out, symlinks out, the test files when they are protected.
    PatchCheckOptions checks;
    if (options.protect_tests) checks.protected_paths = test_files(instance);
    if (auto reason = refuse_reason(verdict.patch, checks)) {
        verdict.refused = *reason;
        verdict.status = EvaluationStatus::unresolved;
        return finish(verdict);
    }

    std::shared_ptr<Session> session;
    try {
        // 3. The repository's tree at its base commit, read on the host; the session gets only that.
        auto phase = Clock::now();
        std::string tree;
        try {
            tree = repository_tree_tar(instance.repo, instance.base_commit);
        } catch (const error& failure) {
            throw InfrastructureFailure(failure.what());
        }
        SessionOptions session_options;
        session_options.limits = options.limits;
        session_options.template_name = options.template_name;  // its virtualenv's bin comes first on PATH
        session_options.timeout = options.test_timeout + 6 * options.step_timeout;  // every step, with room
        session = sandbox.create_session(session_options);
        verdict.timings.session_start = Clock::now() - phase;

        phase = Clock::now();
        const auto private_directory = "/home/user/.e2beval-" + nonce();
        session->write_file(private_directory + "/repo.tar", tree);
        tree.clear();
        session->write_file(private_directory + "/test.patch", instance.test_patch);
        session->write_file(private_directory + "/model.patch", verdict.patch);
        auto copied = Step{session->run_command(
            std::string("set -e\nmkdir -p ") + kRepository + "\ntar -xf " + private_directory + "/repo.tar -C " + kRepository +
                " --no-same-owner\nrm " + private_directory + "/repo.tar\n" + in_repository(std::string(kGit) +
                " init -q && " + kGit + " add -A && " + kGit + " commit -q --no-verify --allow-empty -m base"),
            options.step_timeout)};
        if (!copied.ok()) throw InfrastructureFailure("copying the repository into the sandbox failed: " + copied.log());
        if (!instance.test_patch.empty()) {
            auto tests = run(*session, std::string(kGit) + " apply --verbose " + private_directory + "/test.patch && " + kGit +
                                           " add -A && " + kGit + " commit -q --no-verify -m tests", options.step_timeout);
            if (!tests.ok()) throw InfrastructureFailure("the instance's test_patch does not apply to its base commit: " + tests.log());
        }
        verdict.timings.copy_in = Clock::now() - phase;

        // 4. The model's patch, with the fallback chain; the tree is reset between steps.
        phase = Clock::now();
        if (verdict.patch.empty()) {
            verdict.applied = true;
            verdict.apply_step = "none (empty patch)";
        }
        for (const auto& step : apply_steps()) {
            if (verdict.applied) break;
            const auto command = (step.rfind("git ", 0) == 0 ? std::string(kGit) + step.substr(3) : step) + " " +
                                 private_directory + "/model.patch";
            auto attempt = run(*session, command, options.step_timeout);
            verdict.apply_log += "$ " + step + " model.patch\n" + attempt.log();
            if (attempt.ok()) {
                verdict.applied = true;
                verdict.apply_step = step;
            } else {
                run(*session, std::string(kGit) + " reset -q --hard && " + kGit + " clean -q -fdx", options.step_timeout);
            }
        }
        if (!verdict.applied) {
            verdict.timings.apply = Clock::now() - phase;
            verdict.status = EvaluationStatus::unresolved;
            return finish(verdict);
        }
        // What the files became, and a last look for links out that a fuzzy apply could have made.
        auto diff = run(*session, std::string(kGit) + " add -A && " + kGit + " diff --cached --binary HEAD", options.step_timeout);
        verdict.applied_diff = diff.output.stdout_data;
        auto links = run(*session,
                         "find . -path ./.git -prune -o -type l -print | while read -r link; do "
                         "case \"$(realpath -m -- \"$link\")\" in " + std::string(kRepository) + "/*) ;; *) echo \"$link\";; esac; done",
                         options.step_timeout);
        if (!links.output.stdout_data.empty()) {
            verdict.refused = "after applying, these symlinks point out of the repository: " + links.output.stdout_data;
            verdict.timings.apply = Clock::now() - phase;
            verdict.status = EvaluationStatus::unresolved;
            return finish(verdict);
        }
        // The test files as the instance has them (base + test_patch), whatever the patch did to them: SWE-bench
        // checks them out again before it runs the tests, so a patch that edits or deletes a test instead of
        // fixing the code gains nothing (--protect-tests refuses such a patch outright instead).
        std::string restore = "restored=''\n";
        for (const auto& file : test_files(instance))
            restore += "if " + std::string(kGit) + " cat-file -e HEAD:" + shell_quote(file) + " 2>/dev/null && ! " + kGit +
                       " diff --quiet HEAD -- " + shell_quote(file) + "; then " + kGit + " checkout -q HEAD -- " +
                       shell_quote(file) + " && restored=\"$restored \"" + shell_quote(file) + "; fi\n";
        // And pytest's own configuration: a conftest.py hook can rewrite every test's outcome before any report
        // sees it (SWE-bench's log parsing is fooled the same way), so conftest.py and pytest.ini files the patch
        // added, changed or deleted are put back as the instance has them (an added one is removed).
        restore += std::string(kGit) + " diff --name-only HEAD -- ':(glob)**/conftest.py' ':(glob)**/pytest.ini' | "
                   "while IFS= read -r file; do if " + kGit + " cat-file -e HEAD:\"$file\" 2>/dev/null; then " + kGit +
                   " checkout -q HEAD -- \"$file\"; else " + kGit + " rm -q -f -- \"$file\"; fi; "
                   "echo \"pytest configuration restored to the instance's before the tests: $file\"; done\n";
        restore += "[ -z \"$restored\" ] || echo \"test files restored to the instance's before the tests:$restored\"\n";
        auto restored = run(*session, restore, options.step_timeout);
        if (!restored.ok()) throw InfrastructureFailure("restoring the instance's test files failed: " + restored.log());
        verdict.apply_log += restored.log();
        verdict.timings.apply = Clock::now() - phase;

        // 5. The tests, with the framework's own report written where only this run knows.
        phase = Clock::now();
        const auto plan = plan_test_run(instance, private_directory);
        for (const auto& [path, content] : plan.files) session->write_file(path, content);
        auto tests = run(*session, plan.command, options.test_timeout);
        verdict.timings.tests = Clock::now() - phase;
        verdict.test_exit_code = tests.output.exit_code;
        verdict.test_timed_out = tests.output.timed_out;
        verdict.test_log = cap(tests.log(), options.max_log_bytes);
        std::optional<std::string> report;
        if (plan.report_path) {
            auto exists = Step{session->run_command("test -f " + *plan.report_path, options.step_timeout)};
            if (exists.ok()) report = session->read_file(*plan.report_path);
        }
        auto results = read_test_run(instance, tests.log(), tests.output.exit_code, report);
        if (verdict.test_timed_out) results.integrity.insert(results.integrity.begin(), "the tests ran past their timeout and were killed");
        verdict.suite_completed = results.suite_completed;
        verdict.integrity = std::move(results.integrity);
        verdict.test_statuses = std::move(results.statuses);

        // 6. Graded as SWE-bench grades.
        // pytest ids may be SWE-bench's, cut at the first space (grading.hpp); unittest's hold a space by nature.
        verdict.report = grade(verdict.test_statuses, instance.fail_to_pass, instance.pass_to_pass,
                               instance.test_framework == "pytest" ? TestIdMatching::cut_at_whitespace : TestIdMatching::exact);
        verdict.resolution = verdict.report.resolution;
        verdict.status = verdict.resolution == Resolution::full ? EvaluationStatus::resolved : EvaluationStatus::unresolved;
        if (verdict.patch.empty() && !run_without_patch) verdict.status = EvaluationStatus::empty_patch;
    } catch (const InfrastructureFailure& failure) {
        verdict.status = EvaluationStatus::error;
        verdict.error = failure.what();
    } catch (const std::exception& failure) {
        verdict.status = EvaluationStatus::error;
        verdict.error = std::string("the sandbox failed: ") + failure.what();
    }
    if (session) session->kill();
    return finish(verdict);
}

}  // namespace

Verdict evaluate_patch(Sandbox& sandbox, const Instance& instance, const std::string& patch, const EvaluationOptions& options,
                       const std::string& model_name_or_path) {
    return evaluate_steps(sandbox, instance, patch, options, model_name_or_path, false);
}

Validation validate_instance(Sandbox& sandbox, const Instance& instance, const EvaluationOptions& options) {
    Validation validation;
    validation.gold = evaluate_steps(sandbox, instance, instance.gold_patch, options, "gold", false);
    validation.empty = evaluate_steps(sandbox, instance, "", options, "empty", true);
    if (instance.gold_patch.empty()) validation.problems.push_back("the instance has no gold patch (\"patch\")");
    for (const auto* verdict : {&validation.gold, &validation.empty})
        if (verdict->status == EvaluationStatus::error)
            validation.problems.push_back(verdict->model_name_or_path + " run failed: " + verdict->error);
    if (validation.gold.status != EvaluationStatus::error && !instance.gold_patch.empty()) {
        if (!validation.gold.applied) validation.problems.push_back("the gold patch does not apply");
        for (const auto& test : validation.gold.report.fail_to_pass.failure)
            validation.problems.push_back("with the gold patch, FAIL_TO_PASS " + test.test + " is " + test.status);
        for (const auto& test : validation.gold.report.pass_to_pass.failure)
            validation.problems.push_back("with the gold patch, PASS_TO_PASS " + test.test + " is " + test.status);
    }
    if (validation.empty.status != EvaluationStatus::error) {
        for (const auto& test : validation.empty.report.fail_to_pass.success)
            validation.problems.push_back("with no patch, FAIL_TO_PASS " + test.test + " already passes");
        for (const auto& test : validation.empty.report.pass_to_pass.failure)
            validation.problems.push_back("with no patch, PASS_TO_PASS " + test.test + " is " + test.status);
    }
    return validation;
}

}  // namespace e2beval::swe
