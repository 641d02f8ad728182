"""A firmware bundle: a build's files, their SHA-256 manifest, and its signature.

``load_bundle(DIR)`` reads what ``scripts/build-firmware DIR`` wrote. The
manifest (file 0 of an update, hardware/protocol.md section 3a) is text::

    tablesense-firmware 0.6.0
    <sha256 hex> <size> <path on the board>
    ...

one line per file, sorted by path. ``boot.py`` and ``fwboot.py`` are left out:
they undo a bad update, so an update never replaces them (the board refuses a
manifest naming them); change them with mpremote (hardware/BRINGUP.md).

The bundle is signed for each reader with the key its wire frames are signed
with (``tables.<t>.readers.<seat>.key``, the board's ``key.txt``):
``HMAC-SHA256(key, "tablesense-firmware" | SHA-256(manifest))``, checked on the
board before anything is installed. Why HMAC and not ed25519: BENCHMARKS.md,
"Firmware updates". A reader without a key is sent the manifest's SHA-256
instead: integrity, no authenticity (such a reader obeys anyone at its port).

>>> b = Bundle("1.2.3", (BundleFile("a.py", b"x = 1\\n"),))
>>> print(b.manifest.decode(), end="")
tablesense-firmware 1.2.3
9e26bf369911c45c243c684147b23fc9e1dcfcf257d299a1c632016a6fcd33f4 6 a.py
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from tablesense.onboard.wire.signing import hmac_sha256

SIG_CONTEXT = b"tablesense-firmware"  # firmware/update.py's
BOOT_MODULES = ("boot", "fwboot")  # firmware/fwboot.py's BOOT_MODULES, source or .mpy
_VERSION = re.compile(rb'FIRMWARE = "(\d{1,3}\.\d{1,3}\.\d{1,3})"')
_PATH = re.compile(r"[A-Za-z0-9_.\-]+(/[A-Za-z0-9_.\-]+)*")


class BundleError(ValueError):
    """A build directory that cannot be sent as an update (names the file and why)."""


@dataclass(frozen=True)
class BundleFile:
    path: str  # on the board, "/"-separated
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class Bundle:
    version: str
    files: tuple[BundleFile, ...]

    @property
    def manifest(self) -> bytes:
        lines = [f"tablesense-firmware {self.version}\n"]
        lines += [f"{f.sha256} {len(f.data)} {f.path}\n" for f in self.files]
        return "".join(lines).encode()

    def file(self, k: int) -> bytes:
        """File ``k`` of the update: 0 the manifest, then the files in manifest order."""
        return self.manifest if k == 0 else self.files[k - 1].data

    @property
    def count(self) -> int:
        """Files in the update, the manifest included."""
        return len(self.files) + 1

    @property
    def size(self) -> int:
        return sum(len(self.file(k)) for k in range(self.count))

    def signature(self, key: bytes | None) -> bytes:
        """INSTALL's ``sig`` for a reader with ``key`` (None: a reader without one)."""
        digest = hashlib.sha256(self.manifest).digest()
        return digest if key is None else hmac_sha256(key, SIG_CONTEXT + digest)


def load_bundle(build_dir: Path, version: str | None = None) -> Bundle:
    """The bundle of a build directory; its version from ``reader.py`` (or ``version``).

    A ``.mpy`` build keeps ``reader.py`` only compiled: the version is then read
    from the compiled module's constants, or must be given.
    """
    if not build_dir.is_dir():
        raise BundleError(f"{build_dir}: no such directory (scripts/build-firmware DIR)")
    files = []
    for p in sorted(build_dir.rglob("*")):
        rel = p.relative_to(build_dir).as_posix()
        if not p.is_file() or rel.split(".")[0] in BOOT_MODULES or "__pycache__" in p.parts:
            continue
        if not _PATH.fullmatch(rel) or rel.split("/")[0] in ("upd", "old"):
            raise BundleError(f"{p}: a path the board refuses (letters, digits, ._-/ only)")
        files.append(BundleFile(rel, p.read_bytes()))
    if len(files) > 254:
        raise BundleError(f"{build_dir}: {len(files)} files, an update carries at most 254")
    if not any(f.path in ("reader.py", "reader.mpy") for f in files):
        raise BundleError(f"{build_dir}: no reader.py or reader.mpy: not a firmware build")
    if version is None:
        version = _version_of(files)
        if version is None:
            raise BundleError(f"{build_dir}/reader: no FIRMWARE version found (give --version)")
    return Bundle(version, tuple(files))


def _version_of(files: list[BundleFile]) -> str | None:
    for f in files:
        if f.path == "reader.py":
            m = _VERSION.search(f.data)
            return m.group(1).decode() if m else None
    for f in files:
        if f.path == "reader.mpy":  # its string constants are stored as they are
            m = re.search(rb"(\d{1,3}\.\d{1,3}\.\d{1,3})", f.data)
            return m.group(1).decode() if m else None
    return None
