"""``referee run``: the referee at a real board, as a systemd service on a Raspberry Pi.

Settings come from a TOML file (``referee run --config /etc/referee/referee.toml``) with the
environment on top (INTERFACES.md §5: ``REFEREE_CAMERA``, ``REFEREE_LEDS``, ``REFEREE_DATA_DIR``;
gpiozero reads ``GPIOZERO_PIN_FACTORY`` itself).  An unknown setting is a one-line error.

The service resumes the newest unfinished match journal in the data directory (verifying the
board before it judges again) or starts a new match.  The camera loop never blocks the game on a
lost device: a lost camera pauses the game (status LED, page) until the camera is back; a lost LED
controller falls back to the Pi's own LED and buzzer.  systemd is told ``READY=1`` once running
and ``WATCHDOG=1`` every few seconds while the main loop turns (also while it waits for a lost
camera).  Odd frames (greyscale, tiny, failing to read) are reported and skipped; a camera that
comes back at another resolution pauses the game until it is recalibrated.  A journal write that
fails (disk full) pauses the game until the disk takes writes again; a journal damaged in the
middle is not resumed until the director decides on the page.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading
import time
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.inputs import DEFAULT_BUTTONS, Buttons
from controller.referee import Referee, RefereeSettings
from controller.signals import BoardSignals
from controller.table import Table
from firmware_bridge.gpio import DEFAULT_PINS
from recording.journal import Header, Journal, JournalGap
from rules import match
from rules.variants import find_variant

if TYPE_CHECKING:
    from vision.config import VisionConfig

log = logging.getLogger(__name__)


@dataclass
class ServiceSettings:
    """Everything a club sets once per device (see hardware/referee.toml for an example)."""

    camera: str = "v4l2:0"
    leds: str = "none"
    data_dir: str = "/var/lib/referee"
    host: str = "0.0.0.0"
    port: int = 8080
    variant: str = "backgammon"
    match_length: int = 0
    players: tuple[str, str] = ("White", "Black")
    options: dict[str, Any] = field(default_factory=dict)
    device: str = field(default_factory=socket.gethostname)
    event: str = ""
    site: str = ""
    tournament: bool = False
    turn_end: str = "dice"
    settled_turn_end_s: float = 4.0
    buttons: dict[str, int | None] = field(default_factory=lambda: dict(DEFAULT_BUTTONS))
    gpio_red: int | None = DEFAULT_PINS["red"]
    gpio_green: int | None = DEFAULT_PINS["green"]
    gpio_buzzer: int | None = DEFAULT_PINS["buzzer"]
    led_map: str = ""
    pin: str = ""
    club: str = ""  # mqtt://HOST:PORT[/CLUB]: also publish to the club's broker (docs/CLUB.md)
    table: str = ""  # this board's table name at the club
    club_user: str = ""
    club_password: str = ""
    #: which vision readers referee: auto, classical or learned for all three parts, or part by
    #: part (``checkers=learned,dice=learned,hands=classical``; vision.config.VisionConfig.with_readers).
    #: auto: the classical readers on the 2-D renderer's pictures (the synthetic camera), the
    #: learned ones on a real camera's (vision.config.auto_readers)
    readers: str = "auto"

    def vision_config(self) -> VisionConfig:
        """The readers this camera's pictures are read with (``readers``; ``auto`` by whether the
        camera shows the 2-D renderer's pictures).  ValueError for a bad ``readers``."""
        from vision.cameras import shows_renderer
        from vision.config import VisionConfig

        try:
            synthetic = shows_renderer(self.camera)
        except (ValueError, OSError) as error:  # a frames: folder that is (no longer) a readable dataset
            log.warning("camera %s: %s; the readers are chosen as for a real camera", self.camera, error)
            synthetic = False
        return VisionConfig.with_readers(self.readers, synthetic=synthetic)

    def validate(self) -> ServiceSettings:
        from vision.cameras import parse_camera
        from vision.nets import check_engine

        parse_camera(self.camera)
        if "learned" in self.vision_config().readers():
            check_engine()  # $REFEREE_NETS, the engine of the learned readers' models
        variant = find_variant(self.variant)
        self.variant = variant.name
        variant.validate_options(self.options)
        if self.turn_end not in ("dice", "button", "settled"):
            raise ValueError(f"turn_end must be dice, button or settled, not {self.turn_end!r}")
        if not 0 < int(self.port) < 65536:
            raise ValueError(f"port must be 1..65535, not {self.port}")
        if len(self.players) != 2:
            raise ValueError("players must name two players")
        if self.club:
            from club.protocol import check_name, parse_broker

            parse_broker(self.club)
            if not self.table:
                raise ValueError("club needs table (this board's table name at the club)")
            check_name(self.table, "table")
        return self


