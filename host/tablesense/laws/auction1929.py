"""Portland Club Laws of Auction Bridge, as summarised by A. E. Manning Foster,
*Auckland Star*, 7 June 1929 (seed 000; its own words decide).

Descends from the Portland bridge code through the Portland & Bath auction laws
of 1908 ("72 to 89 as in Bridge"): an auction instead of the dealer's
declaration; "essentially a card is exposed only when the partner of its owner
sees its face"; during the bidding the player on the offender's left may demand
a new deal, otherwise the card is taken up and cannot be called; the declarer's
exposed cards cannot be called but must be played from the table. Clause
numbers (1)-(11) are the article's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from tablesense.contract.cards import lho
from tablesense.contract.vocab import Kind, Option
from tablesense.laws.base import cards_text, name
from tablesense.laws.portland1904 import Portland1904

if TYPE_CHECKING:
    from tablesense.contract.events import Observe
    from tablesense.engine.tracker import Position
    from tablesense.engine.view import TableView

MF = "Manning Foster 1929"


class Auction1929(Portland1904):
    """Auction bridge, 1929: partner must see it for a card to be exposed."""

    id: ClassVar[str] = "auction-1929"
    title: ClassVar[str] = "Portland Club Laws of Auction Bridge (Manning Foster, 1929)"
    year: ClassVar[int] = 1929
    source: ClassVar[str] = (
        "A. E. Manning Foster, \"Auction Bridge: Exposed Cards\", Auckland Star, 7 June 1929 "
        "(the Portland Club's Laws of Auction Bridge); where it is silent, its ancestor, the "
        "Portland and Bath Clubs' Laws of Auction Bridge (1908)")
    whist: ClassVar[bool] = False
    setup_kinds: ClassVar[dict[str, Kind]] = {
        "draw": "draw-again", "shuffle": "redeal", "cut": "redeal", "pack": "redeal",
        "deal": "redeal"}
    pre_lead_options: ClassVar[dict[str, tuple[Option, ...]]] = {
        "leader": ("call-card", "forbid-lead-suit", "require-lead-suit"),
        "leaders-partner": ("call-card", "require-lead-suit")}
    opening_loot_options: ClassVar[tuple[Option, ...]] = ("require-lead-suit", "treat-as-exposed")
    loot_options: ClassVar[tuple[Option, ...]] = ("call-suit", "treat-as-exposed")
    simultaneous_lead_rule: ClassVar[bool] = True
    dealer_renounce_penalty: ClassVar[bool] = False
    renounce_options: ClassVar[tuple[Option, ...]] = ("require-highest", "require-lowest",
                                                   "call-card")
    misnamed_rule: ClassVar[bool] = False
    deal_below: ClassVar[str] = "not"  # "dropped on the floor … is not an exposed card"
    claim_exempts_adversaries: ClassVar[bool] = True
    cite: ClassVar[dict[str, str]] = {
        **{k: f"{MF}, general" for k in Portland1904.cite},
        "draw": f"{MF} (1)", "shuffle": f"{MF} (2)", "cut": f"{MF} (2)", "pack": f"{MF} (2)",
        "deal": f"{MF} (2)", "bidding": f"{MF} (3)", "leader": f"{MF} (4)",
        "leaders-partner": f"{MF} (4), (6)", "dummy": f"{MF} (4)", "exposed": f"{MF} (5)",
        "held": f"{MF} (5)", "detached": f"{MF} (5)", "played-in-error": f"{MF} (6)",
        "opening-loot": f"{MF} (6)", "loot": f"{MF} (7)", "treated": f"{MF} (6), (7)",
        "simultaneous": f"{MF} (8)", "together": f"{MF} (9)", "renounce": f"{MF} (6), (10)",
        "own-claim": f"{MF} (5), (11)", "adversary-only": f"{MF}, general",
        "dealer-renounce": f"{MF} (10), general", "claim": f"{MF} (11)",
        "dealer-claim": f"{MF} (11), general", "comply": "Portland & Bath 1908, Law 79",
        "winning-cards": "Portland & Bath 1908, Law 74", "abandoned":
        "Portland & Bath 1908, Law 77", "false-lead": "Portland & Bath 1908, Law 82",
        "dealer-loot": "Portland & Bath 1908, Law 81", "fourth-before-third":
        "Portland & Bath 1908, Law 86", "dummy-revoke": "Portland & Bath 1908, Law 68",
        "revoke": "Portland & Bath 1908, Law 89-91"}
    rules: ClassVar[dict[str, str]] = {
        **Portland1904.rules,
        "what is exposed": "a face shown on or above the table, but essentially only when "
        "the owner's partner sees it",
        "held so partner can see": "exposed (the essence of exposure)",
        "card below the table": "not exposed (general)",
        "named as in the hand": "not mentioned: not an exposed card",
        "adversary's exposed card in play": "left face up, subject to call whenever it is "
        "the owner's turn; a call never forces a revoke (5)",
        "card detached so as to be named": "exposed if partner sees it (general)",
        "winning cards led without waiting": "as the 1908 laws (L74): partner may be called on "
        "to win; the others are exposed",
        "call not complied with": "as the 1908 laws (L79): penalty of a revoke",
        "all four hands thrown": "as the 1908 laws (L77): hands abandoned",
        "dealer leads out of turn": "as the 1908 laws (L81): no penalty",
        "false lead followed by all three": "as the 1908 laws (L82): the trick stands",
        "fourth hand plays before third": "as the 1908 laws (L86): partner may be called on to "
        "win or not to win",
        "adversary throws his hand": "exposed, subject to call (5); shown to the adversaries "
        "only, so that partner cannot see it: not exposed (general)",
        "shown to an adversary only": "not exposed, no penalty",
        "drawing: more than one card shown": "draw again (1)",
        "card seen in shuffle or cut": "fresh shuffle, cut or deal (2)",
        "card faced in the pack": "fresh shuffle, cut or deal (2)",
        "card exposed in the deal": "fresh shuffle, cut or deal (2)",
        "card below the table in the deal": "not exposed (general)",
        "exposed before the trump declaration": "no declaration (auction code)",
        "exposed during the bidding": "player on the offender's left may demand a new deal "
        "(after looking at his cards); otherwise taken up, not callable (3)",
        "exposed before the opening lead": "declarer/dummy: none; opponent: subject to call; "
        "leader: forbid or name the initial lead instead; leader's partner: name the lead "
        "or treat as exposed (4, 6)",
        "dealer's (declarer's) exposed card": "never penalised, never callable, but must be "
        "played from the table",
        "dummy's exposed card": "no penalty (4)",
        "cards played together": "all exposed; declarer calls any one to the trick (without a "
        "call, the one left in the trick zone); the rest can be called later (9)",
        "adversaries expose after a claim": "after the declarer's claim: not callable (11)",
        "named, then shown face up": "exposed if partner sees it: the naming does not cover "
        "it (general, 5)",
        "defender's own claim or concession, cards shown": "subject to call (5): (11) spares "
        "them only after the declarer's claim",
        "adversary leads out of turn": "call a suit at either opponent's next lead, or treat "
        "as exposed (7); before the first lead by leader's partner: name the leader's suit "
        "or treat as exposed (6)",
        "renounce corrected by an adversary": "the card played in error is exposed, subject to "
        "call, unless declarer requires the highest or lowest of the suit led (6, 10)",
        "renounce corrected by the dealer": "declarer is never penalised",
        "simultaneous leads": "the card led in error by the partner is exposed (8)",
        "card named by the dealer is not the exposed one": "an invalid call (no rule)",
    }

    def classify(self, how: str, vis: str) -> str:
        if how == "named":
            return "not"
        if vis == "no":
            return "not"
        if vis == "unknown" and how in ("held", "detached"):
            return "director"
        return "exposed"

    def thrown_hand(self, tv: TableView, seat: str, cards: tuple[str, ...], vis: str, t: int,
                    obs: list[Observe]) -> None:
        """"A player can expose a card, or all his hand, if he wishes, to an adversary without
        penalty so long as his partner does not see them."""
        if vis == "no" and seat != tv.b.declarer:
            self.not_exposed(tv, seat, cards, t, self.c("adversary-only"),
                             "shown to the adversaries only, not to his partner")
            return
        super().thrown_hand(tv, seat, cards, vis, t, obs)

    def auction_exposure(self, tv: TableView, seat: str, cards: tuple[str, ...], t: int) -> None:
        left = lho(seat)
        r = self.emit(tv, self.draft(
            "new-deal", self.c("bidding"),
            f"{name(seat)} exposed {cards_text(cards)} during the bidding: {name(left)} may "
            "demand a new deal (after looking at his cards); if he does not, the card is taken "
            "up and cannot be called.", offender=seat, cards=cards,
            options=("demand-new-deal",)), t)
        self.state.claims[r.id] = [left]

    def pre_lead_words(self, role: str) -> str:
        if role == "leader":
            return (" As he is the initial leader, the declarer may instead forbid the initial "
                    "lead of its suit or name a suit to be led; the card is then taken back.")
        if role == "leaders-partner":
            return (" Or the declarer may require the initial leader to lead a suit he names "
                    "(either penalty, not both).")
        return ""

    def dealer_words(self) -> str:
        return ("the declarer cannot be penalised and his cards cannot be called, but he may "
                "not pick them up: he must play them from the table.")

    def dealer_side(self, tv: TableView, seat: str, cards: tuple[str, ...], t: int) -> None:
        super().dealer_side(tv, seat, cards, t)
        if seat == tv.b.declarer and tv.b.phase == "play":
            self.state.declarer_shown.update(cards)

    def observed(self, tv: TableView, o: Observe, prev: Position | None) -> None:
        super().observed(tv, o, prev)
        shown = self.state.declarer_shown
        if o.card in shown and o.zone == "hand":
            shown.discard(o.card)
            self.emit(tv, self.draft(
                "call-not-complied", f"{MF}, general",
                f"The declarer picked up the {o.card} he had exposed: he must play it from the "
                "table; the director decides.", severity="director",
                offender=tv.b.declarer, cards=(o.card,)), o.t)

    def adversary_renounce(self, tv: TableView, seat: str, card: str, t: int) -> None:
        """(6) "A card led or played in error is an exposed card"; (10) the declarer may
        instead require the highest or lowest of the suit led: one `exposed-card` ruling
        carrying both (issue 14: not a kind of its own)."""
        self.make_callable(tv, seat, (card,), self.c("renounce"), (
            f"{name(seat)} withdrew the {card} played in mistake: it is an exposed card, "
            "subject to call; or the declarer may require his highest or lowest card of the "
            "suit led to this trick (then the card is taken back)."), t,
            options=self.renounce_options)
