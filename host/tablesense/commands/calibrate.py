"""``tablesense calibrate``: find a camera board's cameras from the calibration plate.

With the plate (four ArUco markers; ``--plate FILE`` writes it to print, PNG
or PDF at true size) lying at the centre of the table, or, for a floor
camera, on the floor beside its seat (hardware/README.md), each camera's
frame gives its pose, and the frame is checked as a calibration plate is:
focus, exposure, glare. ``--source NAME=SPEC`` takes a live frame from each
camera (a V4L2 device, an RTSP or HTTP stream, a video file, as ``tablesense
camera`` reads them); ``--frames DIR`` reads saved frames (``O.png`` overhead,
``FN.png`` ... ``FW.png`` floor, ``N.png`` ... ``W.png`` eye lines: those
present); with neither, the simulated board's cameras are rendered
(``--condition`` to see a check fail). ``--write-poses FILE`` saves the poses
found for ``tablesense camera --poses``. Exit status 0 when every camera
passes, 1 when one does not, 2 when a frame or source cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("calibrate", help="a camera board: poses from the calibration "
                              "plate, and focus, exposure and glare checks",
                              description=__doc__.split("\n\n")[1] if __doc__ else None)
    src = p.add_mutually_exclusive_group()
    src.add_argument("--source", action="append", metavar="NAME=SPEC",
                     help="a live frame from this camera (repeatable; as tablesense camera)")
    src.add_argument("--frames", type=Path, metavar="DIR",
                     help="the board's frames with the plate in place: O.png, FN.png ... "
                          "FW.png, N.png ... W.png (those present)")
    p.add_argument("--condition", default="clean",
                   help="simulated frames: clean (default), glare, blur, occlusion, dim")
    p.add_argument("--save", type=Path, metavar="DIR", help="write the frames checked here")
    p.add_argument("--write-poses", type=Path, metavar="FILE",
                   help="when every camera passes, save the poses for tablesense camera")
    p.add_argument("--hfov", action="append", metavar="NAME=DEGREES",
                   help="a camera's lens, its horizontal field of view (default: the rig's)")
    p.add_argument("--plate", type=Path, metavar="FILE",
                   help="write the plate to print (.png or .pdf, at true size) and stop")
    p.add_argument("--dpi", type=int, default=300, help="the plate's resolution (%(default)s)")
    p.add_argument("--json", action="store_true", help="one JSON object a camera")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"tablesense calibrate: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    try:
        import numpy as np
        from PIL import Image

        from tablesense.vision import geometry as g
        from tablesense.vision import plate
        from tablesense.vision.pipeline import PLATE_HALF, calibrate_camera, plate_image
        from tablesense.vision.render import CONDITIONS, Renderer
    except ImportError:
        return _fail("needs the camera extra (pip install 'tablesense[camera]')")
    from tablesense.vision.live import camera_for, parse_hfov

    try:
        hfov = parse_hfov(args.hfov)
    except ValueError as exc:
        return _fail(str(exc))
    unknown = sorted(set(hfov) - set(g.rig()))
    if unknown:
        return _fail(f"--hfov {unknown[0]}=...: no such camera")
    if args.plate is not None:
        try:
            fmt = plate.write(args.plate, args.dpi)
        except (OSError, ValueError) as exc:
            return _fail(str(exc))
        side = 2 * PLATE_HALF * 1000
        print(f"plate written to {args.plate} ({fmt}, {args.dpi} dpi, {side:.0f} mm square): "
              f"print it at 100 % (actual size) on matte paper, and check the 100 mm bar")
        return 0
    rig = g.rig()
    frames: dict[str, Any] = {}
    if args.source:
        got = _live_frames(args.source)
        if isinstance(got, int):
            return got
        frames = got
    elif args.frames is not None:
        if not args.frames.is_dir():
            return _fail(f"{args.frames}: cannot read: no such directory")
        for name in rig:
            path = args.frames / f"{name}.png"
            if not path.exists():
                continue
            try:
                frames[name] = np.asarray(Image.open(path).convert("RGB"))
            except OSError as exc:
                return _fail(f"{path}: cannot read: {exc}")
        if not frames:
            return _fail(f"{args.frames}: no frames ({', '.join(n + '.png' for n in rig)})")
    else:
        cond = CONDITIONS.get(args.condition)
        if cond is None:
            return _fail(f"--condition {args.condition!r}: expected one of "
                         + ", ".join(CONDITIONS))
        renderer = Renderer(rig)
        plate_img = plate_image()
        frames = {name: np.asarray(renderer.render_plate(name, plate_img, PLATE_HALF, cond))
                  for name in rig}
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
        for name, f in frames.items():
            # fast, light compression: a 12 MP frame at the default level takes seconds
            Image.fromarray(f).save(args.save / f"{name}.png", compress_level=1)
    ok = True
    posed: dict[str, g.Camera] = {}
    if not args.json:
        print(f"{'camera':6} {'markers':>7} {'reproj px':>9} {'focus':>7} {'exposure':>8} "
              f"{'clipped':>7}  position (m)           result")
    for name, frame in frames.items():
        try:
            cam = camera_for(name, frame.shape[1], frame.shape[0], hfov.get(name))
        except ValueError as exc:
            return _fail(str(exc))
        c = calibrate_camera(cam, frame)
        ok = ok and c.ok
        if c.ok and c.pose is not None:
            posed[name] = cam.with_pose(*c.pose)
        pos = None if c.pose is None else [round(float(v), 3) for v in c.pose[1]]
        if args.json:
            print(json.dumps({"camera": name, "ok": c.ok, "markers": c.markers,
                              "reprojection_px": round(c.reprojection_px, 3),
                              "focus": round(c.focus, 1), "exposure": round(c.exposure, 1),
                              "clipped": round(c.clipped, 4), "position": pos,
                              "problems": list(c.problems)}))
            continue
        where = "-" if pos is None else "(" + ", ".join(f"{v:+.3f}" for v in pos) + ")"
        print(f"{name:6} {c.markers:>7} {c.reprojection_px:>9.2f} {c.focus:>7.0f} "
              f"{c.exposure:>8.0f} {100 * c.clipped:>6.1f}%  {where:22} "
              + ("ok" if c.ok else "; ".join(c.problems)))
    if args.write_poses is not None and ok:
        from tablesense.vision.live import save_poses

        save_poses(args.write_poses, posed)
    return 0 if ok else 1


def _live_frames(specs: list[str]) -> dict[str, Any] | int:
    """One frame from each ``NAME=SPEC`` source, or the exit status after saying why not."""
    from tablesense.commands.camera import parse_sources
    from tablesense.vision import geometry as g
    from tablesense.vision.capture import Source, SourceError

    try:
        named = parse_sources(specs)
    except ValueError as exc:
        return _fail(str(exc))
    rig = g.rig()
    frames: dict[str, Any] = {}
    for name, spec in named.items():
        if name not in rig:
            return _fail(f"--source {name}=...: no such camera (expected one of {' '.join(rig)})")
        try:
            src = Source(spec, realtime=False)
            try:
                frames[name] = src.first()
            finally:
                src.close()
        except SourceError as exc:
            return _fail(str(exc))
    return frames