def load_settings(path: str | None = None, environ: dict[str, str] | None = None) -> ServiceSettings:
    """Settings from a TOML file (flat keys or [game]/[web]/[gpio] tables), then the environment."""
    environ = dict(os.environ if environ is None else environ)
    values: dict[str, Any] = {}
    if path:
        try:
            with open(path, "rb") as stream:
                data = tomllib.load(stream)
        except tomllib.TOMLDecodeError as error:
            raise ValueError(f"{path}: not valid TOML ({error})") from None
        for key, value in data.items():
            if isinstance(value, dict) and key in ("game", "web", "referee", "gpio", "camera_settings"):
                for inner, item in value.items():
                    values[f"gpio_{inner}" if key == "gpio" and inner in ("red", "green", "buzzer") else inner] = item
            else:
                values[key] = value
    known = {f.name for f in fields(ServiceSettings)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown setting(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    for name, env in (("camera", "REFEREE_CAMERA"), ("leds", "REFEREE_LEDS"), ("data_dir", "REFEREE_DATA_DIR"),
                      ("club", "REFEREE_CLUB"), ("table", "REFEREE_TABLE"),
                      ("readers", "REFEREE_READERS")):
        if environ.get(env):
            values[name] = environ[env]
    if "players" in values:
        values["players"] = tuple(values["players"])
    return ServiceSettings(**values).validate()


def sd_notify(message: str) -> bool:
    """Tell systemd (``Type=notify``) something; False when not run by systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError as error:
        log.warning("systemd notify failed: %s", error)
        return False
    return True


def find_unfinished(data_dir: Path) -> tuple[Path | None, list[str]]:
    """The newest unfinished match journal, and what was wrong with the journals skipped on the way."""
    skipped: list[str] = []
    for path in sorted(data_dir.glob("match-*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            state = Journal.open(path, repair=False).state
        except (ValueError, OSError) as error:
            log.warning("skipping %s: %s", path, error)
            skipped.append(f"{path.name} cannot be read ({error}): not resumed")
            continue
        if state.phase != match.MATCH_OVER:
            return path, skipped
    return None, skipped


def newest_unfinished(data_dir: Path) -> Path | None:
    return find_unfinished(data_dir)[0]


#: Frames smaller than this (either side) cannot show a board: reported and skipped.
MIN_FRAME_SIDE = 32
#: How often (seconds) a game paused by a failed journal write checks whether the disk takes writes.
DISK_RETRY_S = 2.0
#: systemd's WatchdogSec should be several times this.
WATCHDOG_EVERY_S = 5.0


def frame_problem(frame: Any) -> str:
    """Why a camera frame cannot be read ("" when it can): the loop reports and skips it."""
    import numpy as np

    if not isinstance(frame, np.ndarray):
        return f"not an image ({type(frame).__name__})"
    if frame.ndim != 3 or frame.shape[2] != 3:
        channels = 1 if frame.ndim == 2 else (frame.shape[2] if frame.ndim == 3 else 0)
        return f"a {channels}-channel frame (colour frames only)"
    if frame.dtype != np.uint8:
        return f"a frame of {frame.dtype} (8-bit frames only)"
    height, width = frame.shape[:2]
    if min(height, width) < MIN_FRAME_SIDE:
        return f"a {width}x{height} frame (too small to show a board)"
    return ""


class Service:
    """The running referee: devices, journal, referee, page."""

    def __init__(self, settings: ServiceSettings) -> None:
        self.settings = settings
        self.data_dir = Path(settings.data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.stop = threading.Event()
        self.lock = threading.RLock()
        self.table: Table | None = None
        self.referee: Referee | None = None
        self.camera: Any = None
        self.calibration: Any = None
        self.frame: Any = None
        self.camera_ok = True
        self.last_watchdog = 0.0
        self.last_disk_check = 0.0
        self.skipped_journals: list[str] = []  # journals found unreadable at start (shown on the page)
        self.damaged: Any = None  # a JournalGap waiting for the director's decision
        self.odd_frames = 0  # frames reported and skipped (wrong shape, too small, failed to read)
        self.odd_frame = ""  # the last one's problem
        self.odd_frame_at = -1e9
        self.resolution = ""  # the camera's new resolution when it differs from the calibration
        from firmware_bridge import GpioSignals, LedMap, open_leds

        self.gpio = GpioSignals(settings.gpio_red, settings.gpio_green, settings.gpio_buzzer)
        led_map = LedMap.load(settings.led_map) if settings.led_map else None
        self.leds = open_leds(settings.leds, gpio=self.gpio, led_map=led_map)
        self.signals = BoardSignals(self.leds)
        self.buttons = Buttons({
            "turn0": lambda: self._button_turn(0),
            "turn1": lambda: self._button_turn(1),
            "accept": lambda: self.referee.accept_illegal() if self.referee else None,
        }, settings.buttons)
        from controller.web import RefereeHub

        self.hub = RefereeHub(self.data_dir, tournament=settings.tournament, new_game=self.new_game,
                              calibration=self.calibrate, leds_status=self.leds.status,
                              camera_status=self.camera_status, journal_status=self.journal_status,
                              resume_damaged=self.resume_damaged)
        self.signals.add_listener(self.hub.publish)
        self.club: Any = None
        if settings.club:
            from controller.club_link import ClubPublisher

            self.club = ClubPublisher(settings.club, settings.table, username=settings.club_user or None,
                                      password=settings.club_password or None, data_dir=self.data_dir,
                                      health=self._health, tournament=settings.tournament,
                                      page=f"http://{settings.device}:{settings.port}/").start()
            self.signals.add_listener(self.club.wake)

    # --- match -------------------------------------------------------------------------------
    def _button_turn(self, player: int) -> None:
        if self.referee is not None:
            self.referee.turn_button(player)

    def open_match(self) -> None:
        """Resume the newest unfinished match, or start one.

        A journal damaged in the middle with events missing is not resumed: the page says so and
        the director chooses (resume from before the damage, or a new match).
        """
        path, self.skipped_journals = find_unfinished(self.data_dir)
        if path is not None:
            try:
                journal = Journal.open(path)
            except JournalGap as gap:
                log.error("not resuming %s", gap)
                self.damaged = gap
                self.hub.publish("journal", {"ok": False, "problem": str(gap)})
                return
            for damage in journal.damage:
                log.warning("journal %s repaired: %s", path.name, damage)
            log.info("resuming %s", path.name)
        else:
            journal = self._create_journal(self.settings.variant, self.settings.players,
                                           self.settings.match_length, self.settings.options)
        self._start_referee(journal)

    def resume_damaged(self) -> None:
        """The director's choice: resume the damaged match from before the damage (the later
        lines are saved beside the journal)."""
        gap = self.damaged
        if gap is None:
            raise ValueError("no damaged match is waiting")
        journal = Journal.open(gap.path, accept_loss=True)
        for damage in journal.damage:
            log.warning("journal %s cut by decision: %s", Path(gap.path).name, damage)
        self.damaged = None
        self._start_referee(journal)
        self.hub.publish("journal", {"ok": True})

    def journal_status(self) -> tuple[str, str] | None:
        """What the page shows for the journal when it is not simply recording."""
        if self.damaged is not None:
            return "error", str(self.damaged)
        referee = self.referee
        if referee is not None and referee.journal_error:
            return "error", referee.journal_error
        if self.skipped_journals:
            return "warn", "; ".join(self.skipped_journals)
        return None

    def _create_journal(self, variant: str, players: tuple[str, str], length: int, options: dict[str, Any]) -> Journal:
        name = f"match-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
        header = Header(variant=variant, match_length=length, players=players, options=options,
                        device=self.settings.device, event=self.settings.event, site=self.settings.site)
        return Journal.create(self.data_dir / name, header)

    def _start_referee(self, journal: Journal) -> None:
        with self.lock:
            settings = RefereeSettings(turn_end=self.settings.turn_end,
                                       settled_turn_end_s=self.settings.settled_turn_end_s)
            self.referee = Referee(journal, self.signals, settings)
            self.hub.attach_referee(self.referee)
            if self.club is not None:
                self.club.attach(self.referee)
            self.signals.seat_of = lambda p: self.referee.seating.seat(p) if self.referee and self.referee.seating else "bottom"
            self._make_table()

    def _make_table(self) -> None:
        if self.referee is None or self.calibration is None:
            self.table = None
            return
        from vision.pipeline import Reader

        config = self.settings.vision_config()
        log.info("reading the board with %s", config.readers())
        if "learned" in config.readers():
            from vision.nets import check_engine

            log.info("the learned readers' models run by %s", check_engine())
        self.table = Table(Reader(self.calibration, config), self.referee,
                           evidence_dir=self.data_dir / f"{Path(self.referee.journal.path).stem}-evidence")
        self.hub.attach(self.table)

    def new_game(self, variant: str, players: tuple[str, str], match_length: int, options: dict[str, Any]) -> None:
        """A new match from the page (the current journal stays as it is)."""
        variant_name = find_variant(variant).name
        find_variant(variant_name).validate_options(options)
        with self.lock:
            if self.referee is not None:
                self.referee.journal.close()
            self._start_referee(self._create_journal(variant_name, players, match_length, dict(options)))
            self.damaged = None  # the director chose a new match over the damaged one (kept as it is)

    # --- calibration -------------------------------------------------------------------------
    def calibration_path(self) -> Path:
        return self.data_dir / "calibration.json"

    def load_calibration(self) -> None:
        from vision.calibration import Calibration

        path = self.calibration_path()
        if path.exists():
            self.calibration = Calibration.load(path)

    def calibrate(self, what: str, *args: Any) -> None:
        """Page actions: four clicked corners, capture the empty board, capture the start."""
        from vision.calibration import calibrate

        frame = self.frame
        if frame is None:
            raise ValueError("no camera frame yet")
        size = (frame.shape[1], frame.shape[0])
        old = self.calibration
        corners = old.geometry.corners if old is not None else None
        # the start position's photo, once taken, is kept when the corners or the empty board are
        # taken again (the checkers' colours are learnt from it again)
        start = old.start_frame if old is not None else None
        variant = old.start_variant if old is not None else "backgammon"
        # and so is the empty board's photo; without one (calibrated from the start position
        # alone) the reference photo is the start position's, which is no empty board
        empty = old.reference_frame if old is not None and old.background_source == "empty" else None
        if what == "corners":
            corners = [tuple(map(float, c)) for c in args[0]]
            self.calibration = calibrate(corners, size, empty=empty, start=start, variant=variant)
        elif what == "empty":
            self.calibration = calibrate(corners, size, empty=frame, start=start, variant=variant)
        elif what == "start":
            self.calibration = calibrate(corners, size, empty=empty, start=frame, variant=find_variant(args[0]).name)
        else:
            raise ValueError(f"unknown calibration step {what!r}")
        self.calibration.save(self.calibration_path())
        with self.lock:
            self._make_table()
        if self.resolution and self.calibration.geometry.image_size == size:
            self.resolution = ""
            if self.referee is not None:
                self.referee.resume("camera resolution")

    def _health(self) -> dict[str, Any]:
        """Device health for the club's dashboard."""
        camera_ok, camera = self.camera_status()
        leds = self.leds.status()
        leds_ok = leds.get("backend") == "none" or bool(leds.get("connected"))
        return {"camera_ok": camera_ok, "camera": camera, "leds_ok": leds_ok,
                "calibrated": self.calibration is not None}

    def camera_status(self) -> tuple[bool, str]:
        if self.camera is None:
            return False, "no camera opened"
        status = self.camera.status
        if status.state != "ok":
            return False, f"camera {status.state}: {status.last_error or ''} (game paused)"
        if self.resolution:
            return False, self.resolution
        if time.monotonic() - self.odd_frame_at < 5.0:
            return False, f"{self.odd_frames} odd frame(s) skipped (last: {self.odd_frame})"
        return True, status.source

    # --- the loop ----------------------------------------------------------------------------
    def open_camera(self) -> None:
        """The camera behind a supervisor that reopens it with backoff; never silently another."""
        from vision.cameras import SupervisedCamera, open_camera, parse_camera

        setting = self.settings.camera
        parse_camera(setting)  # an unknown setting is an error now, not a retry loop
        self.camera = SupervisedCamera(lambda: open_camera(setting))

    def step(self) -> bool:
        """One frame; False when no frame came (camera lost or slow)."""
        frame = self.camera.read()
        if frame is None:
            if self.camera_ok:
                self.camera_ok = False
                if self.table is not None:
                    self.table.health.camera_ok = False
                if self.referee is not None:
                    self.referee.pause("camera")
                self.signals.emit("camera", {"ok": False})
            return False
        if not self.camera_ok:
            self.camera_ok = True
            if self.table is not None:
                self.table.health.camera_ok = True
            if self.referee is not None:
                # lifts the camera's pause only (a director's pause stays); the board is verified
                # against the journal before anything is judged again
                self.referee.resume("camera")
            self.signals.emit("camera", {"ok": True})
        problem = frame_problem(frame)
        if problem:
            self._skip_frame(problem)
            return True
        self.frame = frame
        if not self._resolution_fits(frame):
            return True
        with self.lock:
            table = self.table
        if table is not None:
            try:
                table.feed(frame)
            except Exception as error:  # one unreadable frame must not stop the referee
                log.exception("frame not read")
                self._skip_frame(f"reading it failed: {str(error).splitlines()[0] if str(error) else type(error).__name__}")
        return True

    def _skip_frame(self, problem: str) -> None:
        self.odd_frames += 1
        if problem != self.odd_frame or time.monotonic() - self.odd_frame_at > 60:
            log.warning("camera frame skipped: %s", problem)
        self.odd_frame = problem
        self.odd_frame_at = time.monotonic()

    def _resolution_fits(self, frame: Any) -> bool:
        """A camera that comes back at another resolution: pause and ask for a recalibration."""
        if self.calibration is None:
            return True
        size = (frame.shape[1], frame.shape[0])
        expected = tuple(self.calibration.geometry.image_size)
        if size == expected:
            return True
        if not self.resolution:
            self.resolution = (f"the camera now sends {size[0]}x{size[1]} frames, the calibration is for "
                               f"{expected[0]}x{expected[1]}: recalibrate (game paused)")
            log.warning("%s", self.resolution)
            if self.referee is not None:
                self.referee.pause("camera resolution")
            self.signals.emit("camera", {"ok": False, "problem": self.resolution})
        return False

    def housekeeping(self, now: float | None = None) -> None:
        """Every turn of the main loop, frame or not: the watchdog and a paused journal."""
        now = time.monotonic() if now is None else now
        if now - self.last_watchdog >= WATCHDOG_EVERY_S:
            # the loop is alive, also while it waits for a camera: systemd must not restart it
            sd_notify("WATCHDOG=1")
            self.last_watchdog = now
        referee = self.referee
        if referee is not None and referee.journal_error and now - self.last_disk_check >= DISK_RETRY_S:
            self.last_disk_check = now
            if referee.retry_journal():
                log.info("the journal takes writes again: game resumed")

    def run(self) -> None:
        self.load_calibration()
        self.open_match()
        self.open_camera()
        from controller.web import start_page  # noqa: F401  (the page is served below)
        from web_ui import create_app, make_server

        app = create_app(self.hub, self.hub, {"DATA_DIR": str(self.data_dir), "PIN": self.settings.pin or None})
        server = make_server(app, host=self.settings.host, port=self.settings.port)
        threading.Thread(target=server.run, name="referee-web", daemon=True).start()
        from web_ui.security import setup_code_notice

        notice = setup_code_notice(app.extensions["referee"], f"http://{self.settings.host}:{self.settings.port}/")
        if notice:
            print(notice, file=sys.stderr, flush=True)  # the console / journald: only the operator sees it
        sd_notify("READY=1")
        log.info("referee running; page on port %s", self.settings.port)
        try:
            while not self.stop.is_set():
                got = self.step()
                self.housekeeping()
                if not got:
                    self.stop.wait(0.2)
        finally:
            sd_notify("STOPPING=1")
            server.close()
            self.close()

    def close(self) -> None:
        if self.club is not None:
            self.club.close(timeout=5.0)
        self.buttons.close()
        if self.camera is not None:
            self.camera.close()
        if self.referee is not None:
            self.referee.journal.close()
        self.leds.close()
        self.gpio.close()


def main_service(config: str | None, club: str | None = None, table: str | None = None,
                 readers: str | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    settings = load_settings(config)
    if club or table or readers:
        settings.club = club or settings.club
        settings.table = table or settings.table
        settings.readers = readers or settings.readers
        settings.validate()
    service = Service(settings)
    signal.signal(signal.SIGTERM, lambda *_: service.stop.set())
    try:
        service.run()
    except KeyboardInterrupt:
        service.stop.set()
    return 0
