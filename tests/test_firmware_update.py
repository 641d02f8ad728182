"""Firmware updates over the wire, on the real firmware booted from a flash directory in the VM.

The reader runs what its flash directory holds (``start_reader(flash=DIR)``, as a
board runs what its LittleFS holds), so an update really replaces the code that
runs; a power cut is the VM killed at once (``power_cut``), then booted again.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablesense import cli
from tablesense.daemon.ports import Port, open_port
from tablesense.firmware import build
from tablesense.firmware.bundle import Bundle, load_bundle
from tablesense.firmware.flasher import Flasher, Link, UpdateError
from tablesense.onboard.wire import codec
from tablesense.sim.firmware import SimReader, find_micropython, start_reader

pytestmark = pytest.mark.hil
KEY = bytes(range(16))
# the version today's firmware reports (firmware/reader.py FIRMWARE)
TODAY = (build.firmware_dir() / "reader.py").read_text().split('FIRMWARE = "')[1].split('"')[0]


def _have_vm() -> bool:
    try:
        return bool(shutil.which(find_micropython()))
    except RuntimeError:
        return False


if not _have_vm():  # pragma: no cover
    pytest.skip("no MicroPython unix VM", allow_module_level=True)


def make_build(dest: Path, version: str | None = None) -> Path:
    """A source build of today's firmware; ``version``: its FIRMWARE string changed to it."""
    build.build(dest)
    if version is not None:
        src = dest / "reader.py"
        text = src.read_text()
        old = text.split('FIRMWARE = "', 1)[1].split('"', 1)[0]
        src.write_text(text.replace(f'FIRMWARE = "{old}"', f'FIRMWARE = "{version}"', 1))
    return dest


def live_digests(flash: Path) -> dict[str, str]:
    """What the board would run: each file outside upd/ and old/, hashed."""
    return {p.relative_to(flash).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(flash.rglob("*"))
            if p.is_file() and p.relative_to(flash).parts[0] not in ("upd", "old")}


def firmware_on_boot(reader: SimReader, key: bytes | None = None) -> str:
    """Boot the reader again and ask its version (MAINT hello)."""
    reader.power_on()
    port = open_port(reader.port)
    try:
        hello = Flasher(Link(port, 1, key), Bundle("0.0.0", ()), lambda m: None).hello()
        return str(hello.fields["firmware"])
    finally:
        port.close()


@pytest.fixture
def flash(tmp_path: Path) -> Path:
    return make_build(tmp_path / "flash")


@pytest.fixture
def reader(flash: Path) -> Iterator[SimReader]:
    r = start_reader("N", None, flash=flash)
    yield r
    r.stop()


def test_update_installs_confirms_and_survives_a_reboot(
    tmp_path: Path, flash: Path, reader: SimReader, capsys: pytest.CaptureFixture[str]
) -> None:
    new = make_build(tmp_path / "new", "0.9.1")
    assert cli.main(["firmware", "update", "--port", reader.port, "--build", str(new)]) == 0
    assert "-> 0.9.1" in capsys.readouterr().out
    assert live_digests(flash) == {k: v for k, v in live_digests(new).items()}
    assert not (flash / "upd").exists() and not (flash / "old").exists()
    assert firmware_on_boot(reader) == "0.9.1"  # confirmed: a reboot keeps it
    # a second run finds it current and sends nothing
    assert cli.main(["firmware", "update", "--port", reader.port, "--build", str(new)]) == 0
    assert "already 0.9.1" in capsys.readouterr().out


class CutAfter:
    """The port of a reader whose power is cut after ``chunks`` CHUNK frames went out."""

    def __init__(self, port: Port, reader: SimReader, chunks: int) -> None:
        self.port = port
        self.reader = reader
        self.left = chunks

    def __getattr__(self, name: str) -> object:
        return getattr(self.port, name)

    def write(self, data: bytes) -> int | None:
        frames = [f for f in codec.Decoder(sender="host").feed(data)
                  if isinstance(f, codec.Frame)]
        if any(f.mtype == codec.CHUNK for f in frames):
            self.left -= 1
            if self.left == 0:
                self.reader.power_cut()
        return self.port.write(data)


