# e2beval's session agent: the program a session's sandbox runs for its whole life. It serves the protocol of
# docs/session-protocol.md (its names: session_protocol.json) on stdin (requests) and stdout (events):
# notebook-like code contexts in Python, JavaScript, TypeScript and bash, bash commands (also in the background),
# files and directory watchers. Standard library only, Python 3.9+. Embedded into the library at build time
# with launch.py in front of it (CMakeLists.txt), and started as one program (`python -I -B -u`).
#
# Modules, one per concern:
# - main: the entry; agent: the event loop and the dispatch of requests (and `ping`, `interrupt`);
# - protocol: the table's names, Failure, the field checks; limits: the caps and fixed settings;
# - contexts (+ cells, kernels/): code contexts; commands: commands; files: files; watch: directory watchers;
# - processes: the isolation of children and the pipes; output: events and output text.
