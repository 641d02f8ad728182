"""The reader firmware under poll-level noise (firmware/sim/noise.py), bounded and loopback only.

Unit checks of the debouncer's filters and of the cross-talk probe run under
CPython (fast). Then the unmodified firmware in the real MicroPython VM:
a scripted hand at North, with East's and West's cards lying in their table
and trick zones (cross-talk), under the club profile, must report exactly the
scenario's true observations: once in virtual time (firmware/sim/
vrun.py, deterministic, with the noise's own counts to show it was there) and
once in real time behind a pty, through the noisy wire (late and corrupted
frames, recovered by RESEND as the daemon's link does).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import SHARED_DIR
from tablesense.daemon.sequence import Sequencer
from tablesense.onboard.debounce import Debouncer as HostDebouncer
from tablesense.onboard.wire import codec
from tablesense.sim.firmware import expected_observations, find_micropython, start_reader
from tablesense.sim.noise import load_profile

FW = Path(__file__).resolve().parents[1] / "firmware"  # on sys.path (conftest.py)

from debounce import Debouncer  # noqa: E402
from mfrc522 import MFRC522SPI  # noqa: E402
from pollnoise import SIGNAL_ON, SIGNAL_XTALK, SIGNAL_XTALK_STRONG, boundary  # noqa: E402
from sim.bus import SimSPI  # noqa: E402
from sim.rc522 import SimMFRC522  # noqa: E402
from sim.tags import NTAG213, card_uid  # noqa: E402

HAND = ("hand", "down", "above", None, None)
TABLE = ("table", "unknown", "at", None, None)
TRICK = ("trick", "up", "at", None, None)
WEAK_TABLE = ("table", "unknown", "at", None, 0.3)
DECK = [s + r for s in "SHDC" for r in "AKQJT98765432"]
NORTH = ["SA", "SK", "SQ", "S9", "HA", "H7", "H3", "DK", "D8", "D2", "CA", "C9", "C4"]


def feed(d: Any, scans: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, str, Any]]:
    out = []
    for now, seen in scans:
        out += [(now, c, o) for c, o in d.update(now, seen)]
    return out


def deal(d: Any, t: int = 0) -> int:
    """North's 13 cards into the hand, reported: the reader knows its deal."""
    for _ in range(4):
        d.update(t, dict.fromkeys(NORTH, HAND))
        t += 20
    assert len(d.own) == 13
    return t


def flicker_changes(seed: int, before: tuple[Any, ...], a: tuple[Any, ...],
                    b: tuple[Any, ...]) -> list[str]:
    """SA lies in ``before``; then rests on the a/b boundary for 300 ms (answering on
    either antenna at random, 5 % missed reads), then lies in ``b``: the zones reported."""
    d = Debouncer(ms=40)
    t = deal(d)
    rng = random.Random(seed)
    changes = []
    for i in range(10 + 15 + 15):
        seen = dict.fromkeys(NORTH, HAND)
        seen["SA"] = before if i < 10 else b if i >= 25 else a if rng.random() < 0.5 else b
        if rng.random() < 0.05:
            del seen["SA"]
        changes += d.update(t, seen)
        t += 20
    return [o[0] for c, o in changes if c == "SA" and o[0] != before[0]]


def test_a_flickering_card_changes_zone_once() -> None:
    for seed in range(100):
        # dummy's card played across the table/trick boundary
        assert flicker_changes(seed, TABLE, TABLE, TRICK) == ["trick"], seed
        # a card quitted across it: once out of the trick zone, never back
        assert flicker_changes(seed, TRICK, TRICK, TABLE) == ["table"], seed
        # played from the hand, resting between the table and trick zones: it may show on
        # the table on its way (the engine's transit), never back
        assert flicker_changes(seed, HAND, TABLE, TRICK) in (["trick"], ["table", "trick"]), seed


def test_missed_reads_and_a_sorted_hand_are_not_gone() -> None:
    d = Debouncer(ms=40)
    t = deal(d)
    rng = random.Random(1)
    changes = []
    for i in range(200):
        seen = {c: HAND for c in NORTH if rng.random() > 0.05}  # 5 % missed reads
        if 50 <= i < 50 + 450 // 20:  # SK out of reach for 450 ms while the hand is sorted
            seen.pop("SK", None)
        changes += d.update(t, seen)
        t += 20
    assert changes == []
    for _ in range(40):  # really gone: reported, once
        changes += d.update(t, {})
        t += 20
    assert sorted(c for c, o in changes if o is None) == sorted(NORTH)
    assert d.own == {}  # the cards were gathered: the next deal is another


