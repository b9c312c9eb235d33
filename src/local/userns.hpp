// User namespace: the sandbox runs as an unprivileged id inside, mapped to one host id outside.
// As root the host id is a dedicated, otherwise unused one; as an ordinary user it is the user's own.
#pragma once

#include <sys/types.h>

namespace e2beval::local {

struct IdMapping {
    uid_t inside_uid = 1000;
    gid_t inside_gid = 1000;
    uid_t host_uid = 0;
    gid_t host_gid = 0;
    bool allow_setgroups = false;  // only root may allow it; then the child clears supplementary groups
};

// The mapping for the next sandbox started by this process.
IdMapping choose_id_mapping();

// Parent side, around the clone that creates the sandbox's user namespace: as root, this thread's effective
// ids become the sandbox's host ids, so the namespace is owned by that unprivileged id and the kernel charges
// everything counted per user across namespaces (inotify instances and watches, POSIX message queues, queued
// signals, further user namespaces) to it, not to host root: no sandbox can exhaust a quota host root needs.
// Only this thread changes (raw syscalls; glibc's wrappers would change every thread), its file-system ids
// stay root's (the child still traverses host paths as before), and the destructor restores it. A no-op when
// not root (the namespace is the user's own then).
class NamespaceCreatorIdentity {
public:
    explicit NamespaceCreatorIdentity(const IdMapping& mapping);
    ~NamespaceCreatorIdentity();
    NamespaceCreatorIdentity(const NamespaceCreatorIdentity&) = delete;
    NamespaceCreatorIdentity& operator=(const NamespaceCreatorIdentity&) = delete;

private:
    bool changed_ = false;
};

// Parent side: writes setgroups, uid_map and gid_map of `child`. Throws sandbox_error naming the file.
void write_id_maps(pid_t child, const IdMapping& mapping);

}  // namespace e2beval::local
