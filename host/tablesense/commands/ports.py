"""``tablesense ports``: the USB readers plugged in, with their serial numbers.

One line per USB serial port: device, serial number, vendor:product id and
description (``--json`` for JSON lines). With ``--config`` each found reader
is matched to the table and seat that the config gives its serial number,
and configured readers that are missing are listed too (a serial number no
USB device has, a device path that does not exist), so a table builder can
see at a glance which seat is not plugged in.

Exit status: 0, or 1 when a configured reader is missing (a line on stderr
counts them), 2 for a config that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import os
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
    paths: dict[str, str] = {}  # readers configured by a device path
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
                elif rc.port and "://" not in rc.port:
                    paths[rc.port] = f"{tname}/{seat}"
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
    missing = 0
    for serial, where in sorted(seats.items(), key=lambda kv: kv[1]):
        if serial not in present:
            missing += 1
            if args.json:
                print(json.dumps({"device": None, "serial_number": serial, "assigned": where}))
            else:
                print(f"-\t{serial}\t(missing)\t\t  -> {where}")
    for path, where in sorted(paths.items(), key=lambda kv: kv[1]):
        if not os.path.exists(path):
            missing += 1
            if args.json:
                print(json.dumps({"device": path, "serial_number": None, "assigned": where,
                                  "missing": True}))
            else:
                print(f"{path}\t-\t(no such port)\t\t  -> {where}")
    if not found and not args.json:
        print("no USB serial readers found", file=sys.stderr)
    if missing:
        print(f"tablesense ports: {missing} configured reader{'s' * (missing > 1)} missing",
              file=sys.stderr)
        return 1
    return 0
