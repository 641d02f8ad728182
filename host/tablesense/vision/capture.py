"""Frames from a real camera: a V4L2/UVC device, an RTSP or HTTP stream, or a video file.

Every source is opened through OpenCV's ``VideoCapture``, so a webcam, an IP
camera and a recording take the same path into the pipeline. A
:class:`Source` reads its frames on a thread of its own and keeps only the
newest (a camera that delivers frames faster than the board reads them must
not build up a backlog, which would make the board report later and later):

* a device (``/dev/video0``, or its index ``0``) through V4L2;
* a stream (``rtsp://``, ``http://``, ``https://``) or a file through FFmpeg;
  a file holds its first frame until :meth:`Source.play` (the board's
  CONFIG), then plays at its own frame rate (as the camera that recorded it
  delivered it), and its last frame stays the board's view once it ends.

A source that cannot be opened, or gives no frame, raises :class:`SourceError`
naming it. A live source that stops delivering is opened again (with a
growing pause, up to ``REOPEN_MAX_S``); the board goes on with the last frame
meanwhile.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[Any]
STREAMS = ("rtsp://", "rtsps://", "http://", "https://")
DEFAULT_FPS = 25.0  # a file that does not say its frame rate
OPEN_TIMEOUT_S = 10.0  # the first frame of a source comes within this, or it is refused
REOPEN_MAX_S = 5.0
SETTLE_S = 2.0  # a live camera's frames are used for calibration after this long


class SourceError(Exception):
    """A source that cannot be opened or read; the message starts with the source."""


def kind_of(spec: str) -> str:
    """``device``, ``stream`` or ``file``, from how ``spec`` is written.

    >>> [kind_of(s) for s in ("0", "/dev/video2", "rtsp://cam/1", "table.avi")]
    ['device', 'device', 'stream', 'file']
    """
    if spec.isdigit() or spec.startswith("/dev/video"):
        return "device"
    if spec.lower().startswith(STREAMS):
        return "stream"
    return "file"


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The C libraries' own messages on stderr held back (OpenCV's and FFmpeg's lines on
    a source that will not open): the caller says what failed, in one line."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def open_capture(spec: str) -> cv2.VideoCapture:
    """``spec`` opened with the backend its kind needs; :class:`SourceError` if it will not."""
    kind = kind_of(spec)
    if kind == "file" and not Path(spec).is_file():
        raise SourceError(f"{spec}: no such file")
    if kind == "device":
        target: int | str = int(spec) if spec.isdigit() else spec
        if isinstance(target, str) and not os.path.exists(target):
            raise SourceError(f"{spec}: no such device")
        with _quiet():
            cap = cv2.VideoCapture(target, cv2.CAP_V4L2)
    else:
        with _quiet():
            cap = cv2.VideoCapture(spec, cv2.CAP_FFMPEG)
    if not cap.isOpened():
        cap.release()
        raise SourceError(f"{spec}: cannot open it as a {kind}")
    return cap


class Source:
    """One camera's frames, the newest kept; ``frame()`` is what the board reads."""

    def __init__(self, spec: str, realtime: bool | None = None) -> None:
        self.spec = spec
        self.kind = kind_of(spec)
        self._cap = open_capture(spec)
        fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 0.5 < fps < 1000 else DEFAULT_FPS
        # a file plays at its frame rate unless told otherwise; a live source as it comes
        self.realtime = self.kind == "file" if realtime is None else realtime
        self.frames = 0  # frames delivered so far (the newest's number)
        self.ended = False  # a file's last frame was read
        self.reopened = 0
        self._frame: U8 | None = None
        self._first: U8 | None = None
        self._opened = time.monotonic()
        self._lock = threading.Lock()
        self._got = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._playing = threading.Event()  # a file holds at its first frame until play()
        if self.kind != "file":
            self._playing.set()
        self._thread = threading.Thread(target=self._run, name=f"capture-{spec}", daemon=True)
        self._thread.start()

    # -- what the board sees ---------------------------------------------------------
    def frame(self) -> tuple[int, U8 | None]:
        """The newest frame (RGB) and its number (0: none yet)."""
        with self._lock:
            return self.frames, self._frame

    def first(self, timeout: float = OPEN_TIMEOUT_S) -> U8:
        """The frame to calibrate on, waiting up to ``timeout`` s for it: a file's first
        frame; a live camera's newest once it has run ``SETTLE_S`` (its automatic exposure
        and white balance settle in the first frames). The same frame on every call;
        :class:`SourceError` if none came."""
        if self._first is not None:
            return self._first
        settle = 0.0 if self.kind == "file" else SETTLE_S
        deadline = time.monotonic() + max(timeout, settle)
        with self._got:
            self._got.wait_for(lambda: self._frame is not None or self.ended, timeout)
            while self._frame is not None and time.monotonic() < self._opened + settle:
                self._got.wait(max(0.0, min(self._opened + settle, deadline) - time.monotonic()))
            frame = self._frame
        if frame is None:
            self.close()
            raise SourceError(f"{self.spec}: opened, but no frame came "
                              f"within {timeout:.0f} s")
        self._first = frame
        return frame

    def play(self) -> None:
        """A file goes on from its first frame (the board looks from its CONFIG on, and a
        recording should not have played meanwhile); a live source always runs."""
        self._playing.set()

    def close(self) -> None:
        self._stop.set()
        self._playing.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(2.0)
        self._cap.release()

    # -- the reading thread ---------------------------------------------------------------
    def _run(self) -> None:
        period = 1.0 / self.fps
        due = time.monotonic()
        pause = 0.2
        while not self._stop.is_set():
            ok, bgr = self._cap.read()
            if not ok:
                if self.kind == "file":
                    with self._got:
                        self.ended = True
                        self._got.notify_all()
                    return
                if self._stop.wait(pause):  # a live source dropped out: open it again
                    return
                pause = min(REOPEN_MAX_S, pause * 2)
                self._reopen()
                continue
            pause = 0.2
            rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
            if self.realtime and self.frames:
                due += period
                if self._stop.wait(max(0.0, due - time.monotonic())):
                    return
            with self._got:
                self._frame = np.ascontiguousarray(rgb)
                self.frames += 1
                self._got.notify_all()
            if not self._playing.is_set():
                self._playing.wait()
                due = time.monotonic()

    def _reopen(self) -> None:
        self._cap.release()
        try:
            self._cap = open_capture(self.spec)
            self.reopened += 1
        except SourceError:
            self._cap = cv2.VideoCapture()  # not open: read() fails, and we try again
