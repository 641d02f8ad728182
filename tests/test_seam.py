"""The seam between the engine and the law codes (issue 13, section 1).

Law hooks read the table through a read-only view and ask for changes with
typed effects; only the engine applies them. These checks read the source:
no law module assigns or mutates an engine or board attribute (its own
state, ``self.state``, is the code's and is allowed), a law module reads only
its own code's state type, and the engine imports nothing from the law codes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "host" / "tablesense"
LAWS = sorted((PKG / "laws").glob("*.py"))
MUTATORS = frozenset(("add", "append", "pop", "remove", "discard", "clear", "update",
                      "insert", "setdefault", "extend", "popitem", "sort", "reverse"))
FORBIDDEN_ROOTS = frozenset(("tv", "b", "eng", "board", "engine"))


def _chain(node: ast.expr) -> list[str]:
    """``tv.b.trick`` -> ['tv', 'b', 'trick']; a chain through a call or a
    subscript keeps its names (``b.hands[s].add`` -> ['b', 'hands', 'add'])."""
    names: list[str] = []
    while True:
        if isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Name):
            names.append(node.id)
            return names[::-1]
        else:
            return ["<expr>", *names[::-1]]


def _writes_engine(chain: list[str]) -> bool:
    return chain[0] in FORBIDDEN_ROOTS


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        for t in targets:
            if isinstance(t, ast.Attribute | ast.Subscript) and _writes_engine(_chain(t)):
                found.append(f"{path.name}:{node.lineno}: assigns {ast.unparse(t)}")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in MUTATORS):
            chain = _chain(node.func)
            if len(chain) > 2 and _writes_engine(chain[:-1]):
                found.append(f"{path.name}:{node.lineno}: mutates {ast.unparse(node.func)}")
    return found


@pytest.mark.parametrize("path", LAWS, ids=lambda p: p.name)
def test_no_law_module_writes_the_engine_or_the_board(path: Path) -> None:
    assert _violations(path) == []


def test_the_check_catches_a_write() -> None:
    bad = PKG.parent.parent / "test-output" / "seam_bad.py"
    bad.parent.mkdir(exist_ok=True)
    bad.write_text("def f(self, tv, b):\n    b.turn = 'N'\n    tv.played.discard('SA')\n"
                   "    self.state.pending.append(1)\n    b.hands['N'].add('SA')\n")
    assert [v.split(": ", 1)[1] for v in _violations(bad)] == [
        "assigns b.turn", "mutates tv.played.discard", "mutates b.hands['N'].add"]


def test_the_engine_imports_no_law_code() -> None:
    for path in sorted((PKG / "engine").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("tablesense.laws"), path.name
            elif isinstance(node, ast.Import):
                assert all(not a.name.startswith("tablesense.laws") for a in node.names)


def _engine_imports() -> dict[str, set[str]]:
    """Each engine module's imports of other engine modules, those made only for
    type checking included (issue 24: code.py -> view.py -> table.py was a circle)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((PKG / "engine").glob("*.py")):
        if path.stem == "__init__":
            continue
        deps = graph.setdefault(path.stem, set())
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "tablesense.engine."):
                deps.add((node.module or "").split(".")[2])
    return graph


def test_no_engine_module_imports_one_that_imports_it() -> None:
    graph = _engine_imports()
    assert "table" not in graph["view"] and "table" not in graph["code"]

    def reach(start: str, seen: set[str]) -> set[str]:
        for d in graph.get(start, set()) - seen:
            seen.add(d)
            reach(d, seen)
        return seen

    circles = sorted(m for m in graph if m in reach(m, set()))
    assert circles == [], circles


# Each owner of engine state and the engine's attribute that holds it: only the owner's
# own methods write its fields (issue 25: a fast path calls the owner it shortcuts).
OWNERS = frozenset(("board", "b", "tracker", "incidents", "sensing", "fusion", "timeline",
                    "trick", "exposures", "readers", "fouling", "view", "law", "codes",
                    "tuning"))


