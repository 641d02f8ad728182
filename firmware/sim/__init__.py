"""Simulated reader hardware for the MicroPython unix port (and CPython tests).

The firmware drivers are not told they are simulated: they get a ``SimSPI``
and ``SimPin`` chip-selects behind which ``SimMFRC522`` chips answer register
reads and writes as the datasheet says, with ``NTAG213`` tags in their field.
"""
