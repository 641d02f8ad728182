"""Irregularities a player can physically make that the first generator did not
(issue 25), on the simulated table of ``proving/tablesim.py``:

* ``premature-taken-back``: a card played before its turn and then taken back into
  the hand or laid face down on the table; at his turn the player plays again;
* ``quick-follow``: a player's card arriving within 300 ms of the previous player's;
* ``lead-before-option``: under 2017 a defender leads while his partner's major
  penalty card is on the table, before declarer chose a Law 50D2 option (under the
  old codes, which have no such option, the penalty card alone);
* ``hand-laid-down``: a defender lays his whole hand face up in the play (2017: a
  claim for the director, and the journal ends; the old codes: exposed cards, played
  from the table);
* ``pc-suit-revoke``: a defender holding a penalty card (an exposed card) of one suit
  plays another card of that suit to a different suit led, able to follow: a revoke.

Each method has the signature the table's ``_inject`` calls: it returns the next seat
to play when it took the turn, else None, and sets ``p.done`` once made.
"""

from __future__ import annotations

from tablesense.contract.cards import SEATS, is_honour, lho, partner, suit
from tablesense.proving.tablesim import STEP_MS, _Ended, _order, _Plan, _Table

QUICK_MS = (50, 280)  # a card this soon after the previous player's


class Mishaps(_Table):
    """The table with issue 25's irregularities."""

    def _premature_taken_back(self, p: _Plan, trick_no: int, seat: str) -> str | None:
        """2017: the defender after ``seat`` (his right-hand opponent, an adversary)
        plays a legal card at ``seat``'s turn (Law 57D); the old codes: declarer plays
        from his own hand before his turn (Portland L81). Either takes it back."""
        if not self.trick or len(self.trick) == 3:
            return None
        early = lho(seat)
        if self.old:
            if early != self.declarer:
                return None
        elif not self.defender(early) or self.defender(seat):
            return None
        card = self.choose(early, suit(self.trick[0][1]))
        if card not in self.hands[early] or len(self.hands[early]) < 2:
            return None  # (a card owed from the table: keep it simple)
        self.play(early, card)
        if self.rng.random() < 0.5:
            self.obs(early, card, "hand", "down")
            how = "taken back into the hand"
        else:
            self.obs(early, card, "table", "down")
            how = "laid face down on the table"
        self.hands[early].add(card)
        self.note(p.kind, f"{early} played {card} before {seat} at trick {trick_no + 1}, "
                  f"{how}")
        p.done = True
        return None

    def _quick_follow(self, p: _Plan, trick_no: int, seat: str) -> str | None:
        """``seat`` plays within 300 ms of the previous player's card."""
        last = self.events[-1] if self.events else None
        if (not self.trick or last is None or last.get("zone") != "trick"
                or last.get("seat") != self.trick[-1][0]):
            return None
        self.t = last["t"] + self.rng.randrange(*QUICK_MS)
        card = self.choose(seat, suit(self.trick[0][1]))
        self.play(seat, card)
        self.trick.append((seat, card))
        self.note(p.kind, f"{seat} played {card} {self.events[-1]['t'] - last['t']} ms "
                  f"after {last['seat']}'s {last['card']} at trick {trick_no + 1}")
        p.done = True
        return lho(seat)

    def _lead_before_option(self, p: _Plan, trick_no: int, seat: str) -> str | None:
        """As ``seat``, a defender, is to lead, his partner drops an honour (a major penalty
        card) and ``seat`` leads before declarer chose (2017 Law 50D2: a penalty card, then
        forfeited once declarer's side plays to it)."""
        if self.trick or not self.defender(seat) or trick_no > 11 or self.owed[seat]:
            return None
        who = partner(seat)
        honours = sorted((c for c in self.hands[who] if is_honour(c)), key=_order)
        if len(self.hands[who]) < 3 or not honours or self.owed[who]:
            return None
        card = self.rng.choice(honours)
        self.obs(who, card, "table", seen_by=[s for s in SEATS if s != who])
        self.owe(who, card, major=True, on_table=True)
        self.note("drop", f"{who} dropped {card} face up at trick {trick_no + 1}")
        self.skip_option = not self.old
        self.note(p.kind, f"{seat} led to trick {trick_no + 1} before declarer chose a lead "
                  f"option for {who}'s {card}")
        p.done = True
        return None  # he leads as the table's turn goes on

    def _hand_laid_down(self, p: _Plan, trick_no: int, seat: str) -> str | None:
        """``seat``, a defender at his turn, lays his whole hand face up on the table."""
        hand = sorted(self.hands[seat], key=_order)
        if (not self.defender(seat) or len(hand) < 3 or self.faceup[seat] or self.waiting
                or self.fix is not None or trick_no == 0):
            return None
        for c in hand:
            self.obs(seat, c, "table", seen_by=[s for s in SEATS if s != seat], gap=40)
        self.t += STEP_MS - 40
        self.note(p.kind, f"{seat} laid his whole hand face up at trick {trick_no + 1}")
        p.done = True
        if not self.old:
            self.claimed = True  # Law 68A, 68B1: the director settles the claim
            raise _Ended
        for c in hand:
            self.owe(seat, c, major=True, on_table=True)
        return None

    def _pc_suit_revoke(self, p: _Plan, trick_no: int, seat: str) -> str | None:
        """``seat``, a defender to play to a suit he holds, drops a small card (a minor
        penalty card, an exposed card) and plays another small card of its suit: a
        revoke, not corrected."""
        if not self.trick or not self.defender(seat) or trick_no > 10 or self.owed[seat]:
            return None
        led = suit(self.trick[0][1])
        if not any(suit(c) == led for c in self.hands[seat]):
            return None
        small = sorted((c for c in self.hands[seat] if not is_honour(c) and suit(c) != led),
                       key=_order)
        pairs = [c for c in small if sum(1 for x in small if suit(x) == suit(c)) >= 2]
        if not pairs:
            return None
        card = self.rng.choice(pairs)
        self.obs(seat, card, "table", seen_by=[s for s in SEATS if s != seat])
        self.owe(seat, card, major=False, on_table=True)
        self.note("drop", f"{seat} dropped {card} face up at trick {trick_no + 1}")
        wrong = self.rng.choice([c for c in small if suit(c) == suit(card) and c != card])
        self.play(seat, wrong)
        self.trick.append((seat, wrong))
        self.note(p.kind, f"{seat} played {wrong} on a {led} lead at trick {trick_no + 1} "
                  f"holding his penalty card {card} and a {led}")
        p.done = True
        return lho(seat)

__all__ = ["QUICK_MS", "Mishaps"]
