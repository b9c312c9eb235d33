// expect-outcome: timeout|cpu_limit
// limits: {"wall_time_s": 1}
// why: keeps the event loop busy forever with timers and a microtask storm; the supervisor's wall-clock timer kills the whole tree.
setInterval(() => {}, 1);
function storm() { Promise.resolve().then(storm); }
setTimeout(storm, 10);
