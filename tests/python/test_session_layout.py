# E2B's filesystem layout and defaults in e2beval.Sandbox (docs/sessions.md, "Files and paths"): /home/user is
# the working directory of code and commands and the home of relative paths, /tmp a directory of its own (both
# on the workspace's one size-limited tmpfs), HOME/USER/LOGNAME/PWD as envd gives them, a `sudo` that runs the
# command as the same user, files.remove of a missing path as envd's, and watch_dir's events as envd's.
import pytest

from e2beval import Sandbox
from e2beval.sandbox import CommandExitException, SandboxException

MiB = 1 << 20


@pytest.fixture
def sandbox():
    with Sandbox.create(timeout=120) as box:
        yield box


def events(handle):
    return [(event.name, event.type.value) for event in handle.get_new_events()]


def test_home_user_is_the_working_directory_of_code_commands_and_relative_paths(sandbox):
    assert sandbox.commands.run("pwd").stdout == "/home/user\n"
    assert sandbox.run_code("from pathlib import Path; print(Path.cwd())").logs.stdout == ["/home/user\n"]
    assert sandbox.run_code("process.cwd()", language="javascript").text == "'/home/user'"
    assert sandbox.run_code("pwd", language="bash").logs.stdout == ["/home/user\n"]
    # E2B's test_get_info_of_file: a relative path's info is under the directory `pwd` prints.
    sandbox.files.write("test_file.txt", "test")
    current = sandbox.commands.run("pwd").stdout.strip()
    assert sandbox.files.get_info("test_file.txt").path == f"{current}/test_file.txt"
    assert sandbox.run_code("open('test_file.txt').read()").text == "'test'"
    # What envd gives a command: HOME, USER and LOGNAME of its user; bash's PWD is the real directory.
    env = sandbox.commands.run('echo "$HOME $USER $LOGNAME $PWD"; cd ~ && pwd -P').stdout
    assert env == "/home/user user user /home/user\n/home/user\n"
    assert sandbox.run_code("import os; os.environ['HOME'], os.getcwd()").text == "('/home/user', '/home/user')"


def test_tmp_is_a_writable_directory_of_its_own_and_the_agent_leaves_no_file(sandbox):
    # Nothing of the agent (its script, its steps library) is left in either place.
    assert sandbox.files.list("/home/user") == []
    assert sandbox.files.list("/tmp") == []
    shown = sandbox.commands.run("stat -c '%F %a %U' /home/user /tmp; readlink /home/user || echo not-a-link")
    assert shown.stdout == "directory 755 user\ndirectory 1777 user\nnot-a-link\n"
    sandbox.commands.run("echo scratch > /tmp/scratch.txt && echo kept > /home/user/kept.txt")
    assert [entry.name for entry in sandbox.files.list("/tmp")] == ["scratch.txt"]
    assert [entry.name for entry in sandbox.files.list("/home/user")] == ["kept.txt"]
    assert sandbox.files.read("/tmp/scratch.txt") == "scratch\n"
    assert sandbox.run_code("import tempfile; tempfile.gettempdir()").text == "'/tmp'"
    # Moving between the two is a move between two mounts: the files API and mv copy, then remove.
    moved = sandbox.files.rename("/tmp/scratch.txt", "/home/user/scratch.txt")
    assert moved.path == "/home/user/scratch.txt" and sandbox.files.exists("/tmp/scratch.txt") is False


def test_home_and_tmp_share_the_workspace_limit():
    with Sandbox.create(timeout=120, limits={"workspace_mb": 8}) as sandbox:
        sizes = sandbox.commands.run("stat -f -c '%b %S' /home/user /tmp").stdout.split("\n")
        assert sizes[0] == sizes[1] and int(sizes[0].split()[0]) * int(sizes[0].split()[1]) == 8 * MiB
        sandbox.commands.run("head -c 5M /dev/zero > /tmp/five.bin")
        with pytest.raises(CommandExitException) as full:
            sandbox.commands.run("head -c 5M /dev/zero > /home/user/five.bin")
        assert "No space left on device" in full.value.stderr
        sandbox.commands.run("rm /tmp/five.bin && head -c 5M /dev/zero > /home/user/again.bin")


def test_sudo_runs_the_command_as_the_same_user_and_grants_nothing(sandbox):
    # E2B's test_bash_command_scoped_env_vars, verbatim in what it runs.
    assert sandbox.commands.run("echo $FOO", envs={"FOO": "bar"}).stdout.strip() == "bar"
    scoped = sandbox.commands.run('sudo echo "$FOO"')
    assert (scoped.exit_code, scoped.stdout.strip()) == (0, "")
    assert sandbox.commands.run("sudo id -u; sudo -u root id -u; sudo -n -E -H id -un; sudo -- id -u").stdout == \
        "1000\n1000\nuser\n1000\n"
    assert sandbox.commands.run("sudo -E sh -c 'echo $GREETING'", envs={"GREETING": "kept"}).stdout == "kept\n"
    assert sandbox.commands.run("cd /tmp && sudo -i pwd && sudo -s 'pwd'").stdout == "/home/user\n/tmp\n"
    assert sandbox.commands.run("echo secret | sudo -S cat").stdout == "secret\n"  # no password is read
    # What needs root fails as without sudo.
    with pytest.raises(CommandExitException) as refused:
        sandbox.commands.run("sudo touch /etc/e2beval-sudo")
    assert "Read-only file system" in refused.value.stderr or "Permission denied" in refused.value.stderr
    with pytest.raises(CommandExitException) as missing:
        sandbox.commands.run("sudo no-such-program")
    assert missing.value.exit_code == 1 and "sudo: no-such-program: command not found" in missing.value.stderr
    with pytest.raises(CommandExitException) as bare:
        sandbox.commands.run("sudo")
    assert bare.value.exit_code == 1 and "usage: sudo" in bare.value.stderr
    # From code too, by the name code written for E2B uses.
    assert sandbox.run_code("import subprocess; subprocess.run(['sudo', 'whoami'], capture_output=True, "
                            "text=True).stdout").text == "'user\\n'"


