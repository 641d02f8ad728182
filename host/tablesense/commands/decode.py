"""``tablesense decode FILE|PORT_URL``: the table builder's sniffer.

Decodes reader<->host frames (wire protocol v1, ``tablesense.onboard.wire.codec``) from a
capture file of raw bytes, standard input (``-``), or a live port given as
any pyserial URL (``/dev/ttyACM0``, ``/dev/pts/3``, ``socket://host:port``,
``loop://``, ``spy://...``). Each message goes to stdout as one JSON line;
each dropped frame goes to stderr with its byte offset in the stream; a
summary of the decoder's counters ends the run on stderr. A live port is
read until it closes, Ctrl-C, ``--count`` frames or ``--timeout`` seconds.

Exit status: 0 when the input was read to its end (whatever it held), 2 when
it could not be opened (one line says why: no such file or port, port busy),
1 when reading it failed, 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import time
from collections.abc import Iterator
from typing import Any, TextIO

from tablesense.daemon.ports import DEFAULT_BAUDRATE, PortError, open_port, read_some
from tablesense.onboard.wire.codec import Decoder, Frame, RemoteProtocolError

CHUNK = 65536


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "decode",
        help="decode reader frames from a capture file or a live port",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("source", metavar="FILE|PORT_URL", help="capture file, '-' for stdin, or URL")
    p.add_argument("--count", type=int, metavar="N", help="stop after N decoded frames")
    p.add_argument("--timeout", type=float, metavar="S", help="stop after S seconds")
    p.add_argument(
        "--baudrate", type=int, default=DEFAULT_BAUDRATE, help="for serial devices (%(default)s)"
    )
    p.set_defaults(func=run)


class Sniffer:
    """Feeds a Decoder and prints what it returns, up to ``limit`` frames."""

    def __init__(self, out: TextIO, err: TextIO, flush: bool, limit: int | None) -> None:
        self.decoder = Decoder()
        self.out = out
        self.err = err
        self.flush = flush
        self.limit = limit
        self.frames = 0

    @property
    def done(self) -> bool:
        return self.limit is not None and self.frames >= self.limit

    def show(self, items: list[Frame | RemoteProtocolError]) -> None:
        for item in items:
            if self.done:
                return
            if isinstance(item, Frame):
                self.frames += 1
                print(json.dumps(item.to_dict()), file=self.out, flush=self.flush)
            else:
                print(
                    f"decode: byte {item.offset}: {item.kind}: {item.message}",
                    file=self.err,
                    flush=self.flush,
                )

    def feed(self, data: bytes) -> None:
        self.show(self.decoder.feed(data))

    def finish(self) -> None:
        """End of input: what is still buffered is decoded or reported."""
        self.show(self.decoder.feed_eof())

    def summary(self) -> None:
        print(f"decode: summary {json.dumps(self.decoder.counters)}", file=self.err, flush=True)


def is_port(source: str) -> bool:
    if "://" in source:
        return True
    try:
        mode = os.stat(source).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode)


def file_chunks(source: str) -> Iterator[bytes]:
    if source == "-":
        stream = sys.stdin.buffer
        while chunk := stream.read1(CHUNK) if hasattr(stream, "read1") else stream.read(CHUNK):
            yield chunk
        return
    with open(source, "rb") as f:
        while chunk := f.read(CHUNK):
            yield chunk


def run(args: argparse.Namespace) -> int:
    live = args.source != "-" and is_port(args.source)
    if not live and args.source != "-" and not os.path.isfile(args.source):
        why = "is a directory" if os.path.isdir(args.source) else "no such file or port"
        print(f"decode: {args.source}: {why}", file=sys.stderr)
        return 2
    sniffer = Sniffer(sys.stdout, sys.stderr, live or args.source == "-", args.count)
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    status = 0
    try:
        if live:
            status = sniff_port(sniffer, args, deadline)
        else:
            try:
                for chunk in file_chunks(args.source):
                    sniffer.feed(chunk)
                    if sniffer.done:
                        break
                else:
                    sniffer.finish()
            except OSError as e:
                print(f"decode: cannot read {args.source}: {e}", file=sys.stderr)
                status = 1
    except KeyboardInterrupt:
        status = 130
    if status != 2:  # 2: the port did not open, and one line said why
        sniffer.summary()
    return status


def sniff_port(sniffer: Sniffer, args: argparse.Namespace, deadline: float | None) -> int:
    try:
        port = open_port(args.source, baudrate=args.baudrate)
    except PortError as e:
        print(f"decode: {e}", file=sys.stderr)
        return 2
    print(f"decode: listening on {args.source}", file=sys.stderr, flush=True)
    try:
        while not sniffer.done:
            if deadline is not None and time.monotonic() >= deadline:
                break
            try:
                data = read_some(port)
            except PortError as e:
                print(f"decode: port closed: {e}", file=sys.stderr)
                sniffer.finish()
                break
            if data:
                sniffer.feed(data)
    finally:
        port.close()
    return 0
