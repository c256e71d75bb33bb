"""The production HTTP server for the dashboard: waitress, with limits that hold against idle or slow
clients and oversized bodies.

Why waitress (measured in benchmarks/RESULTS-server.md, 20 and 100 SSE clients): it is pure Python,
needs no monkey-patching (the camera pipeline's OpenCV threads stay real threads, which gevent would
not allow), reads each request whole in its I/O loop before a worker thread sees it (a client that
sends its headers one byte a minute holds no thread), de-chunks bodies and refuses any body over
`max_request_body_size` with 413 — chunked or not — and closes connections idle for `channel_timeout`.
A live stream (SSE, MJPEG) does hold a worker thread, so there are `threads` of them and at most
`max_streams` streams (web_ui/stream.py refuses more with 503 and a retry time).

    server = make_server(app, "127.0.0.1", 5000)
    server.port          # the port it listens on (0 asks for a free one)
    server.run()         # until close()
"""

from __future__ import annotations

import logging
import resource
from dataclasses import dataclass

from .services import HUB

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerLimits:
    threads: int = 128  # workers; each open live stream holds one
    max_streams: int = 100  # live streams at once (SSE + MJPEG); more get 503 + retry
    connection_limit: int = 600  # open connections at once (below the usual 1,024 open-file limit)
    channel_timeout: float = 60.0  # seconds a connection may stay silent (streams send a keep-alive every 15 s)
    cleanup_interval: float = 10.0  # how often silent connections are looked for
    max_request_header_size: int = 64 * 1024
    max_request_body_size: int = 2 * 1024 * 1024 + 64 * 1024  # = the app's MAX_CONTENT_LENGTH


def raise_open_file_limit() -> int:
    """Raise the soft open-file limit to the hard one (room for the connection limit); returns it."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY:
            hard = 65536
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ValueError, OSError):
        return -1


class Server:
    def __init__(self, app, host: str, port: int, limits: ServerLimits | None = None):
        from waitress.server import create_server

        self.limits = limits or ServerLimits()
        lim = self.limits
        files = raise_open_file_limit()
        conn = lim.connection_limit if files < 0 else min(lim.connection_limit, max(16, files - 64))
        app.config["MAX_STREAMS"] = min(lim.max_streams, lim.threads - 8)
        body = min(lim.max_request_body_size, int(app.config.get("MAX_CONTENT_LENGTH") or lim.max_request_body_size))
        self._server = create_server(
            app, host=host, port=port, threads=lim.threads, connection_limit=conn,
            channel_timeout=lim.channel_timeout, cleanup_interval=lim.cleanup_interval,
            max_request_header_size=lim.max_request_header_size, max_request_body_size=body,
            ident="rummy-referee", expose_tracebacks=False, asyncore_use_poll=True, clear_untrusted_proxy_headers=True,
        )
        self.app = app
        self.host = host
        self.port = int(self._server.effective_port)

    def run(self) -> None:
        self._server.run()

    def close(self) -> None:
        """Stop listening, end the live streams (each holds a worker thread) and close every open connection,
        so that `run` returns at once rather than when the last screen goes away."""
        hub = self.app.extensions.get(HUB)
        if hub is not None:
            hub.close()
        for channel in list(self._server._map.values()):
            if hasattr(channel, "will_close") and channel is not self._server:
                channel.will_close = True  # the server's loop closes it once what it was sending has gone
        try:
            self._server.pull_trigger()
        except Exception:  # closed already
            log.debug("waking the server", exc_info=True)
        try:
            self._server.close()
        except Exception:  # closing twice, or while the loop ends
            log.debug("closing the server", exc_info=True)
        try:
            self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=2)
        except Exception:
            log.debug("stopping the worker threads", exc_info=True)


def make_server(app, host: str, port: int, limits: ServerLimits | None = None) -> Server:
    """A waitress server for `app`; raises OSError when the address cannot be listened on."""
    return Server(app, host, port, limits)
