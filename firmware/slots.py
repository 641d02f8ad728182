"""The table's time slots, for the fields that couple across seats: the floor mats.

Two 13.56 MHz carriers strong at the same tags corrupt each other's commands;
the field model (hardware/coupling.py, hardware/README.md section 4) finds
that only neighbouring seats' floor mats are, so schedule.py keeps only them
(``SLOTTED``) to a table cycle of ``slots`` slots of ``slot_ms`` (the board:
two, N and S in slot 0, E and W in slot 1, ``slot`` being the seat's index
modulo ``slots``): such a field goes on only inside its seat's slot, and only
when the read it is about to start ends ``GUARD_MS`` before the slot does.

The cycle is anchored by the table's sync line: North's board pulls it low at
each cycle start (``drive``), the others note the falling edge (``edge``).
Without an edge for ``LOST_CYCLES`` cycles a board free-runs on its own clock
(``lost`` counts the times). Where the boards share a clock (the simulator:
every VM on one epoch) ``clock`` is that clock and ``sync`` stays None: cycle 0
starts at time 0. ``slots`` 1 means a reader alone: every moment is its slot.
"""

from ticks import ticks_diff

GUARD_MS = 2
LOST_CYCLES = 3


class Slots:
    def __init__(self, clock, slots=1, slot_ms=40, slot=0, sync=None):
        self.clock = clock  # ms
        self.slots = max(1, slots)
        self.slot_ms = slot_ms
        self.slot = slot % self.slots
        self.sync = sync  # a Pin: North drives it, the others see its edges (or None)
        self.anchor = None  # ms of the last cycle start seen on the sync line
        self.lost = 0
        self._free = True

    @property
    def cycle_ms(self):
        return self.slots * self.slot_ms

    def edge(self, t=None):
        """The sync line fell: a cycle starts now (a pin IRQ handler calls this)."""
        self.anchor = self.clock() if t is None else t

    def _phase(self, now):
        """ms since the start of the current cycle."""
        c = self.cycle_ms
        if self.anchor is not None:
            since = ticks_diff(now, self.anchor)
            if 0 <= since < LOST_CYCLES * c:
                self._free = False
                return since % c
            if not self._free:
                self.lost += 1
                self._free = True
        return now % c

    def wait_ms(self, need_ms):
        """ms to wait until an exchange of ``need_ms`` fits in this seat's slot (0: now).

        An exchange longer than a slot is started at the slot's beginning (and overruns:
        the caller keeps exchanges short; ``need_ms`` above a slot is clipped to it)."""
        if self.slots == 1:
            return 0
        need = min(need_ms, self.slot_ms - GUARD_MS)
        phase = self._phase(self.clock())
        start = self.slot * self.slot_ms
        end = start + self.slot_ms - GUARD_MS
        if start <= phase and phase + need <= end:
            return 0
        wait = start - phase
        if wait <= 0:
            wait += self.cycle_ms
        return wait

    def left_ms(self):
        """ms left in this seat's slot before its guard (a large number when alone)."""
        if self.slots == 1:
            return 1 << 20
        phase = self._phase(self.clock())
        end = self.slot * self.slot_ms + self.slot_ms - GUARD_MS
        return end - phase
