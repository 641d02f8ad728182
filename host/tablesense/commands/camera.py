"""``tablesense camera``: a camera board on real cameras, speaking the readers' wire protocol.

Each ``--source NAME=SPEC`` is one camera of the table's rig (``O`` overhead,
``FN FE FS FW`` floor, ``N E S W`` eye lines; a bare SPEC is ``O``), read
through OpenCV's VideoCapture: a V4L2/UVC device (``/dev/video0`` or ``0``),
an RTSP or HTTP stream, or a video file (played at its frame rate). The
poses come from ``--poses FILE`` (``tablesense calibrate --write-poses``) or,
without it, from the calibration plate in each source's first frame. The
board then runs the same pipeline as the simulated camera board and speaks
the same wire protocol to the daemon, on ``--port`` (a serial port: any
pyserial URL), ``--listen`` (a TCP port the daemon opens as
``socket://HOST:PORT``) or ``--pty`` (a pty on this machine). It prints one
line, ``camera board SERIAL → PORT``, and runs until Ctrl-C or
``--duration``. Exit status: 0; 1 when a camera fails its calibration; 2
when a source, the port or the poses cannot be used (one line naming it).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

DEFAULT_SERIAL = "CAM-1"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("camera", help="a camera board on real cameras (V4L2, RTSP, "
                              "HTTP, video files), on a serial port or socket://",
                              description=__doc__.split("\n\n")[1] if __doc__ else None)
    p.add_argument("--source", action="append", required=True, metavar="NAME=SPEC",
                   help="a camera and where its frames come from (repeatable)")
    wire = p.add_mutually_exclusive_group(required=True)
    wire.add_argument("--port", metavar="URL", help="a serial port (/dev/ttyGS0, "
                      "/dev/ttyUSB0, socket://bridge:port, any pyserial URL)")
    wire.add_argument("--listen", metavar="[HOST:]PORT",
                      help="a TCP port the daemon opens as socket://HOST:PORT")
    wire.add_argument("--pty", action="store_true", help="a pty on this machine")
    p.add_argument("--poses", type=Path, metavar="FILE",
                   help="the cameras' poses (tablesense calibrate --write-poses); default: "
                        "the calibration plate in each source's first frame")
    p.add_argument("--hfov", action="append", metavar="NAME=DEGREES",
                   help="a camera's lens, its horizontal field of view (default: the rig's; "
                        "without --poses)")
    p.add_argument("--serial", default=DEFAULT_SERIAL,
                   help="the board's serial number in its HELLO (%(default)s)")
    p.add_argument("--debounce-ms", type=int, default=40, help="(%(default)s)")
    p.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")
    p.set_defaults(func=run)


class _Stop(Exception):
    pass


def _on_term(signum: int, frame: FrameType | None) -> None:
    raise _Stop


def _fail(message: str, status: int = 2) -> int:
    print(f"tablesense camera: {message}", file=sys.stderr)
    return status


def parse_sources(specs: list[str]) -> dict[str, str]:
    """``NAME=SPEC`` (or a bare SPEC for ``O``) -> {name: spec}; ValueError naming the bad one."""
    out: dict[str, str] = {}
    for item in specs:
        name, sep, spec = item.partition("=")
        if not sep or "://" in name or "/" in name:
            name, spec = "O", item
        if not spec:
            raise ValueError(f"--source {item!r}: expected NAME=SPEC")
        if name in out:
            raise ValueError(f"--source {item!r}: camera {name} given twice")
        out[name] = spec
    return out


def run(args: argparse.Namespace) -> int:
    try:
        from tablesense.demo.pysim import PtyWire, PySimReader, Wire
        from tablesense.vision import geometry as g
        from tablesense.vision.capture import Source, SourceError
        from tablesense.vision.live import (
            LiveCore,
            PoseError,
            calibrate_sources,
            load_poses,
            parse_hfov,
            posed,
        )
        from tablesense.vision.wires import ListenWire, PortWire
    except ImportError:
        return _fail("needs the camera extra (pip install 'tablesense[camera]')")
    try:
        specs = parse_sources(args.source)
        hfov = parse_hfov(args.hfov)
    except ValueError as exc:
        return _fail(str(exc))
    rig = g.rig()
    unknown = [n for n in [*specs, *hfov] if n not in rig]
    if unknown:
        return _fail(f"--source {unknown[0]}=...: no such camera (expected one of "
                     f"{' '.join(rig)})")
    listen: tuple[str, int] | None = None
    if args.listen:
        host, _, port = args.listen.rpartition(":")
        if not port.isdigit():
            return _fail(f"--listen {args.listen!r}: expected [HOST:]PORT")
        listen = (host or "0.0.0.0", int(port))
    sources: dict[str, Source] = {}
    reader: PySimReader | None = None
    old = signal.signal(signal.SIGTERM, _on_term)
    try:
        for name, spec in specs.items():
            sources[name] = Source(spec)
        if args.poses is not None:
            cams = load_poses(args.poses)
            missing = [n for n in specs if n not in cams]
            if missing:
                return _fail(f"{args.poses}: no pose for camera {missing[0]}")
        else:
            checks = calibrate_sources(sources, hfov)
            bad = [f"{n}: {'; '.join(c.problems)}" for n, c in checks.items() if not c.ok]
            if bad:
                return _fail("calibration failed (the plate must lie in view at start-up): "
                             + "; ".join(bad), 1)
            sizes = {n: (s.first().shape[1], s.first().shape[0]) for n, s in sources.items()}
            cams = posed(checks, sizes, hfov)
        core = LiveCore(sources, cams, args.debounce_ms)
        wire: Wire
        if args.port:
            wire = PortWire(args.port)
        elif listen is not None:
            wire = ListenWire(*listen)
        else:
            wire = PtyWire()
        reader = PySimReader("N", [], serial=args.serial, core=core, beat_thread=True,
                             wire=wire)
        print(f"camera board {args.serial} → {reader.port}", flush=True)
        end = None if args.duration is None else time.monotonic() + args.duration
        while end is None or time.monotonic() < end:
            if not reader.alive():
                return _fail("the board's loop stopped", 1)
            time.sleep(0.1)
        return 0
    except SourceError as exc:
        return _fail(str(exc))
    except PoseError as exc:
        return _fail(str(exc))
    except (OSError, ValueError) as exc:  # the port, the listening socket, a frame's shape
        return _fail(str(exc))
    except (KeyboardInterrupt, _Stop):
        return 0
    finally:
        signal.signal(signal.SIGTERM, old)
        if reader is not None:
            with contextlib.suppress(Exception):
                reader.stop()
        for src in sources.values():
            with contextlib.suppress(Exception):
                src.close()
