"""Confirm-or-revert for firmware updates over the wire: what runs before the reader.

``boot.py`` calls :func:`boot` before ``main.py`` runs. Like a bootloader this
module is never replaced by an update (``update.py`` refuses a bundle naming
it or ``boot.py``): if a new firmware cannot run, this code must still be
the old, working one to put the old files back.

The flash holds, besides the live files (``main.py``, ``reader.py``,
``wire/...``):

- ``upd/0`` the bundle's manifest, ``upd/K`` its file K, each renamed there from
  ``upd/K.part`` only once its SHA-256 matched (update.py);
- ``upd/commit``: the update is to be installed (written last, by one rename,
  when every file and the bundle's signature checked out);
- ``upd/trial``: installed, not yet confirmed by the host;
- ``upd/revert``: the old files are being put back;
- ``old/PATH``: the live file an installed one replaced.

Every step is a rename (atomic on LittleFS and POSIX) or is repeated whole
from its marker, so a power cut at any point boots the old firmware or the
complete new one:

- ``commit``: each staged file is installed (live -> ``old/``, ``upd/K`` ->
  live; a file already moved is skipped), then ``commit`` becomes ``trial``
  with a boot count of 0;
- ``trial`` with count 0: count 1, and the new firmware runs. The host
  confirms it (``confirm``) once its HELLO names the new version;
- ``trial`` with count 1 on a later boot: the new firmware never got
  confirmed (it crashed, hung, or the host gave up): ``revert``;
- ``revert``: each ``old/PATH`` goes back over its live file, the files the
  update added are removed, and ``upd/`` and ``old/`` are emptied.

The marker files are text: ``commit``, ``trial`` and ``revert`` hold the
version on line 1, the boot count on line 2, then the paths the update adds
(nothing to restore them to), one a line.
"""

import os

UPD = "upd"
OLD = "old"
# Never replaced over the wire (as source or .mpy): the code that would undo a bad update.
BOOT_MODULES = ("boot", "fwboot")


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def is_dir(path):
    try:
        return os.stat(path)[0] & 0x4000 != 0
    except OSError:
        return False


def makedirs(path):
    """Create each missing directory of ``path`` (a directory path, "a/b")."""
    here = ""
    for part in path.split("/"):
        if not part:
            continue
        here = here + "/" + part if here else part
        if not exists(here):
            os.mkdir(here)


def parent(path):
    i = path.rfind("/")
    return path[:i] if i > 0 else ""


def remove_tree(path):
    if is_dir(path):
        for name in os.listdir(path):
            remove_tree(path + "/" + name)
        os.rmdir(path)
    elif exists(path):
        os.remove(path)


def files_under(path, prefix=""):
    """Every file below directory ``path``, as paths relative to it."""
    out: list = []
    if not is_dir(path):
        return out
    for name in os.listdir(path):
        full = path + "/" + name
        rel = prefix + name
        if is_dir(full):
            out.extend(files_under(full, rel + "/"))
        else:
            out.append(rel)
    return out


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def read_marker(name):
    """(version, boots, added paths) of marker ``upd/NAME``, or None."""
    try:
        with open(UPD + "/" + name) as f:
            lines = f.read().split("\n")
    except OSError:
        return None
    boots = int(lines[1]) if len(lines) > 1 and lines[1] else 0
    return lines[0], boots, [p for p in lines[2:] if p]


def marker_text(version, boots, added):
    return version + "\n" + str(boots) + "\n" + "".join(p + "\n" for p in added)


