# expect-outcome: ok
# expect-stdout: ^SANITY ok$
# expect-stdout: ^uid=1000 cwd=/tmp home=/tmp$
# why: sanity baseline, not an attack: the workspace (/tmp) is writable, uid is 1000, cwd and HOME are /tmp.
import os
with open("/tmp/sanity.txt", "w") as f:
    f.write("hello")
assert open("/tmp/sanity.txt").read() == "hello"
print(f"uid={os.getuid()} cwd={os.getcwd()} home={os.environ.get('HOME')}")
print("SANITY ok")
