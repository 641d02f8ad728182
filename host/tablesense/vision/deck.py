"""What a card looks like to the cameras, and the templates the recogniser matches.

The deck is a camera-readable bridge deck (57 x 89 mm) with a *jumbo corner
index*, as decks for vugraph and card-reading tables have: the rank (20 mm
tall) above the suit (12.6 mm) in a 12 mm column 3 mm from the left edge, so
the index stays readable in a spread where each card shows only its left 18 mm
(and the paper left of it keeps a card's edge against the felt, on the left of
a spread, apart from its ink),
and four colours of ink (spades black, hearts red, diamonds orange, clubs
green), so the colour names the suit and the suit glyph confirms it.
Glyphs are bold bitmaps (rank cells of 2 x 2.5 mm), which keeps the deck and the
templates the same drawing: the recogniser's templates are the index as
printed, at the scale it rectifies to. The back is blue with a lattice and
a white margin, so backs in a row stay apart.

>>> face = card_face("HT", 2.0)
>>> face.size
(114, 178)
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw

CARD_MM = (57.0, 89.0)
SUITS = "SHDC"
RANKS = "AKQJT98765432"
# a four-colour deck, as camera-read and online bridge decks often are: the ink names the
# suit before the shape does
INK = {"S": (22, 22, 26), "H": (200, 24, 36), "D": (232, 118, 0), "C": (0, 138, 62)}
PAPER = (246, 244, 236)
BACK = (34, 66, 168)
BACK_LINE = (120, 150, 220)
MASTER = 8.0  # px/mm of the master drawings

# the index: rank glyph cells of 2 mm (6 x 8), suit glyph cells (7 x 7) of 12/7 mm
INDEX_X, RANK_Y, SUIT_Y = 3.0, 2.5, 24.5
RANK_CELL = (2.0, 2.5)  # mm, wide and tall: 12 x 20 mm
SUIT_CELL = (12.0 / 7, 1.8)  # 12 x 12.6 mm
INDEX_W, INDEX_H = 12.0, 34.6  # mm: the whole index (rank over suit)

_RANK_GLYPHS: dict[str, tuple[str, ...]] = {
    "A": ("..##..", ".####.", "##..##", "##..##", "######", "######", "##..##", "##..##"),
    "K": ("##..##", "##.##.", "####..", "###...", "####..", "##.##.", "##..##", "##..##"),
    "Q": (".####.", "##..##", "##..##", "##..##", "##..##", "##.###", ".####.", "....##"),
    "J": ("..####", "....##", "....##", "....##", "....##", "##..##", "######", ".####."),
    "T": ("#..##.", "#.#..#", "#.#..#", "#.#..#", "#.#..#", "#.#..#", "#.#..#", "#..##."),
    "9": (".####.", "##..##", "##..##", ".#####", "....##", "....##", "##..##", ".####."),
    "8": (".####.", "##..##", "##..##", ".####.", "##..##", "##..##", "##..##", ".####."),
    "7": ("######", "######", "....##", "...##.", "..##..", "..##..", "..##..", "..##.."),
    "6": (".####.", "##....", "##....", "#####.", "##..##", "##..##", "##..##", ".####."),
    "5": ("######", "##....", "##....", "#####.", "....##", "....##", "##..##", ".####."),
    "4": ("...##.", "..###.", ".####.", "##.##.", "######", "...##.", "...##.", "...##."),
    "3": (".####.", "##..##", "....##", "..###.", "....##", "....##", "##..##", ".####."),
    "2": (".####.", "##..##", "....##", "...##.", "..##..", ".##...", "######", "######"),
}
_SUIT_GLYPHS: dict[str, tuple[str, ...]] = {
    "S": ("...#...", "..###..", ".#####.", "#######", "#######", "...#...", "..###.."),
    "H": (".##.##.", "#######", "#######", "#######", ".#####.", "..###..", "...#..."),
    "D": ("...#...", "..###..", ".#####.", "#######", ".#####.", "..###..", "...#..."),
    "C": ("..###..", "..###..", "##.#.##", "#######", "##.#.##", "...#...", "..###.."),
}


def suit_colour(suit: str) -> tuple[int, int, int]:
    return INK[suit]


def _cells(draw: ImageDraw.ImageDraw, rows: tuple[str, ...], x_mm: float, y_mm: float,
           cell_mm: tuple[float, float], colour: tuple[int, int, int] | int, px: float) -> None:
    cw, ch = cell_mm
    for j, row in enumerate(rows):
        for i, c in enumerate(row):
            if c == "#":
                x0, y0 = (x_mm + i * cw) * px, (y_mm + j * ch) * px
                draw.rectangle((round(x0), round(y0), round(x0 + cw * px) - 1,
                                round(y0 + ch * px) - 1), fill=colour)


def _reduce(img: Image.Image, px_per_mm: float) -> Image.Image:
    w, h = round(CARD_MM[0] * px_per_mm), round(CARD_MM[1] * px_per_mm)
    return img.resize((w, h), Image.Resampling.BOX)


@cache
def _master_face(card: str) -> Image.Image:
    suit, rank = card[0], card[1]
    px = MASTER
    img = Image.new("RGB", (round(CARD_MM[0] * px), round(CARD_MM[1] * px)), PAPER)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, img.width - 1, img.height - 1), outline=(170, 170, 165), width=round(px))
    colour = suit_colour(suit)
    _cells(d, _RANK_GLYPHS[rank], INDEX_X, RANK_Y, RANK_CELL, colour, px)
    _cells(d, _SUIT_GLYPHS[suit], INDEX_X, SUIT_Y, SUIT_CELL, colour, px)
    # the centre pip: a big suit symbol, well away from the index column
    _cells(d, _SUIT_GLYPHS[suit], 23.0, 42.0, (4.0, 4.0), colour, px)
    return img


@cache
def _master_back() -> Image.Image:
    px = MASTER
    img = Image.new("RGB", (round(CARD_MM[0] * px), round(CARD_MM[1] * px)), PAPER)
    d = ImageDraw.Draw(img)
    m = 3.0 * px
    d.rectangle((m, m, img.width - 1 - m, img.height - 1 - m), fill=BACK)
    step = 6 * px
    for k in range(-20, 30):
        x = k * step
        d.line((x, m, x + img.height, img.height + m), fill=BACK_LINE, width=round(0.8 * px))
        d.line((x, img.height - m, x + img.height, -img.height), fill=BACK_LINE,
               width=round(0.8 * px))
    d.rectangle((0, 0, m - 1, img.height - 1), fill=PAPER)
    d.rectangle((img.width - m, 0, img.width - 1, img.height - 1), fill=PAPER)
    d.rectangle((0, 0, img.width - 1, m - 1), fill=PAPER)
    d.rectangle((0, img.height - m, img.width - 1, img.height - 1), fill=PAPER)
    return img


@cache
def card_face(card: str, px_per_mm: float) -> Image.Image:
    """The face of ``card`` (``"SA"``), top-left index, at ``px_per_mm``."""
    return _reduce(_master_face(card), px_per_mm)


@cache
def card_back(px_per_mm: float) -> Image.Image:
    return _reduce(_master_back(), px_per_mm)


@cache
def glyph_template(kind: str, symbol: str, px_per_mm: float) -> Image.Image:
    """The printed rank (``kind="rank"``) or suit glyph, black on paper, 1 mm of paper around.

    What the recogniser compares an index with, at the scale it rectifies to.
    """
    if kind == "rank":
        rows, cell = _RANK_GLYPHS[symbol], RANK_CELL
    else:
        rows, cell = _SUIT_GLYPHS[symbol], SUIT_CELL
    w_mm, h_mm = len(rows[0]) * cell[0] + 2, len(rows) * cell[1] + 2
    px = MASTER
    img = Image.new("L", (round(w_mm * px), round(h_mm * px)), 245)
    _cells(ImageDraw.Draw(img), rows, 1.0, 1.0, cell, 20, px)
    return img.resize((round(w_mm * px_per_mm), round(h_mm * px_per_mm)), Image.Resampling.BOX)
