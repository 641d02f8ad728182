"""The real camera board: frames from cameras, the same pipeline and wire as the simulated one.

:class:`LiveCore` is the board's logic behind
:class:`~tablesense.demo.pysim.PySimReader`'s wire (HELLO until configured,
heartbeats, OBSERVE, the resend ring), the same wire the simulated camera
board speaks: each scan, when a camera has delivered a new frame, every
camera's newest frame is read and fused (:class:`~tablesense.vision.board.Reading`)
and the changes go through the seats' debouncers into OBSERVE frames.

Poses: a camera's pose comes from the calibration plate, either found in its
first frame at start-up (:func:`calibrate_sources`, as the simulated board
calibrates on the rendered plate) or read from the file ``tablesense
calibrate --write-poses`` wrote (:func:`load_poses`). A camera's lens is the
rig's (:func:`~tablesense.vision.geometry.rig`), read out at whatever
resolution the source delivers, if it has the sensor's shape.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from tablesense.onboard.debounce import Debouncer
from tablesense.vision import geometry as g
from tablesense.vision.board import Reading, Seen, debouncers, observe_fields
from tablesense.vision.capture import Source
from tablesense.vision.pipeline import CameraCheck, Recogniser, calibrate_camera, calibrated

POSES_VERSION = 1
log = logging.getLogger("tablesense.camera")


class PoseError(ValueError):
    """A poses file that cannot be used; the message names the file and the field."""


def camera_for(name: str, width: int, height: int, hfov: float | None = None) -> g.Camera:
    """The rig's camera ``name`` as it delivers ``width`` x ``height`` frames: the rig's
    lens, or one of ``hfov`` degrees across (a camera's own lens: the pose found with the
    wrong focal length would put the table at the wrong height). ValueError if there is
    no such camera, or (with the rig's lens) the frame has another shape than its sensor."""
    rig = g.rig()
    if name not in rig:
        raise ValueError(f"no camera {name!r} in the rig: expected one of {' '.join(rig)}")
    if hfov is not None:
        if not 1.0 <= hfov < 179.0:
            raise ValueError(f"camera {name}: a field of view of {hfov} degrees")
        cam = rig[name]
        return g.Camera(name, width, height, g.intrinsics(width, height, hfov), cam.R, cam.C)
    return rig[name].resized(width, height)


def calibrate_sources(sources: dict[str, Source], hfov: dict[str, float] | None = None
                      ) -> dict[str, CameraCheck]:
    """Each source's first frame checked as a plate frame (the plate lying where it lies
    for that camera), with the lens of ``hfov`` degrees where given."""
    hfov = hfov or {}
    out = {}
    for name, src in sources.items():
        frame = src.first()
        cam = camera_for(name, frame.shape[1], frame.shape[0], hfov.get(name))
        out[name] = calibrate_camera(cam, frame)
    return out


def posed(checks: dict[str, CameraCheck], sizes: dict[str, tuple[int, int]],
          hfov: dict[str, float] | None = None) -> dict[str, g.Camera]:
    """The cameras with the poses their checks found (each must be ``ok``)."""
    hfov = hfov or {}
    return {name: calibrated(camera_for(name, *sizes[name], hfov.get(name)), c)
            for name, c in checks.items()}


def parse_hfov(items: list[str] | None) -> dict[str, float]:
    """``NAME=DEGREES`` items -> {name: degrees}; ValueError naming the bad one.

    >>> parse_hfov(["O=63.9", "N=80"])
    {'O': 63.9, 'N': 80.0}
    """
    out: dict[str, float] = {}
    for item in items or []:
        name, sep, deg = item.partition("=")
        try:
            out[name] = float(deg)
        except ValueError:
            sep = ""
        if not sep or not name:
            raise ValueError(f"--hfov {item!r}: expected NAME=DEGREES")
    return out


def save_poses(path: Path, cams: dict[str, g.Camera]) -> None:
    doc = {"v": POSES_VERSION, "cameras": {
        name: {"width": c.width, "height": c.height, "K": c.K.tolist(), "R": c.R.tolist(),
               "C": c.C.tolist()} for name, c in cams.items()}}
    path.write_text(json.dumps(doc, indent=1) + "\n")


def load_poses(path: Path) -> dict[str, g.Camera]:
    """The cameras a poses file holds; :class:`PoseError` naming the file and field."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise PoseError(f"{path}: cannot read: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("v") != POSES_VERSION:
        raise PoseError(f"{path}: field v: expected {POSES_VERSION}")
    cams = doc.get("cameras")
    if not isinstance(cams, dict) or not cams:
        raise PoseError(f"{path}: field cameras: expected an object of cameras")
    out = {}
    for name, c in cams.items():
        where = f"{path}: field cameras.{name}"
        try:
            width, height = int(c["width"]), int(c["height"])
            K, R, C = (np.asarray(c[k], dtype=np.float64) for k in ("K", "R", "C"))
        except (KeyError, TypeError, ValueError) as exc:
            raise PoseError(f"{where}: {exc}") from exc
        if K.shape != (3, 3) or R.shape != (3, 3) or C.shape != (3,):
            raise PoseError(f"{where}: K and R must be 3x3, C a 3-vector")
        out[name] = g.Camera(name, width, height, K, R, C)
    return out


class LiveCore:
    """One table's real camera board on the board's clock: cameras -> pipeline -> OBSERVE."""

    def __init__(self, sources: dict[str, Source], cams: dict[str, g.Camera],
                 debounce_ms: int) -> None:
        missing = sorted(set(sources) - set(cams))
        if missing:
            raise ValueError(f"no pose for camera {', '.join(missing)}")
        self.sources = sources
        self.reading = Reading({name: Recogniser(cams[name]) for name in sources})
        self.debouncers: dict[str, Debouncer] = debouncers(debounce_ms)
        self.cams = cams
        self.frames = 0  # frames the board has read (one a camera a look)
        self._read: dict[str, int] = dict.fromkeys(sources, 0)  # newest frame read, a camera
        self._seen: Seen = {}
        self._playing = False
        self.rejected: dict[str, int] = {}  # frames not read, a camera (not the calibrated size)

    @property
    def reads(self) -> int:
        return self.reading.reads

    def advance(self, now: int) -> None:
        """Before its CONFIG the board does not look (its cameras keep only the newest
        frame meanwhile)."""

    def look(self) -> bool:
        """Read every camera's newest frame if any camera has a new one; True if it did."""
        newest = {name: src.frame() for name, src in self.sources.items()}
        if all(n == self._read[name] for name, (n, _) in newest.items()):
            return False
        frames = {}
        for name, (n, frame) in newest.items():
            if frame is None:
                continue
            cam = self.cams[name]
            if frame.shape[:2] != (cam.height, cam.width):
                if not self.rejected.get(name):
                    log.error("camera %s (%s): its frames became %dx%d, calibrated at %dx%d: "
                              "not read until calibrated again", name, self.sources[name].spec,
                              frame.shape[1], frame.shape[0], cam.width, cam.height)
                self.rejected[name] = self.rejected.get(name, 0) + 1
                self._read[name] = n
                continue
            frames[name] = frame
            self._read[name] = n
            self.frames += 1
        self._seen = self.reading.read(frames)
        return True

    def scan(self, now: int) -> list[dict[str, Any]]:
        """One scan at ``now``: the OBSERVE fields of the changes it commits."""
        if not self._playing:  # configured: a recording plays from here
            self._playing = True
            for src in self.sources.values():
                src.play()
        self.look()
        return observe_fields(self.debouncers, now, self._seen)

    def close(self) -> None:
        for src in self.sources.values():
            src.close()
