"""``tablesense codes`` and ``tablesense explain ID``: the law codes, from their classes.

Nothing here is written per code: ``codes`` lists each registered class's ``id``,
``title``, ``year`` and ``source``; ``explain`` prints the class docstring and its
``rules`` table (situation -> what the code rules), the same table that
scripts/compare_codes.py turns into docs/laws/compare.md.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("codes", help="list the law codes",
                       description="List the law codes the rules engine knows.")
    p.set_defaults(func=run_codes)
    e = sub.add_parser("explain", help="what a law code counts as exposed, and its penalties",
                       description="Print what counts as an exposed card under a law code and "
                       "what each irregularity costs, from the code's class.")
    e.add_argument("code", metavar="ID", help="law code id (see tablesense codes)")
    e.set_defaults(func=run_explain)


def run_codes(args: argparse.Namespace) -> int:
    from tablesense.laws import CODES

    rows = [(c.id, c.title, str(c.year), c.source) for c in
            sorted(CODES.values(), key=lambda c: (c.year, c.id))]
    width = max(len(r[0]) for r in rows)
    tw = max(len(r[1]) for r in rows)
    for cid, title, year, source in rows:
        print(f"{cid:<{width}}  {year}  {title:<{tw}}  {source}")
    return 0


def explain_text(code_id: str) -> str:
    from tablesense.laws import CODES

    cls = CODES[code_id]
    lines = [f"{cls.id}: {cls.title} ({cls.year})", f"source: {cls.source}", ""]
    doc = inspect.getdoc(sys.modules[cls.__module__]) or ""
    lines += [doc.split("\n\n")[0], ""]
    chain = " -> ".join(k.__name__ for k in cls.__mro__
                        if k.__module__.startswith("tablesense.laws"))
    lines += [f"class: {chain}", ""]
    width = max((len(k) for k in cls.rules), default=0)
    for situation, ruling in cls.rules.items():
        lines.append(f"  {situation:<{width}}  {ruling}")
    return "\n".join(lines) + "\n"


def run_explain(args: argparse.Namespace) -> int:
    from tablesense.laws import CODES

    if args.code not in CODES:
        print(f"tablesense explain: unknown law code {args.code!r} "
              f"(known: {', '.join(sorted(CODES))})", file=sys.stderr)
        return 2
    sys.stdout.write(explain_text(args.code))
    return 0
