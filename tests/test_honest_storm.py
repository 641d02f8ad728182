"""Issue 13: the engine never invents with honest readers, on random irregular boards.

The storm property's boards (``tablesense.proving.irregular``: one or two random
irregularities, all five codes) as honest readers report them
(``tablesense.proving.honest``: ``sim.convert``'s model; four RFID readers, or three and
a camera reader): no ruling of a kind the full-truth replay of the board does
not make, at most one out-of-step/director ruling per incident, and the board
ends. 100 boards of each reader set a run (about 2 s); ``benchmarks/storm.py
--readers rfid`` counts the same on 2,000 (BENCHMARKS.md). Derandomized: the
same boards every run; a failure names the seed, code and the false rulings,
for ``benchmarks/storm.py`` and ``tablesense replay`` to look at.
"""

from __future__ import annotations

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tablesense.proving.honest import READERS, judge_honest
from tablesense.proving.irregular import CODES, irregular_board


@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          phases=(Phase.explicit, Phase.generate))
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(CODES),
       st.sampled_from(READERS))
def test_honest_readers_make_no_false_ruling(seed: int, code: str, readers: str) -> None:
    v = judge_honest(irregular_board(seed, code), readers)  # type: ignore[arg-type]
    where = (f"seed {seed} under {code}, readers {readers} {v.readers} "
             f"({'; '.join(v.board.injected)})")
    truth = sorted({r.kind for r in v.truth})
    assert not v.false, (f"{where}: false rulings "
                         f"{[(r.kind, r.offender, r.cards) for r in v.false]}; truth {truth}")
    assert len(v.out_of_step) <= v.board.incidents, (
        f"{where}: {len(v.out_of_step)} out-of-step/director rulings for "
        f"{v.board.incidents} incidents")
    assert v.ended, f"{where}: the engine ends with {v.tricks} tricks in phase {v.phase}"
