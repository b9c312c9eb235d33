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

// Parent side: writes setgroups, uid_map and gid_map of `child`. Throws sandbox_error naming the file.
void write_id_maps(pid_t child, const IdMapping& mapping);

}  // namespace e2beval::local
