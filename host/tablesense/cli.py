"""The ``tablesense`` command line: one subcommand per module in ``tablesense.commands``.

Each command module exposes ``register(subparsers)``, which adds its parser and
sets ``func`` (taking the parsed namespace, returning the exit status). Adding
a command is adding its module name to ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from tablesense import __version__

COMMANDS: tuple[str, ...] = ("decode", "replay", "run", "ports", "export", "record", "codes",
                              "demo", "sim", "maint", "deck", "calibrate", "firmware")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablesense",
        description="Smart bridge tables: readers, rulings, alerts.",
    )
    parser.add_argument("--version", action="version", version=f"tablesense {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"tablesense.commands.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        status: int = func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return status


if __name__ == "__main__":
    raise SystemExit(main())
