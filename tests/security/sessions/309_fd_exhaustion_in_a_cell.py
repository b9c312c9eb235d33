# why: a cell that opens files until EMFILE exhausts only its kernel's own RLIMIT_NOFILE: the agent still runs commands, file calls and new contexts, and the same kernel answers once the cell frees them
def attack(sandbox, host):
    execution = sandbox.run_code("import os\nheld = []\ntry:\n    while True:\n        held.append(os.open('/dev/null', os.O_RDONLY))\n"
                                 "except OSError as error:\n    reason = error.errno\nlen(held)")
    assert execution.error is None and int(execution.text) > 100, execution
    assert sandbox.commands.run("echo commands work").stdout == "commands work\n"
    sandbox.files.write("f.txt", "files work")
    assert sandbox.files.read("f.txt") == "files work"
    other = sandbox.create_code_context(language="python")
    assert sandbox.run_code("'new context'", context=other).text == "'new context'"
    assert sandbox.run_code("import os\nfor fd in held: os.close(fd)\n'freed'").text == "'freed'"
