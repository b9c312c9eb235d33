# why: envs given to one command or cell do not leak into the next command, cell or a new context, nor into another session
# sessions: 2


def attack(first, second, host):
    secret = "per-call-" + host.token
    assert first.commands.run("echo $CALL_SECRET", envs={"CALL_SECRET": secret}).stdout == secret + "\n"
    assert secret not in first.commands.run("env").stdout
    assert first.run_code("import os\nos.environ['CALL_SECRET']", envs={"CALL_SECRET": secret}).text == repr(secret)
    assert first.run_code("import os\nos.environ.get('CALL_SECRET')").text is None
    context = first.create_code_context(language="python")
    assert first.run_code("import os\nos.environ.get('CALL_SECRET')", context=context).text is None
    assert secret not in second.commands.run("env; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; true").stdout
