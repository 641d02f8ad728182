"""What every law code remembers during one deal, whatever its code: the base of
each code's own state (``State2017`` in laws/state2017.py, ``OldState`` in
laws/oldstate.py).

A code's state is its own type: a code's hooks read ``self.state``, typed with
the state its code makes (``LawCode[S]``), so mypy refuses a 2017 hook reading an
old code's callable cards, or an old code reading 2017's pending answers. The
fields here are the ones ``LawCode`` itself reads (revokes, the redeal ruled) or
that the table's state topic shows for every code (restrictions, compulsory
passes); they are declared here once and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tablesense.engine.obligations import Obligations, PenaltyCard, Restriction


@dataclass
class CodeState:
    lead_rules: list[Restriction] = field(default_factory=list)
    play_rules: list[Restriction] = field(default_factory=list)
    must_pass: dict[str, str] = field(default_factory=dict)  # seat -> ruling id
    revokes: dict[str, tuple[str, int]] = field(default_factory=dict)  # seat -> (card, trick no)
    # a revoke corrected in the current trick: (trick number, the seats that may still
    # take back the card they played after it: 2017 Law 62C1, the old codes' Law 94)
    after_revoke: tuple[int, set[str]] | None = None
    redeal_ruled: bool = False  # a redeal was ruled in this setup: one ruling is enough

    def penalty_cards(self) -> Mapping[str, Mapping[str, PenaltyCard]]:
        """None but 2017's: the old codes' exposed cards are liable to be called."""
        return {}

    def law24_cards(self) -> Mapping[str, Mapping[str, str]]:
        """None but 2017's (Law 24)."""
        return {}


if TYPE_CHECKING:
    # every code's state is what the engine's snapshot reads (checked by mypy)
    _shown: type[Obligations] = CodeState
