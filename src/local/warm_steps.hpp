// The warm pool zygote's compiled steps (warm_steps.cpp), as its loop (warm_serve.cpp) composes them. Each
// returns 0, or -1 after keeping what failed, which e2beval_warm_report_failure() then sends to the
// supervisor. C linkage: the zygote and the session agent call some of them from Python (ctypes).
#pragma once

#include <sys/resource.h>

#include <cstddef>

#include "local/warm_protocol.hpp"

extern "C" {
int e2beval_warm_fork();
int e2beval_warm_enter_new_pid_namespace();
int e2beval_warm_return_to_own_pid_namespace();
int e2beval_warm_mount_own_workspace();
int e2beval_warm_contain(int report_fd);
void e2beval_warm_report_failure(int fd);
void e2beval_warm_report_bug(int fd, const char* text);
int e2beval_warm_report_ready(int fd, int pid, int standby_pidfd);
int e2beval_warm_report_standby(int fd, int standby_pidfd);
int e2beval_warm_report_started(int fd, int pidfd);
void e2beval_warm_report_ended(int fd, int wait_status, const struct rusage* usage);
int e2beval_warm_record_failure(const char* call, int error);
int e2beval_warm_cgroup_task_files();
}

namespace e2beval::local {

// On the request, in its process: keeps its steps (for e2beval_warm_contain) and gives the workspace the
// request's size.
int warm_prepare(WarmSteps request_steps);

}  // namespace e2beval::local
