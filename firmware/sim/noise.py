"""A noisy wire under the unmodified firmware: frames late, or damaged on the way.

The noise at the sensors (missed reads, a card on a zone boundary, a
neighbour's card, a camera's misread) is ``pollnoise.Noise``, the one model
the Python reader of the demo runs too (``tablesense/onboard/pollnoise.py``, placed
on the VM's path by ``tablesense.firmware.build``). This module adds what happens
on the serial line.

Delivery: ``NoisyOut`` wraps the reader's output stream: each frame is held
0..``jitter_ms`` (in order), and with probability ``reorder`` one byte is
corrupted on the wire, so the host's CRC drops it, sees the gap and asks
for a RESEND (the frame then arrives after newer frames of other readers).
A resent frame (byte for byte one written before) is not corrupted again:
line noise comes in rare bursts. (Were it lost too, the host's Sequencer
would take the next resent frame for the start of the reader's buffer and
give up the ones before it.)
"""


class NoisyOut:
    """The reader's output stream through a noisy wire: late frames, lost frames.

    ``write`` takes one whole frame (the reader writes a frame at a time).
    ``pump`` (an asyncio task) writes each held frame when it is due.
    """

    def __init__(self, out, noise, clock):
        self.out = out
        self.noise = noise
        self.clock = clock
        self.q = []  # [(due ms, bytes)], due never decreasing
        self._last_due = 0
        self._recent = []  # the last frames written: a resend of one goes through

    def write(self, data):
        n = self.noise
        data = bytes(data)
        again = data in self._recent
        if not again:
            self._recent.append(data)
            if len(self._recent) > 80:
                self._recent.pop(0)
        if not again and n.chance(n.reorder) and len(data) > 4:
            b = bytearray(data)
            i = len(b) // 2
            b[i] = b[i] ^ 0x01 if b[i] != 0x01 else 0x02  # never a 0x00: the frame stays one
            data = bytes(b)
            n.counts["lost"] += 1
        if n.jitter_ms <= 0:
            self._emit(data)
            return len(data)
        due = self.clock() + int(n.rng.random() * (n.jitter_ms + 1))
        if due < self._last_due:
            due = self._last_due
        self._last_due = due
        self.q.append((due, data))
        return len(data)

    def flush(self):
        pass

    def _emit(self, data):
        self.out.write(data)
        f = getattr(self.out, "flush", None)
        if f is not None:
            f()

    def due(self, now):
        """Write the frames due by ``now``; ms until the next one (or None)."""
        while self.q and self.q[0][0] <= now:
            self._emit(self.q.pop(0)[1])
        return self.q[0][0] - now if self.q else None
