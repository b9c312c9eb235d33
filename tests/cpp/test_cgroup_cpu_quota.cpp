// The CPU cap (Limits::cpus) as the kernel holds it: the quota file of a sandbox cgroup, read from the host,
// follows apply_limits both ways (set, changed, lifted), as a warm zygote's reused cgroups need.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "e2beval/core/error.hpp"
#include "e2beval/local/local_sandbox.hpp"
#include "local/cgroup.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_cgroup_cpu_quota {

namespace {

using e2beval::Limits;
using e2beval::local::CgroupSupport;
using e2beval::local::SandboxCgroup;

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
}

// The quota of the cpu cgroup `pid` is in, as its file says: v2 "cpu.max" ("25000 100000", "max 100000"), v1
// "cpu.cfs_quota_us" ("25000", "-1"), first word only.
std::string cpu_quota_of(pid_t pid) {
    const auto& support = e2beval::local::cgroup_support();
    std::istringstream lines(read_file("/proc/" + std::to_string(pid) + "/cgroup"));
    for (std::string line; std::getline(lines, line);) {
        const auto first = line.find(':'), second = line.find(':', first + 1);
        const auto controllers = "," + line.substr(first + 1, second - first - 1) + ",";
        const auto path = line.substr(second + 1);
        const auto name = path.substr(path.rfind('/'));
        std::string file;
        if (support.version == CgroupSupport::Version::v2 && controllers == ",,")
            file = support.v2_parent + name + "/cpu.max";
        else if (support.version == CgroupSupport::Version::v1 && controllers.find(",cpu,") != std::string::npos)
            file = support.v1_parents.at("cpu") + name + "/cpu.cfs_quota_us";
        if (file.empty()) continue;
        std::istringstream words(read_file(file));
        std::string quota;
        words >> quota;
        return quota;
    }
    return "no cpu cgroup";
}

}  // namespace

TEST_CASE("a sandbox cgroup's CPU quota follows apply_limits: set, changed and lifted") {
    const auto& support = e2beval::local::cgroup_support();
    Limits capped;
    capped.cpus = 0.25;
    if (!support.cpu_quota) {
        // A host without the cpu controller refuses a cap rather than run it uncapped.
        e2beval::LocalSandbox sandbox;
        e2beval::ExecRequest request;
        request.code = "print(1)";
        request.limits = capped;
        CHECK_THROWS_WITH_AS(sandbox.execute(request), doctest::Contains("needs the cgroup cpu controller"), e2beval::sandbox_error);
        return;
    }
    auto cgroup = SandboxCgroup::create(capped);
    REQUIRE(cgroup);
    const pid_t child = ::fork();
    if (child == 0) {
        ::pause();
        ::_exit(0);
    }
    REQUIRE(child > 0);
    cgroup->add_process(child);
    CHECK(cpu_quota_of(child) == "25000");
    Limits two;
    two.cpus = 2;
    cgroup->apply_limits(two);
    CHECK(cpu_quota_of(child) == "200000");
    Limits tiny;
    tiny.cpus = 0.01;  // the kernel's floor: 1 ms per 100 ms period
    cgroup->apply_limits(tiny);
    CHECK(cpu_quota_of(child) == "1000");
    cgroup->apply_limits(Limits{});  // no cap asked: the quota is lifted, not left from the last execution
    CHECK(cpu_quota_of(child) == (support.version == CgroupSupport::Version::v2 ? "max" : "-1"));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
}

TEST_CASE("a CPU cap out of range is refused before any sandbox starts") {
    e2beval::LocalSandbox sandbox;
    e2beval::ExecRequest request;
    request.code = "print(1)";
    request.limits.cpus = 0.001;
    CHECK_THROWS_WITH_AS(sandbox.execute(request), doctest::Contains("must be at least 0.01"), e2beval::input_error);
    request.limits.cpus = 5000;
    CHECK_THROWS_WITH_AS(sandbox.execute(request), doctest::Contains("between 0 (no cap) and 4096"), e2beval::input_error);
}

}  // namespace e2beval_test_cgroup_cpu_quota
