"""The demo's dashboard: on another port when its own is taken (and it says which), kept up
after the last board with --keep-up, and the hint that says how."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).with_name("tablesense"))
FAST = ("--tables", "1", "--boards", "1", "--readers", "python", "--speed", "50")


@pytest.mark.slow
def test_taken_port_is_named_with_the_one_used_and_the_keep_up_hint() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run([EXE, "demo", *FAST, "--port", str(port)], capture_output=True,
                             text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-3000:]
    m = re.search(rf"demo: port {port} is taken; the dashboard uses port (\d+) instead",
                  out.stderr)
    assert m is not None, out.stderr
    assert f"dashboard at http://127.0.0.1:{m.group(1)}/" in out.stderr
    assert ("demo: it ends after 1 boards a table, and the dashboard with it; --keep-up keeps "
            "it up until Ctrl-C") in out.stderr


@pytest.mark.slow
def test_keep_up_serves_the_dashboard_after_the_last_board_until_ctrl_c() -> None:
    proc = subprocess.Popen([EXE, "demo", *FAST, "--port", "0", "--keep-up"],
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    lines: list[str] = []
    drain = threading.Thread(target=lambda: lines.extend(proc.stderr or ()), daemon=True)
    drain.start()
    try:
        deadline = time.monotonic() + 90
        while (not any("every board played" in x for x in lines) and proc.poll() is None
               and time.monotonic() < deadline):
            time.sleep(0.05)
        text = "".join(lines)
        assert "demo: every board played; the dashboard stays up until Ctrl-C" in text, text
        assert proc.poll() is None  # still up
        url = re.search(r"dashboard at (http://\S+)", text)
        assert url is not None, text
        with urllib.request.urlopen(url.group(1), timeout=10) as page:
            assert page.status == 200
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    drain.join(10)
    assert proc.returncode == 0, "".join(lines)
    assert "1 boards played at 1 tables" in "".join(lines)
