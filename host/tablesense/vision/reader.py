"""The simulated camera board of one table: the real pipeline on rendered frames.

:class:`VisionCore` is the board's logic on a given clock. The scenario (the
same JSON lines the other simulated readers play: seat, card, zone, face)
moves cards in a :class:`~tablesense.vision.scene.Scene`; when something
moved, each camera's frame is rendered again where it changed
(:class:`~tablesense.vision.render.Renderer`), and the pipeline reads it:
the regions whose pixels changed are recognised
(:class:`~tablesense.vision.pipeline.Recogniser`, with the poses found by
calibrating on the plate at start-up, not the simulator's), and the
sightings of all cameras are fused into one observation per card
(:class:`~tablesense.vision.fuse.Fuser`). The truth is never read past the
renderer. A frame's reading is released a fixed delay after the move it
shows (see :meth:`VisionCore.scan`); each seat's observations then go through
the firmware's debouncer, one per seat, as four seat readers on one board
would, and become OBSERVE frames naming each card's holder.

:func:`vision_reader` puts it behind a pty with the Python reader's wire
behaviour (tablesense.demo.pysim): one reader, covering the four seats.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tablesense.contract.vocab import SEATS
from tablesense.demo.pysim import DEBOUNCE_MS, PySimReader
from tablesense.vision import geometry as g
from tablesense.vision.board import Reading, Seen, debouncers, observe_fields
from tablesense.vision.pipeline import (
    PLATE_HALF,
    CameraCheck,
    Recogniser,
    calibrate_camera,
    calibrated,
    plate_image,
)
from tablesense.vision.render import CONDITIONS, Conditions, Renderer
from tablesense.vision.scene import Scene

FRAME_MS = 40  # moves this close share a frame; frames only when something moved
SETTLE_MAX_MS = 100  # the next frame waits at most this long for the last one's changes
HOLD_MAX_MS = 1000  # a release waits at most this long for the last one's to be reported


class CalibrationError(RuntimeError):
    """A camera failed its calibration check (the plate not found, blur, glare ...)."""


class VisionCore:
    """One table's camera board: scenario -> frames -> pipeline -> debounce -> OBSERVE."""

    def __init__(self, scenario: list[dict[str, Any]], conditions: str | Conditions = "clean",
                 debounce_ms: int = DEBOUNCE_MS, frame_ms: int = FRAME_MS,
                 scale: float = 1.0) -> None:
        self.events = sorted((e for e in scenario if "card" in e and e.get("seat") in SEATS),
                             key=lambda e: int(e.get("t", 0)))
        self.cond = CONDITIONS[conditions] if isinstance(conditions, str) else conditions
        self.scene = Scene()
        self.rig = g.rig(scale)
        self.renderer = Renderer(self.rig)
        self.checks: dict[str, CameraCheck] = {}
        plate = plate_image()
        for name, cam in self.rig.items():
            frame = np.asarray(self.renderer.render_plate(name, plate, PLATE_HALF,
                                                          CONDITIONS["clean"]))
            self.checks[name] = calibrate_camera(cam, frame)
        bad = [f"{c.camera}: {', '.join(c.problems)}" for c in self.checks.values() if not c.ok]
        if bad:
            raise CalibrationError("; ".join(bad))
        self.reading = Reading({name: Recogniser(calibrated(cam, self.checks[name]))
                                for name, cam in self.rig.items()})
        self.recognisers = self.reading.recognisers
        # the board looks at the empty table once before its clock starts, as a real one
        # does while it boots: the camera's noise over a whole frame, and every region read
        # once, are not paid for by the first move (a second a camera at the rig's size)
        for name, rec in self.recognisers.items():
            rec.recognise(np.asarray(self.renderer.update(name, [], self.cond, 0)[0]))
        self.debouncers = debouncers(debounce_ms)
        self.frame_ms = frame_ms
        self.frames = 0
        self._next = 0
        self.lag = 0  # ms from a move to the release of its frame's reading (never shrinks)
        self.taken = -10**9  # when the last frame was taken (the board's clock)
        self.clock: Callable[[], int] | None = None  # the board's ms clock, read after a frame
        self._read: tuple[int, Seen] | None = None  # a frame read, not released yet
        self._released_at = -10**9
        self._held_since: int | None = None  # when the release fell due, if held
        self._seen: Seen = {}
        self.moved_at: dict[str, int] = {}  # card -> scenario time of its last move

    def advance(self, now: int) -> None:
        """Before its CONFIG the board does not look; once configured it frames what
        happened meanwhile, in order."""

    def _apply(self, until: int) -> bool:
        """The scenario's lines up to ``until`` move the cards; True if any did."""
        moved = False
        while self._next < len(self.events) and int(self.events[self._next].get("t", 0)) <= until:
            e = self.events[self._next]
            self._next += 1
            card = str(e["card"]).upper()
            self.scene.move(e["seat"], card, e.get("zone", "gone"), e.get("face", "unknown"))
            self.moved_at[card] = int(e.get("t", 0))
            moved = True
        return moved

    @property
    def reads(self) -> int:
        return self.reading.reads

    def look(self) -> Seen:
        """One frame from each camera, read and fused: what each seat's cards look like."""
        self.frames += 1
        placed = self.scene.placed()
        return self.reading.read({
            name: np.asarray(self.renderer.update(name, placed, self.cond, self.frames)[0])
            for name in self.recognisers})

    def _settled(self, now: int) -> bool:
        """The board may take its next frame: the last one is released and its changes
        are committed (or have had SETTLE_MAX_MS), a frame period after the last capture."""
        if self._read is not None or now - self.taken < self.frame_ms:
            return False
        waited = now - self._released_at
        return waited >= SETTLE_MAX_MS or not any(d._pend for d in self.debouncers.values())

    def _committed(self, seen: Seen) -> bool:
        """No card that ``seen`` changes has a change pending in the debouncers."""
        was = {c: obs for cards in self._seen.values() for c, obs in cards.items()}
        now = {c: obs for cards in seen.values() for c, obs in cards.items()}
        changed = {c for c in was.keys() | now.keys() if was.get(c) != now.get(c)}
        return not any(c in d._pend for d in self.debouncers.values() for c in changed)

    def scan(self, now: int) -> list[dict[str, Any]]:
        """One scan at ``now``: the OBSERVE fields of the changes it commits.

        Moves are framed in the order they happen, one frame at a time (moves
        within ``frame_ms`` share a frame): a frame is taken once the last one
        is released and its changes committed, and read at once. What it saw is
        released to the debouncers ``lag`` ms after the move it shows, ``lag``
        being the longest any frame has yet taken from its move to its reading
        (a fixed delay, as a jitter buffer keeps): a board that reads slowly
        reports late, never out of order, and its reports stay as far apart as
        the moves were, however long each frame took to read. ``lag`` grows only
        when a frame takes longer than any before it, or a release has to wait
        for the debouncers to report the last one's changes to the same cards
        (HOLD_MAX_MS at most).
        """
        if (self._next < len(self.events) and int(self.events[self._next].get("t", 0)) <= now
                and self._settled(now)):
            first = int(self.events[self._next].get("t", 0))
            self.taken = now
            self._apply(first + self.frame_ms)
            self._read = (first, self.look())
            done = self.clock() if self.clock is not None else now
            self.lag = max(self.lag, done - first)
        if self._read is not None and self._read[0] + self.lag <= now:
            first, seen = self._read
            if self._held_since is None:
                self._held_since = now
            if now - self._held_since >= HOLD_MAX_MS or self._committed(seen):
                self._read = None
                self._seen = seen
                self._released_at = now
                # held back: later releases keep their spacing from here (a release
                # late only by the scan's phase is not behind)
                self.lag += now - self._held_since
                self._held_since = None
        return observe_fields(self.debouncers, now, self._seen)


def vision_core(scenario: list[dict[str, Any]], conditions: str = "clean") -> VisionCore:
    """A calibrated camera board for ``scenario`` (raises CalibrationError)."""
    return VisionCore(scenario, conditions)


def vision_reader(core: VisionCore, *, zero: float | None = None,
                  serial: str = "CAM-1") -> PySimReader:
    """The camera board behind a pty (its ``port``), covering N E S W: one reader id,
    configured as N, naming each card's holder in its OBSERVE frames."""
    reader = PySimReader("N", [], zero=zero, serial=serial, core=core, beat_thread=True)
    core.clock = reader.now
    return reader
