# expect-outcome: ok
# expect-stdout: ^stdout fine$
# why: writes invalid UTF-8 and terminal escape sequences to stderr (a result viewer could be confused); the run still ends ok and stdout is intact.
import os
os.write(2, b"\xff\xfe\xfd\x1b]0;pwned\x07\x1b[2J\x80\x80\n")
print("stdout fine")
