# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: kexec_load / kexec_file_load (booting another kernel) and reboot(2); need CAP_SYS_BOOT in the initial namespace; seccomp denies them.
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
report("kexec_load", *sys_call(246, 0, 0, 0, 0))
report("kexec_file_load", *sys_call(320, -1, -1, 0, b"", 0x4))  # KEXEC_FILE_NO_INITRAMFS
report("reboot(CAD_OFF)", *sys_call(169, 0xfee1dead, 672274793, 0, 0))
