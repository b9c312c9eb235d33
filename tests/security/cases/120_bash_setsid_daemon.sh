# expect-outcome: ok
# forbid-stdout: LEAKED
# why: starts daemons that try to outlive the script: setsid, nohup, disown, SIGHUP/SIGTERM ignored, each named TOKEN; the pid namespace dies with the program and the runner finds no TOKEN process on the host.
setsid bash -c 'trap "" HUP TERM; exec -a "$0" sleep 60' "$TOKEN" </dev/null >/dev/null 2>&1 &
nohup bash -c 'trap "" HUP TERM; exec -a "$0" sleep 60' "$TOKEN" </dev/null >/dev/null 2>&1 &
( trap "" HUP TERM; exec -a "$TOKEN" sleep 60 ) </dev/null >/dev/null 2>&1 &
disown -a
echo "INFO started daemons"
