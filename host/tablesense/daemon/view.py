"""What ``<base>/<table>/state`` carries: the engine's snapshot and a table view.

The daemon publishes :func:`table_state` of ``Engine.snapshot()``, retained:
every key of the snapshot as it is (older consumers read ``phase``,
``board``, ``penalty_cards``, ``obligations``, ``cards`` …) but the board's
whole list of ``rulings``, ``"v": 1``, and
``"view"``, what the director's table view draws (docs/dashboard.md, "The
state payload"), built here so the engine stays a pure rules engine:

- ``hands``: per seat, the cards it holds (dealt and not yet played), in
  suit order (spades, hearts, diamonds, clubs; ace down); where its reader
  last sensed each is in the snapshot's ``cards``;
- ``lying``: cards face up in front of a player that are not in the trick:
  dummy's display, penalty cards (major/minor, with what they oblige),
  cards exposed in the auction, other exposures (with the ruling that
  covers them, or ``status: "exposed"`` while no ruling has been made yet);
- ``trick``: the current trick (``leader``, ``cards`` as ``[seat, card]``,
  ``number`` 1..13, and ``pending``: cards sensed face up in a trick zone
  that the engine has not counted as played yet), ``tricks`` won by each
  side, the ``auction`` and contract, whose turn;
- ``restrictions``: lead and play restrictions in force, as text;
- ``alerts``: this board's rulings of severity ``penalty``/``director``,
  each with ``open`` (neither resolved nor superseded) and ``decided``.

Pure: dicts in, dicts out.

>>> table_state({"phase": "idle", "table": "1"})["view"]
{}
"""

from __future__ import annotations

from typing import Any

from tablesense.contract.catalogue import kind_entry
from tablesense.contract.vocab import SEATS

SUIT_ORDER = "SHDC"
RANK_ORDER = "AKQJT98765432"
SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
AT_REST = ("table", "floor", "detached")


_ORDER = {s + r: i for i, (s, r) in enumerate((s, r) for s in SUIT_ORDER for r in RANK_ORDER)}


def card_key(card: str) -> int:
    """Suit order, then rank, ace first (anything else last).

    >>> sorted(["C2", "SA", "HT", "S2"], key=card_key)
    ['SA', 'S2', 'HT', 'C2']
    """
    return _ORDER.get(card, 99)


def table_state(snap: dict[str, Any]) -> dict[str, Any]:
    """The retained state payload of one table: the snapshot but its ``rulings``
    (the board's whole record, summed up in ``view.alerts``), and the view."""
    return {"v": 1, **{k: v for k, v in snap.items() if k != "rulings"}, "view": view(snap)}


def view(snap: dict[str, Any]) -> dict[str, Any]:
    if snap.get("board") is None:
        return {}
    cards: dict[str, dict[str, Any]] = snap.get("cards") or {}
    rulings: list[dict[str, Any]] = snap.get("rulings") or []
    closed = set(snap.get("closed") or [])
    # decided: the engine closed its options, or a restriction it chose is in force
    answered = set(snap.get("answered") or []) | {
        r.get("ruling") for r in snap.get("restrictions") or []}
    trick = [list(p) for p in snap.get("trick") or []]
    in_trick = {c for _, c in trick}
    held: dict[str, list[str]] = snap.get("held") or {}
    dealt = any(held.get(s) for s in SEATS) or bool(snap.get("played"))
    if not dealt:  # no deal known yet: what each reader senses in its hand
        held = {s: [c for c, p in cards.items() if p.get("seat") == s
                    and p.get("zone") in ("hand", "detached")] for s in SEATS}

    hands = {s: sorted(held.get(s, []), key=card_key) for s in SEATS}

    played = len(snap.get("played") or [])
    complete = len(trick) == 4
    leader = snap.get("trick_leader") or (trick[0][0] if trick else None)
    # cards sensed in a trick zone, face up or by a reader that senses no face (RFID),
    # that the engine has not counted yet (it counts a card once it has rested there:
    # sensing.Tuning): shown at once, marked; a card seen face down there is not a play
    done = {c for plays, _ in snap.get("played") or [] for _, c in plays} | in_trick
    pending = sorted(([p.get("seat"), c] for c, p in cards.items()
                      if p.get("zone") == "trick" and p.get("face") in ("up", "unknown")
                      and c not in done),
                     key=lambda x: (SEATS.index(x[0]) if x[0] in SEATS else 9, x[1]))
    view_trick = {"leader": leader, "cards": trick, "pending": pending,
                  "number": played if complete else played + (1 if trick else 0)}

    return {
        "hands": hands,
        "lying": _lying(snap, cards, rulings, in_trick),
        "trick": view_trick,
        "tricks": dict(snap.get("tricks") or {}),
        "auction": {"dealer": snap.get("dealer"), "calls": snap.get("auction") or [],
                    "contract": snap.get("contract"), "doubled": snap.get("doubled"),
                    "declarer": snap.get("declarer")},
        "dummy": snap.get("dummy"),
        "turn": snap.get("turn"),
        "restrictions": [_restriction(r) for r in snap.get("restrictions") or []]
        + [{"seat": s, "ruling": rid, "text": f"{SEAT_NAMES.get(s, s)} must pass at his next "
            f"turn (alert {rid})"} for s, rid in (snap.get("must_pass") or {}).items()],
        "alerts": [{"id": r.get("id"), "kind": r.get("kind"), "severity": r.get("severity"),
                    "cards": r.get("cards") or [], "offender": r.get("offender"),
                    "citation": r.get("citation"), "until": r.get("until"), "t": r.get("t"),
                    "open": r.get("id") not in closed, "decided": r.get("id") in answered}
                   for r in rulings if r.get("severity") != "info"],
    }


