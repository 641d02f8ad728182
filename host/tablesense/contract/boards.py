"""Law 2: a duplicate board's dealer and vulnerability follow from its number.

Boards are numbered from 1; the dealer turns clockwise from North on board 1,
and the vulnerability runs through a cycle of 16 boards, so that each seat
deals each vulnerability equally often (2017 Law 2, the same in every code
that numbers its boards). A hand record names both; where it does not, or
where a board has no hand record, these are what the daemon journals.

>>> [dealer_of(n) for n in (1, 2, 3, 4, 5, 17)]
['N', 'E', 'S', 'W', 'N', 'N']
>>> [vul_of(n) for n in range(1, 17)][:8], vul_of(17), vul_of(32)
(['None', 'NS', 'EW', 'All', 'NS', 'EW', 'All', 'None'], 'None', 'EW')
"""

from __future__ import annotations

from typing import Final

from tablesense.contract.vocab import SEATS, Seat, Vul

# boards 1 to 16: each row of four begins one seat further round than the last
VUL_CYCLE: Final[tuple[Vul, ...]] = (
    "None", "NS", "EW", "All",
    "NS", "EW", "All", "None",
    "EW", "All", "None", "NS",
    "All", "None", "NS", "EW",
)


def dealer_of(board: int) -> Seat:
    """The dealer of ``board`` (1, 5, 9 ... North; 2, 6 ... East; and so on)."""
    if board < 1:
        raise ValueError(f"board numbers start at 1, got {board}")
    return SEATS[(board - 1) % 4]


def vul_of(board: int) -> Vul:
    """The vulnerability of ``board``: ``None``, ``NS``, ``EW`` or ``All``."""
    if board < 1:
        raise ValueError(f"board numbers start at 1, got {board}")
    return VUL_CYCLE[(board - 1) % 16]


__all__ = ["VUL_CYCLE", "dealer_of", "vul_of"]
