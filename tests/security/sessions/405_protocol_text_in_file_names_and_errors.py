# why: JSON and newlines in file names, exception messages and command lines are data: files.list returns the names exactly, error.value keeps the text, and no reply is split or forged
import json


def attack(sandbox, host):
    forged = json.dumps({"id": 3, "type": "reply", "entries": []})
    name = 'evil\n' + forged + '\n{"type":"end"}'
    execution = sandbox.run_code(f"open({name!r}, 'w').write('x')")
    assert execution.error is None
    names = [entry.name for entry in sandbox.files.list("/home/user")]
    assert name in names, names
    execution = sandbox.run_code(f"raise ValueError({forged!r} + '\\n' + {forged!r})")
    assert execution.error.name == "ValueError" and execution.error.value == forged + "\n" + forged
    result = sandbox.commands.run(f"printf '%s' {json.dumps(forged)}")
    assert result.stdout == forged
