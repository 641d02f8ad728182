"""Runs before main.py at every boot: finish or undo a firmware update (fwboot.py).

Never replaced over the wire. A new firmware on trial runs under the watchdog:
if it hangs, or stops at the REPL with an error, the board reboots within 8 s
and this boots the old firmware back (main.py's own watchdog, 2 s, takes over
once the reader runs).
"""

import fwboot

if fwboot.boot() == "trial":
    from machine import WDT

    WDT(timeout=8000)
