"""The PN5180 driver (firmware/pn5180.py) on the simulated chip (firmware/sim/pn5180_chip.py).

Under CPython (fast), the driver unmodified: the BUSY handshake, reset and versions,
ISO/IEC 15693 exchanges on the virtual clock (air time at 26.48 kbit/s, TIMER1 when no
tag answers), the 16-slot anticollision reading a whole stack, blocks written and
locked, two fields at once, a dead chip and a broken antenna port; and in the
MicroPython VM, that the driver's register path allocates nothing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import SHARED_DIR
from tablesense.sim.firmware import SimError, find_micropython

FW = Path(__file__).resolve().parents[1] / "firmware"

from pn5180 import PN5180, Mux, PN5180Error, PN5180Port, hard_reset  # noqa: E402
from sim.bus import SimPin, SimSPI  # noqa: E402
from sim.clock import Air, SimClock  # noqa: E402
from sim.pn5180_chip import (  # noqa: E402
    T1_US,
    SimPN5180,
    answer_us,
    request_us,
)
from sim.tags import SLIX2, card_uid15693  # noqa: E402

DECK = [s + r for s in "SHDC" for r in "AKQJT98765432"]


def seat(zones: tuple[str, ...] = ("trick", "table", "floor"), air: Any = None,
         clock: Any = None) -> tuple[SimPN5180, PN5180, list[PN5180Port]]:
    sim = SimPN5180(zones, clock or SimClock(), air or Air())
    spi = SimSPI()
    drv = PN5180(spi, spi.attach(sim), sim.busy_pin, clock_us=sim.clock.ticks_us,
                 sleep=sim.clock.sleep_us)
    mux = Mux(sim.mux_pins)
    return sim, drv, [PN5180Port(drv, mux, k) for k in range(len(zones))]


def place(sim: SimPN5180, zone: str, cards: list[str], **kw: Any) -> None:
    port = next(p for p in sim.ports if p.name == zone)
    for c in cards:
        port.place(SLIX2.for_card(c, c, None), **kw)


def test_reset_pulse_then_init_reads_the_versions_and_loads_iso15693() -> None:
    sim, drv, _ = seat()
    levels: list[int] = []
    slept: list[int] = []
    hard_reset(SimPin(1, levels.append), slept.append)
    assert levels == [0, 1] and slept == [10]  # RESET_N low >= 10 us (data sheet)
    assert drv.init() == 0x0305 and drv.firmware == 0x0305
    assert sim.rf_config == (0x0D, 0x8D)  # ISO 15693 ASK100, 26 kbit/s
    assert sim.regs[0x0F] == 0x0010081D  # TIMER1: 848 kHz, start on TX end, stop on RX


def test_an_absent_chip_is_a_pn5180_error_not_a_hang() -> None:
    sim, drv, _ports = seat()
    sim.present = False  # BUSY never rises, MISO reads high
    t0 = sim.clock.us
    with pytest.raises(PN5180Error):
        drv.init()
    assert 10_000 <= sim.clock.us - t0 < 100_000  # bounded by the driver's own clocks


def test_one_tag_costs_the_iso15693_air_time() -> None:
    sim, drv, ports = seat()
    place(sim, "table", ["SA"])
    ports[1].init()
    ports[1].field(True)
    sim.irq_wait = True  # the driver's polls jump to the exchange's end: air time only
    t0 = sim.clock.us
    assert drv.inventory([]) == [card_uid15693("SA")]
    took = sim.clock.us - t0
    air = request_us(3) + T1_US + answer_us(10)  # one-slot INVENTORY and its answer
    assert air == pytest.approx(1623.68 + 320.9 + 3927.04)
    assert air <= took < air + 1000  # + the dozen register frames around it (~40 us each)
    assert sim.timeouts == 0


def test_an_empty_antenna_ends_on_timer1_the_drivers_timeout_path() -> None:
    sim, drv, ports = seat()
    ports[0].init()
    ports[0].field(True)
    t0 = sim.clock.us
    assert drv.inventory([]) == []
    assert sim.timeouts == 1 and drv.timeouts == 1  # TIMER1_IRQ, not an answer
    # request, then TIMER1's reload (500 us of 1.18 us ticks) from its end
    assert sim.clock.us - t0 >= request_us(3) + 500


def test_a_chip_whose_timer_never_fires_is_dead_after_the_drivers_bound() -> None:
    sim, drv, ports = seat()
    ports[0].init()
    ports[0].field(True)
    sim.regs[0x0F] = 0  # TIMER1 off: nothing ends the wait on the chip's side
    t0 = sim.clock.us
    with pytest.raises(PN5180Error, match="no IRQ"):
        drv.inventory([])
    assert sim.clock.us - t0 >= 8_000


def test_a_stack_of_tags_is_all_read_by_the_slots_and_masks() -> None:
    sim, drv, ports = seat()
    cards = DECK[:13] + DECK[26:30]  # 17 tags on one loop: slots collide, masks go deeper
    place(sim, "table", cards)
    ports[1].init()
    ports[1].field(True)
    got = drv.inventory([], max_tags=40)
    assert sorted(got) == sorted(card_uid15693(c) for c in cards)
    assert len(got) == len(set(got))
    assert drv.errors == 0


def test_blocks_are_written_locked_and_read_back_with_their_lock_status() -> None:
    sim, _drv, ports = seat()
    place(sim, "trick", ["HT"])
    p = ports[0]
    p.init()
    p.field(True)
    uid = card_uid15693("HT")
    assert p.identities() == [(uid, ("HT", None, False))]  # the card's own code, no deck
    assert p.write_identity(uid, "SA", 7)
    assert p.identities() == [(uid, ("SA", 7, True))]
    assert not p.write_identity(uid, "SK", 8)  # locked: the tag answers with an error
    assert p.identities() == [(uid, ("SA", 7, True))]


def test_the_multiplexer_puts_the_field_on_one_antenna_at_a_time() -> None:
    sim, _drv, ports = seat()
    place(sim, "trick", ["SA"])
    place(sim, "floor", ["C4"])
    ports[0].init()
    for k, (port, want) in enumerate(zip(ports, (["SA"], [], ["C4"]), strict=True)):
        port.field(True)
        assert sim.channel == k and sim.port is sim.ports[k]
        assert [u for u, _ in port.inventory()] == [card_uid15693(c) for c in want]
        port.field(False)
        assert not sim.field_on


def test_two_readers_fields_on_at_once_read_nothing() -> None:
    clock, air = SimClock(), Air()
    a_sim, a, a_ports = seat(("trick",), air, clock)
    _b_sim, _b, b_ports = seat(("trick",), air, clock)
    place(a_sim, "trick", ["SA"])
    a_ports[0].init()
    b_ports[0].init()
    a_ports[0].field(True)
    b_ports[0].field(True)  # the next seat's board, out of its time slot
    assert a.inventory([]) == [] and air.clashes > 0
    b_ports[0].field(False)
    assert a.inventory([]) == [card_uid15693("SA")]


def test_reads_fall_with_height_and_a_heap_detunes() -> None:
    sim, _drv, ports = seat()
    place(sim, "table", ["SA"], height_mm=30)  # past the 25 mm reach
    place(sim, "table", ["SK", "SQ", "SJ", "ST"], stack=4)  # each answers 1 poll in 3
    import random

    sim.rng = random.Random(5)
    ports[1].init()
    counts = []
    for _ in range(60):
        ports[1].field(True)
        got = [u for u, _ in ports[1].inventory()]
        assert card_uid15693("SA") not in got
        counts.append(len(got))
        ports[1].field(False)
    assert 0 < sum(counts) / len(counts) < 4 * 0.6, counts


def test_a_broken_port_is_held_and_the_others_still_read() -> None:
    """A cut cable or a dead multiplexer channel: its field is never reported up; the
    scanner reports FAULT 3 for that zone and keeps reading the others."""
    from cards import CardMap
    from zones import RfidScanner

    sim, _drv, ports = seat()
    place(sim, "trick", ["SA"])
    place(sim, "table", ["HK"])
    sc = RfidScanner(list(zip(("trick", "table", "floor"), ports, strict=True)), CardMap(),
                     settle_ms=5)
    sc.init()
    sim.ports[1].alive = False
    for i in range(3):
        if sc.begin(i) >= 0:
            sc.read(i)
    assert sc.take_faults() == [(3, "table", 1)]
    assert sc.held() == ["table"]
    assert sc.scan() == {"SA": ("trick", "unknown", "at", None, None)}


VM_ALLOC = r"""
import gc
from pn5180 import PN5180

