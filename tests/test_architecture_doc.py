"""docs/architecture.md names only what exists: every path in it is in the repository, and
every class, function or attribute it names is defined in the code."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text()
TOKENS = set(re.findall(r"`([^`\s]+)`", DOC))
SOURCES = "\n".join(p.read_text() for d in ("host", "firmware")
                    for p in (ROOT / d).rglob("*.py") if ".venv" not in p.parts)


def defined(name: str) -> bool:
    return bool(re.search(rf"^\s*(?:async\s+)?(?:class|def)\s+{re.escape(name)}\b"
                          rf"|^\s*{re.escape(name)}\s*(?::[^=]*)?=", SOURCES, re.M))


def test_the_paths_named_exist() -> None:
    paths = [t for t in TOKENS if "/" in t and not t.startswith("<")
             and ("." in t.split("/")[-1] or t.endswith("/"))]
    assert len(paths) >= 15
    assert [p for p in paths if not (ROOT / p).exists()] == []


def test_the_code_names_named_are_defined() -> None:
    names = [t for t in TOKENS if re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", t)
             and (t[0].isupper() or "." in t or "_" in t) and not t.endswith((".py", ".md"))]
    assert len(names) >= 15
    missing = [n for n in names if not all(defined(part) for part in n.split(".")
                                           if part not in ("codec", "laws"))]
    assert missing == []
