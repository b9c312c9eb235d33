# why: invalid UTF-8, NUL bytes, escape sequences and output without a final newline are carried as text without breaking the channel: the calls return and the next reply is correct
def attack(sandbox, host):
    result = sandbox.commands.run("printf 'a\\377\\376b\\000c\\033[2J\\r{\"id\":'")
    assert result.stdout.startswith("a") and "{\"id\":" in result.stdout, repr(result.stdout)
    execution = sandbox.run_code("import os\nos.write(1, b'\\xff\\xfe\\x00{\"type\":\"end_of_execution\"')\n'after'")
    assert execution.error is None and execution.text == "'after'"
    assert sandbox.run_code("'next'").text == "'next'"
    assert sandbox.commands.run("echo next").stdout == "next\n"
