"""Simulated readers for tests and demos: the real firmware in the MicroPython VM behind a pty."""

from tablesense.sim.firmware import SimReader, expected_observations, start_reader

__all__ = ["SimReader", "expected_observations", "start_reader"]
