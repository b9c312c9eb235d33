# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: /dev must hold only null, zero, full, random, urandom plus fd/stdin/stdout/stderr/shm; host devices (mem, kmsg, disks, tty, kvm, fuse, net/tun, loop) must be absent, and the five must be the real character devices.
import os, stat
allowed = {"null", "zero", "full", "random", "urandom", "fd", "stdin", "stdout", "stderr", "shm"}
entries = set(os.listdir("/dev"))
extra = sorted(entries - allowed)
print(("LEAKED extra /dev entries " + ",".join(extra)) if extra else f"BLOCKED /dev holds only {sorted(entries)}")
expected = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9)}
for name, (major, minor) in expected.items():
    st = os.stat("/dev/" + name)
    right = stat.S_ISCHR(st.st_mode) and (os.major(st.st_rdev), os.minor(st.st_rdev)) == (major, minor)
    print(("BLOCKED" if right else "LEAKED") + f" /dev/{name} is {os.major(st.st_rdev)}:{os.minor(st.st_rdev)}")
for name in ["mem", "kmem", "port", "kmsg", "vda", "sda", "tty", "console", "kvm", "fuse", "net/tun", "loop0", "loop-control", "dri"]:
    try:
        os.close(os.open("/dev/" + name, os.O_RDONLY))
    except OSError as e:
        print(f"BLOCKED /dev/{name}: {e.errno}")
    else:
        print(f"LEAKED opened /dev/{name}")
