"""The calibration plate to print, at true size: PNG or PDF with its resolution in the file.

The plate is the one :func:`~tablesense.vision.pipeline.plate_image` draws
for the simulated cameras (400 mm square, four 4x4 ArUco markers of 120 mm,
ids 0-3, one in each corner, 10 mm from the edges), in black on white, with
a 100 mm bar and a line of text in the middle to check the print's scale
with a ruler, and its top edge marked (marker 0 is the top-left one: the
plate lies with that edge towards North, or, on the floor, towards the table):
printed at 100 % (no "fit to page"), each marker's black
square measures 120 mm. A PNG says its resolution in its ``pHYs`` chunk; a
PDF's page is the plate's size (Pillow writes the page as the image's size
at ``resolution``), so a printer's "actual size" prints it right.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from tablesense.vision.pipeline import MARKER, PLATE_HALF, plate_image

MM_PER_INCH = 25.4
DEFAULT_DPI = 300
BAR_MM = 100.0
FORMATS = {".png": "PNG", ".pdf": "PDF"}


def printable(dpi: int = DEFAULT_DPI) -> Image.Image:
    """The plate at ``dpi`` dots an inch, greyscale, black on white."""
    ppm = dpi / MM_PER_INCH
    grey = plate_image(ppm)[..., 0]
    img = Image.fromarray(np.where(grey > 127, 255, 0).astype(np.uint8), "L")
    d = ImageDraw.Draw(img)
    side = img.width
    bar = round(BAR_MM * ppm)
    x0, y = (side - bar) // 2, side // 2
    d.rectangle((x0, y, x0 + bar - 1, y + round(2 * ppm)), fill=0)
    for x in (x0, x0 + bar - 1):  # the bar's ends, so a ruler can be laid against them
        d.rectangle((x - round(0.2 * ppm), y - round(4 * ppm), x + round(0.2 * ppm),
                     y + round(6 * ppm)), fill=0)
    font = ImageFont.load_default(size=max(8, round(4 * ppm)))
    lines = ("THIS EDGE TOWARDS NORTH (on the floor: towards the table)",
             f"tablesense calibration plate: {2 * PLATE_HALF * 1000:.0f} mm square",
             f"print at 100 % (actual size): this bar is {BAR_MM:.0f} mm, "
             f"each marker {MARKER * 1000:.0f} mm")
    for i, text in enumerate(lines):
        w = d.textlength(text, font=font)
        top = round(12 * ppm) if i == 0 else y - round((16 - 7 * (i - 1)) * ppm)
        d.text(((side - w) / 2, top), text, fill=0, font=font)
    return img


def write(path: Path, dpi: int = DEFAULT_DPI) -> str:
    """Write the plate to ``path`` (``.png`` or ``.pdf``); the format written.
    ValueError for another suffix."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"{path}: expected a .png or .pdf file")
    img = printable(dpi)
    if fmt == "PNG":
        img.save(path, "PNG", dpi=(dpi, dpi))
    else:
        img.save(path, "PDF", resolution=float(dpi), quality=95,
                 title="tablesense calibration plate")
    return fmt
