"""Golden scenarios: every journal under tests/scenarios/<code>/ replays to exactly the
rulings stored beside it (all fields but the free-prose ``text``). The contract's own
example (tests/contract/) is test_contract.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablesense.documents.replay import replay_lines
from tablesense.engine import Ruling

HERE = Path(__file__).parent
SCENARIOS = sorted(p for p in (HERE / "scenarios").glob("*/*.jsonl")
                   if not p.name.endswith(".rulings.jsonl"))


def rulings_of(journal: Path) -> tuple[list[dict[str, object]], list[str]]:
    with journal.open() as f:
        out = list(replay_lines(f))
    return ([r.to_json() for r in out if isinstance(r, Ruling)],
            [m for m in out if isinstance(m, str)])


def expected_of(journal: Path) -> list[dict[str, object]]:
    path = journal.with_name(journal.stem + ".rulings.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def without_prose(rulings: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in r.items() if k != "text"} for r in rulings]


@pytest.mark.parametrize("journal", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_replays_to_its_rulings(journal: Path) -> None:
    got, errors = rulings_of(journal)
    # A scenario may hold events the law rejects (a decision it does not allow): their
    # reports, line by line, are in NAME.errors.txt; every other scenario reports none.
    reported = journal.with_name(journal.stem + ".errors.txt")
    assert errors == (reported.read_text().splitlines() if reported.exists() else [])
    assert without_prose(got) == without_prose(expected_of(journal))
    for r in got:
        assert isinstance(r["text"], str) and len(r["text"]) > 20


def test_every_scenario_has_rulings_file() -> None:
    assert len(SCENARIOS) >= 40
    for journal in SCENARIOS:
        assert journal.with_name(journal.stem + ".rulings.jsonl").exists(), journal