def test_cross_talk_is_rejected_by_owner_and_by_signal() -> None:
    d = Debouncer(ms=40)
    # before the deal is known a weak read of a card not our own counts for nothing,
    # a strong one does (it might be ours)
    assert feed(d, [(t, {"HK": WEAK_TABLE}) for t in range(0, 200, 20)]) == []
    assert d.suppressed["weak"] == 10
    t = deal(d, 200)
    # once it knows its 13 cards, even a strong read of another card is foreign
    assert feed(d, [(t + i * 20, {**dict.fromkeys(NORTH, HAND), "HK": TABLE})
                    for i in range(10)]) == []
    assert d.suppressed["foreign"] == 10
    # while a weak read of our own card is taken at face value (conf dropped)
    got = feed(d, [(t + 200 + i * 20, {**dict.fromkeys(NORTH, HAND), "SA": WEAK_TABLE})
                   for i in range(6)])
    assert [(c, o) for _, c, o in got] == [("SA", TABLE)]


def test_turning_a_card_where_it_lies_needs_more_evidence() -> None:
    d = Debouncer(ms=40)
    t = deal(d)
    up = ("hand", "up", "above", None, None)
    # a camera sees the card face up in the hand for 100 ms: not enough to turn it
    assert feed(d, [(t + i * 20, {**dict.fromkeys(NORTH, HAND), "SA": up})
                    for i in range(5)]) == []
    # held that way for longer than debounce + hold time: reported
    got = feed(d, [(t + 100 + i * 20, {**dict.fromkeys(NORTH, HAND), "SA": up})
                   for i in range(12)])
    assert [c for _, c, _ in got] == ["SA"] and got[0][0] - t >= 40 + 150


VM_DEBOUNCE = """
import json, sys
from debounce import Debouncer
d = Debouncer(ms=40)
for t, seen in json.load(open(sys.argv[1])):
    seen = {c: tuple(o[:3]) + (None if o[3] is None else tuple(o[3]), o[4])
            for c, o in seen.items()}
    print(json.dumps(d.update(t, seen)))
print(json.dumps([d.suppressed, sorted(d.own)]))
"""


def test_the_debouncer_commits_alike_under_micropython_and_cpython(tmp_path: Path) -> None:
    """One debouncer (tablesense/onboard/debounce.py) for the firmware and the Python reader:
    fed the same noisy scans, the MicroPython VM and CPython commit the same changes."""
    vm = _vm()
    zones = [HAND, TABLE, TRICK, WEAK_TABLE, ("table", "up", "at", ("E",), 0.8),
             ("floor", "unknown", "below", None, None), ("detached", "down", "above", (), 0.9)]
    rng = random.Random(7)
    cards = rng.sample(DECK, 16)
    where = dict.fromkeys(cards[:13], HAND)
    t = 0
    scans = []
    for _ in range(400):
        if rng.random() < 0.05:  # a move
            where[rng.choice(cards)] = rng.choice(zones)
        seen = {c: (rng.choice(zones) if rng.random() < 0.1 else z)
                for c, z in where.items() if rng.random() > 0.1}
        t += rng.choice((20, 20, 20, 40))
        scans.append((t, seen))
    host = HostDebouncer(ms=40)
    want = [json.loads(json.dumps(host.update(t, seen))) for t, seen in scans]
    want.append([host.suppressed, sorted(host.own)])
    assert sum(len(w) for w in want[:-1]) > 20  # the scans really moved cards
    (tmp_path / "scans.json").write_text(json.dumps(scans))
    (tmp_path / "run.py").write_text(VM_DEBOUNCE)
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(SHARED_DIR), ".frozen"]))
    out = subprocess.run([vm, str(tmp_path / "run.py"), str(tmp_path / "scans.json")],
                         env=env, capture_output=True, text=True, timeout=60, check=True)
    assert [json.loads(line) for line in out.stdout.splitlines()] == want


