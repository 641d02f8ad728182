"""hardware/BRINGUP.md, run: every command it marks as running here, in order, as written.

The guide's shell blocks carry a comment that says how: ``<!-- needs a board -->``
(not run), ``<!-- set by the test itself -->`` (``PATH`` and ``CLUB``),
``<!-- runs here -->`` (run with bash; the ``text`` block right after it, if
any, is what its output must show: each line in order, ``...`` standing for
anything), ``<!-- runs here, in the background -->`` (left running, as the
daemon is, until its shown lines appeared), and ``readers: WHAT`` in the
comment (the table's four readers, before the block runs, in the state WHAT
describes). ``<!-- file: PATH -->`` before a block: the test writes it there.

The readers are the guide's own build (``scripts/build-firmware build/board``,
the ``.mpy`` files a board gets) booted in the MicroPython VM from a flash
directory each, on the simulated PN5180 table build, behind ptys. What a
person would do is done by the test, and said here:

- the board at ``/dev/ttyACM0`` is North's VM reader (E, S, W have no port in
  the guide's commands), each started with its key from ``$CLUB/keys``;
- in the config, ``serial = "..."`` becomes ``port = "<its pty>"`` (a pty has
  no USB serial number; the file is written again whenever the readers
  restart), ``KEY-1N`` .. the keys, the broker's port 1883 (there and in a
  command) a mosquitto on a free port, the dashboard's 8080 a free port;
- ``readers: WHAT`` is one of WORLDS (a phrase the guide uses and the test
  does not know fails it: the guide and the test stay in step).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tablesense.sim.firmware import SimReader, find_micropython, start_reader

pytestmark = pytest.mark.hil
REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "hardware" / "BRINGUP.md"
SEATS = "NESW"


def _have_vm() -> bool:
    try:
        return bool(shutil.which(find_micropython()))
    except RuntimeError:
        return False


if not _have_vm():  # pragma: no cover
    pytest.skip("no MicroPython unix VM", allow_module_level=True)


@dataclass
class Block:
    how: str  # the comment before it
    lang: str
    text: str
    expect: list[str]  # the text block right after it
    line: int


def blocks(md: str) -> list[Block]:
    """Each fenced block that follows a ``<!-- ... -->`` comment, with its expected output."""
    out: list[Block] = []
    lines = md.splitlines()
    i = 0
    while i < len(lines):
        m = re.fullmatch(r"<!-- (.*) -->", lines[i].strip())
        if not m or i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            i += 1
            continue
        lang = lines[i + 1][3:].strip()
        end = lines.index("```", i + 2)
        body = "\n".join(lines[i + 2 : end])
        j = end + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        expect: list[str] = []
        if j < len(lines) and lines[j] == "```text":
            k = lines.index("```", j + 1)
            expect = [x.strip() for x in lines[j + 1 : k] if x.strip()]
        out.append(Block(m.group(1), lang, body, expect, i + 1))
        i = end + 1
    return out


def shows(output: str, expect: list[str]) -> bool:
    """Each expected line matches a line of ``output``, in order (``...``: anything)."""
    got = [x.strip() for x in output.splitlines()]
    at = 0
    for want in expect:
        pattern = ".*".join(re.escape(part) for part in want.split("..."))
        while at < len(got) and not re.fullmatch(pattern, got[at]):
            at += 1
        if at == len(got):
            return False
        at += 1
    return True


# What the table's readers sense, by the words the guide says it in (North's lines).
WORLDS: dict[str, list[dict[str, object]]] = {
    "idle": [],
    "four blank tags on North's antennas": [
        {"t": 400 + 700 * i, "seat": "N", "card": c, "zone": z, "blank": True}
        for i, (c, z) in enumerate([("HA", "trick"), ("D7", "table"), ("C9", "table"),
                                    ("S4", "trick")])],
    "the ace of spades on North's trick antenna": [
        {"t": 3000, "seat": "N", "card": "SA", "zone": "trick"}],
}


class Table:
    """Table 1's four VM readers, each booted from its own copy of the guide's build."""

    def __init__(self, build: Path, club: Path, work: Path) -> None:
        self.build = build
        self.club = club
        self.work = work
        self.readers: dict[str, SimReader] = {}

    def key(self, seat: str) -> bytes | None:
        p = self.club / "keys" / f"1{seat}.txt"
        return bytes.fromhex(p.read_text().strip()) if p.exists() else None

    def become(self, world: str) -> None:
        assert world in WORLDS, f"BRINGUP.md says 'readers: {world}': not in WORLDS"
        self.stop()
        scen = self.work / f"{world.replace(' ', '-').replace(chr(39), '')}.jsonl"
        scen.write_text("".join(json.dumps(x) + "\n" for x in WORLDS[world]))
        for seat in SEATS:
            flash = self.work / f"flash-{seat}"
            shutil.rmtree(flash, ignore_errors=True)
            shutil.copytree(self.build, flash)
            self.readers[seat] = start_reader(seat, scen, flash=flash, key=self.key(seat))

    def logs(self) -> str:
        return "\n".join(f"{s}: alive {r.alive()} {r.log[-1500:]}"
                         for s, r in self.readers.items())

    def stop(self) -> None:
        for r in self.readers.values():
            r.stop()
        self.readers = {}


@pytest.fixture
def guide_env(tmp_path: Path, mosquitto: Callable[..., object]) -> Iterator[dict[str, object]]:
    club = tmp_path / "club"
    club.mkdir()
    broker = mosquitto()
    env = dict(os.environ, CLUB=str(club), PYTHONPATH=str(REPO / "host"),
               PATH=f"{REPO / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    table = Table(REPO / "build" / "board", club, tmp_path)
    daemons: list[subprocess.Popen[str]] = []
    yield {"club": club, "env": env, "table": table, "daemons": daemons,
           "broker_port": getattr(broker, "port")}  # noqa: B009 - conftest's Broker
    for d in daemons:
        stop(d)
    table.stop()


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def localise(text: str, env: dict[str, object]) -> str:
    """The guide's board-specific words, as the VM table has them here."""
    table = env["table"]
    assert isinstance(table, Table)
    text = text.replace("port=1883", f"port={env['broker_port']}")
    if "/dev/ttyACM0" in text:
        assert table.readers, "a command names /dev/ttyACM0 but no 'readers:' came before"
        text = text.replace("/dev/ttyACM0", table.readers["N"].port)
    return text


