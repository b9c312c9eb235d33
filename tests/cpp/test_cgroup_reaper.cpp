// The cgroup reaper (src/local/cgroup_reaper.hpp) on real cgroups: a forked process that makes a sandbox cgroup
// and is SIGKILLed loses it within a second, its reaper ends, and the cgroups of the live process that forked
// it (named after their own owner, not the child) are left alone.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "local/cgroup.hpp"

namespace {

using e2beval::Limits;
using e2beval::local::CgroupSupport;
using e2beval::local::SandboxCgroup;
using Clock = std::chrono::steady_clock;

std::vector<std::string> cgroups_of(pid_t owner) {
    std::vector<std::string> found;
    const auto prefix = "e2beval-" + std::to_string(owner) + "-";
    for (const auto& parent : e2beval::local::sweep_stale_cgroups(std::chrono::milliseconds(0)).parents)
        for (const auto& entry : std::filesystem::directory_iterator(parent))
            if (entry.path().filename().string().rfind(prefix, 0) == 0) found.push_back(entry.path().string());
    std::sort(found.begin(), found.end());
    return found;
}

// Processes whose command line is the reaper's, watching `owner`'s cgroups.
std::vector<pid_t> reapers_of(pid_t owner) {
    std::vector<pid_t> found;
    const std::string wanted = std::string("e2beval-cgroup-reaper") + '\0' + "e2beval-" + std::to_string(owner) + "-";
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        std::ifstream file(entry.path() / "cmdline");
        std::string arguments((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        if (arguments.rfind(wanted, 0) == 0) found.push_back(std::stoi(entry.path().filename().string()));
    }
    return found;
}

}  // namespace

TEST_CASE("a killed process's sandbox cgroups go within a second, and the live parent's stay") {
    if (e2beval::local::cgroup_support().version == CgroupSupport::Version::none) {
        MESSAGE("no usable cgroups on this host: there are no sandbox cgroups to remove (see e2beval doctor)");
        CHECK(e2beval::local::cgroup_reaper().why_not == "this host gives e2beval no cgroups");
        return;
    }
    // This process's own sandbox cgroup, made (and its reaper started) before the fork.
    auto parents_cgroup = SandboxCgroup::create(Limits{});
    REQUIRE(parents_cgroup);
    const auto parents_cgroups = cgroups_of(::getpid());
    REQUIRE(!parents_cgroups.empty());
    CHECK(e2beval::local::cgroup_reaper().pid > 0);

    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // The child's sandbox cgroup carries its own pid, and it gets a reaper of its own.
        auto childs_cgroup = SandboxCgroup::create(Limits{});
        const char made = childs_cgroup && e2beval::local::cgroup_reaper().pid > 0 ? 1 : 0;
        (void)!::write(ready[1], &made, 1);
        for (;;) ::pause();
    }
    ::close(ready[1]);
    char made = 0;
    CHECK(::read(ready[0], &made, 1) == 1);
    ::close(ready[0]);
    CHECK(made == 1);
    CHECK(cgroups_of(child).size() == parents_cgroups.size());  // one per hierarchy, as the parent's
    CHECK(reapers_of(child).size() == 1);

    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    const auto ended = Clock::now();
    while (!cgroups_of(child).empty() && Clock::now() - ended < std::chrono::seconds(1))
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(cgroups_of(child).empty());
    const auto give_up = Clock::now() + std::chrono::seconds(60);  // a bound, not a timing assertion
    while (!reapers_of(child).empty() && Clock::now() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(reapers_of(child).empty());
    CHECK(cgroups_of(::getpid()) == parents_cgroups);
}
