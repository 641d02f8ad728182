"""Measure the noise handling: the same boards replayed clean and noisy.

For each board the robots play (some with a scripted true exposure), the
clean journal gives the reference rulings; the noisy journal (a profile
applied by :class:`tablesense.sim.noise.NoiseModel`) gives what a daemon would
rule. A noisy penalty or director ruling with no clean twin is a false alarm;
a clean one with no noisy twin is missed; a twin with another kind, options or
severity is wrong; the twins' time difference is the added detection latency.
"""

from __future__ import annotations

import json
import random
import statistics
from dataclasses import dataclass, field
from typing import Any

from tablesense.contract.events import parse_event
from tablesense.engine import Engine, EngineError, Ruling
from tablesense.engine.incidents import THROWN_MS
from tablesense.engine.sensing import Tuning
from tablesense.laws import CODES
from tablesense.sim.noise import NoiseModel, Profile
from tablesense.sim.robots import MISHAPS, Board

Key = tuple[int, str | None, tuple[str, ...]]


@dataclass
class Result:
    profile: str
    boards: int = 0
    exposures: int = 0
    false_penalty: int = 0
    false_director: int = 0
    missed: int = 0
    wrong: int = 0
    latencies: list[int] = field(default_factory=list)
    detection: list[int] = field(default_factory=list)
    suppressed: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        return {
            "profile": self.profile, "boards": self.boards,
            "true_exposures": self.exposures, "false_penalty_alerts": self.false_penalty,
            "false_director_alerts": self.false_director, "missed_exposures": self.missed,
            "wrong_rulings": self.wrong,
            "added_latency_ms_median": statistics.median(lat) if lat else 0,
            "added_latency_ms_max": lat[-1] if lat else 0,
            "detection_latency_ms_median": (statistics.median(self.detection)
                                            if self.detection else 0),
            "detection_latency_ms_max": max(self.detection, default=0),
            "suppressed": self.suppressed,
        }


def rulings_of(events: list[dict[str, Any]], tuning: Tuning | None,
               engine_out: dict[str, dict[str, int]] | None = None,
               emitted: dict[str, int] | None = None) -> list[Ruling]:
    """Non-info rulings; ``emitted`` gets each ruling's id -> the time it came out
    (the event that closed its incident, as a daemon's clock would see it)."""
    eng = Engine(tuning=tuning, codes=CODES)
    out: list[Ruling] = []
    for ev in events:
        try:
            made = eng.apply(parse_event(json.loads(json.dumps(ev))))
        except EngineError:
            continue  # as replay does: reported, changes nothing
        out += made
        if emitted is not None:
            # A daemon's clock closes an incident at the end of its window at the latest.
            emitted.update({r.id: min(ev["t"], r.t + THROWN_MS) for r in made})
    made = eng.flush()
    out += made
    if emitted is not None:
        emitted.update({r.id: r.t + THROWN_MS for r in made})
    if engine_out is not None:
        for counts in eng.noise.values():
            for k, v in counts.items():
                engine_out.setdefault("_", {}).setdefault(k, 0)
                engine_out["_"][k] += v
    return [r for r in out if r.severity != "info"]


def key(r: Ruling) -> Key:
    return (r.board, r.offender, r.cards)


def evaluate(profile: Profile, boards: int, seed: int, tuning: Tuning | None = None,
             exposure_rate: float = 0.3) -> Result:
    rng = random.Random(seed)
    res = Result(profile.name)
    counters: dict[str, dict[str, int]] = {}
    for n in range(1, boards + 1):
        mishap = rng.choice(MISHAPS) if rng.random() < exposure_rate else None
        board_seed = rng.random()
        clean = list(Board("1", n, random.Random(board_seed), mishap=mishap).events())
        noisy = NoiseModel(profile, random.Random(board_seed + 1)).apply(
            json.loads(json.dumps(clean)))
        want = rulings_of(clean, tuning)
        emitted: dict[str, int] = {}
        got = rulings_of(noisy, tuning, counters, emitted)
        res.boards += 1
        res.exposures += len(want)
        want_by = {key(r): r for r in want}
        got_by = {key(r): r for r in got}
        for k, r in got_by.items():
            twin = want_by.get(k)
            if twin is None:
                if r.severity == "penalty":
                    res.false_penalty += 1
                else:
                    res.false_director += 1
                if len(res.examples) < 5:
                    res.examples.append(f"board {n}: false {r.kind} {r.cards} ({r.severity})")
            elif (twin.kind, twin.options, twin.severity) != (r.kind, r.options, r.severity):
                res.wrong += 1
                if len(res.examples) < 5:
                    res.examples.append(f"board {n}: {twin.kind} became {r.kind} {r.cards}")
            else:
                res.latencies.append(r.t - twin.t)
                res.detection.append(emitted[r.id] - twin.t)
        for k, r in want_by.items():
            if k not in got_by:
                res.missed += 1
                if len(res.examples) < 5:
                    res.examples.append(f"board {n}: missed {r.kind} {r.cards}")
    res.suppressed = counters.get("_", {})
    return res
