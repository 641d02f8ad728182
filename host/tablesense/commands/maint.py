"""``tablesense maint PORT stop|bootloader|reset|hello``: maintenance of a reader over its wire.

Sends ``MAINT {action}`` (hardware/protocol.md section 3) to the reader on
PORT (anything pyserial opens; stop the daemon first, one program per port)
and waits for its ACK: ``stop`` ends the reader loop and gives the board's
REPL back (then ``mpremote connect PORT`` works), ``bootloader`` reboots
the RP2040 into its USB bootloader (a UF2 drive appears), ``reset`` reboots
it, ``hello`` asks who it is (kind, firmware, serial number, what it senses;
firmware 0.6.0 on). The reader's id comes from its HELLO (a reader says HELLO
each second until configured; a configured one is asked with each id 1..4 in
turn). Exit status 0 once acknowledged, 1 when the reader never answers.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from tablesense.daemon.ports import open_port, read_some
from tablesense.firmware.flasher import Link
from tablesense.onboard.wire import codec


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("maint", help="stop a reader for mpremote, reboot it, or ask "
                              "who it is",
                              description=__doc__.split("\n\n")[1] if __doc__ else None)
    p.add_argument("port", help="the reader's port (/dev/ttyACM0, socket://..., /dev/pts/N)")
    p.add_argument("action", choices=codec.MAINT_ACTIONS)
    p.add_argument("--reader", type=int, help="the reader's id (default: from its HELLO)")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds to wait (5)")
    p.add_argument("--key", type=bytes.fromhex, metavar="HEX",
                   help="the reader's key (its key.txt): a reader with a key takes only "
                        "signed frames")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    link = Link(open_port(args.port), 1, args.key)
    ids = [args.reader] if args.reader is not None else []
    deadline = time.monotonic() + args.timeout
    asked: dict[int, int] = {}  # seq of our MAINT -> reader id
    tried = 0.0
    acked = False
    try:
        while time.monotonic() < deadline:
            for item in link.dec.feed(read_some(link.port)):
                if not isinstance(item, codec.Frame):
                    continue
                if item.mtype == codec.HELLO and args.reader is None:
                    ids = [item.reader]
                if item.mtype == codec.HELLO and args.action == "hello" and acked:
                    f = item.fields
                    print(f"reader {item.reader}: {f['kind']} firmware {f['firmware']}, serial "
                          f"{f['serial']}; senses {', '.join(f['capabilities'])}")
                    return 0
                if item.mtype == codec.ACK and asked.get(item.fields["ack_seq"]) == item.reader:
                    if args.action != "hello":
                        print(f"reader {item.reader}: {args.action} acknowledged")
                        return 0
                    acked = True  # its HELLO follows
            now = time.monotonic()
            if now - tried >= 0.5:  # ask again (or the next id) every half second
                tried = now
                for rid in ids or [1 + int(now * 2) % 4]:
                    link.reader = rid
                    asked[link.send(codec.MAINT, {"action": args.action})] = rid
    finally:
        link.port.close()
    why = "" if args.key else " (a reader with a key answers signed frames only: --key)"
    print(f"tablesense maint: no answer on {args.port}{why}", file=sys.stderr)
    return 1