def test_the_probe_tells_a_weak_tag_from_a_strong_one() -> None:
    """The MFRC522 has no RSSI: a tag is strong when it still answers at 23 dB receiver gain."""
    spi = SimSPI()
    chip = SimMFRC522("table")
    drv = MFRC522SPI(spi, spi.attach(chip), clock_us=chip.clock.ticks_us,
                     sleep=chip.clock.sleep_us)
    drv.init()
    tags = {c: NTAG213(card_uid(c), c) for c in ("SA", "SK", "HK")}
    signal = {"SA": SIGNAL_ON, "SK": SIGNAL_XTALK_STRONG, "HK": SIGNAL_XTALK}
    chip.hook = lambda _chip: [(tags[c], signal[c]) for c in tags]
    drv.field(True)
    found = drv.inventory()
    assert sorted(u for u, _ in found) == sorted(card_uid(c) for c in tags)  # all heard at 33 dB
    assert {c: drv.answers(card_uid(c), 1) for c in tags} == {"SA": True, "SK": True,
                                                              "HK": False}
    assert drv.errors == 0  # a weak answer is no sensor error
    drv.field(False)  # the scan's next poll: field off, on again, every tag found
    drv.field(True)
    assert len(drv.inventory()) == 3


def test_a_card_on_a_boundary_shows_the_zone_it_came_through() -> None:
    hand = {"zone": "hand", "face": "down"}
    trick = {"zone": "trick", "face": "up", "level": "at"}
    table = {"zone": "table", "face": "down", "level": "at"}
    assert boundary(hand, trick)["zone"] == "table"  # played: it crossed the table zone
    assert boundary(trick, table)["zone"] == "trick"  # quitted: half still in the trick zone
    assert boundary(table, hand)["zone"] == "table"
    assert boundary(hand, {"zone": "floor"}) is None  # the level sensor's business
    assert boundary(None, hand) is None


# -- the firmware in the real VM ------------------------------------------------------

def _vm() -> str:
    try:
        vm = find_micropython()
    except RuntimeError:
        pytest.skip("no MicroPython VM")
    if not shutil.which(vm):
        pytest.skip("no MicroPython VM")
    return vm


def scenario(path: Path) -> Path:
    """North: a dealt hand, two tricks (hand -> trick -> table), a card dropped face up on
    the table and picked up, a card below the table; East and West keep cards in their
    table and trick zones, next to North's antennas, all the while."""
    lines: list[dict[str, Any]] = []

    def add(t: int, seat: str, card: str, zone: str, face: str = "down",
            level: str = "above") -> None:
        lines.append({"t": t, "seat": seat, "card": card, "zone": zone, "face": face,
                      "level": level})

    for c in NORTH:
        add(0, "N", c, "hand")
    for i, c in enumerate(["HK", "HQ", "HJ", "D3"]):
        add(100 + 50 * i, "E", c, "table", "up", "at")  # dummy's display
    for i, c in enumerate(["CK", "CQ"]):
        add(300 + 50 * i, "W", c, "table", "down", "at")  # quitted tricks
    add(500, "W", "S2", "trick", "up", "at")
    add(900, "N", "SA", "trick", "up", "at")
    add(900, "E", "HJ", "trick", "up", "at")
    add(1900, "N", "SA", "table", "down", "at")
    add(1900, "E", "HJ", "table", "down", "at")
    add(1900, "W", "S2", "table", "down", "at")
    add(2600, "N", "H7", "table", "up", "at")  # dropped
    add(3600, "N", "H7", "hand")  # picked up
    add(4300, "N", "D2", "trick", "up", "at")
    add(4300, "W", "C2", "trick", "up", "at")
    add(5300, "N", "D2", "table", "down", "at")
    add(5300, "W", "C2", "table", "down", "at")
    add(6000, "N", "C4", "floor", "up", "below")  # held below the table
    add(7000, "N", "C4", "hand")
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def rfid_profile(**extra: Any) -> dict[str, Any]:
    """The club profile for an RFID reader, without *strong* cross-talk (a neighbour's
    card lying right across the boundary, heard at the probe's gain too). An RFID reader
    has no hand antenna, so it never learns its deal (debounce.py's ownership filter
    stays off) and reports such a card as its own: the host, which knows the deal from
    ``dealt``, is the one to drop it. Weak cross-talk is still filtered here."""
    return {**load_profile("club").poll_level(), "crosstalk_strong": 0, **extra}


