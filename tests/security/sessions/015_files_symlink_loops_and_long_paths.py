# why: symlink loops, a link to / and very long paths make files.read, files.list and files.make_dir fail or return promptly (links are not followed while listing), never loop or crash the agent
from e2beval.sandbox import SandboxException


def attack(sandbox, host):
    sandbox.commands.run("ln -s b a; ln -s a b; mkdir -p tree; ln -s / tree/root; ln -s .. tree/up; ln -s . tree/self")
    for call in (lambda: sandbox.files.read("a"), lambda: sandbox.files.list("a"), lambda: sandbox.files.make_dir("a/x"),
                 lambda: sandbox.files.make_dir("d/" * 3000), lambda: sandbox.files.read("x" * 5000),
                 lambda: sandbox.files.write("y/" * 2100 + "f", "deep")):
        try:
            call()
        except SandboxException:
            pass
    entries = sandbox.files.list("tree", depth=40)
    assert len(entries) < 100, f"files.list followed links: {len(entries)} entries"
    assert not [e.path for e in entries if "/self/self" in e.path or "/up/" in e.path]
    assert sandbox.run_code("'alive'").text == "'alive'"
