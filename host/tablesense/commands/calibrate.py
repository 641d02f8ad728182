"""``tablesense calibrate``: find a camera board's cameras from the calibration plate.

With the plate (four ArUco markers, ``--plate FILE`` prints it) lying at the
centre of the table, each camera's frame gives its pose, and the frame is
checked as a calibration plate is: focus, exposure, glare. ``--frames DIR``
reads the frames of a real board (``O.png`` overhead, ``N.png`` ... ``W.png``
at the eye lines); without it, the simulated board's cameras are rendered
(``--condition`` to see a check fail). Exit status 0 when every camera
passes, 1 when one does not, 2 when a frame cannot be read.
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
    p.add_argument("--frames", type=Path, metavar="DIR",
                   help="the board's frames with the plate on the table: O.png, N.png, E.png, "
                        "S.png, W.png (default: render the simulated board's)")
    p.add_argument("--condition", default="clean",
                   help="simulated frames: clean (default), glare, blur, occlusion, dim")
    p.add_argument("--save", type=Path, metavar="DIR", help="write the frames checked here")
    p.add_argument("--plate", type=Path, metavar="FILE",
                   help="write the plate to print (PNG, 2 px/mm: print 400 mm wide) and stop")
    p.add_argument("--json", action="store_true", help="one JSON object a camera")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        import numpy as np
        from PIL import Image

        from tablesense.vision import geometry as g
        from tablesense.vision.pipeline import PLATE_HALF, calibrate_camera, plate_image
        from tablesense.vision.render import CONDITIONS, Renderer
    except ImportError:
        print("tablesense calibrate: needs the camera extra (pip install 'tablesense[camera]')",
              file=sys.stderr)
        return 2
    if args.plate is not None:
        Image.fromarray(plate_image()).save(args.plate)
        print(f"plate written to {args.plate}: print it 400 mm wide, matte")
        return 0
    rig = g.rig()
    frames: dict[str, Any] = {}
    if args.frames is not None:
        for name in rig:
            path = args.frames / f"{name}.png"
            try:
                img = Image.open(path).convert("RGB")
            except OSError as exc:
                print(f"tablesense calibrate: {path}: cannot read: {exc}", file=sys.stderr)
                return 2
            cam = rig[name]
            if img.size != (cam.width, cam.height):
                print(f"tablesense calibrate: {path}: expected {cam.width}x{cam.height} "
                      f"pixels, got {img.width}x{img.height}", file=sys.stderr)
                return 2
            frames[name] = np.asarray(img)
    else:
        cond = CONDITIONS.get(args.condition)
        if cond is None:
            print(f"tablesense calibrate: --condition {args.condition!r}: expected one of "
                  + ", ".join(CONDITIONS), file=sys.stderr)
            return 2
        renderer = Renderer(rig)
        plate = plate_image()
        frames = {name: np.asarray(renderer.render_plate(name, plate, PLATE_HALF, cond))
                  for name in rig}
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
        for name, f in frames.items():
            Image.fromarray(f).save(args.save / f"{name}.png")
    ok = True
    if not args.json:
        print(f"{'camera':6} {'markers':>7} {'reproj px':>9} {'focus':>7} {'exposure':>8} "
              f"{'clipped':>7}  position (m)           result")
    for name, cam in rig.items():
        c = calibrate_camera(cam, frames[name])
        ok = ok and c.ok
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
    return 0 if ok else 1
