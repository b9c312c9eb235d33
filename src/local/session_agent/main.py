# The agent's entry: the state every process of the session starts from, then the event loop (agent.py).
import os
import signal
import sys

from session_agent.agent import Agent


def main():
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(script) == ".e2beval-agent.py":
        try:
            os.unlink(script)  # the user's file listing shows nothing of the agent
        except OSError:
            pass
    # Kernels and commands inherit ignored signals and the signal mask across exec: whatever the agent was
    # started with, they start with default handling (SIGINT must interrupt a cell; Ctrl-C semantics hold).
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in (signal.SIGTERM, signal.SIGQUIT, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    home = os.environ.get("E2BEVAL_AGENT_HOME", "/home/user")
    try:
        os.chdir(home)
    except OSError as exc:
        sys.stderr.write("e2beval agent: cannot enter its home %s: %s\n" % (home, exc))
    try:
        Agent(home).serve()
    except KeyboardInterrupt:
        pass
    return 0
