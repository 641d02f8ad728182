"""The engine's fast paths change nothing (issue 18).

``Engine._unchanged`` settles, in O(1) and before the sensing filter, the
incidents and the laws, an observation that re-reports a card where the engine
has it, or turns a played card face down once its trick is quitted.
``Engine._arrival`` counts a card played at its turn without the law's
``arrival``, ``before_play`` and ``after_play`` when the code says they have
nothing to do for it (``plain_play``: no obligation pending, a legal card). Here a
sample of every kind of journal the engine meets is replayed with the fast path
and without it: the golden scenarios (under each code), irregular boards of
every code, robot boards, and the same boards as noisy readers report them
(re-reports, dropouts, cross-talk, misreads at low confidence). The rulings must
be the same bytes, and so must each engine's final state and noise counts.
(The whole corpus, 2,000 storm boards and more, was compared the same way when
the fast path was made: see BENCHMARKS.md, "Replay".)
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablesense.engine import Engine
from tablesense.engine.tracker import Position
from tablesense.engine.view import TableView
from tablesense.events import Observe
from tablesense.irregular import CODES, irregular_board
from tablesense.laws.duplicate2017 import Duplicate2017
from tablesense.noise import NoiseModel, load_profile
from tablesense.replay import replay_steps
from tablesense.robots import MISHAPS, Board

HERE = Path(__file__).parent
GOLDEN = sorted(p for p in (HERE / "scenarios").glob("*/*.jsonl")
                if not p.name.endswith(".rulings.jsonl"))
GOLDEN += sorted((HERE.parent / "examples" / "journals").glob("*.jsonl"))


def robot_lines(boards: int, seed: int, profile: str | None) -> Iterator[str]:
    rng = random.Random(seed)
    t0 = 0
    noise = load_profile(profile) if profile else None
    for n in range(1, boards + 1):
        mishap = rng.choice(MISHAPS) if rng.random() < 0.3 else None
        board_seed = rng.random()
        board = Board("1", n, random.Random(board_seed), t0=t0, mishap=mishap)
        events: list[dict[str, Any]] = json.loads(json.dumps(list(board.events())))
        t0 = board.t + 5000
        if noise is not None:
            events = NoiseModel(noise, random.Random(board_seed + 1)).apply(events)
        yield from (json.dumps(e, separators=(",", ":")) for e in events)


def rereported(lines: list[str], seed: int, rfid: bool) -> list[str]:
    """The journal as a reader that reports again what it still senses: about every
    other observation once more before the next event; with ``rfid``, as an RFID reader
    that cannot see faces (``unknown`` on the table and the floor)."""
    rng = random.Random(seed)
    events = [json.loads(line) for line in lines]
    out = []
    for i, ev in enumerate(events):
        if rfid and ev["type"] == "observe" and ev["zone"] in ("table", "floor"):
            ev["face"] = "unknown"
        out.append(ev)
        if ev["type"] == "observe" and rng.random() < 0.5:
            nxt = events[i + 1]["t"] if i + 1 < len(events) else ev["t"] + 80
            out.append({**ev, "t": (ev["t"] + nxt) // 2})
    return [json.dumps(e, separators=(",", ":")) for e in out]


def dropped_before_quits(lines: list[str], seed: int) -> list[str]:
    """The journal with a card of the hand dropped face up 420 ms before about every
    other trick is turned: its incident outlives the first card turned, not the last."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    hands: dict[str, list[str]] = {}
    played: set[str] = set()
    for ev in (json.loads(line) for line in lines):
        if ev["type"] == "dealt":
            hands = {s: list(c) for s, c in ev["hands"].items()}
        turned = ev["type"] == "observe" and ev["zone"] == "table" and ev["face"] == "down"
        first = not (out and out[-1]["type"] == "observe" and out[-1]["face"] == "down")
        if turned and first and rng.random() < 0.5:
            seat = rng.choice("NESW")
            left = [c for c in hands.get(seat, ()) if c not in played]
            if left and out[-1]["t"] < ev["t"] - 420:
                out.append({"v": 1, "t": ev["t"] - 420, "type": "observe", "seat": seat,
                            "card": left[-1], "zone": "table", "face": "up", "level": "at"})
        if ev["type"] == "observe" and ev["zone"] == "trick":
            played.add(ev["card"])
        out.append(ev)
    return [json.dumps(e, separators=(",", ":")) for e in out]


