"""What time closes, in the order it began: one owner.

Four things wait on time at a table: an incident's window (cards played together,
a thrown hand: ``engine/incidents.py``), a card sensed at two seats for
``conflict_ms`` (``engine/sensing.py``), an RFID tag and a camera placing a card
apart for ``conflict_ms`` (``engine/fusion.py``), and a card gone from its trick
zone that does not come back within ``dropout_ms`` (a dropout, or the card taken
back: this module's own ``gone`` cards). ``advance`` closes what ``now`` has closed,
the oldest first, and an item still open holds back the later ones, so a daemon
ticking between events and a replay of its journal decide the same things in the
same order. ``close_all`` closes everything (an event that is no observation: the
table has moved on). What closing means is the engine's (the callbacks); when is
this module's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tablesense.contract.events import Observe
from tablesense.engine.incidents import Group, Incidents

if TYPE_CHECKING:
    from tablesense.engine.fusion import CardFusion
    from tablesense.engine.sensing import SensingFilter, Tuning


class Timeline:
    """The table's open items that time closes, and the order it closes them in."""

    def __init__(self, incidents: Incidents, sensing: SensingFilter, fusion: CardFusion,
                 tuning: Tuning, *, close_group: Callable[[Group], None],
                 conflict: Callable[[Observe], None], disagree: Callable[[str], None],
                 withdraw: Callable[[Observe], None]) -> None:
        self.incidents = incidents
        self.sensing = sensing
        self.fusion = fusion
        self.tuning = tuning
        self._close_group = close_group  # an incident's window is over
        self._conflict = conflict  # a card at two seats for conflict_ms
        self._disagree = disagree  # a tag and a camera apart for conflict_ms (the card)
        self._withdraw = withdraw  # a card gone from its trick zone for dropout_ms
        # card -> its `gone` from a trick zone; read by the engine's checks of what is open
        # (an attribute: read for every observation), written only here
        self.gone_cards: dict[str, Observe] = {}

    def reset(self) -> None:
        """A new deal: no card is on its way back (the incidents reset themselves)."""
        self.gone_cards = {}

    # -- cards gone from a trick zone --------------------------------------------------
    @property
    def leaving(self) -> bool:
        """Is a card gone from a trick zone, perhaps coming back?"""
        return bool(self.gone_cards)

    def gone(self, o: Observe) -> None:
        """``o`` (zone ``gone``) took its card from its trick zone: withdrawn once
        ``dropout_ms`` pass without it coming back."""
        self.gone_cards[o.card] = o

    def back(self, card: str) -> Observe | None:
        """``card`` was sensed again: it never left, or it moved on (its ``gone``)."""
        return self.gone_cards.pop(card, None) if self.gone_cards else None

    def withdraw_now(self, keep: Callable[[Observe], bool]) -> None:
        """Withdraw at once, oldest first, the gone cards ``keep`` does not keep (a card
        put in a trick zone before their dropout passed: they went back to the hand)."""
        for g in sorted((g for g in self.gone_cards.values() if not keep(g)), key=_at):
            del self.gone_cards[g.card]
            self._withdraw(g)

    # -- closing --------------------------------------------------------------------------
    @property
    def open(self) -> bool:
        return bool(self.incidents.groups or self.sensing.conflicts or self.fusion.open
                    or self.gone_cards)

    def advance(self, now: int) -> None:
        """Close what time has closed by ``now``, in the order it began."""
        incidents, sensing, fusion = self.incidents, self.sensing, self.fusion
        while incidents.groups or sensing.conflicts or fusion.open or self.gone_cards:
            groups = incidents.groups  # (a close may give the grouper a new list)
            if len(groups) == 1 and not (sensing.conflicts or fusion.open or self.gone_cards):
                # one group open, nothing else (a card played, waiting 300 ms for another):
                # no order to find
                one = groups[0]
                if now - one.first_t <= one.window:  # (not one.expired(now))
                    return
                incidents.take(one)
                self._close_group(one)
                continue
            # the group that began first (the first of equals), or what began before it:
            # a conflict between seats (1), between a tag and a camera (2), a card gone
            # from a trick zone (3)
            first = min(groups, key=_began) if len(groups) > 1 else (
                groups[0] if groups else None)
            began, which = (first.first_t, 0) if first is not None else (None, 0)
            conflict = sensing.oldest_conflict()
            if conflict is not None and (began is None or conflict.t < began):
                began, which = conflict.t, 1
            disagreement = fusion.oldest()
            if disagreement is not None and (began is None or disagreement[0] < began):
                began, which = disagreement[0], 2
            gone = min(self.gone_cards.values(), key=_at) if self.gone_cards else None
            if gone is not None and (began is None or gone.t < began):
                began, which = gone.t, 3
            if began is None:
                return
            if which == 0:
                assert first is not None
                if not first.expired(now):
                    return
                incidents.take(first)
                self._close_group(first)
            elif which == 1:
                assert conflict is not None
                if now - began < self.tuning.conflict_ms:
                    return
                self._conflict(sensing.take_conflict(conflict.card))
            elif which == 2:
                assert disagreement is not None
                if now - began < self.tuning.conflict_ms:
                    return
                self._disagree(disagreement[1])
            else:
                assert gone is not None
                if now - began <= self.tuning.dropout_ms:
                    return
                del self.gone_cards[gone.card]
                self._withdraw(gone)

    def close_all(self, close_groups: Callable[[list[Group]], None]) -> None:
        """Close every open incident, and withdraw every gone card (it is not coming
        back), in the order they began; ``close_groups`` closes incidents in order."""
        if not self.gone_cards:
            if self.incidents.groups:
                close_groups(self.incidents.take_all())
            return
        items: list[tuple[int, int, Group | Observe]] = [
            (g.first_t, 0, g) for g in self.incidents.take_all()]
        items += [(o.t, 1, o) for o in self.gone_cards.values()]
        self.gone_cards = {}
        for _, _, item in sorted(items, key=lambda x: (x[0], x[1])):
            if isinstance(item, Group):
                close_groups([item])
            else:
                self._withdraw(item)


def _at(o: Observe) -> int:
    return o.t


def _began(g: Group) -> int:
    return g.first_t


__all__ = ["Timeline"]
