"""``tablesense export FILE --format pbn|lin [-o OUT]``: a journal's boards as a hand record.

Every board of the journal, with its deal, auction, play, result and rulings
(as comments), in PBN 2.1 or BBO LIN (see :mod:`tablesense.documents.export`). Like
``replay``, an invalid line is reported on standard error with its line number
and the export goes on; the status is 0 when the journal was read to the end.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tablesense.contract import vocab

SEATS: tuple[str, ...] = vocab.SEATS


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="write a journal's boards as PBN or LIN",
                       description="Replay a journal and write each board (deal, auction, "
                       "play, result, and the rulings as comments) as PBN 2.1 or as BBO LIN "
                       "(vugraph). Invalid lines are reported on standard error with their "
                       "line number; the export goes on.")
    p.add_argument("file", help="journal (*.jsonl); - for standard input")
    p.add_argument("--format", choices=("pbn", "lin"), default="pbn",
                   help="pbn (default) or lin")
    p.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")
    p.add_argument("--code", help="law code id overriding the board's code")
    p.add_argument("--event", help="PBN Event tag (default: 'tablesense table <table>')")
    p.add_argument("--site", default="?", help="PBN Site tag")
    p.add_argument("--scoring", default="?", help="PBN Scoring tag, e.g. MP or IMP")
    p.add_argument("--player", action="append", default=[], metavar="SEAT=NAME",
                   help="a player's name, e.g. --player N='Smith, J.' (repeatable; "
                   "default: the seat's name)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tablesense.documents.export import Meta, export_text
    from tablesense.laws import code_error

    if (error := code_error(args.code)) is not None:
        print(f"tablesense export: {error}", file=sys.stderr)
        return 2
    players: dict[str, str] = {}
    for item in args.player:
        seat, sep, name = item.partition("=")
        if not sep or seat.upper() not in SEATS or not name.strip():
            print(f"tablesense export: --player expects SEAT=NAME with SEAT one of N E S W, "
                  f"got {item!r}", file=sys.stderr)
            return 2
        players[seat.upper()] = name.strip()
    meta = Meta(event=args.event, site=args.site, scoring=args.scoring, players=players)
    label = "<stdin>" if args.file == "-" else args.file
    try:
        if args.file == "-":
            text, errors = export_text(sys.stdin, args.format, meta, code=args.code)
        else:
            with open(args.file, encoding="utf-8", errors="replace") as f:
                text, errors = export_text(f, args.format, meta, code=args.code)
    except OSError as exc:
        print(f"tablesense export: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    for message in errors:
        print(f"{label}: {message}", file=sys.stderr)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
    except OSError as exc:
        print(f"tablesense export: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0
