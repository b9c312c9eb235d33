// The cgroup reaper (src/local/cgroup_reaper.hpp) on real cgroups: a forked process that makes a sandbox cgroup
// and is SIGKILLed loses it within a second, its reaper ends, and the cgroups of the live process that forked
// it (named after their own owner, not the child) are left alone; on cgroup v2 (the unified hierarchy of a
// hybrid host too), a process left in a dead owner's cgroup is killed and the cgroup removed.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "local/cgroup.hpp"
#include "local/cgroup_reaper.hpp"
#include "waiting.hpp"

// The tests are unity-built (CMakeLists.txt): this source's names stay in a namespace of its own.
namespace e2beval_test_cgroup_reaper {

namespace {

using e2beval::Limits;
using e2beval::local::CgroupSupport;
using e2beval::local::SandboxCgroup;

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
    // This process's own sandbox cgroup, made (and its reaper started) before the fork: its directories are the
    // ones that appear (earlier tests' cgroups may come and go meanwhile, so only these are followed).
    const auto hierarchies = e2beval::local::sweep_stale_cgroups(std::chrono::milliseconds(0)).parents.size();
    const auto before = cgroups_of(::getpid());
    auto parents_cgroup = SandboxCgroup::create(Limits{});
    REQUIRE(parents_cgroup);
    std::vector<std::string> parents_cgroups;
    for (const auto& path : cgroups_of(::getpid()))
        if (!std::binary_search(before.begin(), before.end(), path)) parents_cgroups.push_back(path);
    REQUIRE(parents_cgroups.size() == hierarchies);
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
    CHECK(cgroups_of(child).size() == hierarchies);  // its own, named after it
    CHECK(reapers_of(child).size() == 1);

    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    // Nothing here starts another owner (whose start would sweep them): what removes them is the reaper.
    CHECK_MESSAGE(e2beval::testing::until([&] { return cgroups_of(child).empty(); }), "the reaper did not remove the killed owner's cgroups");
    CHECK_MESSAGE(e2beval::testing::until([&] { return reapers_of(child).empty(); }), "the reaper did not end after its work");
    for (const auto& path : parents_cgroups) CHECK(std::filesystem::exists(path));
}

namespace {

// A cgroup v2 directory this process may make cgroups in: the sandboxes' parent where e2beval uses v2, else
// this process's own cgroup on a cgroup2 mount (a hybrid host's unified hierarchy needs no controllers for
// this); empty when there is none.
std::string writable_v2_directory() {
    const auto& support = e2beval::local::cgroup_support();
    if (support.version == CgroupSupport::Version::v2) return support.v2_parent;
    std::string own;
    std::ifstream cgroups("/proc/self/cgroup");
    for (std::string line; std::getline(cgroups, line);)
        if (line.rfind("0::", 0) == 0) own = line.substr(3);
    std::ifstream mounts("/proc/self/mountinfo");
    for (std::string line; std::getline(mounts, line);) {
        const auto dash = line.find(" - cgroup2 ");
        if (dash == std::string::npos || own.empty()) continue;
        std::istringstream fields(line.substr(0, dash));
        std::string id, parent, device, root, mount_point;
        fields >> id >> parent >> device >> root >> mount_point;
        if (own.rfind(root, 0) != 0) continue;
        const auto directory = mount_point + own.substr(root == "/" ? 0 : root.size());
        if (::access(directory.c_str(), W_OK) == 0) return directory == mount_point + "/" ? mount_point : directory;
    }
    return {};
}

unsigned long long start_time_of(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    for (int index = 3; index <= 22 && fields >> field;) ++index;
    return std::stoull(field);
}

bool running(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    return !text.empty() && text[text.rfind(')') + 2] != 'Z';
}

}  // namespace

TEST_CASE("the reaper on cgroup v2 kills what did not die with the owner, then removes the cgroup") {
    const auto parent = writable_v2_directory();
    if (parent.empty()) {
        MESSAGE("no writable cgroup v2 directory here: the reaper's v2 path is covered where e2beval uses v2");
        CHECK(e2beval::local::cgroup_support().version != CgroupSupport::Version::v2);
        return;
    }
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const pid_t owner = ::fork();
    REQUIRE(owner >= 0);
    if (owner == 0) {
        // An owner whose reaper watches `parent` in v2 mode, with a cgroup holding a process that outlives it
        // (no parent-death signal, its own session): what a sandbox that failed to die would leave.
        const auto prefix = "e2beval-" + std::to_string(::getpid()) + "-" + std::to_string(start_time_of(::getpid())) + "-";
        const auto state = e2beval::local::ensure_cgroup_reaper(
            [&] { return e2beval::local::CgroupReaperPlan{prefix, true, {parent}}; });
        const auto cgroup = parent + "/" + prefix + "0";
        pid_t stray = -1;
        if (state.pid > 0 && ::mkdir(cgroup.c_str(), 0755) == 0 && (stray = ::fork()) == 0) {
            ::setsid();
            std::ofstream(cgroup + "/cgroup.procs") << 0;
            for (;;) ::pause();
        }
        // Reported once the stray is inside.
        (void)e2beval::testing::until([&] {
            std::ifstream procs(cgroup + "/cgroup.procs");
            std::string listed;
            return stray <= 0 || (procs >> listed && listed == std::to_string(stray));
        });
        (void)!::write(ready[1], &stray, sizeof stray);
        for (;;) ::pause();
    }
    ::close(ready[1]);
    pid_t stray = -1;
    CHECK(::read(ready[0], &stray, sizeof stray) == sizeof stray);
    ::close(ready[0]);
    REQUIRE(stray > 0);
    const auto cgroup = parent + "/e2beval-" + std::to_string(owner) + "-" + std::to_string(start_time_of(owner)) + "-0";
    CHECK(std::filesystem::exists(cgroup));

    ::kill(owner, SIGKILL);
    int status = 0;
    ::waitpid(owner, &status, 0);
    CHECK_MESSAGE(e2beval::testing::until([&] { return !std::filesystem::exists(cgroup); }), "the reaper did not remove the owner's cgroup");
    CHECK_MESSAGE(e2beval::testing::until([&] { return !running(stray); }), "the stray process in the owner's cgroup was not killed");
    if (running(stray)) ::kill(stray, SIGKILL);
}

}  // namespace e2beval_test_cgroup_reaper
