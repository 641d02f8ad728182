"""A whole simulated table: four readers (the real firmware, one VM each) playing a plan.

:class:`SimTable` starts the readers of a :class:`~tablesense.sim.convert.TablePlan`
behind their ptys and tells when each of the plan's commands (``board``,
``dealt``, ``call``, ``claim`` ...) falls due, on the same clock as the
readers' scenarios (ms after they booted)::

    plan = plan_from_journal("board.jsonl", max_gap_ms=500)
    with SimTable(plan, workdir) as table:
        daemon = ...  # readers at table.ports
        for t, cmd in table.commands():  # sleeps until each is due
            daemon.command("1", cmd, trusted=cmd["type"] == "dealt")

The readers' clocks start when each VM boots, a few ms after :meth:`start`
takes its own origin, so a command may go out that much before the
observations the plan puts at the same moment; a plan keeps ``margin_ms``
between a command and the observations around it, and ``commands(ready=...)``
lets a caller wait for what must come first.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from tablesense.sim.convert import TablePlan
from tablesense.sim.firmware import SEATS, SimReader, start_reader


class SimTable:
    """Four :class:`SimReader` s playing ``plan`` from ``workdir/table.jsonl``."""

    def __init__(self, plan: TablePlan, workdir: str | os.PathLike[str], *, scan_ms: int = 20,
                 debounce_ms: int = 40, seats: tuple[str, ...] = SEATS,
                 serial_prefix: str = "SIM") -> None:
        self.plan = plan
        self.workdir = Path(workdir)
        self.scan_ms = scan_ms
        self.debounce_ms = debounce_ms
        self.seats = seats
        self.serial_prefix = serial_prefix
        self.readers: dict[str, SimReader] = {}
        self.t0 = 0.0  # time.monotonic() just before the first VM was started
        self.scenario = self.workdir / "table.jsonl"

    def start(self) -> dict[str, str]:
        """Write the scenario, boot the readers; returns seat -> pty path."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.plan.write(self.scenario)
        self.t0 = time.monotonic()
        try:
            for seat in self.seats:
                self.readers[seat] = start_reader(
                    seat, self.scenario, kind=self.plan.kinds[seat], scan_ms=self.scan_ms,
                    debounce_ms=self.debounce_ms, serial=f"{self.serial_prefix}-{seat}")
        except BaseException:
            self.stop()
            raise
        return self.ports

    @property
    def ports(self) -> dict[str, str]:
        return {s: r.port for s, r in self.readers.items()}

    def now_ms(self) -> int:
        """Scenario time now (ms since :meth:`start`)."""
        return int((time.monotonic() - self.t0) * 1000)

    def commands(self, ready: Callable[[int], bool] | None = None, *, timeout: float = 10.0,
                 sleep: Callable[[float], None] = time.sleep
                 ) -> Iterator[tuple[int, dict[str, Any]]]:
        """Yield the plan's commands ``(t, command)``, each once its time has come.

        ``ready(i)``, when given, must also be true for the i-th command
        (polled every 10 ms); after ``timeout`` s of waiting for it a
        ``TimeoutError`` names the command.
        """
        for i, (t, cmd) in enumerate(self.plan.commands):
            left = self.t0 + t / 1000 - time.monotonic()
            if left > 0:
                sleep(left)
            if ready is not None:
                deadline = time.monotonic() + timeout
                while not ready(i):
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"command {i} ({cmd['type']} at {t} ms) never ready")
                    sleep(0.01)
            yield t, cmd

    def alive(self) -> dict[str, bool]:
        return {s: r.alive() for s, r in self.readers.items()}

    def logs(self) -> str:
        """The VMs' stderr (tracebacks), for a failing test's message."""
        return "\n".join(f"--- {s}\n{r.log}" for s, r in self.readers.items() if r.log)

    def stop(self) -> None:
        """Stop every VM (each is terminated, then killed if need be)."""
        for r in self.readers.values():
            r.stop()

    def __enter__(self) -> SimTable:
        if not self.readers:
            self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


__all__ = ["SimTable"]
