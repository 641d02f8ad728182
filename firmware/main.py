"""Board entry point (Raspberry Pi Pico, MicroPython): wire the hardware, run the reader.

Pinout (hardware/README.md): SPI0 SCK GP18, MOSI GP19, MISO GP16 at 10 MHz;
MFRC522 chip-selects GP17 (hand), GP20 (table), GP21 (trick); shared RST
GP22; IR distance sensor on ADC0 (GP26). Frames go out over USB CDC
(stdout) and host frames come in on stdin, so the REPL's Ctrl-C is turned off.

``seat.txt`` (one letter) and ``deck.txt`` (UID CARD lines) on the flash are
optional: the host's CONFIG sets the seat, and tags carry their card code.
``key.txt`` (hex, the same key as the host's ``tables.<t>.readers.<seat>.key``)
makes the reader sign its frames (hardware/protocol.md section 2a).
``noise.txt`` (``hold_ms``, ``gone_ms``, ``min_conf`` lines) overrides the
debouncer's noise defaults (debounce.py, ``tune``); a line it cannot apply
is skipped, the default kept.
"""

import asyncio
import sys

import debounce
import machine
import micropython
from cards import CardMap
from level import AdcLevel
from machine import ADC, SPI, WDT, Pin
from mfrc522 import MFRC522SPI
from reader import Reader
from zones import RfidScanner

ANTENNAS = (("hand", 17), ("table", 20), ("trick", 21))


def read_file(name, default):
    try:
        with open(name) as f:
            return f.read().strip() or default
    except OSError:
        return default


def build():
    debounce.tune(read_file("noise.txt", ""))  # before the Reader makes its Debouncer
    rst = Pin(22, Pin.OUT, value=1)  # noqa: F841  (held high: chips out of hard power-down)
    spi = SPI(0, baudrate=10_000_000, polarity=0, phase=0, sck=Pin(18), mosi=Pin(19), miso=Pin(16))
    antennas = [(zone, MFRC522SPI(spi, Pin(cs, Pin.OUT, value=1))) for zone, cs in ANTENNAS]
    cards = CardMap()
    if read_file("deck.txt", ""):
        cards.load("deck.txt")  # else card codes come from tag memory
    scanner = RfidScanner(antennas, cards, AdcLevel(ADC(26)), settle_ms=5)
    serial = "TS-" + "".join(f"{b:02X}" for b in machine.unique_id())
    key = read_file("key.txt", "")
    return Reader(
        scanner, sys.stdout.buffer, sys.stdin.buffer, seat=read_file("seat.txt", "N"),
        scan_ms=50, debounce_ms=100, serial=serial[:32], wdt=WDT(timeout=2000),
        key=bytes.fromhex(key) if key else None,
    )


def main():
    micropython.kbd_intr(-1)  # binary frames on stdin: 0x03 is data, not Ctrl-C
    asyncio.run(build().run())


main()