def journals() -> Iterator[tuple[str, list[str | bytes], str | None]]:
    for path in GOLDEN:
        lines: list[str | bytes] = list(path.read_bytes().splitlines())
        yield path.name, lines, None
        for code in CODES:
            yield f"{path.name}@{code}", lines, code
    for code in CODES:
        for seed in range(30):  # (RFID: faces unknown that a whole hand may make shown)
            lines = irregular_board(seed, code).lines()
            yield f"{code} seed {seed}, RFID", list(rereported(lines, seed, True)), None
            if seed < 12:
                yield f"{code} seed {seed}", list(lines), None
                yield f"{code} seed {seed}, re-reported", list(rereported(lines, seed, False)), None
    for profile in (None, "club", "hostile"):
        yield f"robots {profile}", list(robot_lines(30, 18, profile)), None
    clean = list(robot_lines(30, 18, None))
    yield "robots, cards dropped", list(dropped_before_quits(clean, 18)), None


def replayed(lines: list[str | bytes], code: str | None) -> tuple[bytes, str]:
    out: list[str] = []
    engines: dict[int, Engine] = {}
    for n, step in enumerate(replay_steps(lines, code)):
        if step.engine is not None:
            engines[id(step.engine)] = step.engine
        if step.error is not None:
            out.append(step.error)
        # each ruling with the step that made it: a daemon publishes it then
        out += [f"{n} " + json.dumps(r.to_json(), ensure_ascii=False, separators=(",", ":"))
                for r in step.rulings]
    state = json.dumps([[e.snapshot(), e.noise] for e in engines.values()],
                       sort_keys=True, default=str)
    return "\n".join(out).encode(), state


def test_replays_are_the_same_bytes_with_and_without_the_fast_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[Observe] = []
    unchanged = Engine._unchanged
    plain: list[bool] = []
    plain_play = Duplicate2017.plain_play
    straight: dict[str, list[bool]] = {"_arrives": [], "_quits": []}

    def counting(self: Engine, o: Observe, prev: Position) -> bool:
        done = unchanged(self, o, prev)
        if done:
            taken.append(o)
        return done

    def asked(self: Duplicate2017, tv: TableView, seat: str, card: str) -> bool:
        yes = plain_play(self, tv, seat, card)
        plain.append(yes)
        return yes

    def tallied(name: str) -> Callable[[Engine, Observe, Position], bool]:
        path = getattr(Engine, name)

        def tally(self: Engine, o: Observe, prev: Position) -> bool:
            done: bool = path(self, o, prev)
            straight[name].append(done)
            return done
        return tally

    monkeypatch.setattr(Engine, "_unchanged", counting)
    monkeypatch.setattr(Duplicate2017, "plain_play", asked)
    for name in straight:
        monkeypatch.setattr(Engine, name, tallied(name))
    corpus = list(journals())
    fast = [replayed(lines, code) for _, lines, code in corpus]
    monkeypatch.setattr(Engine, "fast_path", False)
    monkeypatch.setattr(Engine, "plain_plays", False)
    slow = [replayed(lines, code) for _, lines, code in corpus]
    for (name, _, _), a, b in zip(corpus, fast, slow, strict=True):
        assert a[0] == b[0], f"{name}: the rulings differ with the fast path"
        assert a[1] == b[1], f"{name}: the engine's final state differs with the fast path"
    # The comparison means something only if the fast path was taken, both ways.
    repeats = sum(o.zone != "table" or o.face != "down" for o in taken)
    turned = len(taken) - repeats
    assert repeats > 100 and turned > 1000, (repeats, turned)
    # and plays were counted both ways: plainly, and through the hooks of a code
    # with an obligation pending
    assert plain.count(True) > 1000 and plain.count(False) > 50, (
        plain.count(True), plain.count(False))
    # cards played and tricks quitted on the straight paths, and offered to them and
    # left to the general path (something open)
    for name, done in straight.items():
        assert done.count(True) > 500 and done.count(False) > 50, (
            name, done.count(True), done.count(False))
