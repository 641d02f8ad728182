"""Sequence numbers of one reader's frames: order, gaps, resends, duplicates. No I/O.

Every frame a reader sends carries a 16-bit sequence number that counts up by
one per frame and wraps (MAVLink style). The host delivers frames to the
daemon core in sequence order, exactly once:

* the next expected number: delivered at once;
* a number ahead of it (a gap: frames were lost on the wire): held back, and
  a ``RESEND from_seq`` is asked for; when the missing frames arrive the held
  ones follow in order. A reader resends, in order, only the frames it kept
  (every frame but HELLO: hardware/protocol.md section 5), so the first
  resent frame shows where its buffer starts: any number still missing
  before it will not come and is given up at once (counted ``lost``). A
  resent frame is recognised by being older than the newest held one; fresh
  frames are always newer. If nothing comes, the gap is given up after
  ``max_retries`` further requests;
* a number behind it, or one already held: a duplicate, dropped;
* a ``HELLO`` (a reader restart) starts the count afresh;
* a damaged frame (bad CRC, truncated: ``damaged``) is a frame lost for
  certain, and the next expected number is asked for at once, not when the
  reader's next frame shows the gap (which may be its heartbeat, a second
  later: meanwhile the other readers' frames would overtake the lost one and
  the engine would see the table's cards in the wrong order). One such ask
  until a frame arrives: a burst of line noise makes one RESEND.

>>> from tablesense.onboard.wire import codec
>>> s = Sequencer(resend_timeout_ms=500)
>>> f = lambda n: codec.Frame(codec.HEARTBEAT, {}, seq=n)
>>> [x.seq for x, t in s.accept(codec.Frame(codec.HELLO, {}, seq=65534), 0)]
[65534]
>>> [x.seq for x, t in s.accept(f(1), 0)], s.resend_from   # 65535 and 0 are missing
([], 65535)
>>> [x.seq for x, t in s.accept(f(65535), 1)], [(x.seq, t) for x, t in s.accept(f(0), 2)]
([65535], [(0, 2), (1, 0)])
>>> s.accept(f(0), 3), s.counters["duplicates"]
([], 1)
"""

from __future__ import annotations

from tablesense.onboard.wire import codec


class Sequencer:
    """Reorders one reader's frames into sequence order; says when to ask for a resend."""

    def __init__(self, resend_timeout_ms: int = 500, max_retries: int = 2,
                 window: int = 256) -> None:
        self.resend_timeout_ms = resend_timeout_ms
        self.max_retries = max_retries
        self.window = window
        self.expected: int | None = None
        self.held: dict[int, tuple[codec.Frame, int]] = {}  # seq -> (frame, received)
        self.resend_from: int | None = None  # set when a RESEND should be sent now
        self._asked_at = 0
        self._retries = 0
        self._nacked = False  # asked for a damaged frame; nothing arrived since
        self.counters = {"gaps": 0, "resends": 0, "duplicates": 0, "lost": 0, "restarts": 0,
                         "nacks": 0}

    def reset(self) -> None:
        """Forget the count (a new stream, e.g. the port was reopened)."""
        self.expected = None
        self.held.clear()
        self.resend_from = None
        self._retries = 0

    def damaged(self, now_ms: int) -> None:
        """Bytes that were a frame arrived damaged: ask for it now (see the module doc)."""
        if self.expected is None or self._nacked or self.resend_from is not None:
            return
        self._nacked = True
        self.counters["nacks"] += 1
        self._ask(now_ms)  # with a gap held, its retry clock restarts

    def accept(self, frame: codec.Frame, now_ms: int) -> list[tuple[codec.Frame, int]]:
        """Take one frame received at ``now_ms``; return (frame, received) now deliverable."""
        self._nacked = False
        if frame.seq == self.expected and not self.held and frame.mtype != codec.HELLO:
            # the next one, nothing held (nearly every frame): what the rest would do
            self.expected = (frame.seq + 1) & 0xFFFF
            self._retries = 0
            self.resend_from = None
            return [(frame, now_ms)]
        if frame.mtype == codec.HELLO:
            if self.expected is not None:
                self.counters["restarts"] += 1
            self.reset()
            self.expected = frame.seq
        if self.expected is None:
            # first frame after (re)opening without a HELLO: take its number as the start
            self.expected = frame.seq
        delta = codec.seq_delta(frame.seq, self.expected)
        if delta < 0:
            self.counters["duplicates"] += 1
            return []
        out: list[tuple[codec.Frame, int]] = []
        if self.held and delta > 0 and codec.seq_delta(frame.seq, self._newest()) <= 0:
            # a resent frame: nothing the reader kept lies before it
            out = self._skip_to(frame.seq)
            if frame.seq in self.held:
                self.counters["duplicates"] += 1
                out.extend(self._release())
                self._settle()
                return out
            delta = 0
        if delta > self.window:
            # far ahead: the reader lost more than we could ever get back
            self.counters["lost"] += delta + len(self.held)
            self.held.clear()
            self._give_up_to(frame.seq)
        if frame.seq != self.expected:
            if not self.held:
                self.counters["gaps"] += 1
                self._ask(now_ms)
            self.held[frame.seq] = (frame, now_ms)
            return out
        out.append((frame, now_ms))
        self.expected = codec.seq_next(frame.seq)
        out.extend(self._release())
        self._settle()
        return out

    def _settle(self) -> None:
        if not self.held:
            self._retries = 0
            self.resend_from = None

    def _newest(self) -> int:
        base = self.expected or 0
        return max(self.held, key=lambda s: codec.seq_delta(s, base))

    def _skip_to(self, seq: int) -> list[tuple[codec.Frame, int]]:
        """Deliver what is held before ``seq``; count what is missing there as lost."""
        out: list[tuple[codec.Frame, int]] = []
        while self.expected is not None and self.expected != seq:
            if self.expected in self.held:
                out.append(self.held.pop(self.expected))
            else:
                self.counters["lost"] += 1
            self.expected = codec.seq_next(self.expected)
        return out

    def tick(self, now_ms: int) -> list[tuple[codec.Frame, int]]:
        """Time passes: ask again for a missing frame, or give it up."""
        if not self.held or self.expected is None:
            return []
        if now_ms - self._asked_at < self.resend_timeout_ms:
            return []
        if self._retries < self.max_retries:
            self._retries += 1
            self._ask(now_ms)
            return []
        first = min(self.held, key=lambda s: codec.seq_delta(s, self.expected or 0))
        out = self._skip_to(first)
        out.extend(self._release())
        self._retries = 0
        if self.held:
            self.counters["gaps"] += 1
            self._ask(now_ms)
        return out

    def _ask(self, now_ms: int) -> None:
        self.resend_from = self.expected
        self._asked_at = now_ms
        self.counters["resends"] += 1

    def take_resend(self) -> int | None:
        """The ``from_seq`` of a RESEND to send now (once), or None."""
        seq, self.resend_from = self.resend_from, None
        return seq

    def _give_up_to(self, seq: int) -> None:
        self.expected = seq
        self.resend_from = None

    def _release(self) -> list[tuple[codec.Frame, int]]:
        out: list[tuple[codec.Frame, int]] = []
        while self.expected is not None and self.expected in self.held:
            item = self.held.pop(self.expected)
            out.append(item)
            self.expected = codec.seq_next(item[0].seq)
        return out
