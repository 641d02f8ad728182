"""Who sits where: sections, rounds, pairs and players, for the scorers' board results.

From ``[feeds.movement]`` in the daemon's configuration, or a movement file it
names (``[feeds] movement = "movement.toml"``, the same keys): the pairs'
names, each table's section and any players fixed at a table (a teams match),
and the rounds, each with its boards and which pair sits North-South and which
East-West at each table. Validated whole at start; each error names the file
and the key::

    section = "A"                       # for tables without their own
    [pairs]
    1 = ["Ann Able", "Bob Baker"]       # North and South, or East and West
    2 = ["Cy Cole", "Di Dunn"]
    [tables.1]
    section = "B"                       # optional
    players = { N = "Ed", S = "Flo" }   # optional: fixed players
    [[rounds]]
    round = 1
    boards = [1, 2, 3]
    seating = { 1 = [1, 2] }            # table = [NS pair, EW pair]

>>> m = parse_movement({"pairs": {"1": ["Ann", "Bob"], "2": ["Cy", "Di"]},
...                     "rounds": [{"round": 1, "boards": [1, 2], "seating": {"7": [1, 2]}}]},
...                    "m.toml")
>>> s = m.at("7", 2)
>>> s["round"], s["ns_pair"], s["players"]
(1, 1, {'N': 'Ann', 'E': 'Cy', 'S': 'Bob', 'W': 'Di'})
>>> m.at("7", 5)
{}
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablesense.daemon.config import ConfigError

SEATS = ("N", "E", "S", "W")


@dataclass(frozen=True)
class Round:
    number: int
    boards: frozenset[int]
    seating: dict[str, tuple[int, int]]  # table -> (NS pair, EW pair)


@dataclass(frozen=True)
class Movement:
    section: str | None = None
    pairs: dict[int, tuple[str, str]] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)  # table -> section
    players: dict[str, dict[str, str]] = field(default_factory=dict)  # table -> seat -> name
    rounds: tuple[Round, ...] = ()

    def at(self, table: str, board: int) -> dict[str, Any]:
        """What a board result says of who played ``board`` at ``table`` (keys only
        for what is known: ``section``, ``round``, ``ns_pair``, ``ew_pair``,
        ``players``)."""
        out: dict[str, Any] = {}
        section = self.sections.get(table, self.section)
        if section is not None:
            out["section"] = section
        players = dict(self.players.get(table, {}))
        for r in self.rounds:
            if board in r.boards and table in r.seating:
                ns, ew = r.seating[table]
                out.update({"round": r.number, "ns_pair": ns, "ew_pair": ew})
                for pair, seats in ((ns, ("N", "S")), (ew, ("E", "W"))):
                    names = self.pairs.get(pair)
                    if names is not None:
                        for seat, name in zip(seats, names, strict=True):
                            players.setdefault(seat, name)
                break
        if players:
            out["players"] = {s: players[s] for s in SEATS if s in players}
        return out


def load_movement(path: Path) -> Movement:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(str(path), "", f"cannot read: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(path.name, "", f"not valid TOML: {exc}") from exc
    return parse_movement(data, path.name)


def _fail(source: str, key: str, problem: str) -> ConfigError:
    return ConfigError(source, key, problem)


def _int(value: Any, source: str, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _fail(source, key, f"expected a positive integer, got {value!r}")
    return value


def _name(value: Any, source: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(source, key, f"expected a name, got {value!r}")
    return value.strip()


def parse_movement(data: dict[str, Any], source: str, prefix: str = "") -> Movement:
    """Validate a movement (a file's whole document, or ``[feeds.movement]``)."""
    def key(k: str) -> str:
        return f"{prefix}{k}"

    unknown = sorted(set(data) - {"section", "pairs", "tables", "rounds"})
    if unknown:
        raise _fail(source, key(unknown[0]), "unknown key")
    section = None if data.get("section") is None else _name(data["section"], source,
                                                              key("section"))
    pairs: dict[int, tuple[str, str]] = {}
    for k, names in dict(data.get("pairs") or {}).items():
        where = key(f"pairs.{k}")
        if not str(k).isdigit() or int(k) < 1:
            raise _fail(source, where, "a pair is numbered from 1")
        if not isinstance(names, list) or len(names) != 2:
            raise _fail(source, where, f"expected the pair's two names, got {names!r}")
        pairs[int(k)] = (_name(names[0], source, where), _name(names[1], source, where))
    sections: dict[str, str] = {}
    players: dict[str, dict[str, str]] = {}
    for table, t in dict(data.get("tables") or {}).items():
        where = key(f"tables.{table}")
        if not isinstance(t, dict):
            raise _fail(source, where, "expected a table")
        bad = sorted(set(t) - {"section", "players"})
        if bad:
            raise _fail(source, f"{where}.{bad[0]}", "unknown key")
        if "section" in t:
            sections[str(table)] = _name(t["section"], source, f"{where}.section")
        for seat, name in dict(t.get("players") or {}).items():
            if seat not in SEATS:
                raise _fail(source, f"{where}.players.{seat}", "not a seat (N, E, S, W)")
            players.setdefault(str(table), {})[seat] = _name(name, source,
                                                             f"{where}.players.{seat}")
    rounds: list[Round] = []
    raw_rounds = data.get("rounds") or []
    if not isinstance(raw_rounds, list):
        raise _fail(source, key("rounds"), "expected a list of rounds ([[rounds]])")
    for i, r in enumerate(raw_rounds):
        where = key(f"rounds[{i}]")
        if not isinstance(r, dict):
            raise _fail(source, where, "expected a table")
        bad = sorted(set(r) - {"round", "boards", "seating"})
        if bad:
            raise _fail(source, f"{where}.{bad[0]}", "unknown key")
        number = _int(r.get("round"), source, f"{where}.round")
        boards = r.get("boards")
        if not isinstance(boards, list) or not boards:
            raise _fail(source, f"{where}.boards", f"expected a list of boards, got {boards!r}")
        seating: dict[str, tuple[int, int]] = {}
        for table, pr in dict(r.get("seating") or {}).items():
            w = f"{where}.seating.{table}"
            if not isinstance(pr, list) or len(pr) != 2:
                raise _fail(source, w, f"expected [NS pair, EW pair], got {pr!r}")
            ns, ew = _int(pr[0], source, w), _int(pr[1], source, w)
            for p in (ns, ew):
                if pairs and p not in pairs:
                    raise _fail(source, w, f"pair {p} is not in [pairs]")
            seating[str(table)] = (ns, ew)
        rounds.append(Round(number, frozenset(_int(b, source, f"{where}.boards")
                                              for b in boards), seating))
    return Movement(section, pairs, sections, players, tuple(rounds))