def write_config(text: str, env: dict[str, object]) -> str:
    table = env["table"]
    assert isinstance(table, Table)
    for seat in SEATS:
        key = table.key(seat)
        text = text.replace(f'"KEY-1{seat}"', f'"{key.hex() if key else ""}"')
        if seat in table.readers:
            text = re.sub(rf'(readers\.{seat} = \{{ )serial = "[^"]*"',
                          rf'\1port = "{table.readers[seat].port}"', text)
    text = text.replace("port = 1883", f"port = {env['broker_port']}")
    return text.replace("port = 8080", f"port = {free_port()}")


def test_every_command_of_the_guide_that_can_run_here(guide_env: dict[str, object]) -> None:
    env = guide_env
    shell_env = env["env"]
    assert isinstance(shell_env, dict)
    table = env["table"]
    assert isinstance(table, Table)
    daemons = env["daemons"]
    assert isinstance(daemons, list)
    ran = 0
    files: dict[Path, str] = {}  # the guide's files, written again for each table of readers
    for b in blocks(GUIDE.read_text()):
        where = f"BRINGUP.md:{b.line}"
        if b.how.startswith("file: "):
            path = Path(b.how.removeprefix("file: ").replace("$CLUB", str(env["club"])))
            files[path] = b.text
            path.write_text(write_config(b.text, env))
            continue
        if b.how in ("needs a board", "set by the test itself"):
            continue
        assert b.how.startswith("runs here"), f"{where}: say how it runs: {b.how!r}"
        assert b.lang == "sh", where
        m = re.search(r"readers: (.*)$", b.how)
        if m:
            for d in daemons:  # one program per port: the daemon goes first
                stop(d)
            table.become(m.group(1))
            for path, text in files.items():  # the new readers' ptys
                path.write_text(write_config(text, env))
        script = localise(b.text, env)
        if "in the background" in b.how:
            proc = subprocess.Popen(["bash", "-c", f"exec {script}"], cwd=REPO, env=shell_env,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    stdin=subprocess.DEVNULL)
            daemons.append(proc)
            seen: list[str] = []
            deadline = time.monotonic() + 60
            os.set_blocking(proc.stdout.fileno(), False)  # type: ignore[union-attr]
            while not shows("".join(seen), b.expect):
                assert proc.poll() is None, f"{where}: ended: {''.join(seen)}"
                assert time.monotonic() < deadline, f"{where}: {''.join(seen)}"
                line = proc.stdout.readline()  # type: ignore[union-attr]
                if line:
                    seen.append(line)
                else:
                    time.sleep(0.05)
        else:
            # while the daemon runs, a step may wait for what it shows (a card sensed)
            deadline = time.monotonic() + (30 if any(d.poll() is None for d in daemons) else 0)
            while True:
                done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=REPO,
                                      env=shell_env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, timeout=300,
                                      stdin=subprocess.DEVNULL)
                output = done.stdout
                ok = done.returncode == 0 and shows(output, b.expect)
                if ok or time.monotonic() >= deadline:
                    break
                time.sleep(0.5)
            assert done.returncode == 0, (f"{where}: status {done.returncode}\n{output}\n"
                                          f"{table.logs()}")
            assert "Traceback" not in output, f"{where}\n{output}"
            assert shows(output, b.expect), f"{where}: expected {b.expect}\ngot:\n{output}"
        ran += 1
    assert ran >= 10  # the guide still has its steps
