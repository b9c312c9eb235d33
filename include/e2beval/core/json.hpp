// JSON forms of the value types, shared by the CLI's --json output and the Python module, so both
// describe a result with the same field names.
#pragma once

#include <boost/json/object.hpp>
#include <boost/system/error_code.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "e2beval/core/types.hpp"

namespace e2beval {

// The JSON text of `value`, as every JSON e2beval writes for people and programs (the CLI's --json output, the
// Python module's results) should read. Boost 1.81's serializer writes doubles as 1E0 and 4.117647058823529E-1;
// here a double is its shortest round-trip form (0.4117647058823529, 1e-07), a whole one keeps a ".0" (1.0,
// 120.0) so that readers such as Python's json module still get a float, and NaN or infinity (not JSON) is
// null. Strings are escaped as Boost does; nothing else differs from boost::json::serialize.
std::string to_json_text(const boost::json::value& value);

boost::json::object to_json(const Limits& limits);
boost::json::object to_json(const ExecResult& result);

// The keys limits_from_json and isolation_from_json accept, for faces that check a configuration themselves.
const std::vector<std::string_view>& limit_keys();
const std::vector<std::string_view>& isolation_keys();

// Limits from {"wall_time_s", "cpu_time_s", "memory_mb", "max_processes", "output_bytes", "file_size_bytes",
// "workspace_mb", "open_files", "cpus"}; absent keys keep `base`. Unknown keys throw input_error listing the valid ones.
Limits limits_from_json(const boost::json::object& object, Limits base = {});


boost::json::object to_json(const IsolationProfile& isolation);
// IsolationProfile from {"network": bool, "seccomp": "deny"|"kill", "minimum_level": "standard"|"full"}.
IsolationProfile isolation_from_json(const boost::json::object& object, IsolationProfile base = {});

// JSON as Python's json module (and Node's JSON.stringify) writes it: a str holding a lone UTF-16 surrogate becomes
// the escape \udcff, legal JSON text but no Unicode character, which Boost.JSON refuses ("illegal trailing
// surrogate"); Python's json.load reads it. These readers take it, and what the string then holds is chosen:
enum class LoneSurrogates {
    as_escape_text,  // the six characters \udcff, so a report shows the text escaped, as it was written
    as_wtf8,         // the surrogate's three bytes (ED B3 BF, Python's "surrogatepass"): invalid UTF-8, which the
                     // text checks then find and name (find_invalid_text), so one bad field fails alone
};
// boost::json::parse of `text`, with each lone surrogate escape read as `how` says; `found` (when given) counts
// them. Everything else is as strict as boost::json::parse.
boost::json::value parse_json(std::string_view text, LoneSurrogates how, boost::system::error_code& ec,
                              std::size_t* found = nullptr);

// Where the first string (or key) in `value` that is not valid UTF-8 is, as a path below `path` ("vars.testCode",
// "output"), and what is there, escaped ("\udcff", "\xff"); nullopt when all of it is text.
struct InvalidText {
    std::string path;
    std::string shown;
};
std::optional<InvalidText> find_invalid_text(const boost::json::value& value, const std::string& path);

}  // namespace e2beval
