"""``tablesense firmware update``: put a firmware build on readers over their wire.

``update --config FILE [--build DIR]`` updates every reader of the config, one
board at a time (stop the daemon first: one program per port); ``update --port
PORT [--key HEX]`` one reader. DIR is a build (``scripts/build-firmware DIR``,
default ``build/board``). Each reader gets the bundle's files, each checked
with SHA-256 on the board after writing, and the bundle's signature (HMAC with
the reader's key), then reboots into it on trial; its HELLO must name the new
version within ``--confirm-timeout`` seconds or it goes back to its old
firmware. A run that was cancelled or lost a reader resumes where it stopped.
``bundle DIR`` prints the manifest a build would be sent with.

Exit status: 0 when every reader runs the build, 1 when one or more could not
be updated (each keeps or went back to its old firmware; a line each says
why), 2 for a bad argument, config or build.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablesense.contract import vocab
from tablesense.daemon.config import ConfigError, load_config
from tablesense.daemon.ports import PortError, open_port
from tablesense.daemon.usb import SerialNumberResolver
from tablesense.firmware.bundle import BundleError, load_bundle
from tablesense.firmware.flasher import Flasher, Link, UpdateError


@dataclass(frozen=True)
class Target:
    name: str  # table/seat, or the port
    port: str | None  # None: its serial number is not plugged in
    reader: int
    key: bytes | None


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("firmware", help="update the readers' firmware over the wire",
                              description=__doc__.split("\n\n")[1] if __doc__ else None)
    sub = p.add_subparsers(dest="firmware_command", metavar="ACTION", required=True)
    u = sub.add_parser("update", help="put a build on every reader of a config, or on one")
    where = u.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", metavar="FILE", help="every reader of this daemon config")
    where.add_argument("--port", help="one reader's port (/dev/ttyACM0, socket://...)")
    u.add_argument("--key", help="with --port: the reader's key, hex (its key.txt)")
    u.add_argument("--build", type=Path, default=Path("build/board"), metavar="DIR",
                   help="the build to send (default build/board)")
    u.add_argument("--version", dest="fw_version", metavar="X.Y.Z",
                   help="the build's version (default: read from its reader.py)")
    u.add_argument("--confirm-timeout", type=float, default=30.0, metavar="S",
                   help="seconds for the rebooted reader's HELLO (default 30)")
    u.add_argument("--timeout", type=float, default=2.0, metavar="S",
                   help="seconds to wait for each answer (default 2)")
    u.set_defaults(func=update)
    b = sub.add_parser("bundle", help="print the manifest of a build")
    b.add_argument("build", type=Path)
    b.add_argument("--version", dest="fw_version", metavar="X.Y.Z")
    b.set_defaults(func=show_bundle)


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def targets(args: argparse.Namespace) -> list[Target]:
    """The readers to update, in config order (``ConfigError`` / ``ValueError``)."""
    if args.port:
        key = bytes.fromhex(args.key) if args.key else None
        return [Target(args.port, args.port, 1, key)]
    cfg = load_config(args.config)
    out = []
    for tname, table in cfg.tables.items():
        for name, rc in table.readers.items():
            port = rc.port
            if port is None and rc.serial:
                port = SerialNumberResolver(rc.serial, cfg.link.usb_vid, cfg.link.usb_pid)()
            first = rc.seats[0] if rc.seats else rc.seat
            rid = vocab.SEATS.index(first) + 1 if first in vocab.SEATS else 1
            out.append(Target(f"{tname}/{name}", port, rid, rc.key))
    return out


def update(args: argparse.Namespace) -> int:
    if args.key and not args.port:
        return _usage("--key goes with --port (a config gives each reader's key)")
    try:
        bundle = load_bundle(args.build, args.fw_version)
        todo = targets(args)
    except (BundleError, ConfigError) as exc:
        return _usage(str(exc))
    except ValueError as exc:
        return _usage(f"--key: {exc}")
    _say(f"firmware {bundle.version}: {bundle.count} files, {bundle.size} bytes, "
         f"{len(todo)} readers")
    failed = 0
    for t in todo:
        if t.port is None:
            _say(f"{t.name}: not plugged in (tablesense ports --config); skipped")
            failed += 1
            continue
        try:
            port = open_port(t.port)
        except PortError as exc:
            _say(f"{t.name}: {exc}; skipped")
            failed += 1
            continue
        try:
            flasher = Flasher(Link(port, t.reader, t.key), bundle, _say, args.timeout,
                              args.confirm_timeout)
            out = flasher.run()
        except (UpdateError, PortError) as exc:
            _say(f"{t.name}: {exc}")
            failed += 1
            continue
        except KeyboardInterrupt:
            _say(f"{t.name}: cancelled; it keeps its old firmware (or, installed but not yet "
                 "confirmed, goes back to it at its next reboot); a new run resumes")
            return 130
        finally:
            port.close()
        if out.state == "updated":
            print(f"{t.name}: {out.old} -> {out.new} ({out.sent} bytes sent)")
        elif out.state == "confirmed":
            print(f"{t.name}: {out.new} confirmed (installed by an earlier run)")
        else:
            print(f"{t.name}: already {out.new}")
    if failed:
        _say(f"{failed} of {len(todo)} readers not updated")
    return 1 if failed else 0


def show_bundle(args: argparse.Namespace) -> int:
    try:
        bundle = load_bundle(args.build, args.fw_version)
    except BundleError as exc:
        return _usage(str(exc))
    sys.stdout.write(bundle.manifest.decode())
    return 0


def _usage(msg: str) -> int:
    print(f"tablesense firmware: {msg}", file=sys.stderr)
    return 2
