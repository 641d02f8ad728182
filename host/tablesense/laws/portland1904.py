"""Portland & Turf Clubs, The Laws of Bridge (1904), laws 14-96: the whist-era base code.

Seeds 001 and 004 are its words (docs/laws/portland-1904.md maps each clause to
its scenarios). The dealer names trumps (or leaves it to dummy) and plays both
hands; only "the dealer's adversaries" have cards liable to be called. The
later codes refine this class: american-1907 in a few predicates, the auction
codes with an auction in place of the declaration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from tablesense.contract.cards import lho, partner, rho, side, suit
from tablesense.contract.vocab import Kind, Option, Severity
from tablesense.engine.effects import CloseRulings, Uncovered
from tablesense.laws.base import cards_text, name
from tablesense.laws.calls import pre_role
from tablesense.laws.oldplay import OldPlay

if TYPE_CHECKING:
    from tablesense.contract.events import Call, Named, Observe
    from tablesense.engine.ruling import Ruling
    from tablesense.engine.tracker import Position
    from tablesense.engine.view import TableView

LAST_CARDS_MS = 2000  # L41: "one of the last cards", no reasonable time to decide


class Portland1904(OldPlay):
    """Exposed cards are liable to be called (L72-85); the dealer is never penalised."""

    id: ClassVar[str] = "portland-1904"
    title: ClassVar[str] = "Portland & Turf Clubs, The Laws of Bridge (1904)"
    year: ClassVar[int] = 1904
    source: ClassVar[str] = (
        "The Laws of Bridge, revised by a joint committee of the Portland and Turf Clubs "
        "(1904), Laws 1-96, as reprinted in Prof. Hoffmann, Hoyle's Games Modernized (1909)")
    whist: ClassVar[bool] = True
    # how a card was shown -> exposed / not / director, before visibility is considered
    partner_sees_rule: ClassVar[bool] = False  # L73 lists no "partner can see" exposure
    named_exposes: ClassVar[bool] = False
    # who may claim a new deal when the dealer's side exposes a card in the deal (L40)
    deal_claimants_of_dealer_side: ClassVar[str] = "each-adversary"
    leader_pre_lead_callable: ClassVar[bool] = True  # L72: all adversaries' cards
    pre_lead_options: ClassVar[dict[str, tuple[Option, ...]]] = {
        "leader": ("call-card",), "leaders-partner": ("call-card", "forbid-lead-suit")}
    setup_kinds: ClassVar[dict[str, Kind]] = {
        "draw": "draw-again", "shuffle": "redeal", "cut": "redeal", "pack": "redeal",
        "deal": "new-deal"}
    misnamed_rule: ClassVar[bool] = True  # L78
    # A card below the table during the deal: L40 is silent; L72's "not an exposed card when
    # dropped on the floor" is read into it, and the director told (``not`` / ``exposed``
    # where a code settles it).
    deal_below: ClassVar[str] = "director"
    # Who exposed a card dealt face down and then seen face up in front of its receiver (or
    # below the table) during the deal: the receiver (L40 reads "expose" of whoever
    # handles it), or the dealer (``dealer``: the one who deals exposes what falls).
    dealt_card_exposer: ClassVar[str] = "receiver"
    claim_exempts_adversaries: ClassVar[bool] = False  # L75 exempts the dealer's cards only
    cite: ClassVar[dict[str, str]] = {
        "draw": "Law 16", "shuffle": "Law 27, 33", "cut": "Law 35", "pack": "Law 39 (II)",
        "deal": "Law 40, 41", "deal-below": "Law 40, 72", "pre-declaration": "Law 70",
        "forfeit": "Law 71",
        "leaders-partner": "Law 71, 72", "leader": "Law 71, 72", "before-lead": "Law 71",
        "below": "Law 72", "exposed": "Law 72, 73 (II), 84", "held": "Law 72, 73 (II)",
        "detached": "Law 78", "misnamed": "Law 78", "named": "Law 73",
        "together": "Law 72, 73 (I)", "winning-cards": "Law 74", "dealer-claim": "Law 75",
        "thrown": "Law 76", "abandoned": "Law 77", "claim": "Law 72, 75, 76",
        "own-claim": "Law 72, 76",
        "comply": "Law 79", "loot": "Law 80", "opening-loot": "Law 62, 80",
        "dealer-loot": "Law 81", "false-lead": "Law 82", "fourth-before-third": "Law 86",
        "played-in-error": "Law 72, 73 (II)", "renounce": "Law 94", "treated": "Law 80",
        "dealer-renounce": "Law 95", "revoke": "Law 89-91", "dealer": "Law 72 (dealer)",
        "dummy-revoke": "Law 68",
        "dummy": "Law 62, 69", "dealer-premature": "Law 72, 81", "dealer-together": "Law 72",
        "dealer-shows": "Law 72, 75", "simultaneous": "Law 72, 73 (II)"}
    rules: ClassVar[dict[str, str]] = {
        "what is exposed": "two or more cards played at once; any card dropped face up or "
        "in any way exposed on or above the table, even if snatched up (L73)",
        "card below the table": "not exposed (L72)",
        "held so partner can see": "not listed: refer to the director (L73)",
        "shown to an adversary only": "exposed if on or above the table (L73 II)",
        "card detached so as to be named": "liable to be called, face up or down; a wrong card "
        "named by the dealer lets the adversaries call a suit at his or dummy's next lead "
        "(until that lead); leading another suit holding the one called: penalty of a revoke "
        "(L78, L79)",
        "named as in the hand": "not an exposed card",
        "named, then shown face up": "exposed: the naming does not cover the card shown "
        "after it (L73 II)",
        "defender's own claim or concession, cards shown": "exposed, liable to be called "
        "(L76)",
        "drawing: more than one card shown": "draw again (L16)",
        "card seen in shuffle or cut": "fresh shuffle (L27, L33) or fresh cut (L35)",
        "card faced in the pack": "a new deal is required (L39 II)",
        "card exposed in the deal": "the side of the player who exposed it (a card dealt to "
        "him face down, then face up before him, is his) gives the other side a claim to a new "
        "deal, before looking at its cards and before the deal is complete unless one of the "
        "last cards (L40, L41)",
        "card below the table in the deal": "L40 is silent: read with L72, not exposed and no "
        "claim; the director decides",
        "after a redeal": "the new deal starts clean: nothing exposed or claimed in the aborted "
        "deal carries into it",
        "exposed before the trump declaration": "by the dealer or dummy: the eldest hand may "
        "claim a new deal (L70); every exposure: partner forfeits double/redouble (L71)",
        "exposed before the opening lead": "partner forfeits double/redouble; leader's "
        "partner's card: call it, or instead forbid the leader its suit (L71)",
        "exposed during the bidding": "no bidding (declaration code)",
        "adversary's exposed card in play": "liable to be called, left face up; the call "
        "may be repeated until played; never forces a revoke (L72, L83, L84)",
        "dealer's (declarer's) exposed card": "never penalised, not liable to be called",
        "dummy's exposed card": "no penalty: dummy is blind and deaf (L69)",
        "cards played together": "all exposed; the declarer calls which one is played, "
        "without a call the one left in the trick zone; the others stay callable; at the "
        "opening lead a card is led and dummy goes down (L62, L72, L73)",
        "winning cards led without waiting": "partner may be called on to win; the others "
        "are exposed (L74)",
        "adversary throws his hand": "exposed, liable to be called (L76)",
        "adversaries expose after a claim": "liable to be called (L75 exempts only the "
        "dealer's cards)",
        "all four hands thrown": "hands abandoned, score as claimed and admitted (L77)",
        "call not complied with": "penalty of a revoke (L79)",
        "adversary leads out of turn": "call a suit from him or partner at the next lead, "
        "or call the card (L80)",
        "dealer leads out of turn": "no penalty; cannot be rectified after second hand "
        "plays (L81)",
        "false lead followed by all three": "the trick stands (L82)",
        "fourth hand plays before third": "third may be called on to win or not to win (L86)",
        "renounce corrected by an adversary": "card callable, or highest/lowest to that "
        "trick (L94)",
        "renounce corrected by the dealer": "highest or lowest, if both adversaries have "
        "played and he is not fourth (L95)",
        "simultaneous leads": "the card led out of turn is exposed (L72, L73)",
        "card named by the dealer is not the exposed one": "misnamed: the adversaries may call "
        "a suit at his or dummy's next lead (L78)",
    }

    # -- small predicates ----------------------------------------------------------
    def below(self, obs: list[Observe]) -> bool:
        return bool(obs) and all(o.zone == "floor" or o.level == "below" for o in obs)

    def classify(self, how: str, vis: str) -> str:
        """exposed / not / director: is this showing an exposure under this code?"""
        if how == "named":
            return "exposed" if self.named_exposes else "not"
        if how == "held":
            return "director"
        return "exposed"

    def deal_claimants(self, b_dealer: str, offender: str) -> list[str]:
        if side(offender) != side(b_dealer):
            return [b_dealer, partner(b_dealer)]
        if self.deal_claimants_of_dealer_side == "eldest":
            return [lho(b_dealer)]
        return [lho(b_dealer), rho(b_dealer)]

    # -- before the deal is complete ------------------------------------------------------
    def setup_exposure(self, tv: TableView, o: Observe, prev: Position | None) -> None:
        b = tv.b
        st = self.state
        step = b.step or "deal"
        if step == "draw":
            drawn = st.drawn.setdefault(o.seat, [])
            if o.card not in drawn:
                drawn.append(o.card)
            if len(drawn) == 2:
                self.emit(tv, self.draft(
                    self.setup_kinds["draw"], self.c("draw"),
                    f"{name(o.seat)} exposed more than one card ({cards_text(tuple(drawn))}) "
                    "in drawing: he must draw again.", offender=o.seat, cards=tuple(drawn)),
                    o.t)
            return
        if step == "deal" and o.zone != "hand" and o.card not in st.seen_down:
            step = "pack"
        if step in ("deal", "pack") and self.deal_below != "exposed" and self.below([o]):
            if self.deal_below == "not":
                self.not_exposed(tv, o.seat, (o.card,), o.t, self.c("below"), "below the table")
                return
            self.emit(tv, self.draft(
                "not-exposed", self.c("deal-below"),
                f"{name(o.seat)}'s {o.card} was seen face up below the table during the deal. "
                f"{self.deal_below_words()}", severity="director",
                offender=b.dealer if self.dealt_card_exposer == "dealer" else o.seat,
                cards=(o.card,)), o.t)
            return
        if step in st.steps_ruled or self.state.redeal_ruled:
            return
        kind = self.setup_kinds.get(step, "redeal")
        # The player who exposed it: the holder of a card in his hand, or of one dealt to him
        # face down and then seen face up in front of him; a card never seen face down came
        # face up from the pack (the dealer's).
        dealt_to = (step == "deal" and o.zone != "hand"
                    and self.dealt_card_exposer == "receiver")
        offender = o.seat if (o.zone == "hand" or dealt_to) else b.dealer
        if kind == "new-deal" and b.dealer is not None and offender is not None:
            claimants = self.deal_claimants(b.dealer, offender)
            maybe = (f" (it had been dealt to him face down; the readers do not show who turned "
                     f"it, and the director may find that {name(b.dealer)}, the dealer, did)"
                     if dealt_to and offender != b.dealer else "")
            r = self.emit(tv, self.draft(
                "new-deal", self.c(step),
                f"The {o.card} was exposed during the deal by {name(offender)}{maybe}: "
                f"{' or '.join(name(s) for s in claimants)} may claim a new deal, unless he has "
                "looked at any of his cards; if there is no new deal the card cannot be called.",
                offender=offender, cards=(o.card,), options=("demand-new-deal",)), o.t)
            st.claims[r.id] = claimants
            st.deal_claims[r.id] = o.t
            st.steps_ruled.add(step)
            return
        st.steps_ruled.add(step)
        self.state.redeal_ruled = True
        what = {"shuffle": "a fresh shuffle", "cut": "a fresh cut",
                "pack": "a new deal"}.get(step, "a fresh shuffle, cut and deal")
        self.emit(tv, self.draft(
            "redeal", self.c(step),
            f"The {o.card} was seen face up during the {step if step != 'pack' else 'deal'}"
            f"{' (faced in the pack)' if step == 'pack' else ''}: there must be {what}.",
            offender=offender, cards=(o.card,)), o.t)

    def fresh_round(self, tv: TableView) -> None:
        """A redeal starts clean: nothing exposed or claimed in the aborted deal carries
        into the new one (the engine keeps the code's state through a setup; issue 14):
        the code replaces its state (a caller holding the old one reads it again)."""
        st = self.state
        if st.claims:
            tv.do(CloseRulings(tuple(st.claims)), tv.now)
        if tv.exposed:
            tv.do(Uncovered(tuple(tv.exposed)), tv.now)
        self.state = self.new_state()

    def deal_below_words(self) -> str:
        return ("L40 does not say whether such a card is exposed; read with L72 (\"a card is "
                "not an exposed card when dropped on the floor, or elsewhere below the table\") "
                "it is not, and no new deal may be claimed: the director decides.")

    def after_dealt(self, tv: TableView, t: int) -> None:
        if self.state.redeal_ruled or self.state.new_deal_demanded:
            self.fresh_round(tv)
        super().after_dealt(tv, t)
        st = self.state
        for rid, when in st.deal_claims.items():
            if t - when > LAST_CARDS_MS:
                tv.do(CloseRulings((rid,)), tv.now)

    def observed(self, tv: TableView, o: Observe, prev: Position | None) -> None:
        st = self.state
        if (tv.b.phase == "setup" and o.face == "down" and o.zone in ("hand", "table")
                and (st.redeal_ruled or st.new_deal_demanded)):
            self.fresh_round(tv)  # the new deal has begun
            st = self.state
        if o.face == "down":
            st.seen_down.add(o.card)
        if (self.misnamed_rule and o.zone == "detached" and o.face != "up"
                and (prev is None or prev.zone != "detached") and tv.b.phase in ("lead", "play")
                and not self.is_dealer_side(tv, o.seat) and o.card not in tv.exposed
                and o.card not in tv.played):
            # L78: detached "so as to be named" is liable to be called, face up or not (the
            # engine rules on face-up cards held out of the hand itself).
            self.exposure(tv, o.seat, (o.card,), "detached", "no", o.t, [o])
        if o.zone == "hand" and tv.b.phase in ("setup", "auction"):
            for rid in st.deal_claims:
                claimants = st.claims.get(rid, [])
                if o.seat in claimants:
                    claimants.remove(o.seat)
                    if not claimants:
                        tv.do(CloseRulings((rid,)), tv.now)

    # -- exposures -------------------------------------------------------------------
    def exposure(self, tv: TableView, seat: str, cards: tuple[str, ...], how: str, vis: str,
                 t: int, obs: list[Observe]) -> None:
        b = tv.b
        if self.below(obs):
            self.not_exposed(tv, seat, cards, t, self.c("below"), "below the table")
            return
        verdict = self.classify(how, vis)
        if verdict == "not":
            self.not_exposed(tv, seat, cards, t, self.c("named" if how == "named" else "held"),
                             "named, not shown" if how == "named" else
                             "shown where his partner could not see it")
            if how == "named":  # the naming must not swallow an exposure that follows
                tv.do(Uncovered(cards), t)
            return
        severity: Severity = "director" if verdict == "director" else "penalty"
        if b.phase == "auction":
            self.auction_exposure(tv, seat, cards, t)
        elif b.phase == "claim":
            self.claim_exposure(tv, seat, cards, vis, t)
        elif self.is_dealer_side(tv, seat):
            self.dealer_side(tv, seat, cards, t)
        elif b.phase == "lead":
            self.before_lead(tv, seat, cards, t, severity)
        else:
            verb = {"held": "held so that it could be seen", "detached":
                    "detached from the hand so as to be named", "thrown": "thrown face up",
                    "named": "named as in his hand", "led": "led"}.get(how, "dropped face up")
            text = self.callable_text(seat, cards, verb)
            if severity == "director":
                text += (" This code does not list a card held so that partner can see it: "
                         "the director decides whether it is exposed.")
            self.make_callable(tv, seat, cards, self.c(how if how in ("held", "detached")
                                                        else "exposed"),
                               text, t, severity=severity)

    def not_exposed(self, tv: TableView, seat: str, cards: tuple[str, ...], t: int, cite: str,
                    why: str) -> None:
        self.emit(tv, self.draft(
            "not-exposed", cite,
            f"{name(seat)}'s {cards_text(cards)} ({why}) "
            f"{'is not an exposed card' if len(cards) == 1 else 'are not exposed cards'} under "
            "this code.", severity="info", offender=seat, cards=cards), t)

    def dealer_side(self, tv: TableView, seat: str, cards: tuple[str, ...], t: int) -> None:
        b = tv.b
        dummy = seat == b.dummy
        self.emit(tv, self.draft(
            "no-rectification", self.c("dummy" if dummy else "dealer"),
            f"{name(seat)}'s {cards_text(cards)}: "
            + (self.dummy_words() if dummy else self.dealer_words()),
            severity="info", offender=b.controller(seat), cards=cards), t)

    def dealer_words(self) -> str:
        return ("only the dealer's adversaries' cards are liable to be called: the dealer "
                "is not penalised.")

    def dummy_words(self) -> str:
        return "dummy being blind and deaf, he may expose some or all of his cards without penalty."

    def before_lead(self, tv: TableView, seat: str, cards: tuple[str, ...], t: int,
                    severity: Severity) -> None:
        role = pre_role(tv.b, seat) or "leader"
        options = self.pre_lead_options.get(role, ("call-card",))
        text = self.callable_text(seat, cards, "exposed before the opening lead")
        text += self.pre_lead_words(role)
        if role == "leader" and not self.leader_pre_lead_callable:
            severity = "director"
            text += (" This code does not say what the leader's own exposure before the lead "
                     "costs beyond his partner's double: the director decides.")
        self.make_callable(tv, seat, cards, self.c(role), text, t, options=options,
                           severity=severity)

    def pre_lead_words(self, role: str) -> str:
        if role != "leaders-partner":
            return ""
        return (" Instead of calling it, the declarer may require the leader not to lead its "
                "suit.")

    # -- the declaration and doubling (whist-era) ---------------------------------------------
    def auction_exposure(self, tv: TableView, seat: str, cards: tuple[str, ...], t: int) -> None:
        b = tv.b
        st = self.state
        if self.is_dealer_side(tv, seat) and not b.whist_declared and b.dealer is not None:
            eldest = lho(b.dealer)
            r = self.emit(tv, self.draft(
                "new-deal", self.c("pre-declaration"),
                f"{name(seat)} exposed {cards_text(cards)} before the trump declaration: "
                f"{name(eldest)}, the eldest hand, may claim a new deal{self.consult_words()}.",
                offender=seat, cards=cards, options=("demand-new-deal",)), t)
            st.claims[r.id] = [eldest]
        elif not self.is_dealer_side(tv, seat):
            self.before_lead(tv, seat, cards, t, "penalty")
        r = self.emit(tv, self.draft(
            "forfeit-double", self.c("forfeit"),
            f"{name(seat)} exposed {cards_text(cards)} before a card was led: "
            f"{name(partner(seat))} forfeits any right to double or redouble this hand.",
            offender=seat, cards=cards, until="hand"), t)
        st.forfeit[partner(seat)] = r.id

    def consult_words(self) -> str:
        return ""

    def before_call(self, tv: TableView, e: Call) -> None:
        st = self.state
        rid = st.forfeit.get(e.seat) if e.call in ("X", "XX") else None
        key = "forfeit"
        if rid is None and e.call != "P" and e.seat in st.must_pass:
            rid, key = st.must_pass[e.seat], "bidding"
        if rid is not None:
            self.emit(tv, self.draft(
                "call-not-complied", self.c(key),
                f"{name(e.seat)} called {e.call} after losing the right to (alert {rid}): the "
                "director must rule on the call.", severity="director", offender=e.seat), e.t)

    def after_call(self, tv: TableView, e: Call) -> None:
        st = self.state
        for rid, claimants in st.claims.items():
            if rid not in st.deal_claims and e.seat in claimants:
                tv.do(CloseRulings((rid,)), tv.now)  # he called instead of claiming the new deal

    def auction_end(self, tv: TableView, t: int) -> None:
        for rid in self.state.claims:
            tv.do(CloseRulings((rid,)), tv.now)

    def named(self, tv: TableView, e: Named) -> None:
        if tv.b.phase in ("setup", "end"):
            return
        self.exposure(tv, e.seat, (e.card,), "named", "yes", e.t, [])

    def adversary_claim_exposure(self, tv: TableView, seat: str, cards: tuple[str, ...],
                                 vis: str, t: int) -> None:
        """L75 exempts only the dealer's cards: an adversary's cards shown stay callable.
        The later codes exempt them too, but only after the dealer's own claim ("if the
        dealer should say 'I have the rest'"): not with a defender's claim or concession."""
        dealer_claimed = self.state.claimed_by_dealer
        if self.claim_exempts_adversaries and dealer_claimed:
            super().adversary_claim_exposure(tv, seat, cards, vis, t)
            return
        if self.abandon(tv, seat, t):
            return
        if dealer_claimed:
            verb = "exposed after the dealer's claim"
            why = "This code exempts only the dealer's own cards."
        else:
            verb, why = "shown with a claim or concession of his side", (
                "Only the dealer's claim spares the adversaries' cards; a defender's own "
                "claim or concession does not.")
        self.state.thrown[seat] = self.make_callable(
            tv, seat, cards, self.c("claim" if dealer_claimed else "own-claim"),
            self.callable_text(seat, cards, verb) + " " + why, t)

    # -- L78: the dealer names a wrong card ----------------------------------------------------
    def misnaming(self, tv: TableView, r: Ruling, card: str, t: int) -> bool:
        b = tv.b
        if not self.misnamed_rule or b.declarer is None:
            return False
        self.emit(tv, self.draft(
            "misnamed-card", self.c("misnamed"),
            f"The declarer called the {card}, which is not {name(r.offender)}'s exposed card "
            f"({cards_text(r.cards)}): the adversaries may call a suit when he or dummy first "
            "has the lead.", offender=b.declarer, cards=(card,), options=("call-suit",),
            until="next-lead"), t)
        return True

    def complies_suit(self, card: str, s: str) -> bool:
        return suit(card) == s
