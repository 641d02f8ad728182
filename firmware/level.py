"""Level sensor at the seat's table edge: is the player's hand above or below the table plane?

The build uses an analog IR distance sensor (Sharp GP2Y0A41SK0F, 4-30 cm) in
the apron under the front edge, looking down and out at the player's lap:
hands (and cards) held below the table plane come within ~12 cm of it and
raise its output voltage. ``AdcLevel`` turns ``ADC.read_u16()`` into
``below``/``above`` with hysteresis, and ``unknown`` (plus a fault) when the
reading is railed (sensor unplugged or shorted). ``BeamLevel`` is the
alternative: one IR break-beam across the edge just below the top.
"""

ABOVE = "above"
BELOW = "below"
UNKNOWN = "unknown"


class LevelSensor:
    def __init__(self):
        self.state = ABOVE
        self.fault = False  # True while the sensor reads nonsense

    def _sample(self):
        raise NotImplementedError

    def read(self):
        try:
            s = self._sample()
        except OSError:
            s = UNKNOWN
        self.fault = s == UNKNOWN
        if not self.fault:
            self.state = s
        return s


class AdcLevel(LevelSensor):
    """``below`` once the reading rises over ``near``; back ``above`` under ``far``."""

    def __init__(self, adc, near=30000, far=24000, rail_lo=300, rail_hi=65000):
        super().__init__()
        self._adc = adc
        self.near = near
        self.far = far
        self.rail_lo = rail_lo
        self.rail_hi = rail_hi

    def _sample(self):
        v = self._adc.read_u16()
        if v < self.rail_lo or v > self.rail_hi:
            return UNKNOWN
        if v >= self.near:
            return BELOW
        if v <= self.far:
            return ABOVE
        return self.state  # inside the hysteresis band: no change


class BeamLevel(LevelSensor):
    """A break-beam receiver (active low when the beam is broken) just under the table edge."""

    def __init__(self, pin, broken=0):
        super().__init__()
        self._pin = pin
        self._broken = broken

    def _sample(self):
        return BELOW if self._pin.value() == self._broken else ABOVE
