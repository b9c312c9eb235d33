# The bash kernel of one code context, run as `/bin/bash --norc --noprofile -c bash_kernel.sh bash <in fd> <out fd>`:
# one bash process whose own shell runs every cell (`eval`), so what a cell changes in the shell — the working
# directory (`cd`), variables, functions, aliases, options — is there for the next cell, as in E2B's bash
# kernel (Jupyter's bash_kernel: one long-lived bash). A cell arrives as NUL-terminated fields (bash holds no
# NUL, and reads them without any parser): the nonce, the execution count, the number of envs, then each env's
# name and value, then the code. The kernel answers with the same JSON messages as the others: `started`, and
# `done` with the exit status of the cell's last command as its error when it is not 0. Bash cannot mark its
# control fds close-on-exec, so the cell's processes inherit them: like any cell's code (which can write the
# kernel's channel), they can at most end or fill their own cell.
__e2beval_in=$1 __e2beval_out=$2
set --
# SIGINT reaches this shell only (its init forwards it to the program), never the command a cell waits for, and
# bash runs its trap once that command ends: a cell that does not end within the interrupt's grace period is
# ended by restarting the context (ContextRestarted). The trap only keeps the shell itself alive.
trap : INT
__e2beval_send() { printf '\n%s\n' "$1" >&"$__e2beval_out" || exit 0; }
__e2beval_send '{"type":"started","cell":""}'
while IFS= read -r -d '' __e2beval_cell <&"$__e2beval_in"; do
  IFS= read -r -d '' __e2beval_count <&"$__e2beval_in" || exit 0
  IFS= read -r -d '' __e2beval_envs <&"$__e2beval_in" || exit 0
  __e2beval_restore=()
  while (( __e2beval_envs-- > 0 )); do
    IFS= read -r -d '' __e2beval_name <&"$__e2beval_in" || exit 0
    IFS= read -r -d '' __e2beval_value <&"$__e2beval_in" || exit 0
    # After the cell, each variable gets back what it was (E2B's bash kernel: export, then unset or reset).
    if [[ -v $__e2beval_name ]]; then
      __e2beval_restore+=("export $__e2beval_name=${!__e2beval_name@Q}")
    else
      __e2beval_restore+=("unset $__e2beval_name")
    fi
    export "$__e2beval_name=$__e2beval_value"
  done
  IFS= read -r -d '' __e2beval_code <&"$__e2beval_in" || exit 0
  eval "$__e2beval_code"
  __e2beval_status=$?
  for __e2beval_line in "${__e2beval_restore[@]}"; do eval "$__e2beval_line"; done
  if (( __e2beval_status == 0 )); then
    __e2beval_send "{\"type\":\"done\",\"cell\":\"$__e2beval_cell\",\"error\":null}"
  else
    __e2beval_send "{\"type\":\"done\",\"cell\":\"$__e2beval_cell\",\"error\":{\"name\":\"ExitCode\",\"value\":\"$__e2beval_status\",\"traceback\":\"the cell's last command exited with status $__e2beval_status\\n\"}}"
  fi
done
exit 0
