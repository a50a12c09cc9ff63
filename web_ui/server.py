"""The page's own server: event-driven, so a hundred live viewers cost no thread each.

Tornado's event loop owns every connection.  Pages, actions and downloads are the Flask app,
run by a small pool of threads (``threads``).  ``/events`` (Server-Sent Events) is answered by
the loop itself: one *fan-out* thread waits on ``GameView.events_since`` for everyone and hands
each new batch to the loop, which writes it to every open stream; a viewer is a socket and a few
numbers, not a thread.  The messages are the same functions the Flask view uses
(:func:`web_ui.live.opening_messages`, :func:`~web_ui.live.batch_messages`), rendered once per
batch and language and run inside a request context made from the viewer's own request (its
host is checked, its language cookie read) so nothing about a stream bypasses the app's rules.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from flask import Flask
from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop, PeriodicCallback
from tornado.iostream import StreamClosedError
from tornado.netutil import bind_sockets
from tornado.web import Application, FallbackHandler, RequestHandler
from tornado.wsgi import WSGIContainer
from werkzeug.exceptions import SecurityError

from web_ui.common import lang, state
from web_ui.security import CSP
from web_ui.view import Event

log = logging.getLogger(__name__)

#: Open event streams one server keeps at most (each is a socket and a little memory).
MAX_VIEWERS = 1000


class _Viewer:
    """One open event stream."""

    __slots__ = ("handler", "environ", "lang", "last", "done")

    def __init__(self, handler: EventsHandler, environ: dict[str, Any], lang: str, last: int) -> None:
        self.handler = handler
        self.environ = environ
        self.lang = lang
        self.last = last
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class FanOut:
    """Every viewer's stream, fed from one thread that waits for the referee's events."""

    def __init__(self, app: Flask, loop: IOLoop) -> None:
        self.app = app
        self.loop = loop
        self.view = state(app).view
        self.viewers: set[_Viewer] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._wait, name="page-fanout", daemon=True)
        heartbeat = float(app.config["SSE_HEARTBEAT"])
        self._beat = PeriodicCallback(self._keep_alive, heartbeat * 1000)

    def start(self) -> None:
        self._thread.start()
        self._beat.start()

    def stop(self) -> None:
        self._stop.set()
        self._beat.stop()
        for viewer in list(self.viewers):
            self.drop(viewer)

    def _wait(self) -> None:
        last = self.view.latest_event_id()
        while not self._stop.is_set():
            try:
                batch = self.view.events_since(last, 1.0)
            except Exception:  # the game view must never stop the page
                log.exception("events_since failed")
                self._stop.wait(1.0)
                continue
            batch = [event for event in batch if event[0] > last]
            if batch:
                last = batch[-1][0]
                self.loop.add_callback(self._deliver, batch)

    def _deliver(self, batch: list[Event]) -> None:
        from web_ui.live import batch_messages

        if not self.viewers:
            return
        snap = self.view.snapshot()
        rendered: dict[tuple[str, int], str] = {}  # one rendering per language and starting point
        for viewer in list(self.viewers):
            missed = [event for event in batch if event[0] > viewer.last]
            if not missed:
                continue
            key = (viewer.lang, missed[0][0])
            if key not in rendered:
                with self.app.request_context(viewer.environ):
                    rendered[key] = batch_messages(missed, snap)
            viewer.last = missed[-1][0]
            self.send(viewer, rendered[key])

    def _keep_alive(self) -> None:
        for viewer in list(self.viewers):
            self.send(viewer, ": keep-alive\n\n")

    def send(self, viewer: _Viewer, text: str) -> None:
        handler = viewer.handler
        try:
            handler.write(text)
            handler.flush()
        except StreamClosedError:
            self.drop(viewer)
        except Exception:  # a closed or broken connection: forget the viewer
            log.debug("stream write failed", exc_info=True)
            self.drop(viewer)

    def drop(self, viewer: _Viewer) -> None:
        if viewer in self.viewers:
            self.viewers.discard(viewer)
            st = state(self.app)
            st.close_stream()
        if not viewer.done.done():
            viewer.done.set_result(None)


class EventsHandler(RequestHandler):
    """``GET /events`` on the event loop (see the module docstring)."""

    def initialize(self, app: Flask, fanout: Callable[[], FanOut], container: WSGIContainer) -> None:
        self.flask = app
        self.fanout = fanout
        self.container = container
        self.viewer: _Viewer | None = None

    def set_default_headers(self) -> None:
        self.set_header("Server", "referee")

    async def get(self) -> None:
        from web_ui.live import busy_message, opening_messages, requested_last

        app = self.flask
        environ = self.container.environ(self.request)
        with app.request_context(environ):
            try:
                from flask import request

                _ = request.host  # the app's trusted-host check
            except SecurityError:
                self.set_status(400)
                self.set_header("Content-Type", "text/plain; charset=utf-8")
                self.finish("This page is not served under that name (unknown Host).\n")
                return
            st = state(app)
            code = lang()
            self.set_header("Content-Type", "text/event-stream; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            self.set_header("X-Accel-Buffering", "no")
            self.set_header("X-Content-Type-Options", "nosniff")
            self.set_header("Content-Security-Policy", CSP)
            if not st.open_stream():
                self.finish(busy_message())
                return
            try:
                first, last = opening_messages(*requested_last())
            except Exception:
                st.close_stream()
                raise
        fanout = self.fanout()
        viewer = _Viewer(self, environ, code, last)
        self.viewer = viewer
        fanout.viewers.add(viewer)
        fanout.send(viewer, first)
        # Events that came while the opening was made: the next batch covers them (viewer.last).
        missed = st.view.events_since(last, 0)
        if missed:
            fanout._deliver(missed)
        lifetime = float(app.config["SSE_MAX_SECONDS"])
        try:
            await asyncio.wait_for(asyncio.shield(viewer.done), lifetime)
        except TimeoutError:
            pass
        fanout.drop(viewer)
        if not self._finished:
            try:
                self.finish()
            except Exception:
                pass

    def on_connection_close(self) -> None:
        if self.viewer is not None:
            self.fanout().drop(self.viewer)


class PageServer:
    """The page on ``host``:``port`` (0: a free one); ``run()`` blocks, ``close()`` from any thread."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0, threads: int = 8) -> None:
        self.app = app
        self.threads = threads
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sockets = bind_sockets(port, host or None, family=family if host else socket.AF_UNSPEC)
        self.effective_port: int = self.sockets[0].getsockname()[1]
        self.host = host
        self._loop: IOLoop | None = None
        self._ready = threading.Event()
        self._closed = threading.Event()
        # who owns the sockets: close() before the loop runs releases them, after it the loop does
        self._lock = threading.Lock()
        self.fanout: FanOut | None = None
        state(app).max_streams = int(app.config.get("SSE_MAX_STREAMS", MAX_VIEWERS))

    def run(self) -> None:
        # Tornado logs every 4xx answer (a wrong PIN, a refused action) as a warning: the page
        # answers those itself; only server errors reach the console.
        logging.getLogger("tornado.access").setLevel(logging.ERROR)
        asyncio.run(self._main())

    async def _main(self) -> None:
        loop = IOLoop.current()
        with self._lock:
            if self._closed.is_set():
                return  # closed before it began serving: close() released the sockets
            self._loop = loop
        executor = ThreadPoolExecutor(self.threads, thread_name_prefix="page")
        container = WSGIContainer(self.app, executor=executor)
        fanout = FanOut(self.app, loop)
        self.fanout = fanout
        application = Application([
            (r"/events", EventsHandler, {"app": self.app, "fanout": lambda: fanout, "container": container}),
            (r".*", FallbackHandler, {"fallback": container}),
        ])
        server = HTTPServer(application, xheaders=False, max_buffer_size=1 << 20, idle_connection_timeout=120)
        server.add_sockets(self.sockets)
        fanout.start()
        self._ready.set()
        stop = asyncio.Event()
        self._stop_event = stop
        if self._closed.is_set():
            stop.set()
        await stop.wait()
        fanout.stop()
        server.stop()
        await server.close_all_connections()
        executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop serving (from any thread); open streams end, the browsers come back elsewhere."""
        with self._lock:
            self._closed.set()
            loop = self._loop
            if loop is None:  # not serving yet: the loop will not take the sockets now
                for sock in self.sockets:
                    sock.close()
        if loop is not None:
            loop.add_callback(lambda: self._stop_event.set())

    def wait_ready(self, timeout: float = 5.0) -> bool:
        return self._ready.wait(timeout)
