"""Simulated reader hardware for the MicroPython unix port (and CPython tests).

The firmware drivers are not told they are simulated: they get a ``SimSPI``
and ``SimPin`` chip-selects behind which a ``SimPN5180`` and its antenna
multiplexer (the table build) or ``SimMFRC522`` chips (the bench build)
answer as the data sheets say, with ICODE SLIX2 or ``NTAG213`` tags in their
field.
"""
