// expect-outcome: compile_error
// why: a triple-slash reference makes tsc read a host file as part of the program (the runner's canary in the host's /tmp, its path written in place of the placeholder, and /etc/shadow; tsc tries each path as written and with its extensions); tsc runs in the sandbox, which shows neither, so the compile fails and neither text appears in any output.
/// <reference path="{{CANARY_PATH}}" />
/// <reference path="/etc/shadow" />
console.log("LEAKED compiled with host files");
