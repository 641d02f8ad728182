"""Put a firmware bundle on one reader over its wire: stage, install, confirm or revert.

The host's side of hardware/protocol.md section 3a, one reader at a time
(``tablesense firmware update`` runs it for each reader of a config):

1. ``MAINT hello``: the reader's HELLO names its firmware. The bundle's version
   already: confirm it (a trial left by a cut run becomes permanent) and stop.
2. Each file (the manifest first): ``FILE``, then ``CHUNK``s from where the
   reader says it has got to, up to ``WINDOW`` in flight; a file the reader
   already holds verified is skipped, so a run that was cancelled or lost its
   reader resumes where it stopped.
3. ``INSTALL`` with the bundle's signature; the reader commits it and reboots.
4. The first HELLO after the reboot must name the new version within
   ``confirm_s``: then ``CONFIRM``. Otherwise the reader is reset (if it still
   listens) and its next boot puts the old firmware back (firmware/fwboot.py);
   the result says which version it came back on.

Nothing here changes the running firmware before step 3, and the board keeps
its old files until step 4 confirms, so a cancelled run or a cut cable leaves
a reader on its old firmware or, at worst, on the new one unconfirmed, which
it reverts at its next reboot.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablesense.daemon.ports import Port, read_some
from tablesense.firmware.bundle import Bundle
from tablesense.onboard.wire import codec

WINDOW = 4  # CHUNKs in flight before the reader's STATUS must come back
RETRIES = 5  # a FILE or a window asked again this often before giving up
MAX_MISMATCH = 3  # a file whose hash failed this often: the link or the flash is bad


# The states that answer an INSTALL and a CONFIRM (STATUS, protocol.md section 3a).
ANSWERS = {
    codec.INSTALL: ("installing", "bad-signature", "incomplete", "bad-manifest",
                    "write-failed"),
    codec.CONFIRM: ("confirmed", "not-on-trial", "write-failed"),
}


class UpdateError(RuntimeError):
    """The update of one reader failed; the reader keeps (or went back to) its old firmware."""


@dataclass
class Outcome:
    reader: int
    old: str  # the version before
    new: str  # the version it runs now
    sent: int  # file bytes sent (less than the bundle's size when a run resumed)
    state: str  # "updated", "current" (nothing to do) or "confirmed" (a trial made permanent)


def clock_stamp() -> int:
    """The host's stamp clock (protocol.md section 2a): 10 us since 2015-01-01 UTC."""
    return (time.time_ns() // 10_000 - 142_007_040_000_000) & 0xFFFFFFFFFFFF


class Link:
    """One reader's port: signed frames out when there is a key, frames in."""

    def __init__(self, port: Port, reader: int, key: bytes | None) -> None:
        self.port = port
        self.reader = reader
        self.key = key
        self.seq = 0
        self.stamp = clock_stamp()
        self.dec = codec.Decoder(key, key is not None)
        self.pending: list[codec.Frame] = []

    def send(self, mtype: int, fields: dict[str, Any]) -> int:
        self.seq = codec.seq_next(self.seq)
        self.stamp += 1
        self.port.write(codec.encode(mtype, fields, self.reader, self.seq, 0, self.key,
                                     self.stamp, "host"))
        return self.seq

    def wait(self, want: Callable[[codec.Frame], bool], timeout: float) -> codec.Frame | None:
        """The first frame from the reader ``want`` takes, within ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            while self.pending:
                f = self.pending.pop(0)
                if want(f):
                    return f
            if time.monotonic() >= deadline:
                return None
            for item in self.dec.feed(read_some(self.port)):
                if isinstance(item, codec.Frame):
                    self.pending.append(item)


def is_status(k: int) -> Callable[[codec.Frame], bool]:
    return lambda f: f.mtype == codec.STATUS and f.fields["file"] == k


def window_answered(k: int, want: int) -> Callable[[codec.Frame], bool]:
    """The STATUS that says the window up to ``want`` arrived, or that something is wrong."""
    return lambda f: is_status(k)(f) and (
        f.fields["have"] >= want or f.fields["state"] != "receiving")


def is_hello(f: codec.Frame) -> bool:
    return f.mtype == codec.HELLO


class Flasher:
    """Updates the reader on ``link`` to ``bundle``; ``say`` reports progress."""

    def __init__(self, link: Link, bundle: Bundle, say: Callable[[str], None],
                 timeout: float = 2.0, confirm_s: float = 30.0) -> None:
        self.link = link
        self.bundle = bundle
        self.say = say
        self.timeout = timeout
        self.confirm_s = confirm_s
        self.sent = 0

    def hello(self) -> codec.Frame:
        """The reader's HELLO, asked with its id (a board's seat.txt: N=1 .. W=4, default
        1), then the others: a reader takes frames for its own id only."""
        ids = [self.link.reader] + [i for i in (1, 2, 3, 4) if i != self.link.reader]
        for n in range(max(RETRIES, len(ids))):
            self.link.reader = ids[n % len(ids)]
            self.link.send(codec.MAINT, {"action": "hello"})
            f = self.link.wait(is_hello, self.timeout)
            if f is not None:
                self.link.reader = f.reader
                return f
        c = self.link.dec.counters
        if c.get("bad_signature") or c.get("incompatible_flag") or c.get("unsigned"):
            raise UpdateError("frames signed with another key than the config's for this "
                              "reader (or signed where it has none, or unsigned where it has "
                              "one): check its key.txt against the config")
        raise UpdateError(f"reader {self.link.reader}: no HELLO (not running, another reader "
                          "id, or firmware before 0.6.0, which takes no update over the wire: "
                          "flash it with mpremote, hardware/BRINGUP.md)")

    def run(self) -> Outcome:
        hello = self.hello()
        old = hello.fields["firmware"]
        rid = self.link.reader
        if old == self.bundle.version:
            st = self.ask(codec.CONFIRM, {"firmware": old}, 0)
            state = "confirmed" if st.fields["state"] == "confirmed" else "current"
            return Outcome(rid, old, old, 0, state)
        for k in range(self.bundle.count):
            self.stage(k)
        st = self.ask(codec.INSTALL, {"sig": self.bundle.signature(self.link.key).hex()}, 0)
        if st.fields["state"] != "installing":
            raise UpdateError(f"reader {rid}: install refused ({st.fields['state']}, file "
                              f"{st.fields['file']}); it keeps firmware {old}")
        self.say(f"reader {rid}: installed, rebooting into {self.bundle.version}")
        return self.confirm(old, st.seq)

    def ask(self, mtype: int, fields: dict[str, Any], k: int) -> codec.Frame:
        """Send, and wait for the STATUS that answers it (asked again on a timeout).

        An INSTALL or a CONFIRM is answered only by the states they end in, so a late
        STATUS of the manifest's staging (file 0 too) is not taken for their answer."""
        answers = ANSWERS.get(mtype)
        for _ in range(RETRIES):
            self.link.send(mtype, fields)
            f = self.link.wait(lambda f: is_status(k)(f) and (
                answers is None or f.fields["state"] in answers), self.timeout)
            if f is not None:
                return f
        raise UpdateError(f"reader {self.link.reader}: no answer to {codec.TYPE_NAMES[mtype]} "
                          f"(file {k})")

    def stage(self, k: int) -> None:
        data = self.bundle.file(k)
        announce = {"file": k, "size": len(data),
                    "sha256": hashlib.sha256(data).hexdigest()}
        st = self.ask(codec.FILE, announce, k)
        mismatches = tries = 0
        while True:
            state, have = st.fields["state"], st.fields["have"]
            if state == "verified":
                return
            if state == "mismatch":
                mismatches += 1
                if mismatches >= MAX_MISMATCH:
                    raise UpdateError(f"reader {self.link.reader}: file {k} failed its SHA-256 "
                                      f"check {mismatches} times (a bad link or flash)")
                st = self.ask(codec.FILE, announce, k)
                continue
            if state == "on-trial":
                raise UpdateError(f"reader {self.link.reader}: runs an unconfirmed update; "
                                  "reset it (tablesense maint PORT reset) to revert it first")
            if state != "receiving":
                raise UpdateError(f"reader {self.link.reader}: file {k}: {state}")
            for off in range(have, min(len(data), have + WINDOW * codec.MAX_CHUNK),
                             codec.MAX_CHUNK):
                piece = data[off : off + codec.MAX_CHUNK]
                self.link.send(codec.CHUNK, {"file": k, "offset": off, "data": piece.hex()})
                self.sent += len(piece)
            upto = min(len(data), have + WINDOW * codec.MAX_CHUNK)
            nxt = self.link.wait(window_answered(k, upto), self.timeout)
            if nxt is None:
                tries += 1
                if tries >= RETRIES:
                    raise UpdateError(f"reader {self.link.reader}: file {k} stalled at {have}")
                nxt = self.ask(codec.FILE, announce, k)  # where has it got to?
            else:
                tries = 0
            st = nxt

    def confirm(self, old: str, installing_seq: int) -> Outcome:
        """Wait for the rebooted reader's HELLO; confirm the new version or let it revert."""
        rid = self.link.reader
        new = self.bundle.version

        def rebooted(f: codec.Frame) -> bool:  # a fresh boot counts its frames from 0 again
            return is_hello(f) and codec.seq_delta(f.seq, installing_seq) < 0

        hello = self.link.wait(rebooted, self.confirm_s)
        if hello is None:
            self.link.send(codec.MAINT, {"action": "reset"})  # alive but mute: reboot, revert
            hello = self.link.wait(is_hello, self.confirm_s)
            now = hello.fields["firmware"] if hello is not None else "unknown (no HELLO)"
            raise UpdateError(f"reader {rid}: no HELLO from {new} within {self.confirm_s:g} s; "
                              f"reset to revert, now on {now}")
        got = hello.fields["firmware"]
        if got != new:
            raise UpdateError(f"reader {rid}: {new} did not start; the reader reverted to {got}")
        st = self.ask(codec.CONFIRM, {"firmware": new}, 0)
        if st.fields["state"] != "confirmed":
            raise UpdateError(f"reader {rid}: runs {new} but did not confirm it "
                              f"({st.fields['state']}); it reverts at its next reboot")
        return Outcome(rid, old, new, self.sent, "updated")
