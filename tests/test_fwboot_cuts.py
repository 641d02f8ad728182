"""fwboot.py under a power cut at every step, in the MicroPython VM.

A board's flash holds an old firmware and a committed update (or one on trial
that never got confirmed). The VM boots (``fwboot.boot()``) with its power cut
after the Nth change to the filesystem (a rename, remove, mkdir or rmdir: the
process stops there), then boots again with the power on. For every N, the
second boot must leave the board with the old firmware whole or the new one
whole: never a mix, never a file missing.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tablesense.firmware.build import firmware_dir
from tablesense.firmware.bundle import Bundle, BundleFile
from tablesense.sim.firmware import find_micropython

pytestmark = pytest.mark.hil

OLD = {"reader.py": b"FIRMWARE = 'old'\n", "wire/codec.py": b"# old codec\n",
       "gone.py": b"# only in the old firmware\n"}
NEW = {"reader.py": b"FIRMWARE = 'new'\n", "wire/codec.py": b"# new codec\n",
       "wire/extra.py": b"# added by the update\n"}

# Runs in the VM, in the flash directory: boot with the power cut after CUT changes.
BOOT = """
import sys, os, fwboot
CUT = int(sys.argv[1])

class PowerCut(Exception):
    pass

class CutOS:
    left = CUT
    def _step(self):
        if CutOS.left == 0:
            raise PowerCut()
        CutOS.left -= 1
    def rename(self, a, b):
        self._step(); os.rename(a, b)
    def remove(self, p):
        self._step(); os.remove(p)
    def mkdir(self, p):
        self._step(); os.mkdir(p)
    def rmdir(self, p):
        self._step(); os.rmdir(p)
    def stat(self, p):
        return os.stat(p)
    def listdir(self, p):
        return os.listdir(p)

if CUT >= 0:
    fwboot.os = CutOS()
try:
    print(fwboot.boot())
except PowerCut:
    print("cut")
"""


def _have_vm() -> bool:
    try:
        return bool(shutil.which(find_micropython()))
    except RuntimeError:
        return False


if not _have_vm():  # pragma: no cover
    pytest.skip("no MicroPython unix VM", allow_module_level=True)


def write_files(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)


def live(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.relative_to(root).parts[0] not in ("upd", "old")
            and p.name not in ("fwboot.py", "boot_once.py")}


def boot(flash: Path, cut: int) -> str:
    """Boot the flash in the VM with the power cut after ``cut`` changes (-1: never)."""
    proc = subprocess.run([find_micropython(), "boot_once.py", str(cut)], cwd=flash,
                          capture_output=True, text=True, timeout=30, check=False,
                          env={"MICROPYPATH": str(flash)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def committed_flash(root: Path) -> Path:
    """The old firmware live, the new one staged and committed (as update.py leaves it)."""
    root.mkdir()
    shutil.copy(firmware_dir() / "fwboot.py", root / "fwboot.py")
    (root / "boot_once.py").write_text(BOOT)
    write_files(root, OLD)
    bundle = Bundle("9.9.9", tuple(BundleFile(p, d) for p, d in sorted(NEW.items())))
    upd = root / "upd"
    upd.mkdir()
    for k in range(bundle.count):
        (upd / str(k)).write_bytes(bundle.file(k))
    added = [p for p in sorted(NEW) if p not in OLD]
    (upd / "commit").write_text("9.9.9\n0\n" + "".join(p + "\n" for p in added))
    return root


def changes_in_a_clean_boot(root: Path) -> int:
    """How many filesystem changes an uncut boot of a copy of ``root`` makes."""
    probe = root.parent / (root.name + "-probe")
    shutil.copytree(root, probe)
    n = 0
    while boot(probe, n) == "cut":
        shutil.rmtree(probe)
        shutil.copytree(root, probe)
        n += 1
    shutil.rmtree(probe)
    return n


def test_a_cut_while_installing_boots_the_new_firmware_whole(tmp_path: Path) -> None:
    base = committed_flash(tmp_path / "base")
    steps = changes_in_a_clean_boot(base)
    assert steps >= 6  # backups, installs, markers: each one a place to cut
    for cut in range(steps + 1):
        flash = tmp_path / f"cut{cut}"
        shutil.copytree(base, flash)
        first = boot(flash, cut)
        assert first == ("cut" if cut < steps else "trial")
        if first == "cut":
            assert boot(flash, -1) == "trial", f"cut after {cut} changes"
        assert live(flash) == {**{k: v for k, v in OLD.items() if k not in NEW}, **NEW}, cut
        shutil.rmtree(flash)


def test_a_cut_while_reverting_boots_the_old_firmware_whole(tmp_path: Path) -> None:
    base = committed_flash(tmp_path / "base")
    assert boot(base, -1) == "trial"  # installed, on trial, never confirmed
    steps = changes_in_a_clean_boot(base)
    for cut in range(steps + 1):
        flash = tmp_path / f"cut{cut}"
        shutil.copytree(base, flash)
        first = boot(flash, cut)
        assert first == ("cut" if cut < steps else "reverted")
        if first == "cut":
            # "": the cut came as it emptied upd/, the revert already done
            assert boot(flash, -1) in ("reverted", ""), f"cut after {cut} changes"
        assert live(flash) == OLD, cut
        assert not (flash / "old").exists(), cut
        assert not (flash / "upd").exists() or not any((flash / "upd").iterdir()), cut
        assert boot(flash, -1) == ""  # nothing pending any more
        shutil.rmtree(flash)


def test_confirm_keeps_the_new_firmware(tmp_path: Path) -> None:
    flash = committed_flash(tmp_path / "flash")
    assert boot(flash, -1) == "trial"
    (flash / "confirm.py").write_text("import fwboot\nprint(fwboot.confirm('9.9.9'))\n")
    proc = subprocess.run([find_micropython(), "confirm.py"], cwd=flash, capture_output=True,
                          text=True, timeout=30, check=False, env={"MICROPYPATH": str(flash)})
    assert proc.stdout.strip() == "True", proc.stderr
    (flash / "confirm.py").unlink()
    assert boot(flash, -1) == ""
    assert live(flash) == {"gone.py": OLD["gone.py"], **NEW}
    assert sorted(p.name for p in flash.iterdir()) == [
        "boot_once.py", "fwboot.py", "gone.py", "reader.py", "wire"]
