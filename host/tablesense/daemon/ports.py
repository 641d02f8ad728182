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


class PortError(OSError):
    """A port could not be opened, or failed while in use."""


def open_port(
    url: str, baudrate: int = DEFAULT_BAUDRATE, timeout: float | None = DEFAULT_TIMEOUT
) -> Port:
    """Open ``url`` (anything ``serial_for_url`` takes); reads time out after ``timeout`` s."""
    try:
        return serial.serial_for_url(url, baudrate=baudrate, timeout=timeout)
    except (serial.SerialException, ValueError) as e:
        raise PortError(f"cannot open {url}: {e}") from e


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
