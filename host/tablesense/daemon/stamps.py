"""Signature stamps (hardware/protocol.md section 2a): the host's clock, and which of a
reader's stamps are fresh. No I/O.

A signed frame carries a 48-bit stamp that its sender counts up by one a
frame. The host's stamps start from its clock (MAVLink's: 10 us units since
2015-01-01 UTC), so they never repeat across host restarts; a reader adopts
the clock of each session's CONFIG, so its own stay fresh across its reboots
without a clock of its own. The host keeps one :class:`ReplayWindow` per
reader to refuse a frame it has seen before.
"""

from __future__ import annotations

from tablesense.onboard.wire import codec

STAMP_EPOCH = 1420070400  # 2015-01-01 UTC


def host_stamp(unix_time: float) -> int:
    """The host's signature stamp for a moment: 10 us since 2015.

    >>> host_stamp(1420070400 + 1.5)
    150000
    """
    return max(0, int((unix_time - STAMP_EPOCH) * 100_000)) & codec.MAX_STAMP


class ReplayWindow:
    """Which stamps of one sender are fresh: the newest plus a sliding bitmap.

    As IPsec's anti-replay window (RFC 4303 section 3.4.3): a stamp newer than
    any seen is fresh; one at most ``size - 1`` behind the newest is fresh
    once (a resent or reordered frame that never arrived); anything else is a
    replay. :meth:`raise_floor` makes every stamp up to a value stale (the
    start of a session).

    >>> w = ReplayWindow(4)
    >>> [w.accept(s) for s in (5, 5, 3, 7, 3, 1)]
    [True, False, True, True, False, False]
    """

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.newest = -1
        self._bits = 0  # bit i: stamp newest - i was seen
        self._mask = (1 << size) - 1

    def fresh(self, stamp: int) -> bool:
        if stamp > self.newest:
            return True
        d = self.newest - stamp
        return d < self.size and not (self._bits >> d) & 1

    def accept(self, stamp: int) -> bool:
        """Is ``stamp`` fresh? If so, remember it as seen."""
        if stamp > self.newest:
            shift = stamp - self.newest
            self._bits = ((self._bits << shift) | 1) & self._mask if shift < self.size else 1
            self.newest = stamp
            return True
        d = self.newest - stamp
        if d >= self.size or (self._bits >> d) & 1:
            return False
        self._bits |= 1 << d
        return True

    def raise_floor(self, stamp: int) -> None:
        """From now on every stamp up to ``stamp`` is stale."""
        if stamp > self.newest:
            self.newest = stamp
            self._bits = self._mask
