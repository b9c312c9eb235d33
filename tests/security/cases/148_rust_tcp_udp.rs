// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: std::net to the runner's TCP and UDP listeners on the host's 127.0.0.1 and a DNS lookup; the network namespace has no route to the host and seccomp denies AF_INET sockets. The runner checks its listeners heard nothing.
use std::net::{TcpStream, ToSocketAddrs, UdpSocket};

fn main() {
    let port: u16 = std::env::var("HOST_PORT").unwrap().parse().unwrap();
    let udp_port: u16 = std::env::var("HOST_UDP_PORT").unwrap().parse().unwrap();
    match TcpStream::connect(("127.0.0.1", port)) {
        Ok(_) => println!("LEAKED connected to the host's TCP listener"),
        Err(error) => println!("BLOCKED tcp connect: {}", error),
    }
    match UdpSocket::bind("0.0.0.0:0") {
        Err(error) => println!("BLOCKED udp socket: {}", error),
        Ok(socket) => match socket.send_to(b"x", ("127.0.0.1", udp_port)) {
            Err(error) => println!("BLOCKED udp send: {}", error),
            Ok(_) => println!("INFO udp datagram sent (the runner checks its listener received nothing)"),
        },
    }
    match "example.com:80".to_socket_addrs() {
        Ok(mut addresses) => match addresses.next() {
            Some(address) => println!("LEAKED resolved example.com to {}", address),
            None => println!("BLOCKED example.com resolved to nothing"),
        },
        Err(error) => println!("BLOCKED dns: {}", error),
    }
}
