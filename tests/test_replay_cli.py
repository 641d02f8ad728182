"""``tablesense replay``: deterministic bytes, errors that name line and field,
``--strict``, ``--code``, and exit statuses (docs/contract.md, "The journal")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).parent.parent / "examples" / "journals"


def replay(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablesense.cli", "replay", *args],
                          capture_output=True, text=True, input=stdin, timeout=60)


def test_same_file_same_bytes() -> None:
    journal = str(EXAMPLES / "robot-table.jsonl")
    first, second = replay(journal), replay(journal)
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout
    rulings = [json.loads(x) for x in first.stdout.splitlines()]
    assert len(rulings) >= 5
    assert [r["id"] for r in rulings] == sorted({r["id"] for r in rulings},
                                                key=[r["id"] for r in rulings].index)


def test_invalid_lines_are_reported_and_skipped(tmp_path: Path) -> None:
    lines = (EXAMPLES / "minor-penalty-card.jsonl").read_text().splitlines()
    lines.insert(5, "{not json")
    lines.insert(9, json.dumps({"v": 1, "t": 9000, "type": "observe", "seat": "Q",
                                "card": "SA", "zone": "hand", "face": "down"}))
    lines.insert(12, json.dumps({"v": 1, "t": 12500, "type": "observe", "seat": "E",
                                 "card": "SX", "zone": "hand", "face": "down"}))
    lines.append(json.dumps({"v": 1, "t": 99999, "type": "decide", "option": "refuse-lead"}))
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = replay(str(path))
    assert done.returncode == 0
    err = done.stderr.splitlines()
    assert err[0].startswith(f"{path}: line 6: field (line): not JSON")
    assert "line 10: field seat:" in err[1]
    assert "line 13: field card: not a card: 'SX'" in err[2]
    assert "no open alert offers option refuse-lead" in err[3]
    assert [json.loads(x)["kind"] for x in done.stdout.splitlines()] == ["minor-penalty-card"]


def test_strict_stops_at_the_first_invalid_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text((EXAMPLES / "minor-penalty-card.jsonl").read_text() + "[1, 2]\n")
    done = replay(str(path), "--strict")
    assert done.returncode == 1
    assert "line 48: field (line): expected a JSON object" in done.stderr


def test_unreadable_file_and_unknown_code(tmp_path: Path) -> None:
    missing = replay(str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr
    unknown = replay(str(EXAMPLES / "minor-penalty-card.jsonl"), "--code", "whist-1850")
    assert unknown.returncode == 2
    assert "unknown law code 'whist-1850'" in unknown.stderr


def test_code_override_and_stdin() -> None:
    text = (EXAMPLES / "minor-penalty-card.jsonl").read_text()
    done = replay("-", "--code", "duplicate-2017", stdin=text)
    assert done.returncode == 0
    assert json.loads(done.stdout)["code"] == "duplicate-2017"
