"""The pure rules engine: events in, rulings out (see ``Engine``)."""

from tablesense.engine.errors import EngineError, InvalidEvent
from tablesense.engine.ruling import Draft, Ruling
from tablesense.engine.table import Engine

__all__ = ["Draft", "Engine", "EngineError", "InvalidEvent", "Ruling"]
