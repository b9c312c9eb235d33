# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: TIOCSTI injects keystrokes into a terminal (into the shell of whoever started the evaluation); stdin/stdout/stderr are pipes, /dev/tty does not exist, and there is a new session.
import fcntl, os, termios
for fd in (0, 1, 2):
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"x")
    except OSError as e:
        print(f"BLOCKED TIOCSTI on fd {fd}: {e.errno}")
    else:
        print(f"LEAKED TIOCSTI on fd {fd}")
    print(("LEAKED" if os.isatty(fd) else "BLOCKED") + f" fd {fd} isatty={os.isatty(fd)}")
try:
    os.open("/dev/tty", os.O_RDWR)
except OSError as e:
    print(f"BLOCKED /dev/tty: {e.errno}")
else:
    print("LEAKED opened /dev/tty")
