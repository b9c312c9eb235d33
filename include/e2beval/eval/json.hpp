// JSON forms of the evaluation layer's values: a Verdict and its cases, as the CLI's --json output and the
// Python module describe them.
#pragma once

#include <boost/json/object.hpp>

#include "e2beval/eval/answer.hpp"
#include "e2beval/eval/runner.hpp"

namespace e2beval {

boost::json::object to_json(const CaseResult& result);
boost::json::object to_json(const CompileStage& stage);
boost::json::object to_json(const Verdict& verdict);
boost::json::object to_json(const AnswerRun& run);

}  // namespace e2beval
