"""Finding readers on USB by serial number, and resetting one that hangs.

A reader keeps its seat when it is replugged: the config names it by its USB
serial number, and the port URL is looked up again at every (re)open, since
``/dev/ttyACM0`` today may be ``/dev/ttyACM3`` after a replug.

This module only *lists* ports (``serial.tools.list_ports``); opening them is
:mod:`tablesense.daemon.ports`' job. The USB reset uses pyusb when it is importable
and the process may touch the device; it is best effort and says whether it
did anything.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from typing import Any

from serial.tools import list_ports

log = logging.getLogger("tablesense.usb")


@dataclass(frozen=True)
class FoundReader:
    device: str
    serial_number: str | None
    vid: int | None
    pid: int | None
    description: str
    location: str | None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["vid"] = None if self.vid is None else f"{self.vid:04x}"
        out["pid"] = None if self.pid is None else f"{self.pid:04x}"
        return out


def list_readers(vid: int | None = None, pid: int | None = None) -> list[FoundReader]:
    """USB serial ports, optionally only those with this vendor/product id."""
    found = []
    for p in list_ports.comports():
        if p.vid is None:
            continue  # not a USB device
        if (vid is not None and p.vid != vid) or (pid is not None and p.pid != pid):
            continue
        found.append(FoundReader(device=p.device, serial_number=p.serial_number, vid=p.vid,
                                 pid=p.pid, description=p.description or "",
                                 location=p.location))
    return sorted(found, key=lambda r: (r.serial_number or "", r.device))


class SerialNumberResolver:
    """Callable for :class:`~tablesense.daemon.link.ReaderLink`: the port of a serial number."""

    def __init__(self, serial_number: str, vid: int | None = None,
                 pid: int | None = None) -> None:
        self.serial_number = serial_number
        self.vid = vid
        self.pid = pid

    def __call__(self) -> str | None:
        for r in list_readers(self.vid, self.pid):
            if r.serial_number == self.serial_number:
                return r.device
        return None

    def reset(self) -> bool:
        """Best-effort USB port reset of the device with this serial number."""
        return usb_reset(self.serial_number, self.vid, self.pid)


def usb_reset(serial_number: str, vid: int | None = None, pid: int | None = None) -> bool:
    try:
        import usb.core  # type: ignore[import-untyped]
    except ImportError:
        return False
    try:
        kwargs: dict[str, Any] = {"find_all": True}
        if vid is not None:
            kwargs["idVendor"] = vid
        if pid is not None:
            kwargs["idProduct"] = pid
        for dev in usb.core.find(**kwargs) or ():
            try:
                if dev.serial_number != serial_number:
                    continue
            except (ValueError, usb.core.USBError):
                continue  # no permission to read its strings
            dev.reset()
            log.info("event=usb-reset serial=%s", serial_number)
            return True
    except Exception as exc:  # no backend, no permission: never fatal
        log.debug("event=usb-reset-failed serial=%s error=%r", serial_number, str(exc))
    return False
