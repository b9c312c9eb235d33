# why: the host canary's path is /tmp/... and the session's /tmp is its own workspace: files.write and files.remove of that path act on the workspace only, the host file keeps its text
import os


def attack(sandbox, host):
    sandbox.files.write(host.canary_path, "overwritten from the session")
    assert sandbox.files.read(host.canary_path) == "overwritten from the session"
    sandbox.files.remove(host.canary_path)
    sandbox.commands.run(f"echo appended >> {host.canary_path}; rm -f {host.canary_path}")
    sandbox.run_code(f"open({host.canary_path!r}, 'w').write('cell')")
    assert os.path.exists(host.canary_path)
    assert open(host.canary_path).read() == host.canary_text
