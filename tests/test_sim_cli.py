"""``tablesense sim``: simulated readers on ptys, from the command line."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablesense.sim.firmware import find_micropython

pytestmark = pytest.mark.hil
REPO = Path(__file__).resolve().parents[1]
SCENARIO = REPO / "tests" / "data" / "sim-north.jsonl"
GOLDEN = REPO / "tests" / "scenarios" / "duplicate-2017" / "minor-penalty-card.jsonl"
CLI = [sys.executable, "-m", "tablesense.cli"]
LINE = re.compile(r"^([NESW]) → (/dev/\S+)$")


def _have_vm() -> bool:
    try:
        return bool(shutil.which(find_micropython()))
    except RuntimeError:
        return False


if not _have_vm():  # pragma: no cover
    pytest.skip("no MicroPython unix VM", allow_module_level=True)


def sim(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*CLI, "sim", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=REPO)


def read_ports(p: subprocess.Popen[str], n: int) -> dict[str, str]:
    assert p.stdout is not None
    ports: dict[str, str] = {}
    while len(ports) < n:
        line = p.stdout.readline()
        assert line, p.stderr.read() if p.stderr else "no output"
        m = LINE.match(line.rstrip("\n"))
        assert m, line
        ports[m.group(1)] = m.group(2)
    return ports


def vm_children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (the VMs a sim started)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def test_a_reader_on_a_pty_that_decode_reads_a_hello_from() -> None:
    # no --duration: on a loaded machine the VM may take seconds to say its first HELLO
    p = sim("--seat", "N", "--scenario", str(SCENARIO))
    try:
        port = read_ports(p, 1)["N"]
        assert os.path.exists(port)
        # the reader says HELLO each second until a host configures it
        d = subprocess.run([*CLI, "decode", port, "--count", "1", "--timeout", "60"],
                           capture_output=True, text=True, timeout=90, cwd=REPO)
        assert d.returncode == 0, d.stderr
        frame = json.loads(d.stdout.splitlines()[0])
        assert frame["type"] == "HELLO" and frame["fields"]["serial"] == "SIM-N"
        assert frame["fields"]["kind"] == "rfid"
        p.send_signal(signal.SIGTERM)
        assert p.wait(30) == 0  # stopped cleanly
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert not os.path.exists(port) or not vm_children(p.pid)


def test_a_journal_starts_four_readers_and_prints_the_commands_when_due() -> None:
    p = sim("--journal", str(GOLDEN), "--max-gap-ms", "500", "--lead-in-ms", "200",
            "--duration", "3")
    try:
        ports = read_ports(p, 4)
        assert sorted(ports) == ["E", "N", "S", "W"] and len(set(ports.values())) == 4
        kids = vm_children(p.pid)
        assert len(kids) == 4
        # read on through the same buffered stream: communicate() reads the pipe's file
        # descriptor and would lose lines readline() already buffered with the last port
        assert p.stdout is not None and p.stderr is not None
        out = p.stdout.read()
        err = p.stderr.read()
        assert p.wait(10) == 0, err
        cmds = [json.loads(x) for x in out.splitlines()]
        # board at 200 ms, dealt 500 ms later, calls from ~1.2 s: those due within 3 s
        assert [c["type"] for c in cmds[:2]] == ["board", "dealt"]
        assert cmds[0] == {"type": "board", "table": "1", "board": 1, "dealer": "N",
                           "vul": "None", "code": "duplicate-2017"}
        assert 3 <= len(cmds) < 9 and all(c["type"] == "call" for c in cmds[2:])
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    time.sleep(0.2)
    assert not [k for k in kids if Path(f"/proc/{k}").exists()]


def test_sigterm_stops_the_readers_too(tmp_path: Path) -> None:
    p = sim("--journal", str(GOLDEN), "--write", str(tmp_path / "table.jsonl"))
    try:
        read_ports(p, 4)
        kids = vm_children(p.pid)
        assert len(kids) == 4
        assert (tmp_path / "table.jsonl").read_text().startswith("# tablesense sim")
        p.send_signal(signal.SIGTERM)
        assert p.wait(5) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    deadline = time.monotonic() + 3
    while any(Path(f"/proc/{k}").exists() for k in kids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [k for k in kids if Path(f"/proc/{k}").exists()]


def test_bad_arguments() -> None:
    r = subprocess.run([*CLI, "sim", "--scenario", str(SCENARIO)], capture_output=True,
                       text=True, timeout=10, cwd=REPO)
    assert r.returncode == 2 and "--seat" in r.stderr
    r = subprocess.run([*CLI, "sim", "--journal", str(GOLDEN), "--max-gap-ms", "10"],
                       capture_output=True, text=True, timeout=10, cwd=REPO)
    assert r.returncode == 2 and "max_gap_ms" in r.stderr
