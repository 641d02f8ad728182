"""The ``tablesense`` command line: one subcommand per module in ``tablesense.commands``.

Each command module exposes ``register(subparsers)``, which adds its parser and
sets ``func`` (taking the parsed namespace, returning the exit status). Adding
a command is adding its module name to ``COMMANDS``. An error that a bad
argument causes (a port that does not exist, an unknown law code, a file that
cannot be read: :func:`is_user_error`) ends any command with one line naming
the cause and status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from tablesense import __version__

COMMANDS: tuple[str, ...] = ("decode", "replay", "run", "ports", "export", "record", "codes",
                              "demo", "sim", "maint", "deck", "calibrate", "firmware",
                              "camera", "vision")


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
    except Exception as exc:
        if not is_user_error(exc):
            raise  # a bug: its traceback is what a report needs
        print(f"tablesense {args.command}: {exc}", file=sys.stderr)
        return 2
    return status


def is_user_error(exc: BaseException) -> bool:
    """An error that a bad argument, file, port or config causes: one line, status 2.

    A port that does not exist or is busy, an unknown law code, a config or
    build that is wrong, a file that cannot be read or written.
    """
    from tablesense.daemon.config import ConfigError
    from tablesense.engine.code import UnknownCode
    from tablesense.firmware.build import BuildError
    from tablesense.firmware.bundle import BundleError
    from tablesense.sim.firmware import SimError

    return isinstance(exc, (OSError, ConfigError, UnknownCode, BuildError, BundleError,
                            SimError))


if __name__ == "__main__":
    raise SystemExit(main())
