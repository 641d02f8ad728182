"""One daemon a base: the retained claim on ``<base>/bridge/daemon``. Pure: no I/O.

Two daemons on one base publish one table's state in turn, and the page
shows whichever came last. So a daemon, before it publishes anything, reads
the base's retained claim and bridge state (``mqtt.read_retained``) and asks
:func:`decide`: the base is free when nobody claimed it, when the claim is
its own, when the claimant's bridge state says offline (its will, or its
clean stop), or when the claimant is a process of this host that no longer
exists (killed before the broker noticed). Otherwise it refuses to start
(:class:`BaseClaimed`, naming the other daemon, the broker and the way out),
unless told to take over (``tablesense run --take-over``): then its claim
replaces the other's, and the other daemon, which watches the claim, stops
publishing and exits (:func:`taken_over`).

>>> mine = Claim("pc-1-a", "pc", 1, 5)
>>> decide(mine, None, None, take_over=False)
'free'
>>> other = encode(Claim("pc-2-b", "pc", 2, 3))
>>> decide(mine, other, b'{"state":"offline"}', take_over=False)
'free'
>>> decide(mine, other, b'{"state":"online"}', take_over=True, alive=lambda pid: True)
'take-over'
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Literal

Verdict = Literal["free", "take-over"]


class BaseClaimed(RuntimeError):
    """Another daemon, still online, holds this base."""


@dataclass(frozen=True)
class Claim:
    daemon: str  # this run's id: host, pid and a random part
    host: str
    pid: int
    since: int  # ms since the epoch

    @staticmethod
    def ours() -> Claim:
        host = socket.gethostname()
        pid = os.getpid()
        return Claim(f"{host}-{pid}-{uuid.uuid4().hex[:8]}", host, pid, int(time.time() * 1000))


def encode(claim: Claim) -> bytes:
    return json.dumps({"v": 1, **asdict(claim)}, separators=(",", ":")).encode()


def parse(payload: bytes | None) -> Claim | None:
    """The claim in a retained payload; None for none (empty: cleared) or one unreadable."""
    if not payload:
        return None
    try:
        obj = json.loads(payload)
        return Claim(str(obj["daemon"]), str(obj.get("host", "?")), int(obj.get("pid", 0)),
                     int(obj.get("since", 0)))
    except (ValueError, KeyError, TypeError):
        return None


def _online(bridge: bytes | None) -> bool:
    try:
        return bool(bridge) and json.loads(bridge or b"").get("state") == "online"
    except (ValueError, AttributeError):
        return False


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def decide(ours: Claim, claim: bytes | None, bridge: bytes | None, take_over: bool,
           where: str = "the broker", alive: Callable[[int], bool] = pid_alive) -> Verdict:
    """May ``ours`` start on this base? ``claim`` and ``bridge`` are the retained
    payloads of ``<base>/bridge/daemon`` and ``<base>/bridge/state`` (None: none)."""
    other = parse(claim)
    if other is None or other.daemon == ours.daemon or not _online(bridge):
        return "free"
    if other.host == ours.host and not alive(other.pid):
        return "free"  # killed on this host, the broker not told yet
    if take_over:
        return "take-over"
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(other.since / 1000))
    raise BaseClaimed(
        f"another daemon is running on this base: {other.daemon} (host {other.host}, "
        f"pid {other.pid}, since {since}) on {where}. Two daemons on one base would "
        "interleave the tables' state. Stop the other one, give this one another "
        "[broker] base, or start it with --take-over to replace the other.")


def taken_over(ours: Claim, payload: bytes) -> Claim | None:
    """The daemon that took the base over from ``ours``, if ``payload`` (a claim seen
    after ours was published) is another daemon's."""
    other = parse(payload)
    return other if other is not None and other.daemon != ours.daemon else None
