"""The engine's fast paths change nothing (issue 18).

``Engine._unchanged`` settles, in O(1) and before the sensing filter, the
incidents and the laws, an observation that re-reports a card where the engine
has it, or turns a played card face down once its trick is quitted.
``Engine._arrival`` counts a card played at its turn without the law's
``arrival``, ``before_play`` and ``after_play`` when the code says they have
nothing to do for it (``plain_play``: no obligation pending, a legal card).
``_arrives``, ``_quits`` and ``_displayed`` take a card played, a trick's quit and
dummy's cards on straight paths when nothing is open, and ``_advance`` closes a lone
group of one card without the general ordering. Here a sample of every kind of
journal the engine meets is replayed with the fast paths and without them: the
golden scenarios (under each code), irregular boards of every code, robot boards,
the same boards as noisy readers report them (re-reports, dropouts, cross-talk,
misreads at low confidence), and with trouble added where each fast path meets it
(``perturbed``). The rulings must be the same bytes, and so must each engine's
final state and noise counts.
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

from tablesense.contract.cards import partner
from tablesense.contract.events import Observe
from tablesense.documents.replay import Step, replay_lines, replay_steps
from tablesense.engine import Engine
from tablesense.engine.tracker import Position
from tablesense.engine.view import TableView
from tablesense.laws.duplicate2017 import Duplicate2017
from tablesense.proving.irregular import CODES, irregular_board
from tablesense.sim.noise import NoiseModel, load_profile
from tablesense.sim.robots import MISHAPS, Board

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


def dropped_before_quits(lines: list[str], seed: int, before: int = 420) -> list[str]:
    """The journal with a card of the hand dropped face up ``before`` ms before about
    every other trick is turned: at 420 ms its incident outlives the first card turned,
    not the last; at 700 ms the first card turned closes it (the transit window)."""
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
            if left and out[-1]["t"] < ev["t"] - before:
                out.append({"v": 1, "t": ev["t"] - before, "type": "observe", "seat": seat,
                            "card": left[-1], "zone": "table", "face": "up", "level": "at"})
        if ev["type"] == "observe" and ev["zone"] == "trick":
            played.add(ev["card"])
        out.append(ev)
    return [json.dumps(e, separators=(",", ":")) for e in out]


def _obs(t: int, seat: str, card: str, zone: str, face: str, **more: Any) -> dict[str, Any]:
    return {"v": 1, "t": t, "type": "observe", "seat": seat, "card": card, "zone": zone,
            "face": face, "level": "at", **more}


def perturbed(lines: list[str], seed: int, kind: str) -> list[str]:
    """The journal with one kind of trouble added where a fast path would meet it,
    at about every third card played (or trick turned):

    - ``crosstalk``: 100 ms before the card is played, his partner's reader senses it
      in his own hand (a conflict, never ended);
    - ``camera``: every reading an RFID tag's (faces unknown on the table), and 100 ms
      before the card is played a camera sees it in his partner's hand (readers
      disagree);
    - ``lifted``: 100 ms before the card is played, the card played before it is
      gone from its trick zone (lifted out of the RFID antenna's range);
    - ``substituted``: 400 ms after his card is played he takes it back (``gone``)
      and 300 ms later puts another card of his in its place;
    - ``swapped``: 400 ms after his card is played he puts another card of his beside
      it, takes the first back 150 ms later, and the second is sensed again (a reader
      re-reporting what it senses);
    - ``faint``: the card played, or turned face down, is read twice at a confidence
      below the filter's threshold (the second corroborates the first);
    - ``slow``: a player turns his card face down only after the next trick is
      complete;
    - ``auction``: while the auction is on, a player's card is put in his trick zone,
      lost for 300 ms and sensed there again (a dropout in the trick zone);
    - ``rfid east``: East's reader is an RFID reader (faces unknown on the table).
    """
    rng = random.Random(seed)
    events = [json.loads(line) for line in lines]
    hands: dict[str, list[str]] = {}
    out: list[dict[str, Any]] = []
    last_play: dict[str, Any] | None = None
    delayed: list[tuple[int, dict[str, Any]]] = []  # (plays to wait for, turned card)
    auction_done = False
    for i, ev in enumerate(events):
        nxt = events[i + 1]["t"] if i + 1 < len(events) else ev["t"] + 5000
        prev_t = out[-1]["t"] if out else 0
        if ev["type"] == "dealt" and ev.get("hands"):
            hands = {s: list(c) for s, c in ev["hands"].items()}
            auction_done = False
        if ev["type"] == "board":
            delayed = []
        is_obs = ev["type"] == "observe"
        play = is_obs and ev["zone"] == "trick" and ev.get("face") == "up"
        turned = is_obs and ev["zone"] == "table" and ev.get("face") == "down"
        pick = rng.random() < 0.35
        if kind == "rfid east" and is_obs and ev["seat"] == "E" and ev["zone"] in (
                "table", "floor"):
            ev = {**ev, "face": "unknown"}
        elif kind == "camera" and is_obs:
            if ev["zone"] in ("table", "floor"):
                ev = {**ev, "face": "unknown"}
            ev = {**ev, "source": "rfid"}
            if play and pick and ev["t"] - 100 > prev_t:
                out.append(_obs(ev["t"] - 100, partner(ev["seat"]), ev["card"], "hand", "up",
                                conf=0.9, source="camera"))
        elif kind == "crosstalk" and play and pick and ev["t"] - 100 > prev_t:
            out.append(_obs(ev["t"] - 100, partner(ev["seat"]), ev["card"], "hand", "down"))
        elif (kind == "lifted" and play and pick and last_play is not None
              and ev["t"] - 100 > prev_t):
            out.append({**last_play, "t": ev["t"] - 100, "zone": "gone", "face": "unknown"})
        elif kind == "faint" and (play or turned) and pick and nxt > ev["t"] + 10:
            out.append({**ev, "conf": 0.5})
            ev = {**ev, "t": ev["t"] + 10, "conf": 0.55}
        elif kind == "auction" and ev["type"] == "call" and not auction_done and nxt > ev[
                "t"] + 900 and hands:
            auction_done = True
            seat = ev["seat"]
            card = hands[seat][-1]
            out.append(ev)
            out += [_obs(ev["t"] + 100, seat, card, "trick", "up"),
                    _obs(ev["t"] + 500, seat, card, "gone", "unknown"),
                    _obs(ev["t"] + 800, seat, card, "trick", "up")]
            continue
        elif kind == "slow" and turned and out and out[-1].get("face") == "down" and pick:
            delayed.append((4, ev))
            continue
        out.append(ev)
        if play:
            for n, (wait, card_ev) in enumerate(delayed):
                delayed[n] = (wait - 1, card_ev)
            while delayed and delayed[0][0] <= 0 and nxt > ev["t"] + 50:
                out.append({**delayed.pop(0)[1], "t": ev["t"] + 50})
            seat = ev["seat"]
            if ev["card"] in hands.get(seat, ()):
                hands[seat].remove(ev["card"])
            if kind == "substituted" and pick and nxt > ev["t"] + 800 and hands.get(seat):
                out += [{**ev, "t": ev["t"] + 400, "zone": "gone", "face": "unknown"},
                        {**ev, "t": ev["t"] + 700, "card": hands[seat].pop()}]
            if kind == "swapped" and pick and nxt > ev["t"] + 800 and hands.get(seat):
                other = {**ev, "t": ev["t"] + 400, "card": hands[seat].pop()}
                out += [other, {**ev, "t": ev["t"] + 550, "zone": "gone", "face": "unknown"},
                        {**other, "t": ev["t"] + 700}]
            last_play = ev
    return [json.dumps(e, separators=(",", ":")) for e in out]


PERTURBATIONS = ("crosstalk", "camera", "lifted", "substituted", "swapped", "faint", "slow",
                 "auction", "rfid east")


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
    for before in (420, 700):  # (700: the dropped card's incident closes at the quit)
        yield (f"robots, cards dropped {before} ms before the quit",
               list(dropped_before_quits(clean, 18, before)), None)
    for kind in PERTURBATIONS:
        yield f"robots, {kind}", list(perturbed(clean, 18, kind)), None
        for code in CODES:
            for seed in range(6):
                lines = irregular_board(seed, code).lines()
                yield f"{code} seed {seed}, {kind}", list(perturbed(lines, seed, kind)), None
    # a card put in a trick zone once the board is over (passed out)
    deal = next(line for line in clean if '"dealt"' in line)
    dealt = json.loads(deal)
    north = dealt["hands"]["N"][0]
    yield "passed out, a card in the trick zone", [
        clean[0], deal, *(json.dumps({"v": 1, "t": dealt["t"] + 1000 * n, "type": "call",
                                      "seat": seat, "call": "P"})
                          for n, seat in enumerate(("NESW" * 2)[
                              "NESW".index(dealt.get("dealer") or "N"):][:4], 1)),
        json.dumps(_obs(dealt["t"] + 5000, "N", north, "trick", "up")),
        json.dumps(_obs(dealt["t"] + 7000, "N", north, "hand", "down"))], None


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
    straight: dict[str, list[bool]] = {"_arrives": [], "_quits": [], "_displayed": []}

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
    # cards played, tricks quitted and dummy's cards spread on the straight paths, and
    # offered to them and left to the general path (something open)
    for name, done in straight.items():
        assert done.count(True) > 500 and done.count(False) > 50, (
            name, done.count(True), done.count(False))


def test_replay_lines_is_replay_steps_written_out() -> None:
    """``replay_lines`` repeats ``replay_steps``'s loop without the steps (for speed):
    the same rulings and error lines, in the same order, on every journal here."""
    def flat(steps: Iterator[Step]) -> Iterator[str]:
        for step in steps:
            if step.error is not None:
                yield step.error
            yield from (json.dumps(r.to_json()) for r in step.rulings)

    for name, lines, code in list(journals())[::3]:  # (a third of them: enough)
        want = list(flat(replay_steps(lines, code)))
        got = [x if isinstance(x, str) else json.dumps(x.to_json())
               for x in replay_lines(lines, code)]
        assert got == want, name
    # and lines that are not valid, each at its place
    broken = [b'{"v":1,"t":5,"type":"call","seat":"N","call":"P"}', b"not json",
              b'{"v":1,"t":0,"type":"board","table":"1","board":1,"dealer":"N"}',
              b'{"v":1,"t":9,"type":"call","seat":"Q","call":"P"}']
    out = list(replay_lines(broken))
    assert out == list(flat(replay_steps(broken)))
    assert [str(x)[:7] for x in out] == ["line 1:", "line 2:", "line 3:", "line 4:"]
