"""``tablesense vision read PHOTO``: the cards in a photo, by their corner indices.

Any photo of cards on a table (JPEG or PNG, any size, no calibration): every
index found, with its box, card and confidence, one a line; ``--json``: one
JSON array of ``{"card": "SA", "box": [x0, y0, x1, y1], "conf": 0.97}`` (the
box in the photo's pixels around the index read; ``card`` null where an index
was seen and not named); ``--pbn``: for a photo of four hands laid out as a
diagram (North at the top), the deal as a PBN ``Deal`` tag. Exit status 0, or
2 when the photo cannot be read or the camera extra is missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("vision", help="camera recognition on a photo",
                              description=__doc__.split("\n\n")[1] if __doc__ else None)
    sub = p.add_subparsers(dest="vision_command", metavar="COMMAND", required=True)
    r = sub.add_parser("read", help="the card indices in a photo")
    r.add_argument("photo", type=Path)
    how = r.add_mutually_exclusive_group()
    how.add_argument("--json", action="store_true", help="one JSON array of the indices")
    how.add_argument("--pbn", action="store_true",
                     help="the deal of four hands laid out (North at the top)")
    r.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        import numpy as np
        from PIL import Image, ImageOps

        from tablesense.vision import photo
    except ImportError:
        print("tablesense vision: needs the camera extra (pip install 'tablesense[camera]')",
              file=sys.stderr)
        return 2
    try:
        with Image.open(args.photo) as im:
            rgb = np.asarray(ImageOps.exif_transpose(im).convert("RGB"))
    except OSError as exc:
        print(f"tablesense vision read: {args.photo}: cannot read: {exc}", file=sys.stderr)
        return 2
    found = photo.read(rgb)
    if args.json:
        print(json.dumps([f.as_json() for f in found]))
    elif args.pbn:
        hands = photo.deal(found)
        print(photo.pbn(hands))
        short = [f"{s} {len(c)}" for s, c in hands.items() if len(c) != 13]
        if short:
            print(f"tablesense vision read: {args.photo}: cards named a hand: "
                  + ", ".join(short), file=sys.stderr)
    else:
        for f in found:
            x0, y0, x1, y1 = f.box
            print(f"{f.card or '?':3} {f.conf:.3f}  {x0},{y0},{x1},{y1}")
    return 0