def per_card(obs: list[dict[str, Any]]) -> dict[str, list[tuple[str, str, str]]]:
    out: dict[str, list[tuple[str, str, str]]] = {}
    for o in obs:
        out.setdefault(o["card"], []).append((o["zone"], o["face"], o["level"]))
    return out


@pytest.mark.parametrize("chip", ["pn5180", "mfrc522"])
def test_the_firmware_in_the_vm_reports_the_truth_under_club_noise(
        tmp_path: Path, chip: str) -> None:
    vm = _vm()
    scen = scenario(tmp_path / "s.jsonl")
    noise = tmp_path / "club.json"
    noise.write_text(json.dumps(rfid_profile()))
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(FW), str(SHARED_DIR), ".frozen"]))
    want = per_card(expected_observations(scen, "N"))
    totals: dict[str, int] = {}
    for seed in (1, 2, 3):
        out = subprocess.run([vm, str(FW / "sim" / "vrun.py"), "--seat", "N", "--scenario",
                              str(scen), "--noise", str(noise), "--noise-seed", str(seed),
                              "--chip", chip],
                             env=env, capture_output=True, text=True, timeout=60, check=True)
        lines = [json.loads(x) for x in out.stdout.splitlines()]
        stats = lines.pop()["stats"]
        assert per_card(lines) == want, (seed, stats)
        assert stats["timeouts"] > 0, stats  # empty antennas ended on the chip's timer
        for k, v in {**stats["noise"], **stats["suppressed"]}.items():
            totals[k] = totals.get(k, 0) + v
    # the noise was there, and the firmware's filters had work to do
    assert totals["missed"] > 100 and totals["crosstalk"] > 0, totals
    if chip == "mfrc522":  # its lowered receiver gain tells a neighbour's card (weak);
        assert totals["weak"] > 0, totals  # the PN5180 port has no such probe yet


def test_the_firmware_in_the_vm_behind_a_noisy_wire(tmp_path: Path) -> None:
    """Real time, through the pty: late and corrupted frames; what the host's Sequencer
    (asking for RESEND as the daemon's link does) delivers is the scenario's truth."""
    _vm()
    scen = scenario(tmp_path / "s.jsonl")
    # losses for sure: an RFID reader sends fewer frames (no hand), so a higher rate
    profile = rfid_profile(reorder=0.4)
    want = per_card(expected_observations(scen, "N"))
    r = start_reader("N", scen, scan_ms=20, debounce_ms=40, noise=profile, noise_seed=7)
    try:
        import serial

        port = serial.serial_for_url(r.port, timeout=0.05)
        dec = codec.Decoder()
        seq = Sequencer(resend_timeout_ms=150)
        got: list[dict[str, Any]] = []
        bad = 0
        deadline = time.monotonic() + 25
        configured = False
        while time.monotonic() < deadline and per_card(got) != want:
            now = int(time.monotonic() * 1000)
            for item in dec.feed(port.read(max(1, port.in_waiting))):
                if not isinstance(item, codec.Frame):
                    bad += 1
                    continue
                if item.mtype == codec.HELLO and not configured:
                    port.write(codec.encode(codec.CONFIG, {"seat": "N", "scan_ms": 20,
                                                           "debounce_ms": 40}, 1, 0))
                    configured = True
                for f, _ in seq.accept(item, now):
                    if f.mtype == codec.OBSERVE:
                        got.append(dict(f.fields))
            for f, _ in seq.tick(now):
                if f.mtype == codec.OBSERVE:
                    got.append(dict(f.fields))
            ask = seq.take_resend()
            if ask is not None:
                port.write(codec.encode(codec.RESEND, {"from_seq": ask}, 1, 1))
        port.close()
        diff = {c: (want.get(c), per_card(got).get(c)) for c in set(want) | set(per_card(got))
                if want.get(c) != per_card(got).get(c)}
        assert not diff, (diff, seq.counters, r.log)
        assert bad > 0 and seq.counters["resends"] > 0, (bad, seq.counters)  # lost, and resent
    finally:
        r.stop()