def _lying(snap: dict[str, Any], cards: dict[str, dict[str, Any]],
           rulings: list[dict[str, Any]], in_trick: set[str]) -> list[dict[str, Any]]:
    """Cards face up in front of a player, not in the trick, with what they are."""
    out: dict[str, dict[str, Any]] = {}
    closed = set(snap.get("closed") or [])
    covering: dict[str, dict[str, Any]] = {}
    for r in rulings:  # the latest open ruling naming a card says what it is now
        if r.get("id") in closed:
            continue
        for c in r.get("cards") or []:
            covering[c] = r
    # penalty cards first: they bind whether or not a reader sees them right now
    for seat, pcs in (snap.get("penalty") or {}).items():
        for pc in pcs:
            c = pc["card"]
            kind = "major-penalty-card" if pc.get("major") else "minor-penalty-card"
            out[c] = {"card": c, "seat": seat, "status": kind, "ruling": pc.get("ruling"),
                      "label": _label(kind), "obliges": _obliges_pc(seat, c, bool(pc.get("major")))}
    for seat, law24 in (snap.get("law24") or {}).items():
        for c in law24:
            if c not in out:
                law = covering.get(c)
                out[c] = {"card": c, "seat": seat, "status": "auction-exposure",
                          "ruling": law.get("id") if law else None,
                          "label": _label("auction-exposure"),
                          "obliges": "stays face up on the table until the auction ends"}
    dummy = snap.get("dummy")
    dummy_down = snap.get("phase") in ("play", "claim", "end")
    for c, p in cards.items():
        if c in out or c in in_trick or p.get("zone") not in AT_REST or p.get("face") != "up":
            continue
        seat = p.get("seat")
        if seat == dummy and dummy_down and p.get("zone") == "table":
            out[c] = {"card": c, "seat": seat, "status": "dummy", "ruling": None,
                      "label": "dummy", "obliges": ""}
            continue
        cover = covering.get(c)
        if cover is not None:
            kind = str(cover.get("kind"))
            out[c] = {"card": c, "seat": seat, "status": kind, "ruling": cover.get("id"),
                      "label": _label(kind), "obliges": _until(cover)}
        else:
            out[c] = {"card": c, "seat": seat, "status": "exposed", "ruling": None,
                      "label": "face up: no ruling yet",
                      "obliges": f"lying {p.get('zone')} face up; the rules engine decides "
                                 "when the card comes to rest"}
    return sorted(out.values(), key=lambda x: (SEATS.index(x["seat"]) if x["seat"] in SEATS
                                               else 9, card_key(x["card"])))


def _label(kind: str) -> str:
    entry = kind_entry(kind)
    return entry.label if entry else kind.replace("-", " ")


def _obliges_pc(seat: str, card: str, major: bool) -> str:
    name = SEAT_NAMES.get(seat, seat)
    if major:
        return (f"{name} must play it at the first legal opportunity; when his partner has "
                "the lead, declarer may require or forbid that suit")
    return (f"{name} may not play another card below honour rank of "
            f"{SUIT_NAMES.get(card[:1], card[:1])} before it")


def _until(r: dict[str, Any]) -> str:
    until = r.get("until")
    text = {"next-call": "until the offender's next call", "next-lead": "until the next lead",
            "lead-retained": "while partner keeps the lead", "played": "until it is played",
            "hand": "for the rest of the board"}.get(str(until), "")
    options = r.get("options") or []
    if options:
        text = (text + "; " if text else "") + "the other side chooses: " + ", ".join(
            o.replace("-", " ") for o in options)
    return text


def _restriction(r: dict[str, Any]) -> dict[str, Any]:
    seat = str(r.get("seat"))
    name = SEAT_NAMES.get(seat, seat)
    option = str(r.get("option"))
    suit = SUIT_NAMES.get(str(r.get("suit")), "the suit")
    when = "at his next lead" if r.get("lead") else "at his next play"
    text = {
        "require-lead-suit": f"{name} must lead {suit} {when}",
        "forbid-lead-suit": f"{name} may not lead {suit} while he keeps the lead",
        "call-suit": f"{name} must lead {suit} {when}",
        "require-other-suit": f"{name} must play {suit} {when}",
        "forbid-other-suit": f"{name} may not play {suit} {when}",
        "require-highest": f"{name} must play his highest card of the suit led",
        "require-lowest": f"{name} must play his lowest card of the suit led",
        "require-win": f"{name} must win the trick if he can",
        "require-not-win": f"{name} must not win the trick",
    }.get(option, f"{name}: {option.replace('-', ' ')}")
    return {"seat": seat, "option": option, "suit": r.get("suit"), "ruling": r.get("ruling"),
            "text": f"{text} (alert {r.get('ruling')})"}