def test_power_cut_while_staging_keeps_the_old_firmware_and_resumes(
    tmp_path: Path, flash: Path, reader: SimReader
) -> None:
    before = live_digests(flash)
    bundle = load_bundle(make_build(tmp_path / "new", "0.9.2"))
    port = open_port(reader.port)
    try:
        with pytest.raises(UpdateError):
            Flasher(Link(CutAfter(port, reader, 2000), 1, None), bundle,  # type: ignore[arg-type]
                    lambda m: None, timeout=0.5).run()
    finally:
        port.close()
    assert live_digests(flash) == before  # only upd/ was written
    staged = sum(p.stat().st_size for p in (flash / "upd").iterdir())
    assert 0 < staged < bundle.size
    assert firmware_on_boot(reader) == TODAY
    port = open_port(reader.port)
    try:
        out = Flasher(Link(port, 1, None), bundle, lambda m: None).run()
    finally:
        port.close()
    assert (out.old, out.new, out.state) == (TODAY, "0.9.2", "updated")
    assert out.sent <= bundle.size - staged + codec.MAX_CHUNK * 4  # resumed, not restarted
    assert firmware_on_boot(reader) == "0.9.2"


class Cancelled(Exception):
    pass


class CancelAfter(CutAfter):
    """The operator presses Ctrl-C after ``chunks`` CHUNK frames went out."""

    def write(self, data: bytes) -> int | None:
        if codec.Decoder(sender="host").feed(data)[0].mtype == codec.CHUNK:  # type: ignore[union-attr]
            self.left -= 1
            if self.left == 0:
                raise Cancelled
        return self.port.write(data)


def test_a_cancelled_update_leaves_the_reader_on_its_old_firmware(
    tmp_path: Path, flash: Path, reader: SimReader
) -> None:
    before = live_digests(flash)
    bundle = load_bundle(make_build(tmp_path / "new", "0.9.5"))
    port = open_port(reader.port)
    try:
        with pytest.raises(Cancelled):
            Flasher(Link(CancelAfter(port, reader, 500), 1, None), bundle,  # type: ignore[arg-type]
                    lambda m: None).run()
    finally:
        port.close()
    assert reader.alive()  # the reader never stopped
    assert live_digests(flash) == before
    port = open_port(reader.port)
    try:  # still the old firmware, running, without a reboot
        hello = Flasher(Link(port, 1, None), bundle, lambda m: None).hello()
    finally:
        port.close()
    assert hello.fields["firmware"] == TODAY
    assert "fwboot" not in reader.log  # booted once, never again


def test_a_firmware_that_does_not_start_is_reverted(
    tmp_path: Path, flash: Path, reader: SimReader, capsys: pytest.CaptureFixture[str]
) -> None:
    before = live_digests(flash)
    new = make_build(tmp_path / "new", "0.9.3")
    zones = new / "zones.py"
    zones.write_text(zones.read_text() + "\nraise RuntimeError('a bug in 0.9.3')\n")
    rc = cli.main(["firmware", "update", "--port", reader.port, "--build", str(new),
                   "--confirm-timeout", "20"])
    assert rc == 1
    assert f"0.9.3 did not start; the reader reverted to {TODAY}" in capsys.readouterr().err
    assert "a bug in 0.9.3" in reader.log
    assert live_digests(flash) == before
    assert firmware_on_boot(reader) == TODAY


def test_signed_update_and_a_forged_signature(tmp_path: Path, flash: Path) -> None:
    before = live_digests(flash)
    bundle = load_bundle(make_build(tmp_path / "new", "0.9.4"))

    class Forged(Bundle):
        def signature(self, key: bytes | None) -> bytes:
            return super().signature(bytes(16))  # signed with another key

    r = start_reader("N", None, flash=flash, key=KEY)
    try:
        port = open_port(r.port)
        try:
            with pytest.raises(UpdateError, match="bad-signature"):
                Flasher(Link(port, 1, KEY), Forged(bundle.version, bundle.files),
                        lambda m: None).run()
            assert live_digests(flash) == before
            out = Flasher(Link(port, 1, KEY), bundle, lambda m: None).run()
            assert out.sent == 0  # the forged run's files were staged and verified: kept
            assert (out.new, out.state) == ("0.9.4", "updated")
        finally:
            port.close()
    finally:
        r.stop()


def test_a_reader_whose_key_is_not_the_config_s_is_named(
    tmp_path: Path, flash: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = make_build(tmp_path / "new", "0.9.6")
    r = start_reader("N", None, flash=flash, key=KEY)
    try:
        rc = cli.main(["firmware", "update", "--port", r.port, "--build", str(new),
                       "--key", bytes(16).hex(), "--timeout", "0.5"])
    finally:
        r.stop()
    assert rc == 1
    assert "frames signed with another key than the config's" in capsys.readouterr().err


def test_bad_build_directory_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["firmware", "update", "--port", "/dev/null", "--build", "/nonexistent"])
    assert rc == 2
    assert capsys.readouterr().err.strip() == (
        "tablesense firmware: /nonexistent: no such directory (scripts/build-firmware DIR)")
