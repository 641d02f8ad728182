"""Sequence numbers of one reader's frames: order, gaps, resends, duplicates. No I/O.

Every frame a reader sends carries a 16-bit sequence number that counts up by
one per frame and wraps (MAVLink style). The host delivers frames to the
daemon core in sequence order, exactly once:

* the next expected number: delivered at once;
* a number ahead of it (a gap: frames were lost on the wire): held back, and
  a ``RESEND from_seq`` is asked for; when the missing frames arrive the held
  ones follow in order. If they never come (the reader's resend buffer no
  longer holds them) the gap is given up after ``max_retries`` further
  requests and counted as ``lost``; the held frames then go on;
* a number behind it, or one already held: a duplicate, dropped;
* a ``HELLO`` (a reader restart) starts the count afresh.

>>> from tablesense import codec
>>> s = Sequencer(resend_timeout_ms=500)
>>> f = lambda n: codec.Frame(codec.HEARTBEAT, {}, seq=n)
>>> [x.seq for x in s.accept(codec.Frame(codec.HELLO, {}, seq=65534), 0)]
[65534]
>>> [x.seq for x in s.accept(f(1), 0)], s.resend_from   # 65535 and 0 are missing
([], 65535)
>>> [x.seq for x in s.accept(f(65535), 1)], [x.seq for x in s.accept(f(0), 2)]
([65535], [0, 1])
>>> s.accept(f(0), 3), s.counters["duplicates"]
([], 1)
"""

from __future__ import annotations

from tablesense import codec


class Sequencer:
    """Reorders one reader's frames into sequence order; says when to ask for a resend."""

    def __init__(self, resend_timeout_ms: int = 500, max_retries: int = 2,
                 window: int = 256) -> None:
        self.resend_timeout_ms = resend_timeout_ms
        self.max_retries = max_retries
        self.window = window
        self.expected: int | None = None
        self.held: dict[int, codec.Frame] = {}
        self.resend_from: int | None = None  # set when a RESEND should be sent now
        self._asked_at = 0
        self._retries = 0
        self.counters = {"gaps": 0, "resends": 0, "duplicates": 0, "lost": 0, "restarts": 0}

    def reset(self) -> None:
        """Forget the count (a new stream, e.g. the port was reopened)."""
        self.expected = None
        self.held.clear()
        self.resend_from = None
        self._retries = 0

    def accept(self, frame: codec.Frame, now_ms: int) -> list[codec.Frame]:
        """Take one frame; return the frames now deliverable, in order."""
        if frame.mtype == codec.HELLO:
            if self.expected is not None:
                self.counters["restarts"] += 1
            self.reset()
            self.expected = frame.seq
        if self.expected is None:
            # first frame after (re)opening without a HELLO: take its number as the start
            self.expected = frame.seq
        delta = codec.seq_delta(frame.seq, self.expected)
        if delta < 0 or frame.seq in self.held:
            self.counters["duplicates"] += 1
            return []
        if delta > self.window:
            # far ahead: the reader lost more than we could ever get back
            self.counters["lost"] += delta + len(self.held)
            self.held.clear()
            self._give_up_to(frame.seq)
        if frame.seq != self.expected:
            if not self.held:
                self.counters["gaps"] += 1
                self._ask(now_ms)
            self.held[frame.seq] = frame
            return []
        out = [frame]
        self.expected = codec.seq_next(frame.seq)
        out.extend(self._release())
        if not self.held:
            self._retries = 0
            self.resend_from = None
        return out

    def tick(self, now_ms: int) -> list[codec.Frame]:
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
        self.counters["lost"] += codec.seq_delta(first, self.expected)
        self._give_up_to(first)
        out = self._release()
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

    def _release(self) -> list[codec.Frame]:
        out: list[codec.Frame] = []
        while self.expected is not None and self.expected in self.held:
            f = self.held.pop(self.expected)
            out.append(f)
            self.expected = codec.seq_next(f.seq)
        return out
