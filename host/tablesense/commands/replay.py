"""``tablesense replay FILE``: the rulings a journal replays to, one JSON line each."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from tablesense.documents.replay import replay_lines


def register(sub: Any) -> None:
    p = sub.add_parser("replay", help="print the rulings of a journal as JSON lines",
                       description="Replay a journal through the rules engine and print every "
                       "ruling (info included) as one JSON object a line, deterministically.")
    p.add_argument("file", help="journal (*.jsonl); - for standard input")
    p.add_argument("--code", help="law code id overriding the board's code")
    p.add_argument("--strict", action="store_true",
                   help="stop with status 1 at the first invalid line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tablesense.laws import code_error

    if (error := code_error(args.code)) is not None:
        print(f"tablesense replay: {error}", file=sys.stderr)
        return 2
    try:
        if args.file == "-":
            return _replay(sys.stdin.buffer, "<stdin>", args, sys.stdout)
        with open(args.file, "rb") as f:
            return _replay(f, args.file, args, sys.stdout)
    except OSError as exc:
        print(f"tablesense replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2


def _replay(f: Iterable[bytes], label: str, args: argparse.Namespace, out: TextIO) -> int:
    for item in replay_lines(f, code=args.code):
        if isinstance(item, str):
            print(f"{label}: {item}", file=sys.stderr)
            if args.strict:
                return 1
        else:
            out.write(json.dumps(item.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n")
    return 0
