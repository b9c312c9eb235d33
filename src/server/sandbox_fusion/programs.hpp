// The one program /submit runs for a HumanEval or MultiPL-E row: the answer (a continuation of the prompt, or a
// free-form chat answer when config.extra.is_freeform) assembled with the row's tests into a /run_code request.
// Python as SandboxFusion builds it (its import lines first, `check(entry_point)` last); the compiled languages and
// JavaScript, TypeScript and bash by e2beval's MultiPL-E assembly (include/e2beval/eval/assembly.hpp), whose
// differences from SandboxFusion's are in docs/sandbox-fusion-datasets.md.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include <boost/json/object.hpp>

#include "server/sandbox_fusion/dataset_requests.hpp"
#include "server/sandbox_fusion/datasets.hpp"
#include "server/sandbox_fusion/run_code.hpp"

namespace e2beval::server::sandbox_fusion {

// A request /submit cannot evaluate: its HTTP status (400, 404, 500, 503) and the message of {"detail": ...}.
struct SubmitRefused : std::runtime_error {
    SubmitRefused(int status_code, const std::string& message) : std::runtime_error(message), status(status_code) {}
    int status;
};

struct ProgramPlan {
    RunCodeRequest run;
    std::string extracted_code;                // the answer's code as the program uses it
    std::optional<std::string> extracted_type;  // for a free-form answer: how its code was found
    boost::json::object extra;                 // e2beval's account of the assembly: {"assembly": "..."}
};

// The lines SandboxFusion's IMPORT_HELPER puts before a Python HumanEval program, numpy's guarded (below).
extern const std::string_view kPythonImportHelper;

// Throws SubmitRefused (400) for a row that cannot be assembled (a provided_data row of the wrong shape, a language
// e2beval does not assemble).
ProgramPlan plan_program(std::string_view dataset, const SubmitRequest& request, const boost::json::object& row);

}  // namespace e2beval::server::sandbox_fusion
