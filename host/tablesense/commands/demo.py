"""``tablesense demo``: the simulated club, the main job.

Robots deal, bid and play whole boards at N tables (now and then dropping a
card, leading out of turn or showing a card); each seat's cards are sensed
by a simulated reader behind a pty (the real firmware in the MicroPython VM
for up to two tables, a Python simulator of the same wire protocol beyond,
or when ``micropython`` is missing); the daemon journals, rules and alerts;
an embedded MQTT broker (or ``--broker``) carries the alerts to the
director's dashboard, whose URL is printed (on another port when the one
asked for is taken, and it says so). A status line on stderr shows boards
played and alerts raised. With ``--boards`` it stops after that many boards at
each table (``--keep-up``: the dashboard stays up until Ctrl-C); without, it
plays a 24-board session and keeps the dashboard up until Ctrl-C.

Exit status: 0 after the boards were played (or Ctrl-C), 1 when the demo
could not run (readers that never report, a broker that cannot be reached),
2 for a bad option (an unknown law code or noise profile: one line says which).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("demo", help="run a simulated club: robots, readers, daemon, "
                              "broker and the director's dashboard",
                              description=__doc__.split("\n\n")[1] if __doc__ else None)
    p.add_argument("--tables", type=int, default=2, metavar="N", help="tables (default 2)")
    p.add_argument("--boards", type=int, default=None, metavar="M",
                   help="stop after M boards at each table (default: a 24-board session, "
                        "then wait for Ctrl-C)")
    p.add_argument("--seed", type=int, default=1, help="the deals and mishaps (default 1)")
    p.add_argument("--speed", type=float, default=1.0, metavar="X",
                   help="X times faster than a real table (default 1; the readers' timing "
                        "sets a floor, about 12 s a board)")
    p.add_argument("--broker", metavar="URL",
                   help="use this broker (mqtt://[user:pass@]host[:port] or ws://...) instead "
                        "of the embedded one")
    p.add_argument("--broker-ws", metavar="URL",
                   help="the broker's WebSocket URL as the dashboard's browser sees it "
                        "({host}: the page's host; default ws://{host}:9001 with --broker)")
    p.add_argument("--no-dashboard", dest="dashboard", action="store_false",
                   help="do not serve the dashboard")
    p.add_argument("--keep-up", action="store_true",
                   help="with --boards: after the last board, keep the dashboard up until "
                        "Ctrl-C (without --boards it always stays up)")
    p.add_argument("--port", type=int, default=8080,
                   help="the dashboard's port (default 8080, any free one if taken)")
    p.add_argument("--readers", choices=("auto", "vm", "python", "vision"), default="auto",
                   help="vm: the firmware in the MicroPython VM; python: the Python simulator; "
                        "vision: one camera board a table, recognising the cards from "
                        "rendered frames (needs the camera extra); "
                        "auto (default): vm for up to 2 tables when micropython is there")
    p.add_argument("--code", metavar="ID", help="the law code (default duplicate-2017)")
    p.add_argument("--journal", type=Path, metavar="DIR",
                   help="keep the journals here (default: a temporary folder, removed)")
    p.add_argument("--mishaps", type=float, default=0.5, metavar="RATE",
                   help="share of boards with a robot's mishap (default 0.5)")
    p.add_argument("--noise", default="clean", metavar="PROFILE",
                   help="the readers sense the play through this noise profile: clean "
                        "(default), club, hostile or a TOML file (tablesense.sim.noise); the "
                        "summary adds the glitches the host suppressed, per seat. At a high "
                        "--speed the next play can come before a reader has settled the "
                        "last one (a card quitted across a zone boundary, up to 0.45 s): "
                        "expect a few false alerts (BENCHMARKS.md)")
    p.add_argument("--log-level", default="warning",
                   choices=("debug", "info", "warning", "error"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tablesense.commands.run import setup_logging
    from tablesense.demo.club import DemoError, DemoOptions, run_demo

    setup_logging(args.log_level, False)
    logging.getLogger("tablesense.demo").setLevel(args.log_level.upper())
    try:
        opts = DemoOptions(tables=args.tables, boards=args.boards, seed=args.seed,
                           speed=args.speed, broker=args.broker, broker_ws=args.broker_ws,
                           dashboard=args.dashboard, port=args.port, readers=args.readers,
                           code=args.code, journal=args.journal, mishap_rate=args.mishaps,
                           noise=args.noise, keep_up=args.keep_up)
        return run_demo(opts)
    except DemoError as exc:
        print(f"tablesense demo: {exc}", file=sys.stderr)
        return 2
