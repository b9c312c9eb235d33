// Dropping every capability (effective, permitted, inheritable, ambient, bounding) and setting
// PR_SET_NO_NEW_PRIVS, with raw syscalls because libcap would allocate in the child.
#include "local/capabilities.hpp"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace e2beval::local {

StepError drop_privileges() noexcept {
    if (::setsid() < 0) return {"setsid", "", errno};
    for (int cap = 0; cap <= 63; ++cap) {
        // EINVAL past the kernel's last capability: the loop simply ends there.
        if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
            if (errno == EINVAL) break;
            return {"prctl(PR_CAPBSET_DROP)", "", errno};
        }
    }
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        return {"prctl(PR_CAP_AMBIENT_CLEAR_ALL)", "", errno};
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
    if (::syscall(SYS_capset, &header, data) != 0) return {"capset(all zero)", "", errno};
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return {"prctl(PR_SET_NO_NEW_PRIVS, 1)", "", errno};
    return {};
}

}  // namespace e2beval::local
