// JSON forms of the analysis layer's values (extractions, findings, scanner policies and rules), for the CLI's
// --json output and the Python module; written as text with to_json_text (core/json.hpp).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <vector>

#include "e2beval/analysis/extract.hpp"
#include "e2beval/analysis/safety.hpp"

namespace e2beval {

boost::json::object to_json(const Finding& finding);
boost::json::value to_json(const std::vector<Finding>& findings);
boost::json::object to_json(const Extraction& extraction);
boost::json::object to_json(const RuleInfo& rule);

// Policy from a preset name ("standard") or {"preset", "allow_rules", "deny_rules", "allow_modules",
// "deny_modules", "allow_calls", "deny_calls"}. Unknown keys and names are input errors.
Policy policy_from_json(const boost::json::value& value);

}  // namespace e2beval
