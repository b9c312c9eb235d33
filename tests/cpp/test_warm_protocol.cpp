// The bytes the supervisor sends a warm-pool zygote (warm_protocol.hpp): what goes in comes out, and what is
// damaged, short, long or out of bounds is refused rather than half-read (the zygote then reports a
// failed step instead of running anything).
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <string>

#include "local/program_steps.hpp"
#include "local/warm_protocol.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_warm_protocol {

using namespace e2beval::local;

namespace {

WarmRequest sample_request() {
    WarmRequest request;
    request.steps.workspace_bytes = 16u << 20;
    request.steps.rlimits = {{RLIMIT_NOFILE, 64, 64, "RLIMIT_NOFILE"}, {RLIMIT_NPROC, 34, 34, "RLIMIT_NPROC"}};
    request.environment = {"HOME=/tmp", "EMPTY=", "LANG=C.UTF-8"};
    return request;
}

}  // namespace

TEST_CASE("a warm request comes out as it went in") {
    const auto decoded = decode_warm_request(encode_warm_request(sample_request()));
    REQUIRE(decoded);
    CHECK(decoded->steps.workspace_bytes == 16u << 20);
    REQUIRE(decoded->steps.rlimits.size() == 2);
    CHECK(decoded->steps.rlimits[1].resource == RLIMIT_NPROC);
    CHECK(decoded->steps.rlimits[1].soft == 34);
    CHECK(decoded->environment == sample_request().environment);
}

TEST_CASE("a damaged warm request is refused, never half-read") {
    const auto bytes = encode_warm_request(sample_request());
    CHECK_FALSE(decode_warm_request(""));
    CHECK_FALSE(decode_warm_request(bytes.substr(0, bytes.size() - 1)));  // short
    CHECK_FALSE(decode_warm_request(bytes + "x"));                        // trailing bytes
    auto wrong_magic = bytes;
    wrong_magic[0] ^= 1;
    CHECK_FALSE(decode_warm_request(wrong_magic));

    auto no_equals = sample_request();
    no_equals.environment = {"NAME"};
    CHECK_FALSE(decode_warm_request(encode_warm_request(no_equals)));
    auto with_nul = sample_request();
    with_nul.environment = {std::string("A=b\0c", 5)};
    CHECK_FALSE(decode_warm_request(encode_warm_request(with_nul)));
}

TEST_CASE("zygote settings carry the cgroup tasks-file count, within one per v1 hierarchy") {
    WarmSettings settings;
    settings.seccomp_filter = {{0x06, 0, 0, 0x7fff0000}};  // BPF_RET | BPF_K: allow
    settings.cgroup_task_files = static_cast<std::uint32_t>(kMaxCgroupTaskFiles);
    const auto decoded = decode_warm_settings(encode_warm_settings(settings));
    REQUIRE(decoded);
    CHECK(decoded->cgroup_task_files == static_cast<std::uint32_t>(kMaxCgroupTaskFiles));
    CHECK(decoded->seccomp_filter.size() == 1);

    settings.cgroup_task_files = kMaxCgroupTaskFiles + 1;
    CHECK_FALSE(decode_warm_settings(encode_warm_settings(settings)));
    settings.cgroup_task_files = 0;
    settings.seccomp_filter.clear();  // an empty filter is no filter: refused
    CHECK_FALSE(decode_warm_settings(encode_warm_settings(settings)));
}

}  // namespace e2beval_test_warm_protocol
