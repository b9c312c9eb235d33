"""A fault-injecting HTTPS proxy for the E2B client's tests: it listens on 127.0.0.1 only (TLS with a test
certificate), forwards each request to an `e2beval serve` over plain HTTP, and applies the faults queued for a
route: drop the connection, reset it in the middle of the answer, answer 429 (with Retry-After), 500, 502 or
503, stall, or truncate a streamed answer. Bounded: at most 64 connections, each request read with a 30 s limit,
a stall lasts at most the seconds given. It records every request it saw ("POST /v2/sandboxes")."""
import asyncio
import json
import socket
import ssl
import struct
import threading
from dataclasses import dataclass, field


@dataclass
class Fault:
    route: str          # "POST /process.Process/Start": the method and the path without its query
    action: str         # drop | reset | truncate | stall | 429 | 500 | 502 | 503
    times: int = 1
    retry_after: str = ""
    seconds: float = 30.0
    after_bytes: int = 0  # reset/truncate: how much of the answer passes first


@dataclass
class FaultProxy:
    upstream_port: int
    certfile: str
    keyfile: str
    faults: list = field(default_factory=list)
    seen: list = field(default_factory=list)
    applied: list = field(default_factory=list)

    def start(self):
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        assert ready.wait(10), "the fault proxy did not start"
        return self

    def _run(self, ready):
        asyncio.set_event_loop(self._loop)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.certfile, self.keyfile)
        self._limit = asyncio.Semaphore(64)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=context))
        self.port = self._server.sockets[0].getsockname()[1]
        ready.set()
        self._loop.run_forever()

    def stop(self):
        self._loop.call_soon_threadsafe(self._server.close)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def add(self, route, action, **options):
        self.faults.append(Fault(route, action, **options))

    def clear(self):
        self.faults.clear()
        self.seen.clear()
        self.applied.clear()

    def _take(self, route):
        for fault in self.faults:
            if fault.times > 0 and route.startswith(fault.route):
                fault.times -= 1
                self.applied.append(f"{fault.action} {route}")
                return fault
        return None

    async def _serve(self, reader, writer):
        async with self._limit:
            try:
                await self._serve_requests(reader, writer)
            except (ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError, ssl.SSLError):
                pass
            finally:
                writer.close()

    async def _serve_requests(self, reader, writer):
        while True:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            except asyncio.IncompleteReadError:
                return
            request_line, *header_lines = head.decode("latin-1").split("\r\n")
            method, target, _ = request_line.split(" ", 2)
            length = 0
            for line in header_lines:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            body = await asyncio.wait_for(reader.readexactly(length), 30) if length else b""
            route = f"{method} {target.split('?')[0]}"
            self.seen.append(route)
            fault = self._take(route)
            action = fault.action if fault else ""
            if action == "drop":
                return
            if action == "stall":
                await asyncio.sleep(min(fault.seconds, 60))
                return
            if action in ("429", "500", "502", "503"):
                payload = json.dumps({"code": int(action), "message": f"injected {action} by the fault proxy"}).encode()
                extra = f"Retry-After: {fault.retry_after}\r\n" if fault.retry_after else ""
                writer.write(f"HTTP/1.1 {action} Injected\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
                             f"{extra}\r\n".encode() + payload)
                await writer.drain()
                continue
            # Forwarded on a connection of its own that serve closes after the answer: the answer ends at EOF.
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
            forwarded = [request_line] + [line for line in header_lines if line and not line.lower().startswith("connection:")]
            upstream_writer.write(("\r\n".join(forwarded) + "\r\nConnection: close\r\n\r\n").encode("latin-1") + body)
            await upstream_writer.drain()
            passed = 0
            try:
                while True:
                    chunk = await asyncio.wait_for(upstream_reader.read(16384), 120)
                    if not chunk:
                        break
                    if action in ("reset", "truncate") and passed + len(chunk) > fault.after_bytes:
                        writer.write(chunk[: max(fault.after_bytes - passed, 0)])
                        await writer.drain()
                        if action == "reset":
                            sock = writer.get_extra_info("socket")
                            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                            writer.transport.abort()
                        return
                    passed += len(chunk)
                    writer.write(chunk)
                    await writer.drain()
            finally:
                upstream_writer.close()
            return  # the client saw `Connection: close` from serve
