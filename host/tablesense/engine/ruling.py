"""Rulings: what the host decides, as the alert JSON of docs/contract.md."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tablesense.contract.vocab import Kind, Option, Phase, Role, Severity, Until


@dataclass(frozen=True)
class Draft:
    """A ruling as a law code makes it; the engine adds id, table, board, phase, time."""

    kind: Kind
    citation: str
    text: str
    severity: Severity = "penalty"
    offender: str | None = None
    cards: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    until: Until | None = None
    supersedes: tuple[str, ...] = ()
    role: Role | None = None
    role_given: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class Ruling:
    id: str
    table: str
    board: int
    code: str
    phase: Phase
    kind: Kind
    citation: str
    severity: Severity
    text: str
    t: int
    offender: str | None = None
    role: Role | None = None
    cards: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    until: Until | None = None
    supersedes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The alert object, keys in the contract's order; absent fields left out."""
        out: dict[str, Any] = {
            "v": 1, "id": self.id, "table": self.table, "board": self.board,
            "code": self.code, "phase": self.phase,
        }
        if self.offender is not None:
            out["offender"] = self.offender
        if self.role is not None:
            out["role"] = self.role
        out["cards"] = list(self.cards)
        out["kind"] = self.kind
        out["options"] = list(self.options)
        if self.until is not None:
            out["until"] = self.until
        if self.supersedes:
            out["supersedes"] = list(self.supersedes)
        out["citation"] = self.citation
        out["severity"] = self.severity
        out["text"] = self.text
        out["t"] = self.t
        return out