def test_remove_of_a_missing_path_is_no_error_as_in_envd(sandbox):
    assert sandbox.files.remove("non_existing_file.txt") is None
    assert sandbox.files.remove("/tmp/no/such/dir") is None
    sandbox.files.write("file.txt", "x")
    with pytest.raises(SandboxException):
        sandbox.files.remove("file.txt/inner")  # through a file: an error, as envd's RemoveAll


def test_watch_dir_reports_each_change_as_envd_does(sandbox):
    # E2B's test_watch_iterated: a new file written is CREATE, CHMOD (envd chowns it), WRITE.
    sandbox.files.make_dir("test_watch_dir_iterated")
    handle = sandbox.files.watch_dir("test_watch_dir_iterated")
    sandbox.files.write("test_watch_dir_iterated/new.txt", "This file will be watched.")
    assert events(handle) == [("new.txt", "create"), ("new.txt", "chmod"), ("new.txt", "write")]
    # Written again: CHMOD, then the truncation and the data, each a WRITE; written empty: no data WRITE.
    sandbox.files.write("test_watch_dir_iterated/new.txt", "This file has been modified.")
    assert events(handle) == [("new.txt", "chmod"), ("new.txt", "write"), ("new.txt", "write")]
    sandbox.files.write("test_watch_dir_iterated/empty.txt", "")
    assert events(handle) == [("empty.txt", "create"), ("empty.txt", "chmod")]
    # Commands' own changes are reported as the kernel reports them.
    sandbox.commands.run("cd test_watch_dir_iterated && echo x > made.txt && mv made.txt moved.txt && rm moved.txt")
    assert events(handle) == [("made.txt", "create"), ("made.txt", "write"), ("made.txt", "rename"),
                              ("moved.txt", "create"), ("moved.txt", "remove")]
    handle.stop()

    # E2B's test_watch_recursive_directory_changes: remove (missing: no error), make the nested directory,
    # watch recursively, write: exactly three events, the first the file's CREATE.
    sandbox.files.remove("test_recursive_watch_dir")
    sandbox.files.make_dir("test_recursive_watch_dir/test_nested_watch_dir")
    recursive = sandbox.files.watch_dir("test_recursive_watch_dir", recursive=True)
    sandbox.files.write("test_recursive_watch_dir/test_nested_watch_dir/test_watch.txt", "content")
    assert events(recursive) == [("test_nested_watch_dir/test_watch.txt", "create"),
                                 ("test_nested_watch_dir/test_watch.txt", "chmod"),
                                 ("test_nested_watch_dir/test_watch.txt", "write")]
    # A directory made later (make_dir is mkdir then chown, as envd's) is watched at once, so its chown is
    # reported twice, by its parent's watch and by its own, as envd's fsnotify reports it.
    sandbox.files.make_dir("test_recursive_watch_dir/added/deeper")
    sandbox.files.write("test_recursive_watch_dir/added/deeper/f.txt", "f")
    assert events(recursive) == [("added", "create"), ("added", "chmod"), ("added", "chmod"),
                                 ("added/deeper", "create"), ("added/deeper", "chmod"), ("added/deeper", "chmod"),
                                 ("added/deeper/f.txt", "create"), ("added/deeper/f.txt", "chmod"),
                                 ("added/deeper/f.txt", "write")]
    # Renamed inside the tree: its old name's RENAME, its new name's CREATE, and it stays watched.
    sandbox.commands.run("mv test_recursive_watch_dir/added test_recursive_watch_dir/renamed")
    sandbox.commands.run("echo g > test_recursive_watch_dir/renamed/deeper/g.txt")
    assert events(recursive) == [("added", "rename"), ("renamed", "create"), ("renamed/deeper/g.txt", "create"),
                                 ("renamed/deeper/g.txt", "write")]
    # The watched directory itself removed: its entries, then "." (envd's name for it).
    sandbox.files.remove("test_recursive_watch_dir")
    assert events(recursive)[-1] == (".", "remove")
    recursive.stop()


def test_watch_dir_entries_and_refusals(sandbox):
    sandbox.files.make_dir("watched")
    handle = sandbox.files.watch_dir("/home/user/watched", include_entry=True)
    sandbox.files.write("watched/a.txt", "four")
    found = handle.get_new_events()
    assert [event.entry.path for event in found] == ["/home/user/watched/a.txt"] * 3
    assert found[-1].entry.size == 4
    handle.stop()
    with pytest.raises(SandboxException, match="stopped"):
        handle.get_new_events()
    with pytest.raises(SandboxException, match="not a directory"):
        sandbox.files.watch_dir("watched/a.txt")
