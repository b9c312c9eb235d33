// Installing the prepared seccomp filter, child side (see seccomp.hpp). Apart from the compiler in
// seccomp.cpp because this part runs in the sandbox, also in the warm pool's zygote (warm_steps.cpp),
// which must not need libseccomp.
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "local/seccomp.hpp"

namespace e2beval::local {

StepError install_seccomp_filter(const sock_fprog& filter, bool reports_denials, int& listener_fd) noexcept {
    const unsigned long flags = reports_denials ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
    const long result = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &filter);
    if (result < 0) return {"seccomp(SECCOMP_SET_MODE_FILTER)", "", errno};
    listener_fd = reports_denials ? static_cast<int>(result) : -1;
    return {};
}

}  // namespace e2beval::local
