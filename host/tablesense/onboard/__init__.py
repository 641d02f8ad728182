"""What also runs on the reader board: one folder, one rule.

Every module in this folder (and in ``wire/``) runs verbatim under CPython 3.11
on the host and under MicroPython 1.2x on the reader board, so each keeps to
the subset both run: no dataclasses, no runtime ``typing`` import (annotations
that name typing-only things are strings, behind ``if False``-style guards),
no ``__future__``, only ``struct``, ``binascii``, ``hashlib``, ``random`` and
``time`` from the standard library, and no import of the project's outside
this folder (relative imports inside ``wire/``).

``tablesense.firmware.build`` copies the folder whole, all but this
``__init__.py``, to the top of the board's filesystem (``wire``,
``debounce``, ``pollnoise``), into the MicroPython VM's work directory and for
the tests; nothing else is ever placed beside the firmware.

- ``wire``: the reader <-> host protocol (framing, signing, messages, codec).
- ``debounce``: the readers' noise filters; only committed changes leave it.
- ``pollnoise``: noise at the sensors, for the simulated readers.
"""
