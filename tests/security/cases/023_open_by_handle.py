# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: the "shocker" escape: name_to_handle_at on a bound host file, then open_by_handle_at with a guessed handle for the host root inode; needs CAP_DAC_READ_SEARCH in the initial namespace (and seccomp denies both calls).
import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR_name_to_handle_at, NR_open_by_handle_at = 303, 304
buf = ctypes.create_string_buffer(struct.pack("II", 128, 0) + b"\0" * 128)
mount_id = ctypes.c_int()
r = libc.syscall(NR_name_to_handle_at, -100, b"/usr/bin/env", buf, ctypes.byref(mount_id), 0)
print(f"INFO name_to_handle_at -> {r} errno {ctypes.get_errno()}")
# ext4 root directory: inode 2, generation 0 (file handle type FILEID_INO32_GEN = 1)
handle = ctypes.create_string_buffer(struct.pack("IiII", 8, 1, 2, 0))
fd = os.open("/usr", os.O_RDONLY)
r = libc.syscall(NR_open_by_handle_at, fd, handle, os.O_RDONLY)
err = ctypes.get_errno()
if r >= 0:
    print(f"LEAKED open_by_handle_at opened the host root: {os.listdir(r)[:8]}")
else:
    print(f"BLOCKED open_by_handle_at: errno {err} {os.strerror(err)}")
