"""Which antennas of a table couple, for the simulated air (sim/clock.py ``Air``).

The field model decides (hardware/coupling.py, ``coupled_pairs``: a foreign field
above 5 % of a tag's own, or above a third of its Hmin, anywhere a tag can lie
over either loop); this is its result, kept here because the simulator also runs
in the MicroPython VM, where hardware/ is not on the path.
tests/test_field_coupling.py fails when the two differ.

Two antennas of different seats disturb each other only when their pair is
listed, (seat, zone, seat, zone) sorted; a seat's own antennas always do (one
PN5180 behind a multiplexer, or the bench build's chips one at a time). So the
sense mats' loops (trick, table) of all four seats may be on at once, and of the
floor mats only opposite seats' (N with S, E with W): the floor mats take turns
in two slots (firmware/slots.py).
"""

COUPLED = (
    ("E", "floor", "N", "floor"),
    ("E", "floor", "S", "floor"),
    ("N", "floor", "W", "floor"),
    ("S", "floor", "W", "floor"),
)
