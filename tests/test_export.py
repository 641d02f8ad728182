"""``tablesense export``: journals as PBN 2.1 and BBO LIN, checked field by field
and parsed back; invalid lines reported with their line number, export going on."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tablesense.documents.export import export_lines, export_text, to_lin, to_pbn
from tablesense.documents.replay import replay_lines
from tablesense.engine import Ruling

EXAMPLES = Path(__file__).parent.parent / "examples" / "journals"
MINOR = EXAMPLES / "minor-penalty-card.jsonl"
ROBOT = EXAMPLES / "robot-table.jsonl"
RANKS = "AKQJT98765432"


def export(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablesense.cli", "export", *args],
                          capture_output=True, text=True, input=stdin, timeout=60)


def parse_pbn(text: str) -> list[dict[str, Any]]:
    """A small independent PBN reader: tags, section lines and brace comments per game."""
    games: list[dict[str, Any]] = []
    for chunk in re.split(r"\n\s*\n", text.strip()):
        lines = [x for x in chunk.splitlines() if not x.startswith("%")]
        if not lines:
            continue
        game: dict[str, Any] = {"tags": {}, "sections": {}, "comments": []}
        section = None
        for line in lines:
            game["comments"] += re.findall(r"\{([^}]*)\}", line)
            bare = re.sub(r"\{[^}]*\}", "", line).strip()
            m = re.fullmatch(r'\[(\w+) "((?:[^"\\]|\\.)*)"\]', bare)
            if m:
                game["tags"][m[1]] = m[2]
                section = m[1] if m[1] in ("Auction", "Play") else None
                if section:
                    game["sections"][section] = []
            elif section and bare:
                game["sections"][section].append(bare)
        games.append(game)
    return games


def hand(cards: list[str]) -> str:
    return ".".join("".join(r for r in RANKS if s + r in cards) for s in "SHDC")


def journal(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


# -- PBN, one board, field by field ----------------------------------------------------

def test_minor_penalty_card_as_pbn() -> None:
    text, errors = export_text(MINOR.read_text().splitlines(), "pbn")
    assert errors == []
    assert text.startswith("% PBN 2.1\n% EXPORT\n")
    [game] = parse_pbn(text)
    tags = game["tags"]
    assert list(tags)[:15] == ["Event", "Site", "Date", "Board", "West", "North", "East",
                               "South", "Dealer", "Vulnerable", "Deal", "Scoring", "Declarer",
                               "Contract", "Result"]
    assert tags["Board"] == "1" and tags["Dealer"] == "N" and tags["Vulnerable"] == "None"
    assert tags["Deal"] == ("N:T2.AQ643.A52.763 KJ6.7.KJ6.KT9854 "
                            "98753.JT2.QT.AQ2 AQ4.K985.98743.J")
    assert (tags["West"], tags["North"], tags["East"], tags["South"]) == (
        "West", "North", "East", "South")
    assert tags["Declarer"] == "N" and tags["Contract"] == "3NT"
    assert tags["Date"] == "????.??.??"  # journal times are not wall-clock times here
    # the board ends in a claim by North that names no number of tricks
    assert tags["Result"] == "?"
    assert tags["Auction"] == "N"
    assert game["sections"]["Auction"] == ["1NT Pass 3NT Pass", "Pass Pass"]
    assert tags["Play"] == "E"  # the opening leader; columns E S W N
    play = game["sections"]["Play"]
    assert play[0] == "CK CA CJ C3"
    # trick 2: South led S3, West S4, North ST, East SJ; the ruling follows SJ, the
    # card played just before East dropped C5, so the line breaks after its comment
    assert play[1:3] == ["SJ", "S3 S4 ST"]
    assert play[3] == "C5 CQ H5 C6"
    assert play[-1] == "*"  # a claim: no further cards
    # no number claimed: not finished, so no result a scorer could take as final
    note, comment = game["comments"]
    assert note == "board not finished: no result (declarer's side had 2 tricks so far)"
    assert comment.startswith("1-1-1 minor-penalty-card (Law 49, 50B, 50C): East's C5, "
                              "dropped face up where West could see it")
    assert "SJ {1-1-1 minor-penalty-card" in text


def test_the_rulings_are_replays_rulings_and_a_claimed_count_gives_the_result() -> None:
    lines = MINOR.read_text().splitlines()
    rulings = [r for r in replay_lines(lines) if isinstance(r, Ruling)]
    [board] = export_lines(lines).boards
    assert board.rulings == tuple(rulings)
    # North claims 10 of the 10 tricks left, having taken 2 of 3: 12 tricks
    claim = json.loads(lines[-1])
    claimed = [*lines[:-1], json.dumps({**claim, "tricks": 10})]
    [game] = parse_pbn(export_text(claimed, "pbn")[0])
    assert game["tags"]["Result"] == "12"
    assert "|mc|12|" in export_text(claimed, "lin")[0]
    # East (a defender) concedes 9 of them: declarer gets 2 + 9
    concede = [*lines[:-1], json.dumps({"v": 1, "t": claim["t"], "type": "concede",
                                        "seat": "E", "tricks": 9})]
    assert parse_pbn(export_text(concede, "pbn")[0])[0]["tags"]["Result"] == "11"


def test_a_journal_stopping_mid_play_exports_no_result() -> None:
    # the worked example up to its eighth card: two tricks to North's side, the third begun
    lines = MINOR.read_text().splitlines()
    cut = [ln for ln in lines if json.loads(ln)["type"] != "claim"]
    [board] = export_lines(cut).boards
    assert board.phase == "play" and not board.finished
    assert board.final_tricks() is None and board.declarer_tricks() == 2
    [game] = parse_pbn(export_text(cut, "pbn")[0])
    assert game["tags"]["Result"] == "?"
    assert "board not finished" in game["comments"][0]
    lin = export_text(cut, "lin")[0]
    assert "|mc|" not in lin  # LIN carries a result only as a claim's total


# -- many boards, passed out -----------------------------------------------------------

def passed_out_journal() -> list[str]:
    """The robot table's first two boards, the second passed out."""
    objs = journal(ROBOT)
    starts = [i for i, o in enumerate(objs) if o["type"] == "board"]
    first = objs[:starts[1]]
    second = [o for o in objs[starts[1]:starts[2]] if o["type"] in ("board", "dealt")]
    t = second[-1]["t"]
    for k, seat in enumerate("ESWN"):  # dealer East
        second.append({"v": 1, "t": t + 1000 * (k + 1), "type": "call", "seat": seat,
                       "call": "P"})
    return [json.dumps(o) for o in first + second]


