"""The director's record from journals: rulings, decisions with who and when, search, export."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from tablesense.documents import record, report
from tablesense.documents.replay import replay_lines

REPO = Path(__file__).resolve().parent.parent
JOURNALS = REPO / "examples" / "journals"
EVIL = '<script>alert(1)</script>'


def lines(name: str) -> list[str]:
    return (JOURNALS / name).read_text().splitlines()


def test_every_ruling_of_replay_is_in_the_record() -> None:
    for path in sorted(JOURNALS.glob("*.jsonl")):
        text = path.read_text().splitlines()
        table = json.loads(text[0]).get("table", "1")
        boards, problems = record.table_record(text, table)
        assert problems == []
        got = [r.ruling["id"] for b in boards for r in b.rulings]
        want = [x.id for x in replay_lines(text) if not isinstance(x, str)]
        assert got == want, path.name


def test_decisions_are_attached_to_their_ruling_with_login_and_time() -> None:
    text = lines("opening-lead-out-of-turn-refused.jsonl")
    # the journal as the daemon writes a dashboard's command: with the sender's login
    text = [x.replace('"option":"refuse-lead"}', '"option":"refuse-lead","by":"alice"}')
            for x in text]
    last_t = json.loads(text[-1])["t"]
    text.append(json.dumps({"v": 1, "t": last_t + 10, "type": "resolve", "alert": "1-1-2",
                            "note": f"spades required {EVIL}", "by": "bob"}))
    text.append(json.dumps({"v": 1, "t": last_t + 20, "type": "decide", "alert": "1-1-1",
                            "option": "accept-lead", "by": "alice"}))
    boards, _ = record.table_record(text, "1")
    (b,) = boards
    by_id = {r.ruling["id"]: r for r in b.rulings}
    first = by_id["1-1-1"].decisions
    assert first[0].to_json() == {"t": 17500, "action": "decide", "by": "alice",
                                  "option": "refuse-lead", "line": 10}
    assert first[1].option == "accept-lead" and first[1].refused  # no longer open
    second = by_id["1-1-2"].decisions
    assert [d.action for d in second] == ["decide", "resolve"]
    assert second[0].by is None  # a decide that came without a login
    assert second[1].by == "bob" and second[1].note and EVIL in second[1].note
    assert b.contract == "3N" and b.declarer == "N"


def test_search_evening_and_export() -> None:
    boards, problems = record.table_record(lines("robot-table.jsonl"), "7")
    assert boards == [] and "board for table 1 at table 7" in str(problems[0])
    boards, _ = record.table_record(lines("robot-table.jsonl"), "1")
    assert len(boards) == 8
    assert [b.board for b in record.search(boards, board=4)] == [4]
    kinds = {r.ruling["kind"] for b in boards for r in b.rulings}
    some = next(iter(kinds))
    found = record.search(boards, some.replace("-", " ").split()[0])
    assert found and all(some.split("-")[0] in b.text() for b in found)
    assert record.search(boards, "no-such-word-anywhere") == []
    doc = record.to_json(boards)
    assert doc["v"] == 1 and len(doc["boards"]) == 8 and doc["evenings"] == [boards[0].evening]
    t = int(datetime(2026, 3, 5, 1, 30).timestamp() * 1000)  # past midnight: still the 4th
    assert record.evening_of(t) == "2026-03-04"


def test_report_escapes_and_lists_everything() -> None:
    text = lines("opening-lead-out-of-turn-refused.jsonl")
    last_t = json.loads(text[-1])["t"]
    text.append(json.dumps({"v": 1, "t": last_t + 10, "type": "resolve", "alert": "1-1-2",
                            "note": f"note {EVIL}", "by": "dir<b>"}))
    boards, _ = record.table_record(text, "1")
    html = report.report_html(boards, inline_css=True)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "dir&lt;b&gt;" in html
    for r in boards[0].rulings:
        assert f'data-id="{r.ruling["id"]}"' in html
    assert html.count('class="decision"') == 3
    assert "@media print" in html


def test_record_command(tmp_path: Path) -> None:
    src = JOURNALS / "minor-penalty-card.jsonl"
    (tmp_path / "5.jsonl").write_text(src.read_text().replace('"table":"1"', '"table":"5"')
                                      + "not json\n")
    out = subprocess.run([sys.executable, "-m", "tablesense.cli", "record",
                          str(tmp_path / "5.jsonl"), "--format", "json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    doc = json.loads(out.stdout)
    assert doc["boards"][0]["table"] == "5" and doc["boards"][0]["rulings"]
    assert "5.jsonl: line" in out.stderr and "not JSON" in out.stderr
