"""ticks_ms, ticks_us, ticks_diff, sleep_us from MicroPython, or CPython stand-ins for PC tests."""

try:
    from time import sleep_us, ticks_diff, ticks_ms, ticks_us
except ImportError:  # CPython
    import time as _time

    def ticks_ms():
        return int(_time.monotonic() * 1000)  # type: ignore[attr-defined]

    def ticks_us():  # type: ignore[misc]
        return int(_time.monotonic() * 1000000)  # type: ignore[attr-defined]

    def ticks_diff(a, b):  # type: ignore[no-redef]
        return a - b

    def sleep_us(us):  # type: ignore[misc]
        _time.sleep(us / 1000000)


__all__ = ["sleep_us", "ticks_diff", "ticks_ms", "ticks_us"]
