"""A real HTTP forward proxy on 127.0.0.1 for tests: what a company proxy does, in small.

A request in absolute form (``POST http://models.example/v1/chat/completions``) is sent on to
one upstream address whatever host it names, so a host that does not resolve is reachable
only through the proxy; the answer (a whole body or a stream) is passed back byte for byte,
and the connection closed after it. ``CONNECT host:port`` (how https goes through a proxy) is
tunnelled to the same address when ``connect_status`` is 200, else answered with it. Every
request is recorded.

    with FakeProxy(upstream=("127.0.0.1", fake.port)) as proxy:
        ... HTTP_PROXY=proxy.url ...
        assert proxy.requests[0].target == "http://models.example/v1/models"
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class ProxiedRequest:
    method: str
    target: str
    headers: dict[str, str] = field(default_factory=dict)


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        head = self._read_head()
        if head is None:
            return
        request_line, headers = head
        method, target, version = request_line.split(" ", 2)
        self.server.owner.requests.append(ProxiedRequest(method, target, headers))
        if method == "CONNECT":
            if self.server.owner.connect_status != 200:
                self.wfile.write(f"HTTP/1.1 {self.server.owner.connect_status} No Tunnel\r\n"
                                 "Content-Length: 0\r\nConnection: close\r\n\r\n".encode())
                return
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
            self._tunnel()
            return
        body = self.rfile.read(int(headers.get("content-length", "0")))
        parts = urlsplit(target)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        lines = [f"{method} {path} {version}"]
        lines += [f"{k}: {v}" for k, v in headers.items() if not k.startswith("proxy-") and k != "connection"]
        lines.append("connection: close")
        with socket.create_connection(self.server.owner.upstream) as up:
            up.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            while chunk := up.recv(65536):
                self.wfile.write(chunk)
                self.wfile.flush()

    def _tunnel(self) -> None:
        """Bytes both ways between the client and the upstream address until either side closes."""
        with socket.create_connection(self.server.owner.upstream) as up:
            def upward() -> None:
                try:
                    while data := self.connection.recv(65536):
                        up.sendall(data)
                except OSError:
                    pass
                finally:
                    with contextlib.suppress(OSError):
                        up.shutdown(socket.SHUT_WR)

            threading.Thread(target=upward, daemon=True).start()
            with contextlib.suppress(OSError):
                while data := up.recv(65536):
                    self.connection.sendall(data)

    def _read_head(self) -> tuple[str, dict[str, str]] | None:
        request_line = self.rfile.readline().decode("latin-1").rstrip("\r\n")
        if not request_line:
            return None
        headers: dict[str, str] = {}
        while (line := self.rfile.readline().decode("latin-1").rstrip("\r\n")):
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        return request_line, headers


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: FakeProxy


class FakeProxy:
    def __init__(self, upstream: tuple[str, int], connect_status: int = 502) -> None:
        self.upstream = upstream
        self.connect_status = connect_status
        self.requests: list[ProxiedRequest] = []
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeProxy:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
