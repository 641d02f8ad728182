"""The catalogue of ruling kinds and options: what the dashboard shows and asks for.

One definition, on the host: each :data:`~tablesense.contract.vocab.Kind` and each
:data:`~tablesense.contract.vocab.Option` of the contract has a label and a help text
a director reads at the table; each option says what a ``decide`` needs
besides its name (a card, a suit or a seat, and whether it must be given:
``events.py`` accepts ``card``, ``suit`` and ``seat`` on ``decide``). The
daemon serves it to the page as ``/catalogue.json`` (:func:`as_json`); the
page hard-codes no kind and no option, so a kind added to the contract
needs one entry here and nothing in the browser. The daemon's own alert
kinds (``journal-failed``, ``reader-spoofed``: not rulings, so not in
``vocab.Kind``; docs/contract.md, "Alerts of the daemon") have entries too.

``tests/test_catalogue.py`` checks that every ``Kind`` and ``Option`` has an
entry and nothing else does.

>>> OPTIONS["call-suit"].needs, OPTIONS["call-suit"].required
('suit', True)
>>> KINDS["major-penalty-card"].label
'Major penalty card'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

from tablesense.contract.vocab import Kind, Option

Need = Literal["card", "suit", "seat"]


@dataclass(frozen=True)
class KindEntry:
    label: str
    help: str


@dataclass(frozen=True)
class OptionEntry:
    label: str
    help: str
    needs: Need | None = None  # what a decide carries besides the option
    required: bool = False  # must the director give it (else the engine takes a default)


KINDS: Final[dict[Kind, KindEntry]] = {
    "not-exposed": KindEntry(
        "Not exposed", "Looked like an exposure but is not one under this code (below the table "
        "under the old codes, or shown to an adversary only). Nothing to do."),
    "no-rectification": KindEntry(
        "No rectification", "An exposure the code does not rectify, such as declarer's or "
        "dummy's card."),
    "exposed-card": KindEntry(
        "Exposed card", "Old codes: the card stays face up on the table and may be called until "
        "it is played."),
    "auction-exposure": KindEntry(
        "Card exposed in the auction", "2017 Law 24A: a single card below honour rank, not led; "
        "it stays face up until the auction ends."),
    "major-penalty-card": KindEntry(
        "Major penalty card", "2017 Law 50B/50D: it stays face up and must be played at the first "
        "legal opportunity; when the offender's partner has the lead, declarer chooses a lead "
        "restriction."),
    "minor-penalty-card": KindEntry(
        "Minor penalty card", "2017 Law 50C/51: a single card below honour rank exposed "
        "inadvertently; the offender may not play another card below honour rank of that suit "
        "before it."),
    "lead-out-of-turn": KindEntry(
        "Lead out of turn", "A lead by the wrong player; the other side chooses whether to accept "
        "it (2017 Laws 53 to 56)."),
    "premature-play": KindEntry(
        "Premature play", "A play or lead before one's turn, other than a lead out of turn "
        "(2017 Law 57)."),
    "cards-played-together": KindEntry(
        "Cards played together", "Two or more cards arrived in the trick at once (2017 Law 58)."),
    "deemed-played": KindEntry(
        "Card deemed played", "2017 Law 45C1: a card held so that partner could see its face "
        "counts as played."),
    "new-deal": KindEntry(
        "New deal may be demanded", "A named player may demand a new deal."),
    "redeal": KindEntry("Redeal required", "A new shuffle, cut or deal is required."),
    "draw-again": KindEntry(
        "Draw again", "More than one card exposed when drawing: draw again."),
    "partner-must-pass": KindEntry(
        "Partner must pass", "The offender's partner must pass (2017 Law 24: at his next turn)."),
    "forfeit-double": KindEntry(
        "Double forfeited", "The offender's partner may not double or redouble this hand."),
    "penalty-card-not-played": KindEntry(
        "Penalty card not played", "A penalty card or called card was not played when due."),
    "call-not-complied": KindEntry(
        "Call not complied with", "A called card, suit, highest or lowest, or win or lose was "
        "not complied with."),
    "revoke": KindEntry(
        "Revoke", "A failure to follow suit while holding the suit, established."),
    "revoke-corrected": KindEntry(
        "Revoke corrected", "The declarer corrected a renounce in time after both adversaries "
        "had played (Portland L95): the eldest hand may require his highest or lowest card of "
        "the suit."),
    "claim": KindEntry(
        "Claim", "An act treated as a claim or concession (declarer facing his hand; a "
        "defender's whole hand laid face up under 2017, for the director)."),
    "claim-exposure": KindEntry(
        "Cards shown in a claim", "Cards exposed in a claim or concession: not penalty cards."),
    "hands-abandoned": KindEntry(
        "Hands abandoned", "All four hands thrown face up: the score stands as claimed and "
        "admitted."),
    "misnamed-card": KindEntry(
        "Card misnamed", "Portland 1904 Law 78: declarer called a card other than the one held "
        "detached."),
    "sensor-conflict": KindEntry(
        "Sensor conflict", "The same card sensed in two places at once; never a penalty. Look at "
        "the table."),
    "reader-offline": KindEntry(
        "Reader offline", "A seat's card reader stopped answering; its cards are not being "
        "sensed until it is back."),
    "out-of-step": KindEntry(
        "Out of step", "The engine cannot reconcile what the readers sense with the play; the "
        "director should look at the table."),
    "fouled-board": KindEntry(
        "Fouled board", "A card sensed at a seat the hand record does not give it (2017 Law "
        "87): the director decides how the board is played and scored; never a penalty."),
}

# Alerts the daemon makes itself (daemon/tables.py): not rulings, not in the contract.
DAEMON_KINDS: Final[dict[str, KindEntry]] = {
    "journal-failed": KindEntry(
        "Journal cannot be written", "The table's journal cannot be written (disk full?). "
        "Rulings go on but a restart would lose them: free the disk."),
    "reader-spoofed": KindEntry(
        "Reader frames dropped", "Frames that the reader's key did not sign arrived on its line "
        "and were dropped. Check the reader and its cable."),
}

OPTIONS: Final[dict[Option, OptionEntry]] = {
    "call-card": OptionEntry(
        "Call the card", "The exposed card must be played when called, if legal.", "card"),
    "call-suit": OptionEntry(
        "Call a suit", "Call a suit from the offender or his partner, whichever next has the "
        "lead.", "suit", True),
    "require-highest": OptionEntry(
        "Require the highest", "The named player must play the highest card of the suit led."),
    "require-lowest": OptionEntry(
        "Require the lowest", "The named player must play the lowest card of the suit led."),
    "require-win": OptionEntry(
        "Require partner to win", "The offender's partner must win the trick if he can."),
    "require-not-win": OptionEntry(
        "Require partner not to win", "The offender's partner must not win the trick."),
    "treat-as-exposed": OptionEntry(
        "Treat as exposed", "Treat the card led or played in error as an exposed card instead."),
    "demand-new-deal": OptionEntry(
        "Demand a new deal", "Take the right to a new deal (name who claims it if more than one "
        "player may).", "seat"),
    "designate-card": OptionEntry(
        "Designate the card played", "Choose which of the offender's cards counts as played; "
        "the others stay on the table.", "card", True),
    "accept-lead": OptionEntry(
        "Accept the lead", "Accept the lead out of turn; play goes on from it."),
    "refuse-lead": OptionEntry(
        "Refuse the lead", "Make the right player lead; the card led becomes a penalty card "
        "where the code says so."),
    "become-dummy": OptionEntry(
        "Declarer becomes dummy", "Declarer spreads his hand and his partner becomes declarer "
        "(2017 Law 54A)."),
    "accept-play": OptionEntry(
        "Accept the play", "Accept the card played instead of the penalty card (2017 Law 52)."),
    "refuse-play": OptionEntry(
        "Refuse: play the penalty card", "The offender must substitute the penalty card "
        "(2017 Law 52)."),
    "require-lead-suit": OptionEntry(
        "Require a lead of the suit", "At the next lead of the offender's partner: lead this "
        "suit (the penalty card's suit unless another is named).", "suit"),
    "forbid-lead-suit": OptionEntry(
        "Forbid a lead of the suit", "The offender's partner may not lead this suit while he "
        "keeps the lead (the penalty card's suit unless another is named).", "suit"),
    "pc-remains": OptionEntry(
        "Penalty card remains", "No lead restriction: the penalty cards stay on the table as "
        "they are."),
    "require-other-suit": OptionEntry(
        "Require another suit", "2017 Law 57A: the offender's partner must play a named other "
        "suit.", "suit", True),
    "forbid-other-suit": OptionEntry(
        "Forbid another suit", "2017 Law 57A: the offender's partner must not play a named "
        "other suit.", "suit", True),
    "withdraw-substitute": OptionEntry(
        "Withdraw and substitute", "A player who played after the irregularity may take back "
        "his card (2017 Law 58B3)."),
}


def kind_entry(kind: str) -> KindEntry | None:
    """The entry of a ruling kind or a daemon alert kind (None: unknown)."""
    return KINDS.get(kind) or DAEMON_KINDS.get(kind)  # type: ignore[call-overload]


def as_json() -> dict[str, Any]:
    """The ``/catalogue.json`` document (ordered as the contract lists them)."""
    kinds: dict[str, Any] = {k: asdict(v) for k, v in KINDS.items()}
    kinds.update({k: asdict(v) for k, v in DAEMON_KINDS.items()})
    return {"v": 1, "kinds": kinds, "options": {k: asdict(v) for k, v in OPTIONS.items()}}