def test_robot_table_eight_boards() -> None:
    objs = journal(ROBOT)
    dealt = [o for o in objs if o["type"] == "dealt"]
    boards = [o for o in objs if o["type"] == "board"]
    text, errors = export_text(ROBOT.read_text().splitlines(), "pbn")
    assert errors == []
    games = parse_pbn(text)
    assert len(games) == 8
    rulings = [r for r in replay_lines(ROBOT.read_text().splitlines()) if isinstance(r, Ruling)]
    for g, b, d in zip(games, boards, dealt, strict=True):
        tags = g["tags"]
        assert tags["Board"] == str(b["board"]) and tags["Dealer"] == b["dealer"]
        seats = "NESW"[("NESW".index(b["dealer"])):] + "NESW"[:"NESW".index(b["dealer"])]
        assert tags["Deal"] == f"{b['dealer']}:" + " ".join(hand(d["hands"][s]) for s in seats)
        calls = [o["call"] for o in objs if o["type"] == "call"
                 and d["t"] < o["t"] < (next((x["t"] for x in boards if x["t"] > d["t"]),
                                             10**12))]
        pbn_calls = " ".join(g["sections"]["Auction"]).split()
        assert pbn_calls == [{"P": "Pass"}.get(c, c.replace("N", "NT")) for c in calls]
        last_bid = [c for c in calls if c != "P"][-1]
        assert tags["Contract"] == last_bid.replace("N", "NT")
        rows = g["sections"]["Play"]
        assert len(rows) >= 13 and len(rows) <= 14
        assert 0 <= int(tags["Result"]) <= 13
        mine = [r for r in rulings if r.board == b["board"]]
        assert [c.split(" ")[0] for c in g["comments"]] == [r.id for r in mine]


