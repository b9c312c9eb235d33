"""E2B's filesystem layout and defaults through the official Python SDKs against `e2beval serve`: /home/user is the
working directory of code and commands (and `files.get_info` agrees with `pwd`), /tmp a directory of its own,
`sudo` works (it runs the command as the same user), `files.remove` of a missing path is no error, and
`files.watch_dir` reports a write as envd does (the shapes of E2B's own SDK tests: test_cwd, test_get_info_of_file,
test_bash_command_scoped_env_vars, test_remove_non_existing_file, test_watch_iterated,
test_watch_recursive_directory_changes, test_watch_recursive_directory_after_nested_folder_addition)."""
import asyncio

from e2b import AsyncSandbox, FilesystemEventType
from e2b_code_interpreter import Sandbox

from support.waiting import until_async

WAIT_SECONDS = 60  # a bound for a broken server, never a timing assertion


def test_code_and_commands_run_in_home_user_and_paths_agree_with_pwd(sandbox):
    assert "".join(sandbox.run_code("from pathlib import Path; print(Path.cwd())").logs.stdout).strip() == "/home/user"
    assert sandbox.run_code("process.cwd()", language="js").text == "/home/user"
    assert sandbox.commands.run("pwd").stdout.strip() == "/home/user"
    sandbox.files.write("test_file.txt", "test")
    info = sandbox.files.get_info("test_file.txt")
    assert info.path == f"{sandbox.commands.run('pwd').stdout.strip()}/test_file.txt"
    assert (info.owner, info.group, info.mode) == ("user", "user", 0o644)
    sandbox.files.make_dir("test_dir")
    assert sandbox.files.get_info("test_dir").mode == 0o755
    assert sandbox.commands.run('echo "$HOME $USER $LOGNAME"').stdout == "/home/user user user\n"


def test_tmp_is_a_directory_of_its_own(sandbox):
    sandbox.files.write("/tmp/scratch.txt", "scratch")
    assert [entry.name for entry in sandbox.files.list("/tmp")] == ["scratch.txt"]
    assert sandbox.files.exists("/home/user/scratch.txt") is False
    assert sandbox.commands.run("stat -c '%F %a' /home/user /tmp").stdout == "directory 755\ndirectory 1777\n"


def test_sudo_runs_the_command_as_the_same_user(sandbox):
    cmd = sandbox.commands.run("echo $FOO", envs={"FOO": "bar"})
    assert cmd.exit_code == 0 and cmd.stdout.strip() == "bar"
    cmd2 = sandbox.commands.run('sudo echo "$FOO"')
    assert cmd2.exit_code == 0 and cmd2.stdout.strip() == ""
    assert sandbox.commands.run("sudo id -u && sudo -u root whoami").stdout == "1000\nuser\n"


def test_remove_non_existing_file(sandbox):
    sandbox.files.remove("non_existing_file.txt")
    sandbox.files.write("test_remove.txt", "This file will be removed.")
    sandbox.files.remove("test_remove.txt")
    assert sandbox.files.exists("test_remove.txt") is False


def test_watch_iterated_and_recursive(sandbox):
    sandbox.files.make_dir("test_watch_dir_iterated")
    handle = sandbox.files.watch_dir("test_watch_dir_iterated")
    sandbox.files.write("test_watch_dir_iterated/test_watch_iterated.txt", "This file will be watched.")
    events = handle.get_new_events()
    assert [(event.name, event.type) for event in events] == [
        ("test_watch_iterated.txt", FilesystemEventType.CREATE), ("test_watch_iterated.txt", FilesystemEventType.CHMOD),
        ("test_watch_iterated.txt", FilesystemEventType.WRITE)]
    handle.stop()

    sandbox.files.remove("test_recursive_watch_dir")
    sandbox.files.make_dir("test_recursive_watch_dir/test_nested_watch_dir")
    handle = sandbox.files.watch_dir("test_recursive_watch_dir", recursive=True)
    sandbox.files.write("test_recursive_watch_dir/test_nested_watch_dir/test_watch.txt", "content")
    events = handle.get_new_events()
    assert len(events) == 3
    assert (events[0].type, events[0].name) == (FilesystemEventType.CREATE, "test_nested_watch_dir/test_watch.txt")
    handle.stop()

    sandbox.files.remove("test_recursive_watch_dir_add")
    sandbox.files.make_dir("test_recursive_watch_dir_add")
    handle = sandbox.files.watch_dir("test_recursive_watch_dir_add", recursive=True)
    sandbox.files.make_dir("test_recursive_watch_dir_add/test_nested_watch_dir")
    sandbox.files.write("test_recursive_watch_dir_add/test_nested_watch_dir/test_watch.txt", "content")
    seen = {(event.name, event.type) for event in handle.get_new_events()}
    assert ("test_nested_watch_dir", FilesystemEventType.CREATE) in seen
    assert ("test_nested_watch_dir/test_watch.txt", FilesystemEventType.WRITE) in seen
    handle.stop()


def test_async_watch_dir_streams_a_new_file_as_create_chmod_write(sandbox):
    async def scenario():
        async_sandbox = await AsyncSandbox.connect(sandbox.sandbox_id)
        await async_sandbox.files.make_dir("/home/user/streamed")
        events = []
        handle = await async_sandbox.files.watch_dir("/home/user/streamed", on_event=events.append)
        await async_sandbox.files.write("/home/user/streamed/new.txt", "data")
        await until_async(lambda: len(events) >= 3, "three events for the new file", timeout=WAIT_SECONDS,
                          detail=lambda: events)
        await handle.stop()
        return [(event.name, event.type) for event in events]

    assert asyncio.run(scenario()) == [("new.txt", FilesystemEventType.CREATE), ("new.txt", FilesystemEventType.CHMOD),
                                       ("new.txt", FilesystemEventType.WRITE)]
