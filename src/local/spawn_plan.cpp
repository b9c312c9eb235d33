// Builds argv/envp pointer arrays so the child can execve without allocating.
#include "local/spawn_plan.hpp"

namespace e2beval::local {

void SpawnPlan::finalize() {
    argv.clear();
    envp.clear();
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    for (auto& variable : environment) envp.push_back(variable.data());
    envp.push_back(nullptr);
}

}  // namespace e2beval::local
