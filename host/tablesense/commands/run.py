"""``tablesense run --config FILE``: the host daemon.

Reads the TOML config (errors name the file and the key) and the event's
hand records (``[event] hands``, a table's own ``hands``, or ``--hands``: PBN;
errors name the file, the line and the tag), replays each
table's journal, connects to the MQTT broker (retrying while it is down),
opens every reader, serves the director's dashboard when ``[dashboard]``
gives a port (its URL is printed on stderr) and runs until SIGTERM or
Ctrl-C. Logs go to stderr as ``key=value`` lines (``--json`` for one JSON
object a line).

Exit status: 0 after a clean stop, 2 for a configuration error (or a
dashboard port already taken). A lost
reader or broker is never a reason to exit.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from dataclasses import replace
from types import FrameType
from typing import Any

from tablesense.contract.handrecords import HandRecordError, load_hand_records
from tablesense.daemon.config import ConfigError, load_config


class JsonFormatter(logging.Formatter):
    """One JSON object a line; ``key=value`` pairs of the message become fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {"ts": round(record.created, 3), "level": record.levelname.lower(),
                               "logger": record.name}
        msg = record.getMessage()
        for part in msg.split(" "):
            key, eq, value = part.partition("=")
            if eq and key.isidentifier():
                out[key] = value
        out["msg"] = msg
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out)


def setup_logging(level: str, as_json: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if as_json:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter(
            "ts=%(asctime)s level=%(levelname)s logger=%(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("paho").setLevel(logging.WARNING)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("run", help="run the host daemon",
                              description=__doc__.split("\n\n")[1] if __doc__ else None)
    p.add_argument("--config", required=True, metavar="FILE", help="the TOML configuration")
    p.add_argument("--log-level", default="info",
                   choices=("debug", "info", "warning", "error"))
    p.add_argument("--json", action="store_true", help="log one JSON object a line")
    p.add_argument("--hands", metavar="FILE",
                   help="the event's hand records (PBN), instead of [event] hands")
    p.add_argument("--check", action="store_true",
                   help="validate the config (and the hand records) and exit")
    p.add_argument("--take-over", action="store_true",
                   help="start even if another daemon holds this base (it then stops)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
        if args.hands is not None:
            config = replace(config, hands=load_hand_records(args.hands))
    except (ConfigError, HandRecordError) as exc:
        print(f"tablesense run: {exc}", file=sys.stderr)
        return 2
    if args.check:
        dealt = sorted({len(h) for t in config.tables
                        if (h := config.hands_of(t)) is not None})
        records = f", hand records for {'/'.join(map(str, dealt))} boards" if dealt else ""
        print(f"{args.config}: ok ({len(config.tables)} tables{records})")
        return 0
    setup_logging(args.log_level, args.json)
    from tablesense.daemon.claim import BaseClaimed
    from tablesense.daemon.core import Daemon  # imports paho: only when running

    daemon = Daemon(config, take_over=args.take_over)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        logging.getLogger("tablesense.daemon").info("event=signal signum=%d", signum)
        daemon.request_stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def started(d: Daemon) -> None:
        # The process is the daemon's: what start-up made (modules, tables, replayed
        # engines) and what survives later are kept out of the cyclic collector's
        # way, so that its passes never hold an alert up (daemon/collector.py).
        d.own_process()
        if d.dashboard_url is not None:
            # one write, line and newline: print() writes them apart, and a log record
            # from another thread landed between them (the URL then ran into it)
            sys.stderr.write(f"tablesense: dashboard at {d.dashboard_url}\n")
            sys.stderr.flush()

    try:
        daemon.run_forever(started)
    except BaseClaimed as exc:
        print(f"tablesense run: {exc}", file=sys.stderr)
        return 3
    except OSError as exc:  # the dashboard's port is taken
        print(f"tablesense run: dashboard: {exc}", file=sys.stderr)
        return 2
    if daemon.taken_over_by is not None:
        print(f"tablesense run: daemon {daemon.taken_over_by.daemon} took this base over; "
              "stopped", file=sys.stderr)
        return 3
    return 0
