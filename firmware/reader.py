"""The reader loop: scan, debounce, report changes, heartbeat, answer the host.

Transport-free like the drivers: ``Reader`` is handed a scanner (zones.py or
camera.py), an output stream (``write(bytes)``), optionally an input stream
for host frames, a watchdog (anything with ``feed()``) and a ms clock. On the
board these are the USB CDC stdio streams and ``machine.WDT``; in the sim a
pty and a no-op watchdog.

Protocol (hardware/protocol.md section 4-5): HELLO at boot and once a second
until a CONFIG for this reader's id arrives; CONFIG {seat, scan_ms,
debounce_ms (0 = the boot default)} is applied and answered by ACK {ack_seq:
the CONFIG's seq}, and only then does scanning start. Then OBSERVE per
committed change, FAULT per new sensor fault, HEARTBEAT every second.
Every frame but HELLO is kept in a ring of ``ring`` frames (a lost heartbeat
too, so a RESEND always closes the host's gap at once); RESEND {from_seq}
sends the kept ones from that seq on again, byte for byte (same seq). A host
ACK {ack_seq} is cumulative; a kept frame pushed out of the ring before it
was acked counts in HEARTBEAT ``dropped``.

Signing (protocol.md section 2a): given ``key`` (bytes, from the board's
``key.txt``), every frame goes out signed with a stamp one above the last,
only signed host frames are taken, and the stamp of each CONFIG is adopted
(the host's clock), so stamps stay fresh across reboots without a clock here.
A resent frame keeps its seq but gets a new stamp.

Scanning: a scanner with antennas (``antenna_count``) is read one antenna at a
time, each field switched on, settled and read, in the order and for the time
schedule.py gives: the trick antenna every scan, the others in the rest of the
scan's budget, the floor mat only in this seat's time slot (slots.py);
``scan()`` then gives the scan's cards to the debouncer.

A stalled host: frames are written only when the output stream can take them
(``writable``, a POLLOUT poll on the board); one that cannot go stays in the
ring for RESEND and is counted in ``unsent``, and the loop goes on scanning and
feeding the watchdog. A host that stops reading never blocks the board, so the
watchdog never reboots it in a loop.

Maintenance (protocol.md, MAINT): ``stop`` ends the loop (the REPL comes back,
for mpremote), ``bootloader`` and ``reset`` call ``on_maint`` (main.py: the
RP2040's USB bootloader, machine.reset), ``hello`` sends a HELLO, each after
an ACK. A firmware update's frames (FILE, CHUNK, INSTALL, CONFIRM) go to
``updater`` (update.py), configured or not.

Enrolment (``tablesense deck``): MAINT ``enrol`` turns observing off; each
scan then reports every tag on the antennas as it is (TAG: UID, the card and
deck written in it, locked or not) when it appears or changes, and a WRITE
{uid, card, deck} from the host writes and locks that tag where it was last
seen (FAULT 10 if a WRITE is not acknowledged). MAINT ``scan`` goes back to
observing.
"""

import asyncio
import select

from debounce import Debouncer
from schedule import Scan
from slots import Slots
from ticks import ticks_diff, ticks_ms
from wire import codec

# 0.2.0: every frame but HELLO kept for RESEND; noise.txt
# 0.3.0: HELLO claims the zones it senses (no face, no hand); one field at a time in the
#        table's time slots; MAINT; clone chips (FAULT 9); a stalled host never blocks
# 0.4.0: the wire package (wire/) and debounce.py placed from the host by one build step
# 0.5.0: the PN5180 (ISO 15693, ICODE SLIX2) table build by default, MFRC522 the bench
#        build; TAG and WRITE carry the UID's length and up to 8 bytes
# 0.6.0: firmware updates over the wire (update.py, fwboot.py); MAINT hello
# 0.7.0: the scan schedule (schedule.py): the trick antenna every scan, the others in the
#        rest of it, inventories resumed across field-ons; only the floor mat in slots
FIRMWARE = "0.7.0"
UPDATE_TYPES = (codec.FILE, codec.CHUNK, codec.INSTALL, codec.CONFIRM)
HEARTBEAT_MS = 1000


