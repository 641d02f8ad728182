"""docs/contract.md against the code: its vocabulary is vocab.py's, its examples are what
the code does, and the worked example journal (tests/contract/) replays to its rulings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tablesense.contract import vocab
from tablesense.contract.events import parse_event
from tablesense.documents.replay import replay_lines
from tablesense.engine import Ruling

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "docs" / "contract.md"
EXAMPLES_DIR = Path(__file__).parent / "contract"
EXAMPLES = sorted(p for p in EXAMPLES_DIR.glob("*.jsonl") if not p.name.endswith(".rulings.jsonl"))
TEXT = CONTRACT.read_text()


def section(title: str) -> str:
    """The contract's text from the heading ``title`` to the next heading of any level."""
    m = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ |\Z)", TEXT, re.S | re.M)
    assert m, f"docs/contract.md has no section {title!r}"
    return m.group(1)


def first_column(text: str) -> list[str]:
    """The backquoted values in the first column of the tables in ``text``."""
    out = []
    for line in text.splitlines():
        cells = line.split("|")
        if len(cells) > 2:
            out += re.findall(r"`([^`]+)`", cells[1])
    return out


def examples(kind: str) -> list[tuple[Path, str]]:
    """(journal, block) for each ``<!-- contract-example: KIND of JOURNAL -->`` code block."""
    found = re.findall(rf"<!-- contract-example: {kind} of (\S+) -->\n```json\n(.*?)```",
                       TEXT, re.S)
    return [(ROOT / path, block) for path, block in found]


def rulings_of(journal: Path) -> tuple[list[dict[str, object]], list[str]]:
    with journal.open() as f:
        out = list(replay_lines(f))
    return ([r.to_json() for r in out if isinstance(r, Ruling)],
            [m for m in out if isinstance(m, str)])


def without(rulings: list[dict[str, object]], *keys: str) -> list[dict[str, object]]:
    return [{k: v for k, v in r.items() if k not in keys} for r in rulings]


def test_the_examples_are_there() -> None:
    assert EXAMPLES, "tests/contract/ holds no example journal"
    assert examples("ruling") and examples("lines")


@pytest.mark.parametrize("journal", EXAMPLES, ids=lambda p: p.stem)
def test_the_example_journal_replays_to_its_rulings(journal: Path) -> None:
    """Every field exact but the prose of ``text`` and ``citation`` (as the contract says)."""
    got, errors = rulings_of(journal)
    assert errors == []
    want = [json.loads(line) for line in
            journal.with_name(journal.stem + ".rulings.jsonl").read_text().splitlines() if line]
    assert want and without(got, "text", "citation") == without(want, "text", "citation")


def test_the_ruling_shown_is_the_one_its_journal_replays_to() -> None:
    for journal, block in examples("ruling"):
        shown = json.loads(block)
        got, _ = rulings_of(journal)
        assert without([shown], "text") == without(got[:1], "text"), journal
        assert set(shown) == set(got[0])


def test_the_journal_lines_shown_are_lines_of_their_journal_and_valid() -> None:
    for journal, block in examples("lines"):
        lines = {json.dumps(json.loads(x), sort_keys=True)
                 for x in journal.read_text().splitlines()}
        for line in block.splitlines():
            obj = json.loads(line)
            assert json.dumps(obj, sort_keys=True) in lines, line
            parse_event(obj)


@pytest.mark.parametrize(("title", "values"), [
    ("Ruling kinds", vocab.KINDS),
    ("Options", vocab.OPTIONS),
    ("The phases of a board", vocab.PHASES),
])
def test_each_table_lists_the_vocabulary_of_the_code(title: str, values: tuple[str, ...]) -> None:
    assert first_column(section(title)) == list(values)


def test_the_observation_table_lists_the_zones_faces_and_levels() -> None:
    obs = section("Observations: what a reader reports")
    zones = re.findall(r"^\|\s*(?:`zone`)?\s*\|\s*`([a-z]+)`\s*\|", obs, re.M)
    assert zones == list(vocab.ZONES)
    assert re.search(r"`face` \| " + ", ".join(f"`{f}`" for f in vocab.FACES) + r" \|", obs)
    assert re.search(r"`level` \| " + ", ".join(f"`{v}`" for v in vocab.LEVELS) + r" \|", obs)


def test_the_severities_and_seats_are_the_code_s() -> None:
    assert first_column(section("Rulings and alerts").split("### Ruling kinds")[0]) == list(
        vocab.SEVERITIES)
    assert "are `N`, `E`, `S`, `W`" in TEXT and vocab.SEATS == ("N", "E", "S", "W")


def test_out_of_step_is_a_director_matter_never_a_penalty() -> None:
    row = next(line for line in section("Ruling kinds").splitlines()
               if line.startswith("| `out-of-step` |"))
    assert "severity `director`" in row and "never a penalty" in row
    assert "out-of-step" in vocab.KINDS


def test_the_wire_speaks_the_contract_s_words() -> None:
    """The wire package runs on the board, so it cannot import vocab.py (typing): its code
    tables (the index is the byte on the wire) hold the same words."""
    from tablesense.contract import cards
    from tablesense.onboard.wire import codec

    assert codec.SEATS == vocab.SEATS == cards.SEATS
    assert set(codec.ZONES) == set(vocab.ZONES)
    assert set(codec.FACES) == set(vocab.FACES)
    assert set(codec.LEVELS) == set(vocab.LEVELS)


def test_every_kind_and_option_a_golden_scenario_records_is_in_the_vocabulary() -> None:
    """A kind a code emits but the contract lacks shows unlabelled on the dashboard (the
    old codes' ``revoke-corrected`` was one); mypy checks the literals in the code, this
    the rulings stored beside the journals."""
    kinds: set[str] = set()
    options: set[str] = set()
    for path in (Path(__file__).parent / "scenarios").glob("*/*.rulings.jsonl"):
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                kinds.add(r["kind"])
                options.update(r["options"])
    assert "revoke-corrected" in kinds
    assert kinds <= set(vocab.KINDS), kinds - set(vocab.KINDS)
    assert options <= set(vocab.OPTIONS), options - set(vocab.OPTIONS)
