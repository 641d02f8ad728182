"""SimSPI and SimPin: a shared SPI bus, one chip-select pin per simulated chip."""


class SimPin:
    """A GPIO: ``value()`` reads, ``value(v)`` writes; ``on_change(v)`` hooks a chip."""

    def __init__(self, v=1, on_change=None):
        self._v = v
        self.on_change = on_change

    def value(self, v=None):
        if v is None:
            return self._v
        v = 1 if v else 0
        if v != self._v:
            self._v = v
            if self.on_change is not None:
                self.on_change(v)
        return None

    def __call__(self, v=None):
        return self.value(v)


class SimSPI:
    """Bytes go to whichever attached chip has its chip-select low."""

    def __init__(self):
        self._chips = []  # (pin, chip)
        self._low = []  # chips whose chip-select is low now
        self.transfers = 0

    def attach(self, chip):
        """A new chip-select pin wired to ``chip`` (which must have cs_low and xfer)."""

        def edge(v):
            if v == 0:
                chip.cs_low()
                self._low.append(chip)
            elif chip in self._low:
                self._low.remove(chip)
                end = getattr(chip, "cs_high", None)
                if end is not None:  # a chip that acts when its frame ends (PN5180)
                    end()

        pin = SimPin(1, edge)
        self._chips.append((pin, chip))
        return pin

    def _sel(self):
        low = self._low
        # two chips driving MISO: garbage, modelled as nothing
        return low[0] if len(low) == 1 else None

    def write_readinto(self, tx, rx):
        self.transfers += 1
        chip = self._sel()
        for i in range(len(tx)):
            rx[i] = chip.xfer(tx[i]) if chip is not None else 0

    def write(self, tx):
        self.transfers += 1
        chip = self._sel()
        if chip is not None:
            for b in tx:
                chip.xfer(b)

    def read(self, n, write=0):
        rx = bytearray(n)
        self.write_readinto(bytes([write]) * n, rx)
        return bytes(rx)