def test_a_passed_out_board() -> None:
    lines = passed_out_journal()
    text, errors = export_text(lines, "pbn")
    assert errors == []
    first, second = parse_pbn(text)
    assert first["tags"]["Contract"] == "4D" and "Play" in first["sections"]
    tags = second["tags"]
    assert (tags["Board"], tags["Dealer"]) == ("2", "E")
    assert (tags["Declarer"], tags["Contract"], tags["Result"]) == ("", "Pass", "")
    assert second["sections"]["Auction"] == ["Pass Pass Pass Pass"]
    assert "Play" not in second["sections"] and "Play" not in tags
    lin = export_text(lines, "lin")[0].splitlines()[1]
    assert lin.count("mb|p|") == 4 and "pc|" not in lin and "mc|" not in lin


# -- LIN parsed back ---------------------------------------------------------------------

def lin_pairs(line: str) -> list[tuple[str, str]]:
    parts = line.split("|")
    assert parts[-1] == "" and len(parts) % 2 == 1, line[-40:]
    return list(zip(parts[0:-1:2], parts[1::2], strict=True))


def lin_hand(text: str) -> list[str]:
    cards, suit = [], None
    for ch in text:
        if ch in "SHDC":
            suit = ch
        else:
            assert suit is not None
            cards.append(suit + ch)
    return cards


def test_lin_parses_back() -> None:
    # the robot table's 8 boards, then a 9th: board 2 again, passed out
    end = journal(ROBOT)[-1]["t"]
    extra = [{**json.loads(x), "t": end + 1000 * k} for k, x in
             enumerate(passed_out_journal()[-6:], start=1)]
    source = ROBOT.read_text().splitlines() + [json.dumps(o) for o in extra]
    text, errors = export_text(source, "lin")
    assert errors == []
    lines = text.splitlines()
    records = export_lines(source).boards
    assert len(lines) == len(records) == 9
    for line, rec in zip(lines, records, strict=True):
        pairs = lin_pairs(line)
        keys = [k for k, _ in pairs]
        assert keys[:11] == ["qx", "pn", "st", "md", "rh", "ah", "sv", "mb", "mb", "mb", "mb"]
        d = dict(pairs[:7])
        assert d["qx"] == f"o{rec.number}" and d["ah"] == f"Board {rec.number}"
        assert d["pn"] == "South,West,North,East"
        assert d["sv"] == "o"
        md = d["md"]
        assert md[0] == {"S": "1", "W": "2", "N": "3", "E": "4"}[rec.dealer or "N"]
        hands = md[1:].split(",")
        assert len(hands) == 4
        for seat, h in zip("SWNE", hands, strict=True):
            cards = lin_hand(h)
            assert len(cards) == 13
            assert sorted(cards) == sorted(rec.deal[seat])
        mbs = [v for k, v in pairs if k == "mb"]
        assert len(mbs) == len(rec.calls)
        assert mbs == [{"P": "p", "X": "d", "XX": "r"}.get(c, c) for _, c in rec.calls]
        pcs = [v for k, v in pairs if k == "pc"]
        assert pcs == [c for _, c in rec.played]
        assert len(pcs) == (0 if rec.passed_out else 52)
        nts = [v for k, v in pairs if k == "nt"]
        assert [n.split(" ")[0] for n in nts] == [r.id for r in rec.rulings]
        # every finished trick is followed by a page break
        if not rec.passed_out:
            after_pc = [pairs[i + 1][0] for i, (k, _) in enumerate(pairs[:-1]) if k == "pc"]
            assert after_pc.count("pg") + after_pc.count("nt") >= 13


