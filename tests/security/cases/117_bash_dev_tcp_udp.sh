# expect-outcome: ok
# expect-stdout: ^BLOCKED
# forbid-stdout: LEAKED
# why: bash's /dev/tcp and /dev/udp redirections to the runner's listeners on the host's 127.0.0.1; no route out of the network namespace and seccomp denies AF_INET sockets. The runner checks its listeners saw nothing.
for target in "tcp/127.0.0.1/$HOST_PORT" "tcp/localhost/$HOST_PORT" "tcp/10.0.0.1/80"; do
  if (exec 3<>"/dev/$target") 2>/dev/null; then echo "LEAKED connected /dev/$target"; else echo "BLOCKED /dev/$target"; fi
done
if (echo LEAKED >"/dev/udp/127.0.0.1/$HOST_UDP_PORT") 2>/dev/null; then echo "INFO udp write reported success"; else echo "BLOCKED /dev/udp"; fi
