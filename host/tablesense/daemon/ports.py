"""Serial ports: the one module that imports pyserial.

Every port is opened by URL with ``serial.serial_for_url``, so a real device
(``/dev/ttyACM0``, ``/dev/pts/3``), a TCP bridge (``socket://host:port``), a
loopback (``loop://``) or a logging wrapper (``spy://...``) all look the same
to the code above. Errors from pyserial come out as :class:`PortError`, an
``OSError``, so callers need not import ``serial``.
"""

from __future__ import annotations

import os

import serial

DEFAULT_BAUDRATE = 115200
# Short enough that a reader loop can check a deadline or Ctrl-C often.
DEFAULT_TIMEOUT = 0.1

# What serial_for_url returns (its URL handlers all subclass or mimic it).
Port = serial.Serial


# Why a port gives no reader, as the port side sees it: the slug goes in the log and the
# reader-offline alert's ``reason``, the phrase in the alert's text and in the commands'
# one-line errors.
CAUSES = {
    "no-such-port": "no such port (unplugged, or the wrong port in the config?)",
    "not-plugged-in": "no USB device with its serial number is plugged in",
    "port-busy": "port busy (another program holds it: the daemon, mpremote, a terminal?)",
    "permission-denied": "permission denied (add the user to the dialout group)",
    "not-a-serial-port": "not a serial port (a file, or another kind of device?)",
    "cannot-open": "cannot be opened",
    "no-valid-frame": "bytes arrive but no valid frame (wrong device or baud rate?)",
    "never-answered": "the port opened but the reader never answered (no firmware running?)",
    "heartbeat-timeout": "it went silent (no heartbeat for three seconds)",
    "port-lost": "its port went away (unplugged?)",
}


class PortError(OSError):
    """A port could not be opened, or failed while in use; ``cause`` is a slug of CAUSES."""

    def __init__(self, message: str, cause: str = "cannot-open") -> None:
        super().__init__(message)
        self.cause = cause


def open_failure(exc: BaseException) -> str:
    """The CAUSES slug of an error opening a port."""
    text = str(exc).lower()
    errno_ = getattr(exc, "errno", None)
    if errno_ == 2 or "no such file" in text or "[errno 2]" in text:
        return "no-such-port"
    if errno_ in (11, 16) or "exclusively lock" in text or "busy" in text:
        return "port-busy"
    if errno_ == 13 or "permission denied" in text:
        return "permission-denied"
    if errno_ == 25 or "inappropriate ioctl" in text:
        return "not-a-serial-port"
    return "cannot-open"


def open_port(
    url: str, baudrate: int = DEFAULT_BAUDRATE, timeout: float | None = DEFAULT_TIMEOUT
) -> Port:
    """Open ``url`` (anything ``serial_for_url`` takes); reads time out after ``timeout`` s.

    A device path is opened exclusively (an advisory lock, as pyserial takes it), so a
    second tablesense program on a port the daemon holds is told the port is busy
    instead of stealing half the reader's frames. ``PortError`` names the URL and the
    cause (``.cause``, a slug of CAUSES).
    """
    try:
        if "://" in url:
            return serial.serial_for_url(url, baudrate=baudrate, timeout=timeout)
        return serial.serial_for_url(url, baudrate=baudrate, timeout=timeout, exclusive=True)
    except (serial.SerialException, ValueError) as e:
        cause = open_failure(e)
        detail = CAUSES[cause] if cause != "cannot-open" else f"cannot open: {e}"
        raise PortError(f"{url}: {detail}", cause) from e


def read_some(port: Port, size: int = 4096) -> bytes:
    """What is waiting (at least one byte, or b"" after the port's timeout).

    A port whose other end went away (a closed socket, a pty whose master
    closed) raises :class:`PortError`.
    """
    try:
        waiting = port.in_waiting
        data: bytes = port.read(min(max(waiting, 1), size))
    except (serial.SerialException, OSError) as e:
        raise PortError(str(e)) from e
    return data


def port_fileno(port: Port) -> int | None:
    """The descriptor to wait on for a port's input, or None (``loop://``: poll it)."""
    try:
        fd = port.fileno()
    except (AttributeError, OSError, ValueError, serial.SerialException):
        return None
    return fd if isinstance(fd, int) and fd >= 0 else None


def read_ready(port: Port, size: int = 4096) -> bytes:
    """What is waiting now, without waiting: b"" when nothing is.

    For an event loop that has been told the port is readable. A device port
    (a tty, a pty) is read with one ``os.read`` of its non-blocking descriptor;
    other ports through pyserial. A port whose other end went away raises
    :class:`PortError`.
    """
    fd = getattr(port, "fd", None)
    try:
        if isinstance(fd, int) and fd >= 0:
            try:
                data = os.read(fd, size)
            except BlockingIOError:
                return b""
            if not data:
                raise PortError("the device reports data but returns none (unplugged?)")
            return data
        waiting = port.in_waiting
        return bytes(port.read(min(waiting, size))) if waiting else b""
    except (serial.SerialException, OSError) as e:
        if isinstance(e, PortError):
            raise
        raise PortError(str(e)) from e