def test_lin_of_the_example_board() -> None:
    line = to_lin(export_lines(MINOR.read_text().splitlines()).boards).splitlines()[0]
    assert line.startswith("qx|o1|pn|South,West,North,East|st||md|3S98753HJT2DQTCAQ2,"
                           "SAQ4HK985D98743CJ,ST2HAQ643DA52C763,SKJ6H7DKJ6CKT9854|rh||"
                           "ah|Board 1|sv|o|mb|1N|mb|p|mb|3N|mb|p|mb|p|mb|p|pg||pc|CK|")
    assert "pc|SJ|nt|1-1-1 minor-penalty-card (Law 49, 50B, 50C): East's C5" in line
    assert "mc|" not in line  # the claim names no number of tricks


# -- the command: bad lines, output file, options --------------------------------------

def test_malformed_line_reported_export_goes_on(tmp_path: Path) -> None:
    lines = MINOR.read_text().splitlines()
    lines.insert(5, "{not json")
    lines.insert(9, json.dumps({"v": 1, "t": 9000, "type": "call", "seat": "N", "call": "9N"}))
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.pbn"
    done = export(str(path), "--format", "pbn", "-o", str(out))
    assert done.returncode == 0, done.stderr
    err = done.stderr.splitlines()
    assert err[0].startswith(f"{path}: line 6: field (line): not JSON")
    assert err[1].startswith(f"{path}: line 10: field call:")
    assert len(err) == 2
    assert done.stdout == ""
    clean = export_text(MINOR.read_text().splitlines(), "pbn")[0]
    assert out.read_text() == clean  # the bad lines changed nothing
    lin = export("-", "--format", "lin", stdin=path.read_text())
    assert lin.returncode == 0 and "<stdin>: line 6: field (line): not JSON" in lin.stderr
    assert lin.stdout == to_lin(export_lines(MINOR.read_text().splitlines()).boards)


def test_names_event_and_bad_options(tmp_path: Path) -> None:
    done = export(str(MINOR), "--player", "N=Smith, J.", "--player", "w=Jones",
                  "--event", 'Club "Pairs"', "--scoring", "MP")
    assert done.returncode == 0, done.stderr
    tags = parse_pbn(done.stdout)[0]["tags"]
    assert (tags["North"], tags["West"], tags["South"]) == ("Smith, J.", "Jones", "South")
    assert tags["Event"] == 'Club \\"Pairs\\"' and tags["Scoring"] == "MP"
    lin = export(str(MINOR), "--format", "lin", "--player", "N=Smith, J.")
    assert "|pn|South,West,Smith J.,East|" in lin.stdout
    assert export(str(MINOR), "--player", "Q=x").returncode == 2
    assert export(str(MINOR), "--code", "no-such-code").returncode == 2
    assert export(str(tmp_path / "missing.jsonl")).returncode == 2
    assert export(str(MINOR), "--format", "xml").returncode == 2


def test_pbn_writer_is_deterministic() -> None:
    lines = ROBOT.read_text().splitlines()
    assert to_pbn(export_lines(lines).boards) == to_pbn(export_lines(lines).boards)


def test_export_replays_like_replay_every_scenario() -> None:
    """The export's own replay loop gives the rulings and error lines replay gives."""
    root = Path(__file__).parent
    paths = sorted(p for p in root.glob("scenarios/*/*.jsonl")
                   if not p.name.endswith(".rulings.jsonl")) + sorted(EXAMPLES.glob("*.jsonl"))
    assert len(paths) > 50
    for path in paths:
        lines = path.read_text().splitlines()
        items = list(replay_lines(lines))
        done = export_lines(lines)
        assert [r for b in done.boards for r in b.rulings] == \
            [r for r in items if isinstance(r, Ruling)], path
        assert done.errors == [r for r in items if isinstance(r, str)], path
        to_pbn(done.boards)
        to_lin(done.boards)
