"""The simulated club: robot players, noise at the readers, and simulated readers.

``robots`` plays whole boards as journal events; ``noise`` holds the profiles
of what imperfect readers add. The readers are the real firmware in the
MicroPython VM behind a pty:
``start_reader`` runs one reader; ``plan_from_journal`` turns a journal into
four readers' scenarios and the daemon's commands; ``SimTable`` runs such a
plan's four readers and says when each command falls due.
"""

from tablesense.sim.convert import TablePlan, choose_kinds, plan_from_journal
from tablesense.sim.firmware import (
           SimReader,
           expected_observations,
           expected_timeline,
           start_reader,
)
from tablesense.sim.table import SimTable

__all__ = ["SimReader", "SimTable", "TablePlan", "choose_kinds", "expected_observations",
           "expected_timeline", "plan_from_journal", "start_reader"]
