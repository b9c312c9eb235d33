# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: bpf(2): BPF_MAP_CREATE and BPF_PROG_LOAD (verifier bugs are a main kernel-escape route); unprivileged bpf is disabled on this host and seccomp denies bpf.
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sys_call(nr, *args):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return result, ctypes.get_errno()
def report(name, result, err):
    if result == -1:
        print(f"BLOCKED {name}: errno {err} {os.strerror(err)}")
    else:
        print(f"LEAKED {name} returned {result}")
import struct
attr = ctypes.create_string_buffer(struct.pack("IIII", 2, 4, 4, 1) + b"\0" * 112)  # BPF_MAP_TYPE_ARRAY
report("bpf(BPF_MAP_CREATE)", *sys_call(321, 0, attr, 128))
insns = struct.pack("BBhi", 0xb7, 0, 0, 0) + struct.pack("BBhi", 0x95, 0, 0, 0)  # r0 = 0; exit
prog = ctypes.create_string_buffer(insns)
license = ctypes.create_string_buffer(b"GPL")
attr = ctypes.create_string_buffer(struct.pack("IIQQ", 1, 2, ctypes.addressof(prog), ctypes.addressof(license)) + b"\0" * 104)  # SOCKET_FILTER
report("bpf(BPF_PROG_LOAD)", *sys_call(321, 5, attr, 128))
