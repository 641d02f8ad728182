"""The field model and the simulator's air agree on which fields may overlap.

hardware/coupling.py computes, from the Biot-Savart field of every loop of a
table, which antenna pairs of different seats disturb each other; the
simulator keeps its result in firmware/sim/layout.py (the VM cannot reach
hardware/). If the layout or the criterion changes, both must.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "hardware"), str(ROOT / "firmware")]

import coupling  # noqa: E402
import field  # noqa: E402
from sim.layout import COUPLED  # noqa: E402


def test_the_simulated_air_couples_what_the_field_model_says() -> None:
    assert set(COUPLED) == coupling.coupled_pairs()


def test_the_general_field_equals_the_axis_formula_on_the_axis() -> None:
    for z in (0.0, 0.01, 0.025, 0.1):
        on_axis = field.h_axis(0.1, 0.14, 0.06, 2, z)
        assert abs(field.h_point((0, 0.1, 0, 0.14, 0), 0.06, 2, (0.05, 0.07, z)) - on_axis) \
            < 1e-9 * on_axis


def test_neighbouring_floor_mats_couple_and_the_sense_mats_do_not() -> None:
    pairs = coupling.antenna_pairs()
    assert pairs[("E", "floor", "N", "floor")][0] > coupling.LIMIT
    assert pairs[("N", "floor", "S", "floor")][0] <= coupling.LIMIT  # opposite: far enough
    worst = max(r for k, (r, _) in pairs.items() if "floor" not in (k[1], k[3]))
    assert worst <= coupling.LIMIT  # every sense-mat loop pair: under the ASK residual
