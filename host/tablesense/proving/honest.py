"""Does the engine invent with honest readers? A generated board as RFID readers report it.

The engine must never invent: a ruling needs something the readers could
prove. ``tablesense.proving.irregular`` writes boards as full-truth readers would
(faces, ``hand`` zones); ``tablesense.sim.convert`` models what honest
readers report of them instead (RFID: no ``hand`` zone, face ``unknown`` on
the table, ``gone`` when a card leaves the surface; a camera reader keeps
faces). ``judge_honest`` replays a board both ways and compares: a ruling
of a kind the full-truth replay does not make on that board is a *false
ruling*. Missing rulings are expected (what only a face tells).

>>> from tablesense.proving.irregular import irregular_board
>>> v = judge_honest(irregular_board(3, "duplicate-2017", kinds=["drop"]), "rfid")
>>> v.readers["N"]
'rfid'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final, Literal

from tablesense.contract.vocab import Seat
from tablesense.documents.replay import replay_steps
from tablesense.engine import Ruling
from tablesense.proving.irregular import IrregularBoard
from tablesense.proving.storm import Measured
from tablesense.sim.convert import plan_from_journal

Readers = Literal["rfid", "mixed"]
READERS: Final[tuple[Readers, ...]] = ("rfid", "mixed")
SEATS: Final[tuple[Seat, ...]] = ("N", "E", "S", "W")
MAX_GAP_MS: Final[int | None] = 500  # as tests/test_honest_rfid_engine.py converts


def reader_kinds(readers: Readers, seed: int) -> dict[str, str]:
    """Four RFID readers, or (``mixed``) three and one camera reader, its seat by the seed."""
    kinds: dict[str, str] = dict.fromkeys(SEATS, "rfid")
    if readers == "mixed":
        kinds[SEATS[seed % 4]] = "camera"
    return kinds


@dataclass(frozen=True)
class HonestVerdict(Measured):
    """One board replayed as full-truth readers and as honest readers report it."""

    board: IrregularBoard
    readers: dict[str, str]
    truth: tuple[Ruling, ...]  # every ruling of the full-truth replay
    got: tuple[Ruling, ...]  # every ruling of the honest readers' replay
    tricks: int
    phase: str

    @property
    def false(self) -> tuple[Ruling, ...]:
        """Rulings of a kind the full-truth replay does not make on this board."""
        kinds = {r.kind for r in self.truth}
        return tuple(r for r in self.got if r.kind not in kinds)

    @property
    def alerts(self) -> tuple[Ruling, ...]:
        return tuple(r for r in self.got if r.severity in ("penalty", "director"))

    @property
    def out_of_step(self) -> tuple[Ruling, ...]:
        """The engine saying it lost the table: out-of-step or a director ruling."""
        return tuple(r for r in self.got
                     if r.kind == "out-of-step" or r.severity == "director")



def _replay(lines: list[str]) -> tuple[list[Ruling], int, str]:
    rulings: list[Ruling] = []
    tricks, phase = 0, "idle"
    for st in replay_steps(lines):
        rulings.extend(st.rulings)
        eng = st.engine
        if eng is not None and eng.board is not None:
            tricks, phase = len(getattr(eng.board, "tricks", ())), str(eng.board.phase)
    return rulings, tricks, phase


def honest_lines(board: IrregularBoard, kinds: dict[str, str]) -> list[str]:
    """The board's journal as readers of ``kinds`` report it (``sim.convert``'s model)."""
    plan = plan_from_journal([dict(e) for e in board.events], kinds=kinds,
                             max_gap_ms=MAX_GAP_MS)
    return [json.dumps(e, separators=(",", ":")) for e in plan.expected_journal()]


def judge_honest(board: IrregularBoard, readers: Readers) -> HonestVerdict:
    """Replay ``board`` as full-truth readers report it and as honest ``readers`` do."""
    truth, _, _ = _replay(board.lines())
    kinds = reader_kinds(readers, board.seed)
    got, tricks, phase = _replay(honest_lines(board, kinds))
    return HonestVerdict(board, kinds, tuple(truth), tuple(got), tricks, phase)


__all__ = ["READERS", "HonestVerdict", "Readers", "honest_lines", "judge_honest",
           "reader_kinds"]
