"""A student's own network address, on this machine: a TCP forwarder per student.

A browser that opens ``127.0.0.2`` is seen by the server as ``127.0.0.1`` (the kernel
picks the source address), so every browser context would be one address. A
:class:`StudentProxy` listens on a free port of ``127.0.0.1`` and opens each upstream
connection *from* ``127.0.0.N``: the server then sees that address, as it would see a
phone's. Traffic never leaves 127.0.0.0/8.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


class StudentProxy:
    """Forward ``127.0.0.1:<port>`` to ``127.0.0.1:<server port>`` from ``source``."""

    def __init__(self, server_port: int, source: str) -> None:
        self.server_port = server_port
        self.source = source
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._closing = False
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        """What the student's browser opens."""
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(
                    ("127.0.0.1", self.server_port), source_address=(self.source, 0)
                )
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open |= {client, upstream}
            done = threading.Semaphore(0)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(a, b, done), daemon=True).start()
            threading.Thread(target=self._reap, args=(client, upstream, done), daemon=True).start()

    def _reap(
        self, client: socket.socket, upstream: socket.socket, done: threading.Semaphore
    ) -> None:
        done.acquire()
        done.acquire()
        with self._lock:
            self._open -= {client, upstream}
        client.close()
        upstream.close()

    def close(self) -> None:
        """Stop listening and close every connection still open."""
        self._closing = True
        self._listener.close()
        with self._lock:
            left, self._open = list(self._open), set()
        for each in left:
            with contextlib.suppress(OSError):
                each.shutdown(socket.SHUT_RDWR)
            each.close()


def _pump(source: socket.socket, sink: socket.socket, done: threading.Semaphore) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)
    done.release()


@contextlib.contextmanager
def student_proxies(server_port: int, count: int, first: int = 3) -> Iterator[list[StudentProxy]]:
    """``count`` proxies, from ``127.0.0.<first>`` on."""
    proxies = [StudentProxy(server_port, f"127.0.0.{first + i}") for i in range(count)]
    try:
        yield proxies
    finally:
        for proxy in proxies:
            proxy.close()
