// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: net.connect to the runner's TCP listener on the host's 127.0.0.1 (and localhost), a UDP datagram to its UDP socket and a connection to its abstract unix socket; the network namespace has no route to the host, seccomp denies AF_INET sockets, and abstract sockets belong to the network namespace. The runner checks its listeners saw nothing.
const net = require("net");
const dgram = require("dgram");
const port = Number(process.env.HOST_PORT);
function attempt(name, connect) {
  return new Promise((resolve) => {
    let socket;
    const timer = setTimeout(() => { console.log(`BLOCKED ${name}: no answer`); socket && socket.destroy(); resolve(); }, 2000);
    try {
      socket = connect();
    } catch (error) {
      clearTimeout(timer);
      console.log(`BLOCKED ${name}: ${error.code || error.message}`);
      return resolve();
    }
    socket.on("connect", () => { clearTimeout(timer); console.log(`LEAKED ${name}: connected`); socket.destroy(); resolve(); });
    socket.on("error", (error) => { clearTimeout(timer); console.log(`BLOCKED ${name}: ${error.code}`); resolve(); });
  });
}
function udp() {
  return new Promise((resolve) => {
    try {
      const socket = dgram.createSocket("udp4");
      socket.on("error", (error) => { console.log(`BLOCKED udp: ${error.code}`); socket.close(); resolve(); });
      socket.send("LEAKED", Number(process.env.HOST_UDP_PORT), "127.0.0.1", (error) => {
        console.log(error ? `BLOCKED udp send: ${error.code}` : "INFO udp send reported no error");
        socket.close();
        resolve();
      });
    } catch (error) {
      console.log(`BLOCKED udp: ${error.code || error.message}`);
      resolve();
    }
  });
}
(async () => {
  await attempt("tcp 127.0.0.1", () => net.connect(port, "127.0.0.1"));
  await attempt("tcp localhost", () => net.connect(port, "localhost"));
  await attempt("abstract unix socket", () => net.connect({ path: "\0" + process.env.HOST_ABSTRACT }));
  await udp();
})();
