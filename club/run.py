"""``referee club``: the club server process (MQTT listener + dashboard), until SIGTERM or Ctrl-C."""

from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path
from typing import Any

from club.mirror import Mirror
from club.protocol import parse_broker
from club.server import ClubListener
from club.web import create_club_app
from web_ui.security import PinStore, check_pin_format

log = logging.getLogger(__name__)


def make_http_server(app: Any, host: str, port: int, threads: int = 8) -> Any:
    from waitress.server import create_server

    return create_server(app, host=host, port=port, threads=threads, ident="referee-club")


class HttpThread:
    """A waitress server in a daemon thread that can be stopped from another thread.

    Closing waitress's sockets while its loop waits on them can raise in that loop (a closed file
    descriptor); once ``stop()`` was asked, that is the expected end, not an error.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="club-web", daemon=True)

    @property
    def port(self) -> int:
        return int(self.server.effective_port)

    def _run(self) -> None:
        try:
            self.server.run()
        except (OSError, ValueError):
            if not self.stopping:
                raise

    def start(self) -> HttpThread:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping = True
        self.server.close()
        self.thread.join(timeout=3)


def run_club(broker: str, port: int, data_dir: str, host: str = "0.0.0.0", username: str | None = None,
             password: str | None = None, pin: str | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    address = parse_broker(broker)
    mirror = Mirror(Path(data_dir))
    found = mirror.load()
    listener = ClubListener(address, mirror, username=username, password=password).start()
    pins = PinStore(Path(data_dir) / "director-pin.json")
    if pin:
        pins.set(check_pin_format(pin))
    server = make_http_server(create_club_app(mirror, listener.command, pins), host, port)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    http = HttpThread(server).start()
    print(f"club server: {found} match copies in {data_dir}; broker {address}; "
          f"dashboard on http://{host}:{server.effective_port}/; director actions "
          f"{'on (PIN set)' if pins.is_set() else 'off (no director PIN)'}", flush=True)
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        listener.close()
        http.stop()
        mirror.close()
    return 0
