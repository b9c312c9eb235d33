// Session ids: what `e2beval serve` routes sandbox traffic by, so each is fresh from the kernel's random
// source (getrandom) in a fixed form: `local-` and 16 base-36 digits.
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <string>

#include "e2beval/session.hpp"
#include "test_sandbox.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_session_ids {

using namespace e2beval;

TEST_CASE("session ids are distinct and of the form local- and 16 base-36 digits") {
    const std::regex form("local-[0-9a-z]{16}");
    std::set<std::string> ids;
    for (int i = 0; i < 4; ++i) {
        SessionOptions options;
        options.timeout = std::chrono::seconds(30);
        auto session = testing::test_sandbox().create_session(options);
        CHECK(std::regex_match(session->id(), form));
        ids.insert(session->id());
        session->kill();
    }
    CHECK(ids.size() == 4);
}

}  // namespace e2beval_test_session_ids
