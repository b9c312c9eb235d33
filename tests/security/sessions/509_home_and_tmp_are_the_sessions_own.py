# why: /home/user and /tmp are the session's own tmpfs (one workspace, E2B's layout): neither is the host's /tmp or a host home, nothing of the host's /tmp (its canary, its files) or of /root and /home shows in them, what is written there stays inside, and a link to a host path finds nothing
import ast
import os


def attack(sandbox, host):
    listing = sandbox.commands.run("ls -la /tmp /home/user /home; ls -la /root 2>&1; true").stdout
    host_tmp_names = [name for name in os.listdir("/tmp") if len(name) > 6]
    assert not [name for name in host_tmp_names if name in listing], "a host /tmp entry is visible"
    assert os.path.basename(host.canary_path) not in listing and not host.leaked(listing)
    assert sandbox.commands.run("ls -A /home").stdout == "user\n"  # no host home directory
    # Both are the workspace tmpfs: one device, not the host's /tmp, not the root's.
    devices = sandbox.run_code("import os\n[os.stat(p).st_dev for p in ('/tmp', '/home/user', '/')]").text
    tmp_device, home_device, root_device = ast.literal_eval(devices)
    assert tmp_device == home_device != root_device
    assert tmp_device != os.stat("/tmp").st_dev
    mountinfo = sandbox.files.read("/proc/self/mountinfo")  # the agent's view: the session's own mounts
    mounts = [line.split() for line in mountinfo.splitlines() if line.count(" - ") == 1]
    types = {fields[4]: fields[fields.index("-") + 1] for fields in mounts}
    assert types.get("/tmp") == "tmpfs" and types.get("/home/user") == "tmpfs", types
    # Written inside, through commands, code and the files API: never on the host.
    sandbox.commands.run(f"echo x > /tmp/{host.token}-cmd && echo x > /home/user/{host.token}-cmd")
    sandbox.run_code(f"open('/tmp/{host.token}-code', 'w').write('x')")
    sandbox.files.write(f"/tmp/{host.token}-files", "x")
    sandbox.files.write(f"/home/user/{host.token}-files", "x")
    assert not [name for name in os.listdir("/tmp") if host.token in name]
    # Links to the host's /tmp canary and to host homes resolve inside, to nothing.
    sandbox.commands.run(f"ln -s {host.canary_path} /home/user/canary && ln -s /root/.bashrc /tmp/bashrc")
    read = sandbox.commands.run("cat /home/user/canary /tmp/bashrc 2>&1; true").stdout
    assert not host.leaked(read) and "No such file" in read
    assert not sandbox.files.exists(host.canary_path)
