"""The VM's power-on from a flash directory: what boot.py and then main.py do on a board.

    micropython firmware/sim/flashboot.py --seat N [sim/main.py's options]

Run with the flash directory (a build of the board's files, ``scripts/build-firmware
DIR --source``) as the working directory and first on ``MICROPYPATH``, then
``firmware/`` (for ``sim``). ``fwboot.boot()`` finishes or undoes a firmware
update, then the firmware found on the flash runs on the simulated hardware
(sim/main.py, with ``--flash 1``). A firmware on trial that fails to start
ends with status 75, the reboot a board's watchdog would give it, so the next
boot reverts it; outside a trial a failure ends with status 1, a board stopped
at its REPL.
"""

import sys

import fwboot

state = fwboot.boot()
if state:
    sys.stderr.write("fwboot: " + state + "\n")
try:
    import sim.main

    sys.argv.extend(["--flash", "1"])
    sim.main.main()
except Exception as e:  # a board with any error stops at its REPL
    sys.print_exception(e, sys.stderr)
    sys.exit(75 if state == "trial" else 1)