class Reader:
    def __init__(
        self, scanner, out, inp=None, seat="N", reader_id=None, scan_ms=50, debounce_ms=60,
        serial="TS-0", ring=64, wdt=None, clock=ticks_ms, autostart=False, key=None,
        slots=1, slot_ms=40, writable=None, on_maint=None, updater=None,
    ):
        self.scanner = scanner
        self.out = out
        self.inp = inp
        self.seat = seat
        self.reader_id = codec.SEATS.index(seat) + 1 if reader_id is None else reader_id
        self.scan_ms = scan_ms
        self.serial = serial
        self.wdt = wdt
        self.clock = clock
        self.t0 = clock()
        self.seq = 0
        self.debouncer = Debouncer()
        self.default_debounce_ms = debounce_ms
        self.set_debounce(debounce_ms)
        self.configured = autostart  # scanning starts after the first CONFIG
        self.acked = -1  # host's cumulative ACK (-1: none yet)
        self._ring: list = [None] * ring  # (seq, frame bytes) or None
        self._ri = 0
        self.dropped = 0  # frames asked for again but no longer in the ring
        self.rx_errors = 0
        self.scans = 0
        self.key = codec.SigningKey(key) if key else None
        self.stamp = 0  # signature stamp of the last signed frame sent
        self.decoder = codec.Decoder(self.key, True, "host")
        self.slots = Slots(clock, slots, slot_ms, codec.SEATS.index(seat))
        self.writable = writable  # () -> True when the output can take a frame now
        self.unsent = 0  # frames the output could not take (kept for RESEND)
        self.on_maint = on_maint  # action -> None (bootloader, reset)
        self.updater = updater  # update.Updater: takes FILE, CHUNK, INSTALL, CONFIRM
        self.running = True
        self.enrolling = False
        self._tags = {}  # enrolment: uid -> (state reported, antenna)
        self._writes = []  # enrolment: (uid, card, deck) asked for by the host

    # -- frames out ----------------------------------------------------------
    def now(self):
        return ticks_diff(self.clock(), self.t0) & 0xFFFFFFFF

    def send(self, mtype, fields):
        if self.key is not None:
            self.stamp += 1
        frame = codec.encode(mtype, fields, self.reader_id, self.seq, 0, self.key, self.stamp)
        if mtype != codec.HELLO:  # HELLO starts the count afresh: never resent
            old = self._ring[self._ri]
            if old is not None and (self.acked < 0 or codec.seq_delta(old[0], self.acked) > 0):
                self.dropped += 1
            self._ring[self._ri] = (self.seq, frame)
            self._ri = (self._ri + 1) % len(self._ring)
        self.seq = codec.seq_next(self.seq)
        self._write(frame)
        return frame

    def _write(self, frame):
        if self.writable is not None and not self.writable():
            self.unsent += 1  # kept in the ring: the host asks for it again
            return
        self.out.write(frame)
        flush = getattr(self.out, "flush", None)
        if flush is not None:
            flush()

    def hello(self):
        return self.send(codec.HELLO, {
            "kind": self.scanner.kind, "firmware": FIRMWARE, "serial": self.serial,
            "capabilities": list(self.scanner.capabilities),
        })

    def heartbeat(self):
        return self.send(codec.HEARTBEAT, {
            "uptime": self.now(), "reads": self.scanner.reads & 0xFFFFFFFF,
            "errors": (self.scanner.errors + self.rx_errors + self.slots.lost) & 0xFFFFFFFF,
            "dropped": self.dropped & 0xFFFFFFFF,
        })

    def resend(self, from_seq):
        """Send again every kept frame from ``from_seq`` on, oldest first; how many."""
        n = len(self._ring)
        newest = codec.seq_delta(self.seq, from_seq)  # frames from from_seq to now
        if newest <= 0:
            return 0
        sent = 0
        for k in range(n):
            item = self._ring[(self._ri + k) % n]
            if item is not None and 0 <= codec.seq_delta(item[0], from_seq) < newest:
                data = item[1]
                if self.key is not None:  # a fresh stamp: the old one may be stale by now
                    self.stamp += 1
                    data = codec.resign(data, self.key, self.stamp)
                self._write(data)
                sent += 1
        return sent

    # -- configuration -------------------------------------------------------
    def set_debounce(self, ms):
        if ms <= 0:
            ms = self.default_debounce_ms
        if ms <= 0:
            self.debouncer.configure(0, 1, 2, 0)
        else:
            self.debouncer.configure(ms, 2, 3)
        self.debounce_ms = ms

    def handle(self, frame):
        """One frame from the host."""
        if frame.reader != self.reader_id:
            return  # on a shared bus: for another reader
        if frame.mtype == codec.CONFIG:
            if frame.stamp is not None and frame.stamp > self.stamp:
                self.stamp = frame.stamp  # the host's clock: fresher than ours after a reboot
            f = frame.fields
            self.seat = f["seat"]
            self.slots.slot = codec.SEATS.index(self.seat) % self.slots.slots
            self.scan_ms = f["scan_ms"]
            self.set_debounce(f.get("debounce_ms", 0))
            self.send(codec.ACK, {"ack_seq": frame.seq})
            self.configured = True
        elif frame.mtype == codec.ACK:
            self.acked = frame.fields["ack_seq"]
        elif frame.mtype == codec.RESEND:
            self.resend(frame.fields["from_seq"])
        elif frame.mtype == codec.WRITE and self.enrolling and len(self._writes) < 8:
            f = frame.fields
            self._writes.append((bytes.fromhex(f["uid"]), f["card"], f["deck"]))
        elif frame.mtype in UPDATE_TYPES and self.updater is not None:
            self.updater.handle(frame)
        elif frame.mtype == codec.MAINT:
            self.send(codec.ACK, {"ack_seq": frame.seq})
            action = frame.fields["action"]
            if action == "stop":
                self.running = False
            elif action == "hello":
                self.hello()  # who I am, now: the version a firmware update checks
            elif action in ("enrol", "scan"):
                self.enrolling = action == "enrol" and hasattr(self.scanner, "enrol_read")
                self._tags = {}
                self.configured = True  # enrolment needs no seat
            elif self.on_maint is not None:
                self.on_maint(action)

    def feed(self, data):
        for item in self.decoder.feed(data):
            if isinstance(item, codec.Frame):
                self.handle(item)
            else:
                self.rx_errors += 1

    # -- one scan ------------------------------------------------------------
    def finish_scan(self):
        """The synchronous half of a scan (after ``scanner.begin()`` and its settle time)."""
        seen = self.scanner.scan()
        t = self.now()
        for code, zone, antenna in self.scanner.take_faults():
            f = {"code": code, "t": t}
            if zone is not None:
                f["zone"] = zone
            if antenna is not None and antenna != 255:
                f["antenna"] = antenna
            self.send(codec.FAULT, f)
        for card, obs in self.debouncer.update(self.clock(), seen, self.scanner.held()):
            self.send(codec.OBSERVE, observation(self.seat, card, obs, t))
        self.scans += 1
        if self.wdt is not None:
            self.wdt.feed()

    def scan_sync(self, sleep=None):
        """One whole scan without asyncio (virtual-time runs, benchmarks): its steps in
        turn (schedule.py), ``sleep(ms)`` for each wait and settle time (None: not
        waited)."""
        sc = self.scanner
        if not getattr(sc, "antenna_count", 0):
            sc.begin()
        else:
            scan = Scan(sc, self.slots, self.clock, self.scan_ms)
            while True:
                nxt = scan.next()
                if nxt is None:
                    break
                i, wait = nxt
                if wait > 0:
                    if sleep is not None:
                        sleep(wait)
                    continue
                settle = sc.begin(i)
                if settle < 0:
                    continue
                if settle and sleep is not None:
                    sleep(settle)
                sc.read(i, scan.stop)
        self.finish_scan()

    async def _read_antennas(self):
        sc = self.scanner
        scan = Scan(sc, self.slots, self.clock, self.scan_ms)
        while True:
            nxt = scan.next()
            if nxt is None:
                return
            i, wait = nxt
            if wait > 0:  # into this seat's slot, with room for the read
                if self.wdt is not None:
                    self.wdt.feed()
                await asyncio.sleep_ms(wait)
                continue
            settle = sc.begin(i)
            if settle >= 0:
                if settle:
                    await asyncio.sleep_ms(settle)
                sc.read(i, scan.stop)

    def enrol_antenna(self, i):
        """Enrolment: pending WRITEs for tags last seen on antenna ``i`` (field on since
        begin(i)), else report the tags on it; the field is off afterwards."""
        sc = self.scanner
        for w in self._writes:
            seen = self._tags.get(w[0])
            if seen is not None and seen[1] == i:
                self._writes.remove(w)
                ok = sc.write_tag(i, w[0], w[1], w[2])
                self._tags.pop(w[0], None)  # report it again as it now is
                if not ok:
                    self.send(codec.FAULT, {"code": 10, "t": self.now(), "antenna": i})
                return
        here = {}
        for uid, state in sc.enrol_read(i):
            card, deck, locked = state
            here[uid] = state
            old = self._tags.get(uid)
            if old is None or old[0] != state:
                f = {"uid": "".join(f"{b:02X}" for b in uid), "locked": locked}
                if card is not None:
                    f["card"] = card
                if deck is not None:
                    f["deck"] = deck
                self.send(codec.TAG, f)
            self._tags[uid] = (state, i)
        for uid in [u for u, v in self._tags.items() if v[1] == i and u not in here]:
            del self._tags[uid]  # gone from this antenna: reported again if it comes back

    def _drop_stale_writes(self):
        self._writes = [w for w in self._writes if w[0] in self._tags]

    async def scan_loop(self):
        while not self.configured and self.running:
            if self.wdt is not None:
                self.wdt.feed()
            await asyncio.sleep_ms(20)
        while self.running:
            start = self.clock()
            if self.enrolling:
                for i in range(self.scanner.antenna_count):
                    settle = self.scanner.begin(i)
                    if settle >= 0:
                        await asyncio.sleep_ms(settle)
                        self.enrol_antenna(i)
                self._drop_stale_writes()
                if self.wdt is not None:
                    self.wdt.feed()
            elif getattr(self.scanner, "antenna_count", 0):
                await self._read_antennas()
            else:
                settle = self.scanner.begin()
                if settle:
                    await asyncio.sleep_ms(settle)
            if not self.enrolling:
                self.finish_scan()
            left = self.scan_ms - ticks_diff(self.clock(), start)
            await asyncio.sleep_ms(left if left > 0 else 0)

    async def heartbeat_loop(self):
        while True:
            await asyncio.sleep_ms(HEARTBEAT_MS)
            if self.configured:
                self.heartbeat()
            else:
                self.hello()  # until the host's CONFIG (protocol.md section 4)

    async def rx_loop(self):
        # read(n) on a blocking stream waits for all n bytes, so take one byte
        # through asyncio, then whatever else poll says is already there.
        sr = asyncio.StreamReader(self.inp)
        poller = select.poll()
        poller.register(self.inp, select.POLLIN)
        while True:
            b = await sr.read(1)
            if not b:
                await asyncio.sleep_ms(100)  # host side closed; keep scanning
                continue
            buf = bytearray(b)
            while len(buf) < codec.MAX_ENCODED and poller.poll(0):
                more = self.inp.read(1)
                if not more:
                    break
                buf.extend(more)
            self.feed(bytes(buf))

    async def run(self):
        self.scanner.init()
        self.hello()
        self.tasks = [asyncio.create_task(self.heartbeat_loop())]
        if self.inp is not None:
            self.tasks.append(asyncio.create_task(self.rx_loop()))
        await self.scan_loop()
        for t in self.tasks:
            t.cancel()


def observation(seat, card, obs, t):
    """OBSERVE fields for one committed change (``obs`` None = gone)."""
    if obs is None:
        return {"seat": seat, "card": card, "zone": "gone", "face": "unknown",
                "level": "unknown", "t": t}
    zone, face, level, seen_by, conf = obs
    f = {"seat": seat, "card": card, "zone": zone, "face": face, "level": level, "t": t}
    if seen_by is not None:
        f["seen_by"] = [s for s in seen_by if s != seat]
    if conf is not None and conf < 1:
        f["conf"] = conf
    return f
