"""Firmware updates over the wire, the reader's side (hardware/protocol.md section 3a).

The host (``tablesense firmware update``) sends a bundle one file at a time:
``FILE {file, size, sha256}`` announces file K (0 is the manifest: the
version and each file's SHA-256, size and path), ``CHUNK {file, offset, data}``
carries up to 32 of its bytes, in order. The reader appends each chunk to
``upd/K.part`` and answers ``STATUS {file, have, state}``; once the file is
whole it reads it back from the flash and hashes it: a match renames it to
``upd/K`` ("verified"), a mismatch removes it ("mismatch": the host starts the
file again). A file already staged is "verified" at once and a partial one
says how much it has, so a new run resumes where a cancelled or cut one
stopped; a manifest with another hash discards what was staged.

``INSTALL {sig}`` checks the staged bundle: each file's SHA-256 against the
manifest, and the signature: with the reader's key (``key.txt``, the wire
key) ``sig`` must be ``HMAC-SHA256(key, "tablesense-firmware" | SHA-256 of the
manifest)``; without a key, ``sig`` must be the manifest's SHA-256 (integrity
only: an unkeyed reader obeys anyone at its port anyway). Then ``upd/commit``
is written (fwboot.py), "installing" answered and the board reset: boot
installs it and runs it on trial. ``CONFIRM {firmware}`` from the host, once
the new firmware's HELLO named that version, makes it permanent; a trial never
confirmed is reverted at the next boot.

The receiver only touches ``upd/``: until INSTALL, the running firmware and
its files are as they were.
"""

import hashlib
import os

import fwboot
from wire import codec
from wire.signing import same_bytes

SIG_CONTEXT = b"tablesense-firmware"
FLUSH_BYTES = 512  # a partial file is flushed this often (what a power cut keeps)


def file_sha256(path):
    h = hashlib.sha256()
    buf = bytearray(256)
    with open(path, "rb") as f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            h.update(buf[:n] if n < len(buf) else buf)
    return h.digest()


def file_size(path):
    try:
        return os.stat(path)[6]
    except OSError:
        return 0


def expected_sig(key, manifest_digest):
    """What INSTALL's ``sig`` must be for a manifest with this SHA-256."""
    if key is None:
        return manifest_digest
    return key.digest(SIG_CONTEXT + manifest_digest)


class Updater:
    """Takes the update frames a Reader hands it; ``send(mtype, fields)`` answers."""

    def __init__(self, send, key=None, version="", on_installed=None):
        self.send = send
        self.key = key  # codec.SigningKey or None
        self.version = version  # the running firmware's
        self.on_installed = on_installed  # () -> None: reset the board
        self.file = -1  # the file being received: its number, size, sha256, handle
        self.size = 0
        self.sha = b""
        self.have = 0
        self.out = None
        self.unflushed = 0

    def status(self, k, have, state):
        self.send(codec.STATUS, {"file": k, "have": have, "state": state})

    def handle(self, frame):
        f = frame.fields
        t = frame.mtype
        try:
            if t == codec.FILE:
                self.begin(f["file"], f["size"], bytes.fromhex(f["sha256"]))
            elif t == codec.CHUNK:
                self.chunk(f["file"], f["offset"], bytes.fromhex(f["data"]))
            elif t == codec.INSTALL:
                self.install(bytes.fromhex(f["sig"]))
            elif t == codec.CONFIRM:
                ok = fwboot.confirm(self.version) if f["firmware"] == self.version else False
                self.status(0, 0, "confirmed" if ok else "not-on-trial")
        except OSError:
            self.close()
            self.status(max(self.file, 0), 0, "write-failed")

    def close(self):
        if self.out is not None:
            self.out.close()
            self.out = None
        self.file = -1

    def begin(self, k, size, sha):
        self.close()
        if fwboot.trial_version() is not None:
            self.status(k, 0, "on-trial")  # confirm (or let it revert) first
            return
        fwboot.makedirs(fwboot.UPD)
        staged = fwboot.UPD + "/" + str(k)
        if k == 0 and fwboot.exists(staged) and file_sha256(staged) != sha:
            fwboot.clean()  # another bundle: what was staged is of no use
            fwboot.makedirs(fwboot.UPD)
        if fwboot.exists(staged) and file_size(staged) == size and file_sha256(staged) == sha:
            self.status(k, size, "verified")
            return
        self.file, self.size, self.sha = k, size, sha
        self.have = file_size(staged + ".part")
        if self.have > size:
            os.remove(staged + ".part")
            self.have = 0
        self.out = open(staged + ".part", "ab")  # noqa: SIM115 - open across CHUNK frames
        self.unflushed = 0
        if self.have == size:
            self.finish()
        else:
            self.status(k, self.have, "receiving")

    def chunk(self, k, offset, data):
        if k != self.file or self.out is None:
            self.status(k, 0, "mismatch")  # no FILE for it: the host announces it again
            return
        if offset != self.have or self.have + len(data) > self.size:
            self.status(k, self.have, "receiving")  # out of order: from here, please
            return
        self.out.write(data)
        self.have += len(data)
        self.unflushed += len(data)
        if self.unflushed >= FLUSH_BYTES:
            self.out.flush()
            self.unflushed = 0
        if self.have == self.size:
            self.finish()
        else:
            self.status(k, self.have, "receiving")

    def finish(self):
        """The whole file is written: read it back from the flash and hash it."""
        k = self.file
        self.close()
        staged = fwboot.UPD + "/" + str(k)
        if file_sha256(staged + ".part") == self.sha:
            os.rename(staged + ".part", staged)
            self.status(k, self.size, "verified")
        else:
            os.remove(staged + ".part")
            self.status(k, 0, "mismatch")

    def install(self, sig):
        self.close()
        try:
            with open(fwboot.UPD + "/0") as f:
                text = f.read()
            version, entries = fwboot.parse_manifest(text)
        except (OSError, ValueError):
            self.status(0, 0, "bad-manifest")
            return
        digest = hashlib.sha256(text.encode()).digest()
        if not same_bytes(expected_sig(self.key, digest), sig):
            self.status(0, 0, "bad-signature")
            return
        for k, (sha, _size, _path) in enumerate(entries, 1):
            staged = fwboot.UPD + "/" + str(k)
            if not fwboot.exists(staged) or file_sha256(staged) != bytes.fromhex(sha):
                self.status(k, 0, "incomplete")
                return
        fwboot.commit(version, entries)
        self.status(0, len(entries), "installing")
        if self.on_installed is not None:
            self.on_installed()
