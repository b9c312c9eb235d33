// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: fetch() and net.connect() to the runner's TCP listener on the host's 127.0.0.1, and dgram to its UDP listener; the network namespace and seccomp stop each. The runner checks its listeners heard nothing.
declare var require: any;
declare var process: any;
const net = require("net");
const dgram = require("dgram");
const port: number = Number(process.env.HOST_PORT);

async function main(): Promise<void> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) });
    console.log("LEAKED fetch reached the host");
  } catch (error) {
    console.log(`BLOCKED fetch: ${error}`);
  }
  await new Promise<void>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port, timeout: 2000 });
    socket.on("connect", () => { console.log("LEAKED net.connect reached the host"); socket.destroy(); resolve(); });
    socket.on("error", (error: Error) => { console.log(`BLOCKED net.connect: ${error.message}`); resolve(); });
    socket.on("timeout", () => { console.log("BLOCKED net.connect timed out"); socket.destroy(); resolve(); });
  });
  await new Promise<void>((resolve) => {
    try {
      const udp = dgram.createSocket("udp4");
      udp.on("error", (error: Error) => { console.log(`BLOCKED udp: ${error.message}`); resolve(); });
      udp.send("x", Number(process.env.HOST_UDP_PORT), "127.0.0.1", (error: Error | null) => {
        console.log(error ? `BLOCKED udp send: ${error.message}` : "INFO udp datagram sent (the runner checks its listener)");
        udp.close();
        resolve();
      });
    } catch (error) {
      console.log(`BLOCKED udp: ${error}`);
      resolve();
    }
  });
}
main();
