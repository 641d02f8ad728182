"""``tablesense deck enroll | verify | list``: provision the tagged cards of a deck.

``enroll PORT --deck N [-o FILE] [--cards SA,SK,...]``: the reader on PORT goes
into enrolment mode (MAINT enrol); the operator lays the deck's cards on its
antennas one by one, in deck order SA .. C2 (or ``--cards``), as prompted on
standard error; each new blank tag is written (page 4 "TS" + the card, page 5
the deck id N) and locked, and the deck file (``UID CARD`` lines, ``# deck N``)
is written after each card (default ``deck-N.txt``). A tag already locked with
another card is named and skipped. ``verify PORT FILE``: lay the deck on the
antennas; after ``--seconds`` (or once the whole deck answered) it names the
missing cards, duplicates (two tags of the deck with one card), foreign tags
(another deck, or blank) and tags the file lists otherwise; status 0 only for a
clean deck. ``list [DIR]``: the deck files of a directory (a duplicate event:
a deck per board), each with its id, its cards and what it lacks. ``enroll``
and ``verify`` need the port to themselves (stop the daemon), and put the
reader back to observing (MAINT scan) when they finish.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from tablesense.contract import decks
from tablesense.daemon.ports import open_port, read_some
from tablesense.firmware.flasher import Link
from tablesense.onboard.wire import codec

RETRY_S = 1.0
KEY_HELP = "the reader's key (its key.txt): a reader with a key takes only signed frames"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("deck", help="enroll, verify and list decks of tagged cards",
                              description=__doc__.split("\n\n")[1] if __doc__ else None)
    sub = p.add_subparsers(dest="deck_command", metavar="ACTION", required=True)
    e = sub.add_parser("enroll", help="write and lock each card's tag; write the deck file")
    e.add_argument("port")
    e.add_argument("--deck", type=int, required=True, help="deck id 0..65534 (the board)")
    e.add_argument("-o", "--out", help="the deck file (default deck-N.txt)")
    e.add_argument("--cards", help="comma-separated cards (default: the whole deck, SA..C2)")
    e.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for a card")
    e.add_argument("--key", type=bytes.fromhex, metavar="HEX", help=KEY_HELP)
    e.set_defaults(func=enroll)
    v = sub.add_parser("verify", help="name missing, duplicate and foreign cards")
    v.add_argument("port")
    v.add_argument("file")
    v.add_argument("--seconds", type=float, default=10.0, help="how long to listen (10)")
    v.add_argument("--json", action="store_true", help="the verdict as one JSON object")
    v.add_argument("--key", type=bytes.fromhex, metavar="HEX", help=KEY_HELP)
    v.set_defaults(func=verify)
    ls = sub.add_parser("list", help="the deck files of a directory")
    ls.add_argument("dir", nargs="?", default=".")
    ls.add_argument("--json", action="store_true", help="one JSON object a line")
    ls.set_defaults(func=list_decks)


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class Session(Link):
    """One reader in enrolment mode: MAINT enrol, then its TAG reports."""

    def __init__(self, url: str, key: bytes | None = None) -> None:
        # a reader with a key takes signed frames only; its id comes from its HELLO
        super().__init__(open_port(url), 1, key)
        self.tags: dict[str, decks.Tag] = {}  # uid -> as last reported
        self.faults = 0

    def poll(self) -> list[codec.Frame]:
        out = []
        for item in self.dec.feed(read_some(self.port)):
            if not isinstance(item, codec.Frame):
                continue
            out.append(item)
            if item.mtype == codec.TAG:
                f = item.fields
                self.tags[f["uid"]] = decks.Tag(f["uid"], f.get("card"), f.get("deck"),
                                                f["locked"])
            elif item.mtype == codec.FAULT and item.fields.get("code") == 10:
                self.faults += 1
        return out

    def mode(self, action: str, timeout: float = 10.0) -> bool:
        """MAINT ``action`` (enrol or scan), asked again until the reader ACKs it."""
        deadline = time.monotonic() + timeout
        asked: int | None = None
        last = 0.0
        while time.monotonic() < deadline:
            for f in self.poll():
                if f.mtype == codec.HELLO:
                    self.reader = f.reader
                    last = 0.0  # ask it at once, with its own id
                elif f.mtype == codec.ACK and f.fields["ack_seq"] == asked:
                    return True
            if time.monotonic() - last >= RETRY_S:
                last = time.monotonic()
                asked = self.send(codec.MAINT, {"action": action})
        return False

    def close(self) -> None:
        try:
            self.mode("scan", 2.0)
        finally:
            self.port.close()


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def enroll(args: argparse.Namespace) -> int:
    if not 0 <= args.deck < codec.NO_DECK:
        _say(f"tablesense deck enroll: --deck {args.deck}: want 0..{codec.NO_DECK - 1}")
        return 2
    cards = [c.strip().upper() for c in args.cards.split(",")] if args.cards else list(decks.DECK)
    bad = [c for c in cards if c not in decks.DECK]
    if bad:
        _say(f"tablesense deck enroll: --cards: not cards: {', '.join(bad)}")
        return 2
    out = Path(args.out or f"deck-{args.deck}.txt")
    deck = decks.Deck(args.deck, {}, str(out))
    s = Session(args.port, args.key)
    try:
        if not s.mode("enrol"):
            _say(f"tablesense deck enroll: no reader answers on {args.port}")
            return 1
        warned: set[str] = set()
        for card in cards:
            _say(f"place {card} on the reader")
            uid = _enroll_one(s, deck, card, args.deck, args.timeout, warned)
            if uid is None:
                _say(f"tablesense deck enroll: {card}: no new tag within {args.timeout:g} s; "
                     f"{len(deck.cards)} cards in {out}")
                return 1
            deck.cards[uid] = card
            _write_atomic(out, deck.text())
            print(f"{uid} {card}", flush=True)
        _say(f"deck {args.deck}: {len(deck.cards)} cards written and locked -> {out}")
        return 0
    finally:
        s.close()


def _enroll_one(s: Session, deck: decks.Deck, card: str, deck_id: int, timeout: float,
                warned: set[str]) -> str | None:
    deadline = time.monotonic() + timeout
    target: str | None = None
    asked = 0.0
    faults = s.faults
    while time.monotonic() < deadline:
        s.poll()
        if target is None:
            new = []
            for uid, t in s.tags.items():
                if uid in deck.cards:
                    continue
                if t.locked:
                    if uid not in warned:
                        warned.add(uid)
                        _say(f"tag {uid} is locked as {t.card} of deck {t.deck}: take it away")
                    continue
                new.append(uid)
            if new:
                target = new[0]
                if len(new) > 1:
                    _say(f"{len(new)} new tags on the reader: {target} becomes {card}; "
                         "lay the cards one at a time to enrol them in order")
            continue
        now = s.tags.get(target)
        if now is not None and now.card == card and now.deck == deck_id and now.locked:
            return target
        if s.faults > faults + 2:
            _say(f"tag {target}: the reader could not write it three times; try another")
            warned.add(target)
            target = None
            faults = s.faults
            continue
        if time.monotonic() - asked >= RETRY_S:
            asked = time.monotonic()
            s.send(codec.WRITE, {"uid": target, "card": card, "deck": deck_id})
    return None


def verify(args: argparse.Namespace) -> int:
    try:
        deck = decks.load(args.file)
    except decks.DeckError as exc:
        _say(f"tablesense deck verify: {exc}")
        return 2
    s = Session(args.port, args.key)
    try:
        if not s.mode("enrol"):
            _say(f"tablesense deck verify: no reader answers on {args.port}")
            return 1
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            s.poll()
            if decks.verify(deck, s.tags.values()).ok:
                break
        v = decks.verify(deck, s.tags.values())
    finally:
        s.close()
    if args.json:
        print(json.dumps({"deck": deck.deck_id, "seen": v.seen, "ok": v.ok,
                          "missing": v.missing, "duplicates": v.duplicates,
                          "foreign": [t.__dict__ for t in v.foreign],
                          "mismatched": [t.__dict__ for t in v.mismatched]}))
    else:
        print(f"deck {deck.deck_id}: {v.seen} tags seen, "
              f"{52 - len(v.missing)} of 52 cards")
        if v.missing:
            print("missing: " + " ".join(v.missing))
        for card, uids in sorted(v.duplicates.items()):
            print(f"duplicate: {card} in tags {', '.join(uids)}")
        for t in v.foreign:
            what = "blank" if t.card is None else f"{t.card} of deck {t.deck}"
            print(f"foreign: tag {t.uid} ({what})")
        for t in v.mismatched:
            print(f"mismatched: tag {t.uid} holds {t.card}; the file says "
                  f"{deck.cards.get(t.uid, 'nothing')}")
        print("ok" if v.ok else "not ok")
    return 0 if v.ok else 1


def list_decks(args: argparse.Namespace) -> int:
    d = Path(args.dir)
    if not d.is_dir():
        _say(f"tablesense deck list: {d}: no such directory")
        return 2
    found: dict[str, decks.Deck] = {}
    status = 0
    for p in sorted(d.glob("*.txt")):
        try:
            found[p.name] = decks.load(p)
        except decks.DeckError as exc:
            _say(f"tablesense deck list: {exc}")
            status = 1
    for row in decks.summary(found):
        if args.json:
            print(json.dumps(row))
            continue
        missing = row["missing"]
        assert isinstance(missing, list)
        state = "complete" if not missing and not row["duplicates"] else (
            f"{len(missing)} missing" + (", duplicates" if row["duplicates"] else ""))
        print(f"{row['file']}: deck {row['deck']}, {row['cards']} cards, {state}")
    return status
