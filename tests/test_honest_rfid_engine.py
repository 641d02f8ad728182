"""Issue 16 item 5: the engine copes with honest RFID readers (docs/architecture.md,
"Honest readers").

Reader firmware 0.3.0 on reports only what RFID senses (hardware/README.md): no
``hand`` zone (no antenna reaches a held card), no face (``unknown``), the
level its reach implies; a card picked up from the table is ``gone``. Who
holds which card comes from ``dealt {hands}``; faces from camera readers.

Every golden board is replayed as four such readers would report it
(``tablesense.sim.convert``'s model of the firmware, kinds all ``rfid``).
Many boards then miss rulings that need a camera (an exposure in the deal, a
card held so partner sees it): expected. None may get a ruling of a kind its
golden journal does not have: a false alert. On main b8f08d2 30 of the 234
did; the causes, each an engine question, and what the engine now does:

- a card taken back from the trick zone to the hand shows as ``gone`` from
  ``trick``: withdrawn once the dropout window passes (2017 Law 47, the old
  codes' corrections), not left played (then ``premature-play``, ``revoke``);
  one put back on the table from a complete trick, then replaced by its
  player's next card, is a correction, not the trick's quit;
- two cards arriving in a trick zone at once, face ``unknown``: cards played
  together (one ``director`` ruling under 2017 Law 58B, which of 58B1/58B2
  the director decides), not ``lead-out-of-turn`` + ``out-of-step``; the card
  he takes back to the table is his choice, not a quit;
- a card face ``unknown`` on ``table``: no face shown, so no penalty card
  (``minor-penalty-card`` on shown-to-opponent-only) and nothing that would
  follow from one.
"""


from __future__ import annotations

from pathlib import Path

import pytest

from tablesense.sim.convert import plan_from_journal
from test_sim_convert import JOURNALS, golden_rulings, rulings_of

KINDS = dict.fromkeys("NESW", "rfid")


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_honest_rfid_readers_make_no_ruling_the_truth_does_not(journal: Path) -> None:
    plan = plan_from_journal(journal, kinds=KINDS, max_gap_ms=500)
    got, _ = rulings_of(plan.expected_journal())
    truth = [r["kind"] for r in golden_rulings(journal)]
    false = [r["kind"] for r in got if r["kind"] not in truth]
    assert not false, false
