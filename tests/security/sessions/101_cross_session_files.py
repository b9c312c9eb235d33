# why: each session has its own workspace tmpfs and /dev/shm in its own mount namespace: a file one writes is invisible to the other's files API, commands and cells
# sessions: 2
from e2beval.sandbox import CommandExitException


def attack(first, second, host):
    t = host.token
    first.files.write(f"/home/user/{t}.txt", "first's secret")
    first.commands.run(f"echo first > /dev/shm/{t}; mkdir -p /tmp/dir-{t}")
    assert first.files.exists(f"/dev/shm/{t}")
    assert not second.files.exists(f"/home/user/{t}.txt")
    assert not second.files.exists(f"/dev/shm/{t}")
    names = [entry.name for entry in second.files.list("/home/user")] + [e.name for e in second.files.list("/dev/shm")]
    assert not [n for n in names if t in n], f"the other session's files are listed: {names}"
    try:
        found = second.commands.run(f"find /tmp/ /dev/shm/ /home/user/ -name '*{t}*' 2>/dev/null; ls /proc/*/root/tmp/ /proc/*/root/dev/shm/ 2>/dev/null").stdout
    except CommandExitException as failed:
        found = failed.stdout
    assert t not in found
    assert "True" not in (second.run_code(f"import glob\nbool(glob.glob('/tmp/**/*{t}*', recursive=True) + glob.glob('/dev/shm/*{t}*'))").text or "")
