"""The host without the camera extra: numpy, OpenCV, Pillow (and onnxruntime) are the
camera board's (``pip install 'tablesense[camera]'``), never the daemon's.

Each check runs ``tablesense`` in a child Python whose imports of those packages
fail as they would where they are not installed (a meta path finder in front of
the others), so it holds on this machine, where the test extra installs them.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from importlib.metadata import requires
from pathlib import Path
from typing import Any

import pytest

from tablesense.onboard.wire import codec

REPO = Path(__file__).resolve().parent.parent
CAMERA_ONLY = ("numpy", "cv2", "PIL", "onnxruntime")

# The child: the camera packages cannot be imported, then `tablesense ARGS...` (or, with
# --modules, every host module outside tablesense.vision); at exit it says which of them
# were imported after all (none may be: not even behind a try/except).
CHILD = """
import atexit, importlib, importlib.abc, json, pkgutil, sys
BLOCKED = set(sys.argv[1].split(","))

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
atexit.register(lambda: print("LOADED " + json.dumps(sorted(
    {m.split(".")[0] for m in sys.modules} & BLOCKED)), file=sys.stderr, flush=True))
if sys.argv[2] == "--modules":
    import tablesense
    failed = {}
    for m in pkgutil.walk_packages(tablesense.__path__, "tablesense."):
        if m.name.startswith("tablesense.vision"):
            continue
        try:
            importlib.import_module(m.name)
        except Exception as exc:
            failed[m.name] = repr(exc)
    try:  # the camera board itself cannot be imported here: the packages are missing
        importlib.import_module("tablesense.vision.pipeline")
    except ModuleNotFoundError as exc:
        failed["(the camera board, as it must)"] = exc.name
    print(json.dumps(failed))
    raise SystemExit(0)
from tablesense.cli import main
sys.argv = ["tablesense", *sys.argv[2:]]
raise SystemExit(main())
"""


def _child(*args: str) -> list[str]:
    return [sys.executable, "-c", CHILD, ",".join(CAMERA_ONLY), *args]


def _loaded(stderr: str) -> list[str]:
    line = next(x for x in stderr.splitlines() if x.startswith("LOADED "))
    out: list[str] = json.loads(line[len("LOADED "):])
    return out


def test_the_camera_packages_are_an_extra_not_a_dependency() -> None:
    reqs = requires("tablesense") or []
    base = [r for r in reqs if "extra ==" not in r]
    camera = [r for r in reqs if "extra == \"camera\"" in r]
    names = ("numpy", "opencv", "pillow", "onnxruntime")
    assert not [r for r in base if r.lower().startswith(names)], base
    assert {r.split(">")[0].split("=")[0].split(";")[0].strip().lower() for r in camera} >= {
        "numpy", "opencv-python-headless", "pillow"}, camera


def test_every_host_module_imports_without_the_camera_extra() -> None:
    out = subprocess.run(_child("--modules"), capture_output=True, text=True, timeout=120,
                         cwd=REPO)
    assert out.returncode == 0, out.stderr
    failed = json.loads(out.stdout.splitlines()[-1])
    assert failed.pop("(the camera board, as it must)") in CAMERA_ONLY
    assert failed == {}
    assert _loaded(out.stderr) == []


def test_commands_without_the_camera_extra(tmp_path: Path) -> None:
    out = subprocess.run(_child("replay", "examples/journals/minor-penalty-card.jsonl"),
                         capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert "minor-penalty-card" in out.stdout and _loaded(out.stderr) == []
    # the camera's own commands say what to install, and nothing else breaks
    for args in (["calibrate"], ["camera", "--source", "O=/dev/video0", "--pty"]):
        out = subprocess.run(_child(*args), capture_output=True, text=True, timeout=120,
                             cwd=REPO)
        assert out.returncode == 2 and "tablesense[camera]" in out.stderr, out
        assert _loaded(out.stderr) == []
    out = subprocess.run(_child("demo", "--readers", "vision", "--boards", "1",
                                "--no-dashboard", "--journal", str(tmp_path)),
                         capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.returncode != 0 and "tablesense[camera]" in out.stdout + out.stderr, out
    assert _loaded(out.stderr) == []


@pytest.mark.broker
def test_the_daemon_runs_without_the_camera_extra(tmp_path: Path, mosquitto: Any,
                                                  pty_readers: Any) -> None:
    """``tablesense run`` with a table and a reader: a frame from the reader reaches
    the journal, and SIGTERM stops the daemon cleanly."""
    broker = mosquitto()
    reader = pty_readers(reader=1, serial="LIGHT-N")
    conf = tmp_path / "t.toml"
    conf.write_text(f'version = 1\n[broker]\nport = {broker.port}\n'
                    f'[journal]\ndir = "{tmp_path / "j"}"\n'
                    f'[tables.1.readers.N]\nport = "{reader.path}"\n')
    proc = subprocess.Popen(_child("run", "--config", str(conf)), stderr=subprocess.PIPE,
                            text=True, cwd=REPO)
    journal = tmp_path / "j" / "1.jsonl"

    def observed() -> list[dict[str, Any]]:
        if not journal.exists():
            return []
        lines = [json.loads(x) for x in journal.read_text().splitlines() if x.strip()]
        return [x for x in lines if x.get("type") == "observe"]

    try:
        reader.start_heartbeats(0.1)
        deadline = time.monotonic() + 30
        while not reader.host_frames(codec.CONFIG) and time.monotonic() < deadline:
            reader.hello()  # until the daemon's CONFIG comes: it is starting
            time.sleep(0.2)
        assert reader.host_frames(codec.CONFIG), "no CONFIG from the daemon"
        reader.observe("SA", zone="hand", seat="N")
        while not observed() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [(o["seat"], o["card"], o["zone"]) for o in observed()] == [("N", "SA", "hand")]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate(timeout=5)
    assert proc.returncode == 0, err
    assert _loaded(err) == []
