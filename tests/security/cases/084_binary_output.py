# expect-outcome: ok
# expect-stdout: ^START$
# expect-stdout: \uFFFD
# expect-stdout: ^END$
# why: writes raw binary and invalid UTF-8 (lone continuation bytes, 0xFF, a NUL, an overlong encoding) to stdout; the supervisor must not crash or drop the result: stdout comes back with U+FFFD in place of invalid bytes.
import os
os.write(1, b"START\n")
os.write(1, b"bad:\xff\xfe\x80\xc0\xaf\x00\xed\xa0\x80 tail\n")
os.write(1, bytes(range(256)) + b"\n")
os.write(1, b"END\n")
