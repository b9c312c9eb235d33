// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: std::process::Command runs a shell that reads host secrets (/etc/shadow, the runner's canary, init's environment) and tries the network with bash's /dev/tcp; the child shares the sandbox's mounts, pid and network namespaces, so nothing is found or reached.
use std::process::Command;

fn main() {
    let canary = std::env::var("CANARY_PATH").unwrap();
    let port = std::env::var("HOST_PORT").unwrap();
    let script = format!(
        "cat /etc/shadow '{}' 2>/dev/null; tr '\\0' '\\n' </proc/1/environ 2>/dev/null | grep E2B_API_KEY; \
         (echo x >/dev/tcp/127.0.0.1/{}) 2>/dev/null && echo connected",
        canary, port
    );
    match Command::new("/bin/bash").arg("-c").arg(&script).output() {
        Err(error) => println!("BLOCKED the shell did not start: {}", error),
        Ok(output) => {
            let text = String::from_utf8_lossy(&output.stdout);
            if text.trim().is_empty() {
                println!("BLOCKED the shell found no host secret and no network");
            } else {
                for line in text.lines() {
                    println!("LEAKED {}", line);
                }
            }
        }
    }
}
