// JSON forms of the evaluation layer's values: a verdict and its cases.
#include "e2beval/eval/json.hpp"

#include <boost/json.hpp>
#include <chrono>

#include "e2beval/analysis/json.hpp"
#include "e2beval/core/json.hpp"
#include "e2beval/core/text.hpp"

namespace e2beval {

namespace json = boost::json;

json::object to_json(const CaseResult& result) {
    json::object object{{"input", to_valid_utf8(result.input)},   {"expected", to_valid_utf8(result.expected)},
                        {"actual", to_valid_utf8(result.actual)}, {"stdout", to_valid_utf8(result.stdout_data)},
                        {"pass", result.passed},                  {"reason", to_valid_utf8(result.reason)}};
    // A case run as a program of its own (compiled_shapes.hpp): its execution's outcome and run time.
    if (!result.outcome.empty()) {
        object["outcome"] = result.outcome;
        object["run_ms"] = result.run_ms ? json::value(*result.run_ms) : json::value(nullptr);
    }
    return object;
}

json::object to_json(const CompileStage& stage) {
    const auto& compile = stage.result;
    return {{"outcome", to_string(compile.outcome)},
            {"compile_ms", std::chrono::duration<double, std::milli>(compile.wall_time).count()},
            {"cached", compile.cached},
            {"toolchain", to_valid_utf8(compile.toolchain)},
            {"detail", to_valid_utf8(compile.detail)},
            {"compiler_runs", stage.compiler_runs},
            {"cache_hits", stage.cache_hits}};
}

json::object to_json(const Verdict& verdict) {
    json::array cases;
    for (const auto& result : verdict.cases) cases.push_back(to_json(result));
    json::object object{{"status", to_string(verdict.status)},
                        {"pass", verdict.pass},
                        {"score", verdict.score},
                        {"reason", to_valid_utf8(verdict.reason)},
                        {"cases", std::move(cases)},
                        {"findings", to_json(verdict.findings)}};
    object["extraction"] = verdict.extraction ? json::value(to_json(*verdict.extraction)) : json::value(nullptr);
    object["exec"] = verdict.exec ? json::value(to_json(*verdict.exec)) : json::value(nullptr);
    object["compile"] = verdict.compile ? json::value(to_json(*verdict.compile)) : json::value(nullptr);
    return object;
}

json::object to_json(const AnswerRun& run) {
    json::object object{{"status", to_string(run.status)},
                        {"reason", to_valid_utf8(run.reason)},
                        {"findings", to_json(run.findings)}};
    object["extraction"] = run.extraction ? json::value(to_json(*run.extraction)) : json::value(nullptr);
    object["exec"] = run.exec ? json::value(to_json(*run.exec)) : json::value(nullptr);
    return object;
}

}  // namespace e2beval
