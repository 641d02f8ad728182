"""How long a firmware update over the wire takes: the real firmware booted in the VM.

    PYTHONPATH=host .venv/bin/python benchmarks/firmware_update.py [--source] [--runs 3]

Boots a reader in the MicroPython VM from a flash directory holding today's build
(``.mpy``, as scripts/build-firmware makes it; ``--source`` for the sources),
then updates it to the same firmware with its version bumped, through a pty,
with ``tablesense.firmware.flasher`` as ``tablesense firmware update`` does:
staging (FILE, CHUNKs 4 in flight, a STATUS each), INSTALL, the reboot, the
HELLO and CONFIRM. Prints one JSON line per run: bytes sent, seconds staging
and in all, the staging rate. The VM and the pty stand in for the board and
USB CDC: a board's flash writes and its USB link set their own pace, not
measured here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from tablesense.daemon.ports import open_port
from tablesense.firmware import build
from tablesense.firmware.bundle import load_bundle
from tablesense.firmware.flasher import Flasher, Link
from tablesense.sim.firmware import start_reader


def bumped_build(dest: Path, mpy: str | None, work: Path) -> None:
    """Today's firmware as version 9.9.9 (a copy of firmware/ with FIRMWARE changed)."""
    fw = work / "firmware"
    shutil.copytree(build.firmware_dir(), fw)
    reader = fw / "reader.py"
    text = reader.read_text()
    old = text.split('FIRMWARE = "', 1)[1].split('"', 1)[0]
    reader.write_text(text.replace(f'FIRMWARE = "{old}"', 'FIRMWARE = "9.9.9"', 1))
    os.environ["TABLESENSE_FIRMWARE"] = str(fw)
    try:
        build.build(dest, mpy)
    finally:
        del os.environ["TABLESENSE_FIRMWARE"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", action="store_true", help="send the sources, not .mpy")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    mpy = None if args.source else build.find_mpy_cross()
    with tempfile.TemporaryDirectory() as d:
        base, new = Path(d) / "base", Path(d) / "new"
        build.build(base, mpy)
        bumped_build(new, mpy, Path(d))
        bundle = load_bundle(new, "9.9.9")
        for run in range(args.runs):
            flash = Path(d) / f"flash{run}"
            shutil.copytree(base, flash)
            r = start_reader("N", None, flash=flash)
            marks: dict[str, float] = {}
            try:
                port = open_port(r.port)
                f = Flasher(Link(port, 1, None), bundle,
                            lambda m, marks=marks: marks.setdefault("installed",
                                                                    time.monotonic()))
                t0 = time.monotonic()
                out = f.run()
                end = time.monotonic()
                port.close()
            finally:
                r.stop()
            staging = marks["installed"] - t0
            print(json.dumps({"run": run, "files": bundle.count, "bytes": out.sent,
                              "staging_s": round(staging, 2), "total_s": round(end - t0, 2),
                              "kB_per_s": round(out.sent / 1000 / staging, 1),
                              "state": out.state}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