def _owner_writes(path: Path) -> list[str]:
    """Writes, in ``path``, to a field of an owner held by ``self`` (``self.tracker.pos[c]
    = ...``, ``self.incidents.groups.append(...)``), directly or through a local name
    bound to it (``b = self.b; b.step = ...``)."""
    found: list[str] = []
    for fn in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(fn, ast.FunctionDef):
            continue
        alias: dict[str, str] = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                    node.targets[0], ast.Name):
                chain = _chain(node.value) if isinstance(
                    node.value, ast.Attribute | ast.Subscript) else []
                if chain[:1] == ["self"] and len(chain) >= 2 and chain[1] in OWNERS:
                    alias[node.targets[0].id] = chain[1]

        def owned(chain: list[str], alias: dict[str, str] = alias) -> bool:
            if chain[:1] == ["self"]:
                return len(chain) >= 3 and chain[1] in OWNERS
            return chain[0] in alias and len(chain) >= 2

        for node in ast.walk(fn):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = list(node.targets)
            for t in targets:
                if isinstance(t, ast.Attribute | ast.Subscript) and owned(_chain(t)):
                    found.append(f"{path.name}:{node.lineno}: assigns {ast.unparse(t)}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in MUTATORS):
                chain = _chain(node.func)[:-1]
                if owned(chain):
                    found.append(f"{path.name}:{node.lineno}: mutates {ast.unparse(node.func)}")
    return found


@pytest.mark.parametrize("path", sorted((PKG / "engine").glob("*.py")), ids=lambda p: p.name)
def test_no_engine_module_writes_another_owners_fields(path: Path) -> None:
    assert _owner_writes(path) == []


def test_the_owner_check_catches_a_write() -> None:
    bad = PKG.parent.parent / "test-output" / "seam_owner_bad.py"
    bad.parent.mkdir(exist_ok=True)
    bad.write_text("class E:\n    def f(self, o):\n        self.tracker.pos['SA'] = o\n"
                   "        self.incidents.groups.append(o)\n        b = self.b\n"
                   "        b.step = 'deal'\n        self.played.add('SA')\n"
                   "        self.trick.quitting = None\n")
    assert [v.split(": ", 1)[1] for v in _owner_writes(bad)] == [
        "assigns self.tracker.pos['SA']", "assigns b.step", "assigns self.trick.quitting",
        "mutates self.incidents.groups.append"]


# Each code's state is its own type (issue 25): a code's modules import its own state
# type and no other code's; a field is declared once along a state's bases.
def _state_modules() -> dict[str, type]:
    """Each code id -> the type of the state it makes."""
    from tablesense.laws import CODES

    return {cid: type(cls().state) for cid, cls in CODES.items()}


def _imported(module: str) -> set[str]:
    path = PKG.joinpath(*module.split(".")[1:]).with_suffix(".py")
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_each_law_module_reads_only_its_own_codes_state() -> None:
    from tablesense.laws import CODES

    states = _state_modules()
    own_modules = {t.__module__ for t in states.values()}
    assert len(own_modules) >= 2, own_modules  # 2017's and the old codes' apart
    for cid, cls in CODES.items():
        others = own_modules - {states[cid].__module__}
        for module in {k.__module__ for k in cls.__mro__ if k.__module__.startswith(
                "tablesense.laws.")}:
            assert not _imported(module) & others, (cid, module, _imported(module) & others)


def test_a_state_declares_each_field_once() -> None:
    from tablesense.laws.state import CodeState

    for cid, state in _state_modules().items():
        assert issubclass(state, CodeState), cid
        seen: dict[str, str] = {}
        for k in state.__mro__:
            for f in vars(k).get("__annotations__", {}):
                assert f not in seen, f"{cid}: {f} in {k.__name__} and {seen[f]}"
                seen[f] = k.__name__


def test_mypy_refuses_a_code_reading_another_codes_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mypy import api

    snippet = tmp_path / "reads_other_state.py"
    snippet.write_text(
        "from tablesense.laws.calls import CallableCards\n"
        "from tablesense.laws.play2017 import Play2017\n\n\n"
        "class Old(CallableCards):\n    def peek(self) -> object:\n"
        "        return self.state.pending\n\n\n"
        "class New(Play2017):\n    def peek(self) -> object:\n"
        "        return (self.state.callable, self.state.pending)\n")
    monkeypatch.setenv("MYPYPATH", str(PKG.parent))  # this tree's package, not another
    out, _, status = api.run(["--strict", "--no-incremental", "--python-version", "3.11",
                              "--cache-dir", str(tmp_path / "cache"), str(snippet)])
    errors = [line.split(": error: ", 1)[1] for line in out.splitlines() if ": error: " in line]
    assert status == 1 and errors == [
        '"OldState" has no attribute "pending"  [attr-defined]',
        '"State2017" has no attribute "callable"  [attr-defined]'], out
