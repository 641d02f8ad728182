"""Card art this project did not draw: published deck designs, rasterised for training.

Each :class:`Design` names a package on a public registry (npm), its pinned
version and licence, and where its 52 faces lie in it. :func:`fetch` gets the
package with ``npm pack`` (the registry checks the tarball's integrity) and
:func:`rasterise` draws every face to a PNG, SVGs through headless Chromium
(Debian's ``chromium`` driven by Playwright, as the dashboard tests do: it
draws ``<use>`` and nested viewBoxes as browsers do, which simpler SVG
renderers do not), PNGs as shipped. Used by ``scripts/train-recogniser`` only,
never at run time: the model file is what ships.

The designs and their licences (docs/recogniser.md repeats them):

* ``bellot``: SVG-cards by David Bellot, npm ``svg-cards`` 4.0.2 (its PNG
  renderings, 2x), LGPL-2.1;
* ``responsive``: Responsive Playing Cards (digitaldesignlabs), npm
  ``@younestouati/playing-cards-standard-deck`` 3.0.0, LGPL-3.0;
* ``kennard``: Adrian Kennard's playing cards (CC0), npm
  ``@heruka_urgyen/react-playing-cards`` 0.5.0 (MIT), two-colour faces.
"""

from __future__ import annotations

import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from tablesense.vision.deck import RANKS, SUITS

CHROMIUM = "/usr/bin/chromium"
_NAMES = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
_BELLOT_RANK = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_NUM_RANK = {"A": "1", "T": "10", "J": "11", "Q": "12", "K": "13"}


@dataclass(frozen=True)
class Design:
    name: str
    package: str
    version: str
    licence: str
    pattern: str  # path inside the tarball; {card} -> a face's file name part

    def face_path(self, card: str) -> str:
        suit, rank = card[0], card[1]
        if self.name == "bellot":
            return self.pattern.format(card=f"{_NAMES[suit]}_{_BELLOT_RANK.get(rank, rank)}")
        if self.name == "responsive":
            return self.pattern.format(card=f"{_NUM_RANK.get(rank, rank)}{suit.lower()}")
        return self.pattern.format(card=f"{rank}{suit}")


DESIGNS: dict[str, Design] = {d.name: d for d in (
    Design("bellot", "svg-cards", "4.0.2", "LGPL-2.1", "package/png/2x/{card}.png"),
    Design("responsive", "@younestouati/playing-cards-standard-deck", "3.0.0", "LGPL-3.0",
           "package/cards/{card}.svg"),
    Design("kennard", "@heruka_urgyen/react-playing-cards", "0.5.0", "CC0-1.0 art, MIT package",
           "package/src/images/2color/{card}.svg"),
)}
CARDS = [s + r for s in SUITS for r in RANKS]


def fetch(design: Design, cache: Path) -> Path:
    """The design's package, unpacked under ``cache`` (fetched once with ``npm pack``)."""
    out = cache / f"{design.name}-{design.version}"
    if (out / "package").is_dir():
        return out
    cache.mkdir(parents=True, exist_ok=True)
    spec = f"{design.package}@{design.version}"
    name = subprocess.run(["npm", "pack", spec, "--silent"], cwd=cache, check=True,
                          capture_output=True, text=True).stdout.strip().splitlines()[-1]
    out.mkdir(parents=True, exist_ok=True)
    with tarfile.open(cache / name) as tar:
        tar.extractall(out, filter="data")
    return out


def rasterise(design: Design, cache: Path, width: int = 480) -> Path:
    """Every face of ``design`` as ``<card>.png`` (RGBA, ``width`` pixels wide) in a folder
    under ``cache``; faces already drawn are kept."""
    root = fetch(design, cache)
    out = cache / f"{design.name}-{design.version}-png{width}"
    out.mkdir(parents=True, exist_ok=True)
    todo = [c for c in CARDS if not (out / f"{c}.png").exists()]
    if not todo:
        return out
    if design.face_path(CARDS[0]).endswith(".png"):
        from PIL import Image

        for c in todo:
            im = Image.open(root / design.face_path(c)).convert("RGBA")
            im.resize((width, round(im.height * width / im.width)),
                      Image.Resampling.LANCZOS).save(out / f"{c}.png")
        return out
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": width, "height": 2 * width})
        for c in todo:
            svg = (root / design.face_path(c)).read_text()
            page.set_content("<html><body style='margin:0;background:transparent'>"
                             f"<div id='c' style='width:{width}px;line-height:0'>{svg}</div>"
                             "<style>svg{width:100%;height:auto;display:block}</style>"
                             "</body></html>")
            page.locator("#c svg").screenshot(path=str(out / f"{c}.png"), omit_background=True)
        browser.close()
    return out
