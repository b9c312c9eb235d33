# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: loading a kernel module (init_module with a bogus image, finit_module on a file, delete_module); needs CAP_SYS_MODULE in the initial namespace; seccomp denies all three.
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
image = ctypes.create_string_buffer(b"\x7fELF" + b"\0" * 60)
report("init_module", *sys_call(175, image, 64, b""))
with open("/tmp/fake.ko", "wb") as f:
    f.write(b"\x7fELF" + b"\0" * 60)
fd = os.open("/tmp/fake.ko", os.O_RDONLY)
report("finit_module", *sys_call(313, fd, b"", 0))
report("delete_module(ext4)", *sys_call(176, b"ext4", 0o4000))
