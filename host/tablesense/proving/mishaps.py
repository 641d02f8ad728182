"""The irregularities issue 25 added to the generator (``proving/irregular.py``)."""

from __future__ import annotations

from tablesense.proving.tablesim import _Table


class Mishaps(_Table):
    """A card played early and taken back, two players' cards within 300 ms, a lead
    before declarer chose a lead option, a whole hand laid down, a penalty card's suit
    played to another suit led."""


__all__ = ["Mishaps"]
