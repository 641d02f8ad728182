"""The old codes' state for one deal (Portland 1904 to Auction 1929): cards liable
to be called and the calls made, leads out of turn waiting for an answer, claims
of a new deal. Only the old codes' modules read it (laws/calls.py and the codes
built on it); 2017's pending answers and penalty cards are not in it."""

from __future__ import annotations

from dataclasses import dataclass, field

from tablesense.engine.obligations import Restriction
from tablesense.laws.state import CodeState


@dataclass
class Loot:
    """A lead out of turn waiting to be answered or followed."""

    seat: str
    card: str
    ruling: str
    dealer: bool
    followers: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Late:
    """A call not complied with that may still be corrected before the trick is quitted."""

    seat: str
    card: str
    what: str
    ruling: str
    rule: Restriction | None = None
    called: tuple[str, str] | None = None


@dataclass
class OldState(CodeState):
    """What the old codes remember during one deal."""

    callable: dict[str, dict[str, str]] = field(default_factory=dict)  # seat -> card -> ruling
    called: dict[str, tuple[str, str]] = field(default_factory=dict)  # seat -> (card, ruling)
    late: list[Late] = field(default_factory=list)
    loot: Loot | None = None
    # a dealer's lead out of turn that his other hand, the one to lead, seemed to answer
    # with a lead of its own: it stands after all if the second hand plays to it
    set_aside: Loot | None = None
    together: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    thrown: dict[str, str] = field(default_factory=dict)  # seat -> its exposed-card ruling
    claims: dict[str, list[str]] = field(default_factory=dict)  # new-deal ruling -> claimants
    deal_claims: dict[str, int] = field(default_factory=dict)  # deal-time claim -> time
    forfeit: dict[str, str] = field(default_factory=dict)  # seat that may not double
    auction_cards: dict[str, list[str]] = field(default_factory=dict)  # seat -> rulings
    drawn: dict[str, list[str]] = field(default_factory=dict)
    steps_ruled: set[str] = field(default_factory=set)
    declarer_shown: set[str] = field(default_factory=set)
    seen_down: set[str] = field(default_factory=set)  # cards sensed face down this deal
    claimed_by_dealer: bool = False  # the declarer claimed: adversaries' cards shown after
    new_deal_demanded: bool = False
    lead_t: int = -10_000
