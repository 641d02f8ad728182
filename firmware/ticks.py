"""ticks_ms/ticks_diff from MicroPython's time, or CPython equivalents for PC tests."""

try:
    from time import ticks_diff, ticks_ms
except ImportError:  # CPython
    import time as _time

    def ticks_ms():
        return int(_time.monotonic() * 1000)  # type: ignore[attr-defined]

    def ticks_diff(a, b):  # type: ignore[no-redef]
        return a - b


__all__ = ["ticks_diff", "ticks_ms"]
