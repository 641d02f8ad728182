"""The package's rooms say what they hold (issue 24): a check of the layout itself.

- the package root holds only ``__init__.py``, ``cli.py``, sub-packages and the
  package data (``static/``, ``data/``, ``py.typed``);
- no module of the product imports the proving harness (``tablesense.proving``),
  and importing the package imports none of it;
- every module of ``tablesense/onboard/`` keeps to the subset the board runs: it
  imports only what MicroPython has, and nothing of the project's outside the
  folder (its one rule, stated in ``tablesense/onboard/__init__.py``).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "host" / "tablesense"
DATA = {"static", "data", "py.typed", "__pycache__"}
# What MicroPython's standard library gives the board (and CPython the host).
BOARD_STDLIB = {"struct", "binascii", "hashlib", "random", "time", "typing"}


def _imports(path: Path) -> list[tuple[int, str, int]]:
    """(line, module, level) of every import in ``path``."""
    found: list[tuple[int, str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, 0) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, node.module or "", node.level))
    return found


def test_the_package_root_holds_only_the_entry_points_and_sub_packages() -> None:
    loose = sorted(p.name for p in PKG.iterdir()
                   if p.name not in DATA and p.name not in ("__init__.py", "cli.py")
                   and not (p.is_dir() and (p / "__init__.py").is_file()))
    assert loose == []


def test_no_product_module_imports_the_proving_harness() -> None:
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        if "proving" in path.relative_to(PKG).parts:
            continue
        for line, module, _ in _imports(path):
            if module == "tablesense.proving" or module.startswith("tablesense.proving."):
                offenders.append(f"{path.relative_to(PKG)}:{line}: {module}")
    assert offenders == []


def test_importing_the_package_and_its_commands_loads_no_harness() -> None:
    code = ("import sys, tablesense, tablesense.cli, tablesense.daemon.core;"
            "print(sorted(m for m in sys.modules if m.startswith('tablesense.proving')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_onboard_modules_import_only_what_the_board_has() -> None:
    onboard = PKG / "onboard"
    offenders = []
    for path in sorted(onboard.rglob("*.py")):
        if path == onboard / "__init__.py":
            continue
        for line, module, level in _imports(path):
            if level > 0 or module.split(".")[0] in BOARD_STDLIB:
                continue
            offenders.append(f"{path.relative_to(PKG)}:{line}: {module}")
    assert offenders == []
    assert (onboard / "wire" / "codec.py").is_file()
