"""The golden journals are written by tests/scenarios/make_*.py: re-run, each generator
must write exactly the committed journals, and every committed journal must come from one
(a hand edit of a journal, or a generator changed without re-running it, fails here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCENARIOS = Path(__file__).parent / "scenarios"
GENERATORS = sorted(SCENARIOS.glob("make_*.py"))


def committed() -> dict[str, bytes]:
    return {str(p.relative_to(SCENARIOS)): p.read_bytes() for p in SCENARIOS.glob("*/*.jsonl")
            if not p.name.endswith(".rulings.jsonl")}


def regenerate(gen: Path, out: Path) -> dict[str, bytes]:
    subprocess.run([sys.executable, str(gen), "--out", str(out)], check=True,
                   capture_output=True, timeout=120)
    return {str(p.relative_to(out)): p.read_bytes() for p in out.glob("*/*.jsonl")}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, bytes]]:
    """What each generator writes when run again (once for the module)."""
    root = tmp_path_factory.mktemp("scenarios")
    return {gen.stem: regenerate(gen, root / gen.stem) for gen in GENERATORS}


@pytest.mark.parametrize("gen", [g.stem for g in GENERATORS])
def test_the_generator_reproduces_the_committed_journals(
        gen: str, generated: dict[str, dict[str, bytes]]) -> None:
    made = generated[gen]
    assert made, f"{gen} wrote nothing"
    have = committed()
    differ = sorted(name for name, data in made.items() if have.get(name) != data)
    assert not differ, f"{gen} writes other journals than the committed ones: {differ}"


def test_every_committed_journal_comes_from_a_generator(
        generated: dict[str, dict[str, bytes]]) -> None:
    made = {name for files in generated.values() for name in files}
    assert sorted(set(committed()) - made) == []