def parse_manifest(text):
    """(version, [(sha256 hex, size, path)]) of a manifest; ValueError if malformed.

    Line 1 is ``tablesense-firmware VERSION``; each further line ``SHA256 SIZE PATH``.
    """
    lines = [ln for ln in text.split("\n") if ln]
    if not lines or not lines[0].startswith("tablesense-firmware "):
        raise ValueError("manifest: no tablesense-firmware line")
    version = lines[0].split(" ")[1]
    entries = []
    for ln in lines[1:]:
        parts = ln.split(" ")
        if len(parts) != 3 or len(parts[0]) != 64:
            raise ValueError("manifest: bad line " + ln)
        path = parts[2]
        if not path_allowed(path):
            raise ValueError("manifest: path not allowed: " + path)
        entries.append((parts[0], int(parts[1]), path))
    return version, entries


def path_allowed(path):
    if not path or path[0] == "/" or path.split(".")[0] in BOOT_MODULES:
        return False
    if path.split("/")[0] in (UPD, OLD):
        return False
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return False
    return all(ch.isalpha() or ch.isdigit() or ch in "._-/" for ch in path)


def manifest():
    """The staged manifest, parsed (``ValueError`` or ``OSError`` if none or bad)."""
    with open(UPD + "/0") as f:
        return parse_manifest(f.read())


def commit(version, entries):
    """Mark the staged bundle for installation (the caller checked every file)."""
    added = [path for _sha, _size, path in entries if not exists(path)]
    remove_tree(OLD)
    write_atomic(UPD + "/commit", marker_text(version, 0, added))


def install():
    """Install the committed bundle (again from where a power cut stopped it)."""
    mark = read_marker("commit")
    if mark is None:
        return
    added = mark[2]
    for k, (_sha, _size, path) in enumerate(manifest()[1], 1):
        staged = UPD + "/" + str(k)
        if not exists(staged):
            continue  # installed before the power cut
        if exists(path) and path not in added and not exists(OLD + "/" + path):
            makedirs(parent(OLD + "/" + path))
            os.rename(path, OLD + "/" + path)
        if parent(path):
            makedirs(parent(path))
        if exists(path):
            os.remove(path)  # only the update's own file, from a cut before this rename
        os.rename(staged, path)
    os.rename(UPD + "/commit", UPD + "/trial")


def revert():
    """Put the old files back (again from where a power cut stopped it)."""
    if exists(UPD + "/trial"):
        os.rename(UPD + "/trial", UPD + "/revert")
    mark = read_marker("revert")
    if mark is None:
        return
    for rel in files_under(OLD):
        if exists(rel):
            os.remove(rel)
        os.rename(OLD + "/" + rel, rel)
    for path in mark[2]:
        if exists(path):
            os.remove(path)
    clean()


def clean():
    """Remove ``old/`` and ``upd/``: nothing pending any more. The markers go last, so a
    cut meanwhile repeats the step that was under way (an empty ``upd/`` may stay)."""
    remove_tree(OLD)
    markers = ("commit", "trial", "revert")
    if is_dir(UPD):
        for name in os.listdir(UPD):
            if name not in markers:
                remove_tree(UPD + "/" + name)
        for name in markers:
            remove_tree(UPD + "/" + name)
        os.rmdir(UPD)


def confirm(version):
    """The host saw ``version`` run: keep it. True when a trial of it was pending."""
    mark = read_marker("trial")
    if mark is None or mark[0] != version:
        return False
    os.remove(UPD + "/trial")  # the commit point: from here the new files are the firmware
    clean()
    return True


def trial_version():
    """The version on trial (installed, not confirmed yet), or None."""
    mark = read_marker("trial")
    return None if mark is None else mark[0]


def boot():
    """What boot.py runs first: finish an install or a revert; "trial", "reverted" or "".

    "trial": the new firmware runs for the first time, unconfirmed (boot.py
    starts the watchdog, so a firmware that hangs reboots, and reverts).
    """
    if exists(UPD + "/revert"):
        revert()
        return "reverted"
    install()
    mark = read_marker("trial")
    if mark is None:
        return ""
    version, boots, added = mark
    if boots >= 1:
        revert()
        return "reverted"
    write_atomic(UPD + "/trial", marker_text(version, boots + 1, added))
    return "trial"
