"""``tablesense record JOURNAL... [--format html|json] [-q WORDS] [--table T] [--board N]``.

The director's record (tablesense.documents.record) of finished journals: every
ruling, with the decisions and notes journaled about it, who sent them and
when, per board and playing evening; as a printable HTML report (the
stylesheet inline, ready to print to PDF) or as JSON. Each board is
listed under the table its ``board`` event names. Invalid lines are
reported on standard error with their file, line and field; the record goes
on.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("record", help="the director's record of journals, as HTML or JSON",
                       description="Replay journals and list every ruling with the decisions "
                       "and notes about it, who sent them and when, per board and evening.")
    p.add_argument("journals", nargs="+", metavar="JOURNAL", help="a table's journal (*.jsonl)")
    p.add_argument("--format", choices=("html", "json"), default="html",
                   help="html (printable, default) or json")
    p.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")
    p.add_argument("-q", "--query", default="", help="keep the boards where all these words occur")
    p.add_argument("--table", help="only this table")
    p.add_argument("--board", type=int, help="only this board number")
    p.add_argument("--evening", help="only this playing evening (YYYY-MM-DD)")
    p.add_argument("--code", help="law code id overriding the boards' code")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tablesense.documents import record, report
    from tablesense.laws import code_error

    if (error := code_error(args.code)) is not None:
        print(f"tablesense record: {error}", file=sys.stderr)
        return 2
    journals: dict[str, tuple[Path, str | None]] = {}
    for name in args.journals:
        path = Path(name)
        if not path.is_file():
            print(f"tablesense record: cannot read {name}: no such file", file=sys.stderr)
            return 2
        journals[str(path)] = (path, args.code)
    boards, problems = record.build(journals, any_table=True)
    for p in problems:
        print(p, file=sys.stderr)
    chosen = record.search(boards, args.query, table=args.table, board=args.board,
                           evening=args.evening)
    if args.format == "json":
        text = json.dumps(record.to_json(chosen, problems), ensure_ascii=False, indent=1) + "\n"
    else:
        text = report.report_html(chosen, query=args.query, inline_css=True)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"tablesense record: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0
