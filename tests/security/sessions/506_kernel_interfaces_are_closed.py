# why: kernel memory and log interfaces (/proc/kcore, /dev/mem, /dev/kmsg, /proc/kmsg, /dev/port) cannot be read from a command or a cell, and /sys is not mounted
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    out = sandbox.commands.run("for f in /proc/kcore /dev/mem /dev/kmem /dev/kmsg /proc/kmsg /dev/port /dev/sda /dev/vda; do "
                               "head -c 16 $f >/dev/null 2>&1 && echo READ $f; done; ls /sys/kernel 2>/dev/null && echo SYS; true").stdout
    assert "READ" not in out and "SYS" not in out, out
    execution = sandbox.run_code("out = []\nfor f in ('/proc/kcore', '/dev/mem', '/proc/kmsg'):\n    try:\n        open(f, 'rb').read(16)\n"
                                 "        out.append(f)\n    except OSError:\n        pass\nout")
    assert execution.text == "[]", execution.text
