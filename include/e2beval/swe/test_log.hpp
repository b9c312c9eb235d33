// Per-test results read from a test run's log, one parser per framework behind one interface (others can be
// added with register_parser), as SWE-bench's log_parsers map each repository to its framework's parser.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace e2beval::swe {

enum class TestStatus { passed, failed, skipped, error, xfail };
std::string_view to_string(TestStatus status) noexcept;

// Test id → status. Ids are the framework's own: pytest node ids ("tests/test_x.py::test_y"), unittest
// "test_y (module.Class)".
using TestStatusMap = std::map<std::string, TestStatus>;

class TestLogParser {
public:
    virtual ~TestLogParser() = default;
    virtual std::string_view name() const noexcept = 0;
    virtual TestStatusMap parse(const std::string& log) const = 0;
};

// The parser named `framework` ("pytest", "unittest", or one registered). Throws input_error naming the known ones.
const TestLogParser& parser_for(const std::string& framework);
void register_parser(std::shared_ptr<const TestLogParser> parser);
std::vector<std::string> parser_names();

}  // namespace e2beval::swe
