"""The calibration plate prints at true size: its markers measured in the files written.

Each file is read as a printer would: the PNG's resolution from its pHYs
chunk, the PDF's page size from its MediaBox against the pixels of the image
it holds; the markers are found with OpenCV's ArUco detector and their black
squares measured.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from PIL import Image  # noqa: E402

from tablesense.cli import main  # noqa: E402
from tablesense.vision.pipeline import ARUCO, MARKER, PLATE_HALF  # noqa: E402

PT_PER_INCH = 72.0


def _marker_sides_px(grey: np.ndarray) -> dict[int, float]:
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO),
                                  cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(grey)
    assert ids is not None
    out = {}
    for c, i in zip(corners, ids.flatten(), strict=True):
        q = c.reshape(4, 2)
        out[int(i)] = float(np.mean([np.linalg.norm(q[k] - q[(k + 1) % 4]) for k in range(4)]))
    return out


def _pdf_page_and_image(data: bytes) -> tuple[float, float, np.ndarray]:
    """The page's width and height in points, and the JPEG image the page shows."""
    box = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    assert box is not None
    start = data.index(b"\xff\xd8")  # the image stream (DCTDecode: a JPEG)
    end = data.index(b"\xff\xd9", start) + 2
    img = cv2.imdecode(np.frombuffer(data[start:end], np.uint8), cv2.IMREAD_GRAYSCALE)
    assert img is not None
    return float(box.group(1)), float(box.group(2)), img


@pytest.mark.parametrize("dpi", [150, 300])
def test_the_png_plate_is_true_size(tmp_path: Path, dpi: int,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "plate.png"
    assert main(["calibrate", "--plate", str(path), "--dpi", str(dpi)]) == 0
    assert "100 %" in capsys.readouterr().out
    img = Image.open(path)
    xdpi, ydpi = img.info["dpi"]
    # pHYs holds dots a metre, a whole number: 150 dpi is 5906, 150.012 dpi read back
    assert abs(xdpi - dpi) / dpi < 2e-4 and abs(ydpi - dpi) / dpi < 2e-4
    mm_per_px = 25.4 / xdpi
    assert abs(img.width * mm_per_px - 2 * PLATE_HALF * 1000) < 0.5
    sides = _marker_sides_px(np.asarray(img.convert("L")))
    assert sorted(sides) == [0, 1, 2, 3]
    for side in sides.values():
        assert abs(side * mm_per_px - MARKER * 1000) < 0.5


def test_the_pdf_plate_is_true_size(tmp_path: Path) -> None:
    path = tmp_path / "plate.pdf"
    assert main(["calibrate", "--plate", str(path), "--dpi", "200"]) == 0
    w_pt, h_pt, img = _pdf_page_and_image(path.read_bytes())
    assert abs(w_pt / PT_PER_INCH * 25.4 - 2 * PLATE_HALF * 1000) < 0.5
    assert abs(h_pt - w_pt) < 0.01
    mm_per_px = w_pt / PT_PER_INCH * 25.4 / img.shape[1]
    sides = _marker_sides_px(img)
    assert sorted(sides) == [0, 1, 2, 3]
    for side in sides.values():
        assert abs(side * mm_per_px - MARKER * 1000) < 0.5


def test_another_format_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "--plate", str(tmp_path / "plate.svg")]) == 2
    assert "expected a .png or .pdf file" in capsys.readouterr().err
