# why: a background process that holds as many pipes and sockets as it may does not starve the agent: each process has its own RLIMIT_NOFILE, so every kind of call still works
from e2beval.sandbox import CommandExitException

HOG = ("python3 -c 'import os, socket, time\nheld = []\ntry:\n    while True: held.append(os.pipe())\nexcept OSError: pass\n"
       "try:\n    while True: held.append(socket.socketpair())\nexcept OSError: pass\nprint(len(held), flush=True)\ntime.sleep(1000)'")


def attack(sandbox, host):
    hog = sandbox.commands.run(HOG, background=True)
    assert sandbox.run_code("import time\ntime.sleep(0.5)\n'cell works'").text == "'cell works'"
    assert sandbox.commands.run("echo command works").stdout == "command works\n"
    sandbox.files.write("g.txt", "x")
    assert sandbox.files.list(".")
    assert sandbox.create_code_context(language="javascript").language in ("javascript", "js")
    hog.kill()
