"""envd's filesystem.Filesystem unary calls (Stat, ListDir, MakeDir, Move, Remove) through the official `e2b`
SDK's files.list/get_info/exists/make_dir/rename/remove against `e2beval serve`: the entries the SDK parses,
its exceptions for missing paths and bad arguments, `..` kept inside the sandbox, and the access token."""
import os
import uuid

import httpx
import pytest
from e2b import (FileNotFoundException, FileType, InvalidArgumentException, NotFoundException, Sandbox,
                 SandboxException)


def test_list_depth_one_and_two(sandbox):
    sandbox.files.write("/home/user/tree/a.txt", "aaa")
    sandbox.files.write("/home/user/tree/sub/b.txt", "b")
    top = sandbox.files.list("/home/user/tree")
    assert [(entry.name, entry.type, entry.path) for entry in top] == [
        ("a.txt", FileType.FILE, "/home/user/tree/a.txt"),
        ("sub", FileType.DIR, "/home/user/tree/sub"),
    ]
    assert top[0].size == 3 and top[0].permissions.startswith("-rw")
    deep = sandbox.files.list("/home/user/tree", depth=2)
    assert [entry.path for entry in deep] == [
        "/home/user/tree/a.txt", "/home/user/tree/sub", "/home/user/tree/sub/b.txt"]


def test_get_info_of_a_file_and_a_directory(sandbox):
    sandbox.files.write("/home/user/info.txt", "12345")
    info = sandbox.files.get_info("/home/user/info.txt")
    assert (info.name, info.type, info.path, info.size) == ("info.txt", FileType.FILE, "/home/user/info.txt", 5)
    assert info.mode & 0o777 == 0o644 and info.permissions == "-rw-r--r--"
    assert info.modified_time.year >= 2024 and info.owner and info.group
    assert sandbox.files.get_info("/home/user").type == FileType.DIR


def test_make_dir_new_and_existing(sandbox):
    assert sandbox.files.make_dir("/home/user/made/deep") is True  # parents too
    assert sandbox.files.get_info("/home/user/made/deep").type == FileType.DIR
    assert sandbox.files.make_dir("/home/user/made/deep") is False  # it was there
    sandbox.files.write("/home/user/plain.txt", "x")
    with pytest.raises(InvalidArgumentException):
        sandbox.files.make_dir("/home/user/plain.txt")  # a file is in the way


def test_rename_remove_and_exists(sandbox):
    sandbox.files.write("/home/user/old.txt", "moved")
    renamed = sandbox.files.rename("/home/user/old.txt", "/home/user/new/place.txt")
    assert (renamed.name, renamed.path, renamed.type) == ("place.txt", "/home/user/new/place.txt", FileType.FILE)
    assert sandbox.files.exists("/home/user/old.txt") is False
    assert sandbox.files.read("/home/user/new/place.txt") == "moved"
    sandbox.files.remove("/home/user/new")  # a directory, recursively
    assert sandbox.files.exists("/home/user/new/place.txt") is False
    assert sandbox.files.exists("/home/user/new") is False
    assert sandbox.files.exists("/home/user") is True


def test_missing_paths_raise_the_sdk_not_found_exception(sandbox):
    missing = "/home/user/no-such-file"
    for call in (lambda: sandbox.files.get_info(missing), lambda: sandbox.files.list(missing),
                 lambda: sandbox.files.rename(missing, "/home/user/x")):
        with pytest.raises(FileNotFoundException):
            call()
    assert issubclass(FileNotFoundException, NotFoundException)
    sandbox.files.write("/home/user/file.txt", "x")
    with pytest.raises(InvalidArgumentException):
        sandbox.files.list("/home/user/file.txt")  # not a directory


def test_removing_a_missing_path_is_no_error_as_in_envd(sandbox):
    # envd's Remove is os.RemoveAll: a path that does not exist is removed already (E2B's SDK tests
    # test_remove_non_existing_file and the recursive watch tests rely on it).
    assert sandbox.files.remove("non_existing_file.txt") is None
    assert sandbox.files.remove("/home/user/no/such/directory") is None
    assert sandbox.files.exists("non_existing_file.txt") is False
    sandbox.files.write("/home/user/file.txt", "x")
    with pytest.raises(SandboxException):
        sandbox.files.remove("/home/user/file.txt/inner")  # through a file: an error, as RemoveAll's ENOTDIR


def test_dot_dot_stays_inside_the_sandbox(sandbox):
    # A marker on the host, in the host's /tmp: no `..` path from the sandbox reaches it.
    marker = f"e2beval-host-marker-{uuid.uuid4().hex}"
    host_file = os.path.join("/tmp", marker)
    with open(host_file, "w") as out:
        out.write("host")
    try:
        climbing = "/home/user/../../../../../tmp/" + marker
        assert sandbox.files.exists(climbing) is False
        root = sandbox.files.get_info("/home/user/../../../..")
        assert (root.path, root.type) == ("/", FileType.DIR)
        names = {entry.name for entry in sandbox.files.list("/home/user/../../../..")}
        assert "home" in names and marker not in names
        # What is made through `..` lands in the sandbox, not on the host.
        sandbox.files.make_dir("/home/user/../../tmp/made-" + marker)
        assert sandbox.files.exists("/tmp/made-" + marker) is True
        assert not os.path.exists("/tmp/made-" + marker)
    finally:
        os.unlink(host_file)


def test_a_call_without_the_token_is_refused(serve, sandbox):
    sandbox.files.write("/home/user/secret.txt", "s")

    def stat(headers):
        return httpx.post(serve.env["E2B_SANDBOX_URL"] + "/filesystem.Filesystem/Stat",
                          headers={"E2b-Sandbox-Id": sandbox.sandbox_id, "E2b-Sandbox-Port": "49983", **headers},
                          json={"path": "/home/user/secret.txt"}, timeout=60)

    for refused in (stat({}), stat({"X-Access-Token": "0" * 64})):
        assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"
    served = stat({"X-Access-Token": sandbox._envd_access_token})
    assert served.status_code == 200
    assert served.json()["entry"]["path"] == "/home/user/secret.txt"
    assert served.json()["entry"]["type"] == "FILE_TYPE_FILE"
