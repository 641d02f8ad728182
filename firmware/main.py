"""Board entry point (Raspberry Pi Pico, MicroPython): wire the hardware, run the reader.

Table build, the default (hardware/README.md, section 10): SPI0 SCK GP18, MOSI GP19,
MISO GP16 at 7 MHz (the PN5180's limit); PN5180 NSS GP17, BUSY GP20, RESET_N GP22
(pulsed at boot: pn5180.hard_reset); the RF multiplexer's select lines GP10, GP11
choose the antenna (``antennas.txt`` order: channel 0, 1, ..). ``chip.txt`` holding
``mfrc522`` selects the bench build instead: SPI at 10 MHz, MFRC522 chip-selects GP17
(trick), GP20 (table), GP21 (floor), shared NRSTPD GP22 (mfrc522.hard_reset). Either
way the table's sync line is GP12 (North drives it, the others listen). Frames go out
over USB CDC (stdout) when it can take them, and host frames come in on stdin, so
the REPL's Ctrl-C is turned off (MAINT stop gives the REPL back).

``seat.txt`` (one letter) and ``deck.txt`` (UID CARD lines) on the flash are
optional: the host's CONFIG sets the seat, and tags carry their card code.
``key.txt`` (hex, the same key as the host's ``tables.<t>.readers.<seat>.key``)
makes the reader sign its frames (hardware/protocol.md section 2a).
Firmware updates over the wire (``tablesense firmware update``) go through update.py;
boot.py (fwboot.py) installs them, runs them on trial and reverts an unconfirmed one.
``noise.txt`` (``hold_ms``, ``gone_ms``, ``min_conf`` lines) overrides the
debouncer's noise defaults (debounce.py, ``tune``); a line it cannot apply
is skipped, the default kept. ``antennas.txt`` lists the zones fitted, one a
line in multiplexer channel (or chip-select) order: default ``trick``, ``table``,
``table``, ``floor`` for the PN5180 build (section 3: the trick loop, the two table
loops, the floor mat), ``trick``, ``table`` for the bench build (an MFRC522 cannot
drive a floor mat); the HELLO claims exactly those.
"""

import asyncio
import select
import sys
import time

import debounce
import machine
import micropython
from cards import CardMap
from machine import SPI, WDT, Pin, Timer
from reader import FIRMWARE, Reader
from update import Updater
from zones import RfidScanner

CHIP_SELECTS = (17, 20, 21)  # bench build: one MFRC522 per antenna
PN5180_NSS, PN5180_BUSY, RESET, MUX_PINS = 17, 20, 22, (10, 11)
ZONES = {"pn5180": ("trick", "table", "table", "floor"), "mfrc522": ("trick", "table")}
# Only the floor mats' fields couple across seats (hardware/coupling.py): opposite seats'
# floor mats share a slot, so a table cycle has two (hardware/README.md, section 4), each
# as long as a floor mat's read: 5 ms settle, RF on, a one-slot INVENTORY with one tag
# (5.9 ms of air) and the register frames around it (11.9 ms simulated), 2 ms for the
# board's wake-up into its slot, and the 2 ms guard. The bench build drives no floor mat:
# its slots gate nothing.
SLOTS = 2
SLOT_MS = {"pn5180": 18, "mfrc522": 18}
DEBOUNCE_MS = 20  # a state read in 3 scans (>= 20 ms each) commits: BENCHMARKS.md, issue 28
SYNC_PIN = 12
REBOOT = [False]  # set when an installed update wants the board rebooted


def read_file(name, default):
    try:
        with open(name) as f:
            return f.read().strip() or default
    except OSError:
        return default


def build():
    debounce.tune(read_file("noise.txt", ""))  # before the Reader makes its Debouncer
    kind = read_file("chip.txt", "pn5180")
    if kind not in ZONES:
        kind = "pn5180"
    zones = read_file("antennas.txt", "\n".join(ZONES[kind])).split()
    antennas: list = []
    if kind == "pn5180":
        import pn5180

        spi = SPI(0, baudrate=7_000_000, polarity=0, phase=0, sck=Pin(18), mosi=Pin(19),
                  miso=Pin(16))
        pn5180.hard_reset(Pin(RESET, Pin.OUT, value=1))  # init() waits for its IDLE_IRQ
        chip = pn5180.PN5180(spi, Pin(PN5180_NSS, Pin.OUT, value=1), Pin(PN5180_BUSY, Pin.IN))
        mux = pn5180.Mux([Pin(p, Pin.OUT, value=0) for p in MUX_PINS])
        antennas = [pn5180.PN5180Port(chip, mux, k) for k in range(len(zones))]
    else:
        import mfrc522

        spi = SPI(0, baudrate=10_000_000, polarity=0, phase=0, sck=Pin(18), mosi=Pin(19),
                  miso=Pin(16))
        antennas = [mfrc522.MFRC522SPI(spi, Pin(cs, Pin.OUT, value=1))
                    for cs in CHIP_SELECTS[: len(zones)]]
        mfrc522.hard_reset(Pin(RESET, Pin.OUT, value=1), antennas)  # late: FAULT 3
    cards = CardMap()
    if read_file("deck.txt", ""):
        cards.load("deck.txt")  # else card codes come from tag memory
    scanner = RfidScanner(list(zip(zones, antennas, strict=False)), cards, settle_ms=5)
    serial = "TS-" + "".join(f"{b:02X}" for b in machine.unique_id())
    key = read_file("key.txt", "")
    out = sys.stdout.buffer
    poll = select.poll()
    poll.register(out, select.POLLOUT)

    def maint(action):
        if action == "bootloader":
            machine.bootloader()
        machine.reset()

    def installed():  # a firmware update is committed: reboot into it (fwboot.py)
        REBOOT[0] = True
        reader.running = False

    reader = Reader(
        scanner, out, sys.stdin.buffer, seat=read_file("seat.txt", "N"),
        scan_ms=20, debounce_ms=DEBOUNCE_MS, serial=serial[:32], wdt=WDT(timeout=2000),
        key=bytes.fromhex(key) if key else None, slots=SLOTS, slot_ms=SLOT_MS[kind],
        writable=lambda: bool(poll.poll(0)), on_maint=maint,
    )
    reader.updater = Updater(reader.send, reader.key, FIRMWARE, installed)
    sync = Pin(SYNC_PIN, Pin.IN, Pin.PULL_UP)
    sync.irq(lambda p: reader.slots.edge(), Pin.IRQ_FALLING)
    if reader.seat == "N":  # North drives the table's cycle: 1 ms low at each start
        drive = Pin(SYNC_PIN, Pin.OPEN_DRAIN, value=1)

        def pulse(_t):
            drive.value(0)
            reader.slots.edge()
            drive.value(1)

        Timer(-1, period=reader.slots.cycle_ms, mode=Timer.PERIODIC, callback=pulse)
    return reader


def main():
    micropython.kbd_intr(-1)  # binary frames on stdin: 0x03 is data, not Ctrl-C
    asyncio.run(build().run())
    if REBOOT[0]:
        time.sleep_ms(200)  # the STATUS "installing" on its way out over USB
        machine.reset()
    micropython.kbd_intr(3)  # MAINT stop: the REPL is back, for mpremote


main()
