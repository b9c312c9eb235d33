# why: the session's network namespace holds only the loopback device: /proc/net/dev and /proc/net/route show no host interface or route
# create: {"timeout": 60, "allow_internet_access": false}
def attack(sandbox, host):
    devices = sandbox.files.read("/proc/net/dev")
    names = [line.split(":")[0].strip() for line in devices.splitlines()[2:] if ":" in line]
    assert names == ["lo"], names
    routes = sandbox.files.read("/proc/net/route").splitlines()[1:]
    assert routes == [], routes
    host_devices = open("/proc/net/dev").read()
    assert [n for n in names if n != "lo"] == [] and "lo" in host_devices
