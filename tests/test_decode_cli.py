"""``tablesense decode`` end to end: the real CLI process on files, a pty and a TCP socket."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import tty
from pathlib import Path
from typing import IO

from tablesense.onboard.wire import codec as c

ROOT = Path(__file__).resolve().parent.parent
CAPTURE = ROOT / "examples" / "capture.bin"
TIMEOUT = 30


def decode_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "tablesense.cli", "decode", *args]


def summary_of(stderr: str) -> dict[str, int]:
    (line,) = [ln for ln in stderr.splitlines() if ln.startswith("decode: summary ")]
    counters: dict[str, int] = json.loads(line.removeprefix("decode: summary "))
    return counters


def frames(n: int) -> list[bytes]:
    return [
        c.encode(c.OBSERVE, {"seat": "E", "card": "H9", "zone": "hand", "t": i}, 2, i)
        for i in range(n)
    ]


def test_example_capture() -> None:
    """examples/capture.bin: today's RFID firmware (scripts/make_capture.py) on four links."""
    done = subprocess.run(decode_cmd(str(CAPTURE)), capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(ln) for ln in done.stdout.splitlines()]
    assert len(lines) == 135
    types = [ln["type"] for ln in lines]
    assert types.count("HELLO") == 4
    assert types.count("CONFIG") == 4
    assert types.count("RESEND") == 1
    assert types.count("OBSERVE") == 4 + 4 + 1
    # An RFID reader claims what it senses: no face, no hand (protocol.md, HELLO).
    for hello in (ln["fields"] for ln in lines if ln["type"] == "HELLO"):
        assert hello["kind"] == "rfid"
        assert not {"face", "hand"} & set(hello["capabilities"])
        assert {"level", "resend", "table", "trick"} <= set(hello["capabilities"])
    observed = [ln["fields"] for ln in lines if ln["type"] == "OBSERVE"]
    assert {o["face"] for o in observed} == {"unknown"}
    assert {o["zone"] for o in observed} == {"trick", "table"}
    # Every card played arrived, the damaged one thanks to the RESEND.
    assert [o["card"] for o in observed if o["zone"] == "trick"] == ["HK", "H4", "HA", "H7", "SQ"]
    errors = [ln for ln in done.stderr.splitlines() if not ln.startswith("decode: summary")]
    assert [e.split(": ")[2] for e in errors] == ["garbage_bytes", "bad_crc", "truncated"]
    assert errors[0].startswith("decode: byte 1: ")
    counters = summary_of(done.stderr)
    assert counters["frames"] == 135
    assert counters["bad_crc"] == counters["truncated"] == counters["resyncs"] == 1
    assert sum(counters[k] for k in ("oversize", "unknown_type", "bad_payload")) == 0


def test_example_capture_is_what_today_s_firmware_sends(tmp_path: Path) -> None:
    out = tmp_path / "capture.bin"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_capture.py"), str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == CAPTURE.read_bytes(), "stale: run scripts/make_capture.py"


def test_count_stops_early_and_stdin_works() -> None:
    done = subprocess.run(
        decode_cmd("-", "--count", "3"),
        input=CAPTURE.read_bytes(),
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) == 3


def test_garbage_file_never_crashes(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 40 + frames(1)[0] + os.urandom(3000))
    done = subprocess.run(decode_cmd(str(junk)), capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert summary_of(done.stderr)["frames"] >= 1
    assert "Traceback" not in done.stderr


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    done = subprocess.run(
        decode_cmd(str(tmp_path / "nope.bin")), capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 2
    assert done.stderr == f"decode: {tmp_path / 'nope.bin'}: no such file or port\n"


def wait_listening(stderr: IO[str]) -> None:
    line = stderr.readline()
    assert line.startswith("decode: listening on"), line


def test_live_pty() -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    proc = subprocess.Popen(
        decode_cmd(path, "--count", "5", "--timeout", "20"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        wait_listening(proc.stderr)
        data = b"\x13\x37" + b"".join(frames(5))
        for i in range(0, len(data), 9):  # dribbled in, as a UART delivers it
            os.write(master, data[i : i + 9])
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        proc.kill()
        os.close(master)
        os.close(slave)
    assert proc.returncode == 0, err
    got = [json.loads(ln) for ln in out.splitlines()]
    assert [g["seq"] for g in got] == [0, 1, 2, 3, 4]
    assert "garbage_bytes" in err
    assert summary_of(err)["frames"] == 5


def test_live_socket_until_peer_closes() -> None:
    # pyserial's socket:// handler empties the input when it opens the port, so the
    # server sends only once the sniffer says it is listening.
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    data = b"".join(frames(7)) + b"\x01\x02\x03\x00"
    listening = threading.Event()

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            listening.wait(TIMEOUT)
            conn.sendall(data)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    proc = subprocess.Popen(
        decode_cmd(f"socket://127.0.0.1:{port}", "--timeout", "20"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        wait_listening(proc.stderr)
        listening.set()
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        proc.kill()
        thread.join(5)
        server.close()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 7
    counters = summary_of(done.stderr)
    assert counters["frames"] == 7
    assert counters["truncated"] == 1


def test_unopenable_port_is_an_error() -> None:
    done = subprocess.run(
        decode_cmd("socket://127.0.0.1:1", "--timeout", "2"),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("decode: socket://127.0.0.1:1: cannot open: ")
    assert len(done.stderr.splitlines()) == 1
