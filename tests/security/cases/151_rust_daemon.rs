// expect-outcome: ok
// limits: {"wall_time_s": 5}
// why: spawns a shell that ignores SIGHUP and SIGTERM and sleeps 60 s, TOKEN in its argv, and returns without waiting for it; the pid namespace's end kills it, and the runner finds no host process with TOKEN.
use std::process::{Command, Stdio};

fn main() {
    let token = std::env::var("TOKEN").unwrap();
    let child = Command::new("/bin/sh")
        .args(["-c", "trap '' HUP TERM; sleep 60", &token])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match child {
        Ok(child) => println!("INFO daemon {} started", child.id()),
        Err(error) => println!("INFO no daemon: {}", error),
    }
}
