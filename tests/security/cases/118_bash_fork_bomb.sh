# expect-outcome: ok|pids_limit|timeout|exit_nonzero
# forbid-stdout: LEAKED
# limits: {"max_processes": 32, "wall_time_s": 3}
# why: the classic bash fork bomb; every level also starts a sleeper named TOKEN. The pids cgroup (or RLIMIT_NPROC) caps the tree at max_processes, the host stays responsive, and the runner finds no TOKEN process afterwards.
bomb() { (exec -a "$TOKEN" sleep 30) & bomb | bomb & }
sleep 1.5 & sleeper=$!
bomb 2>/dev/null &
wait "$sleeper"
procs=(/proc/[0-9]*)
if (( ${#procs[@]} > 33 )); then echo "LEAKED ${#procs[@]} processes"; else echo "BLOCKED ${#procs[@]} processes"; fi
