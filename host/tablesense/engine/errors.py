"""Errors of the rules engine: one base, and the error for an event the state forbids."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises; the engine's state is unchanged."""


class InvalidEvent(EngineError):
    """An event that is not valid in the board's current state."""

    def __init__(self, phase: str, event: str, why: str) -> None:
        super().__init__(f"{event} not valid in phase {phase}: {why}")
        self.phase = phase
        self.event = event
        self.why = why
