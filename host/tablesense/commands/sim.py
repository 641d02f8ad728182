"""``tablesense sim``: simulated readers (the real firmware in the MicroPython VM) on ptys.

Each reader runs the unmodified firmware on simulated MFRC522s (or a
simulated camera) whose tags a scenario moves, behind a pty that stands in
for the reader's USB serial port. Point ``tablesense run`` (a reader's
``port``) or ``tablesense decode`` at the printed path.

    tablesense sim --seat N --scenario s.jsonl [--seat E ...] [--kind rfid|camera]
    tablesense sim --journal board.jsonl [--max-gap-ms 500] [--write table.jsonl]

With ``--scenario`` one reader per ``--seat`` plays the file's lines for its
seat. With ``--journal`` four readers play a board recorded as a journal
(observations become tag moves; the dealt hands are picked up before the
auction; RFID readers, and cameras only at the seats where the board would
otherwise rule differently, or ``--kind`` for all); the journal's other events (``board``,
``dealt``, ``call``, ``claim`` ...) are printed as JSON lines when they fall
due, for the host's command topic (``dealt`` is for a dealing machine wired
in-process). First one line per reader, ``SEAT → PTY``; then it runs until
Ctrl-C or ``--duration`` seconds. As on a board, a reader sends HELLO each
second and scans only once a host has configured it (``--autostart``: at
once). Exit status: 0, or 1 when a reader could not start or died.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType
from typing import Any

from tablesense.sim.convert import KINDS, plan_from_journal
from tablesense.sim.firmware import RFID_CHIPS, SEATS, SimError, SimReader, start_reader


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("sim", help="simulated readers (the firmware in the VM) on ptys",
                              description=__doc__.split("\n\n")[1] if __doc__ else None)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--scenario", metavar="FILE", help="scenario lines (with --seat)")
    src.add_argument("--journal", metavar="FILE", help="a board's journal: four readers")
    p.add_argument("--seat", action="append", choices=SEATS, help="a reader for this seat "
                   "(repeatable; with --scenario)")
    p.add_argument("--kind", choices=KINDS, help="reader kind (default: rfid; with --journal: "
                   "a camera only where the board needs one)")
    p.add_argument("--chip", choices=RFID_CHIPS, default="pn5180",
                   help="the RFID readers' front end: pn5180 (the table build, ICODE SLIX2 "
                        "tags) or mfrc522 (the bench build, NTAG213) (%(default)s)")
    p.add_argument("--scan-ms", type=int, default=20, help="boot scan period (%(default)s; "
                   "the host's CONFIG sets its own)")
    p.add_argument("--debounce-ms", type=int, default=40, help="boot debounce (%(default)s)")
    p.add_argument("--autostart", action="store_true", help="scan without waiting for CONFIG")
    p.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")
    p.add_argument("--max-gap-ms", type=int, metavar="MS",
                   help="with --journal: shorten longer pauses to MS (>= 500; the law's "
                        "windows are kept)")
    p.add_argument("--lead-in-ms", type=int, default=1500,
                   help="with --journal: scenario time of the first event (%(default)s)")
    p.add_argument("--write", metavar="FILE", help="with --journal: save the readers' scenario")
    p.set_defaults(func=run)


class _Stop(Exception):
    pass


def _on_term(signum: int, frame: FrameType | None) -> None:
    raise _Stop


def _say(line: str) -> None:
    print(line, flush=True)


def run(args: argparse.Namespace) -> int:
    if args.scenario and not args.seat:
        print("tablesense sim: --scenario needs at least one --seat", file=sys.stderr)
        return 2
    if args.journal and args.seat:
        print("tablesense sim: --journal starts all four seats; drop --seat", file=sys.stderr)
        return 2
    commands: list[tuple[int, dict[str, Any]]] = []
    workdir = Path(tempfile.mkdtemp(prefix="tablesense-sim-"))
    readers: dict[str, SimReader] = {}
    old = signal.signal(signal.SIGTERM, _on_term)
    try:
        if args.journal:
            try:
                kinds = dict.fromkeys(SEATS, args.kind) if args.kind else None
                plan = plan_from_journal(args.journal, kinds=kinds, max_gap_ms=args.max_gap_ms,
                                         lead_in_ms=args.lead_in_ms)
            except (OSError, ValueError) as exc:
                print(f"tablesense sim: {exc}", file=sys.stderr)
                return 2
            scenario = plan.write(workdir / "table.jsonl")
            if args.write:
                shutil.copyfile(scenario, args.write)
            seats: list[str] = list(SEATS)
            kind_of = plan.kinds
            commands = plan.commands
        else:
            scenario = Path(args.scenario)
            if not scenario.is_file():
                print(f"tablesense sim: no scenario {scenario}", file=sys.stderr)
                return 2
            seats = list(dict.fromkeys(args.seat))
            kind_of = dict.fromkeys(seats, args.kind or "rfid")
        t0 = time.monotonic()
        try:
            for seat in seats:
                readers[seat] = start_reader(
                    seat, scenario, kind=kind_of[seat], scan_ms=args.scan_ms,
                    debounce_ms=args.debounce_ms, autostart=args.autostart,
                    serial=f"SIM-{seat}", die_with_parent=True, chip=args.chip)
        except (SimError, OSError) as exc:
            print(f"tablesense sim: {exc}", file=sys.stderr)
            return 1
        for seat, r in readers.items():
            _say(f"{seat} → {r.port}")
        return _serve(readers, commands, t0, args.duration)
    except (KeyboardInterrupt, _Stop):
        return 0
    finally:
        signal.signal(signal.SIGTERM, old)
        for r in readers.values():
            with contextlib.suppress(Exception):
                r.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _serve(readers: dict[str, SimReader], commands: list[tuple[int, dict[str, Any]]],
           t0: float, duration: float | None) -> int:
    pending = list(commands)
    end = None if duration is None else t0 + duration
    while end is None or time.monotonic() < end:
        now_ms = (time.monotonic() - t0) * 1000
        while pending and pending[0][0] <= now_ms:
            _, cmd = pending.pop(0)
            _say(json.dumps(cmd, separators=(",", ":")))
        for seat, r in readers.items():
            if not r.alive():
                print(f"tablesense sim: reader {seat} stopped (exit {r.process.returncode})\n"
                      f"{r.log}", file=sys.stderr)
                return 1
        wait = 0.05 if not pending else min(0.05, max(0.0, pending[0][0] / 1000 + t0
                                                      - time.monotonic()))
        time.sleep(wait)
    return 0
