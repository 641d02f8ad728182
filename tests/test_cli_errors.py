"""Every subcommand with bad arguments: one line naming the cause, status 2, no traceback.

Each case runs the real ``tablesense`` entry point in a process of its own, so
anything printed on the way out (a traceback from any thread, a logged
exception) is seen.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tablesense.cli import COMMANDS

REPO = Path(__file__).resolve().parents[1]
JOURNAL = REPO / "examples" / "journals" / "minor-penalty-card.jsonl"
NOWHERE = "/nonexistent/tablesense"


def tablesense(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO / "host"))
    return subprocess.run([sys.executable, "-m", "tablesense.cli", *args], capture_output=True,
                          text=True, timeout=120, check=False, env=env, cwd=cwd,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("bad")
    bad_code = d / "bad-code.toml"
    bad_code.write_text('version = 1\n[tables.1]\ncode = "nosuch"\n'
                        'readers.N = { port = "/dev/nonexistent-reader" }\n')
    deck = d / "deck-1.txt"
    deck.write_text("# deck 1\n")
    build = d / "build"
    (build / "wire").mkdir(parents=True)
    (build / "reader.py").write_text('FIRMWARE = "0.6.0"\n')
    return {"bad_code": bad_code, "deck": deck, "build": build}


# (arguments, a word the one line must hold); {name} is a file of the fixture
CASES: list[tuple[tuple[str, ...], str]] = [
    (("decode", NOWHERE + ".bin"), "no such file or port"),
    (("replay", NOWHERE + ".jsonl"), "No such file"),
    (("replay", "--code", "nosuch", str(JOURNAL)), "unknown law code 'nosuch'"),
    (("run", "--config", NOWHERE + ".toml"), "cannot read"),
    (("run", "--config", "{bad_code}"), "nosuch"),
    (("ports", "--config", NOWHERE + ".toml"), "cannot read"),
    (("export", NOWHERE + ".jsonl"), "No such file"),
    (("record", NOWHERE + ".jsonl"), "no such file"),
    (("demo", "--code", "nosuch", "--tables", "1", "--boards", "1", "--no-dashboard"),
     "unknown law code 'nosuch'"),
    (("demo", "--tables", "0"), "--tables"),
    (("demo", "--noise", NOWHERE + ".toml", "--boards", "1", "--no-dashboard"), "noise"),
    (("sim", "--journal", NOWHERE + ".jsonl"), "No such file"),
    (("maint", "/dev/nonexistent-reader", "stop"), "no such port"),
    (("deck", "enroll", "/dev/nonexistent-reader", "--deck", "1"), "no such port"),
    (("deck", "verify", "/dev/nonexistent-reader", "{deck}"), "no such port"),
    (("deck", "list", NOWHERE), "no such directory"),
    (("calibrate", "--frames", NOWHERE), "cannot read"),
    (("calibrate", "--plate", NOWHERE + "/plate.png"), "No such file"),
    (("calibrate", "--plate", "plate.svg"), "expected a .png or .pdf file"),
    (("camera", "--source", "O=" + NOWHERE + ".avi", "--pty"), "no such file"),
    (("camera", "--source", "X=/dev/video0", "--pty"), "no such camera"),
    (("camera", "--source", "O=/dev/video0", "--listen", "host:port"), "[HOST:]PORT"),
    (("firmware", "update", "--port", "/dev/nonexistent-reader", "--build", NOWHERE),
     "no such directory"),
    (("firmware", "update", "--config", NOWHERE + ".toml", "--build", "{build}"),
     "cannot read"),
    (("firmware", "bundle", NOWHERE), "no such directory"),
    (("vision", "read", NOWHERE + ".jpg"), "cannot read"),
]


@pytest.mark.parametrize(("args", "word"), CASES, ids=[" ".join(a[:2]) for a, _ in CASES])
def test_bad_arguments_say_why_in_one_line(
    args: tuple[str, ...], word: str, files: dict[str, Path]
) -> None:
    argv = [a.format(**files) for a in args]
    done = tablesense(*argv)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert done.returncode == 2, (argv, done.returncode, done.stderr)
    assert len(lines) == 1, lines
    assert word in lines[0], lines[0]


def test_every_command_has_a_bad_argument_case() -> None:
    assert {a[0] for a, _ in CASES} | {"codes"} == set(COMMANDS)


def test_argparse_errors_exit_2_without_traceback() -> None:
    for cmd in COMMANDS:
        done = tablesense(cmd, "--no-such-option")
        assert done.returncode == 2, cmd
        assert "Traceback" not in done.stderr, done.stderr
        assert done.stderr.splitlines()[-1].startswith("tablesense"), cmd
        assert ": error: " in done.stderr, cmd


def test_firmware_update_of_a_missing_reader_says_why(files: dict[str, Path]) -> None:
    done = tablesense("firmware", "update", "--port", "/dev/nonexistent-reader",
                      "--build", str(files["build"]))
    assert done.returncode == 1
    assert "/dev/nonexistent-reader: no such port" in done.stderr
    assert "Traceback" not in done.stderr


def test_ports_exits_1_when_a_configured_reader_is_missing(tmp_path: Path) -> None:
    cfg = tmp_path / "t.toml"
    cfg.write_text('version = 1\n[tables.1]\nreaders.N = { serial = "NO-SUCH-SERIAL" }\n'
                   'readers.E = { port = "/dev/nonexistent-reader" }\n')
    done = tablesense("ports", "--config", str(cfg))
    assert done.returncode == 1
    assert "NO-SUCH-SERIAL\t(missing)" in done.stdout
    assert "/dev/nonexistent-reader\t-\t(no such port)" in done.stdout
    assert done.stderr.splitlines()[-1] == "tablesense ports: 2 configured readers missing"


def test_check_vectors_without_arguments() -> None:
    done = subprocess.run([sys.executable, str(REPO / "hardware/protocol/check_vectors.py")],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("check_vectors.py: usage: check_vectors.py DIR VECTORS.json")
    assert len(done.stderr.splitlines()) == 1
