"""``tablesense ports``: the USB readers plugged in, with their serial numbers.

One line per USB serial port: device, serial number, vendor:product id and
description (``--json`` for JSON lines). With ``--config`` each found reader
is matched to the table and seat that the config gives its serial number,
and configured readers that are missing are listed too, so a table builder
can see at a glance which seat is not plugged in.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tablesense.daemon.config import ConfigError, load_config
from tablesense.daemon.usb import list_readers


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("ports", help="list USB readers and their serial numbers",
                              description=__doc__.split("\n\n")[1] if __doc__ else None)
    p.add_argument("--config", metavar="FILE", help="match readers to tables and seats")
    p.add_argument("--vid", type=lambda s: int(s, 16), help="USB vendor id (hex)")
    p.add_argument("--pid", type=lambda s: int(s, 16), help="USB product id (hex)")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    seats: dict[str, str] = {}
    vid, pid = args.vid, args.pid
    if args.config:
        try:
            cfg = load_config(args.config)
        except ConfigError as exc:
            print(f"tablesense ports: {exc}", file=sys.stderr)
            return 2
        vid = vid if vid is not None else cfg.link.usb_vid
        pid = pid if pid is not None else cfg.link.usb_pid
        for tname, t in cfg.tables.items():
            for seat, rc in t.readers.items():
                if rc.serial:
                    seats[rc.serial] = f"{tname}/{seat}"
    found = list_readers(vid, pid)
    for r in found:
        row = r.to_json()
        if args.config:
            row["assigned"] = seats.get(r.serial_number or "")
        if args.json:
            print(json.dumps(row))
        else:
            ident = f"{row['vid']}:{row['pid']}"
            where = f"  -> {row['assigned'] or 'not in config'}" if args.config else ""
            print(f"{r.device}\t{r.serial_number or '-'}\t{ident}\t{r.description}{where}")
    present = {r.serial_number for r in found}
    for serial, where in sorted(seats.items(), key=lambda kv: kv[1]):
        if serial not in present:
            if args.json:
                print(json.dumps({"device": None, "serial_number": serial, "assigned": where}))
            else:
                print(f"-\t{serial}\t(missing)\t\t  -> {where}")
    if not found and not args.json:
        print("no USB serial readers found", file=sys.stderr)
    return 0