class Pin:
    def __init__(self):
        self.n = 0
    def value(self, v=None):
        if v is None:  # BUSY: low, high (frame taken), low (done), ...
            self.n += 1
            return (self.n // 2) & 1
        return None

class SPI:  # a bus that answers nothing and allocates nothing
    def write(self, b):
        pass
    def write_readinto(self, b, into):
        pass

chip = PN5180(SPI(), Pin(), Pin(), clock_us=lambda: 0, sleep=lambda us: None)
mask = b"\xf8\xff\xff\xff"
def work():
    for _ in range(20):
        chip.write_register(0x03, 0x000FFFFF)
        chip.and_mask(0x00, mask)
        chip.or_mask(0x00, mask)
        chip.read_register(0x02)
        chip.read_eeprom(0x12, 2)
        chip._send(5)
        chip._send(0, True)
work()
gc.collect()
gc.disable()
before = gc.mem_alloc()
work()
print("alloc", gc.mem_alloc() - before)
"""


def test_the_drivers_register_path_allocates_nothing_in_the_vm(tmp_path: Path) -> None:
    try:
        vm = find_micropython()
    except SimError:
        pytest.skip("no MicroPython VM")
    script = tmp_path / "alloc.py"
    script.write_text(VM_ALLOC)
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(FW), str(SHARED_DIR), ".frozen"]))
    done = subprocess.run([vm, str(script)], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["alloc", "0"], done.stdout
