// expect-outcome: ok
// expect-stdout: ^BLOCKED
// forbid-stdout: LEAKED
// why: java.net to the runner's TCP listener (a Socket and an HTTP URL), UDP listener and a DNS lookup; the network namespace has no route to the host and seccomp denies AF_INET sockets. The runner checks its listeners heard nothing.
import java.net.*;

public class Main {
    public static void main(String[] args) {
        int port = Integer.parseInt(System.getenv("HOST_PORT"));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            System.out.println("LEAKED connected to the host's TCP listener");
        } catch (Exception error) {
            System.out.println("BLOCKED socket: " + error);
        }
        try {
            HttpURLConnection connection = (HttpURLConnection) new URL("http://127.0.0.1:" + port + "/").openConnection();
            connection.setConnectTimeout(2000);
            connection.connect();
            System.out.println("LEAKED http connection to the host");
        } catch (Exception error) {
            System.out.println("BLOCKED http: " + error);
        }
        try (DatagramSocket udp = new DatagramSocket()) {
            byte[] data = {'x'};
            udp.send(new DatagramPacket(data, 1, InetAddress.getByName("127.0.0.1"),
                                        Integer.parseInt(System.getenv("HOST_UDP_PORT"))));
            System.out.println("INFO udp datagram sent (the runner checks its listener received nothing)");
        } catch (Exception error) {
            System.out.println("BLOCKED udp: " + error);
        }
        try {
            System.out.println("LEAKED resolved example.com to " + InetAddress.getByName("example.com"));
        } catch (Exception error) {
            System.out.println("BLOCKED dns: " + error);
        }
    }
}
