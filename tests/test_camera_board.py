"""The real camera board on the path a webcam takes (issue 27).

The renderer's frames are written to a video file (MJPG in AVI, a codec the
OpenCV wheel has); ``tablesense camera`` reads the file back through
OpenCV's ``VideoCapture``, calibrates on the plate in its first frames, runs
the pipeline, and speaks the wire protocol on a pty or a TCP port, which a
real daemon link (:class:`~tablesense.daemon.link.ReaderLink`) opens as it
opens any reader's port; the observations arrive there. The overhead camera
alone (its frames at half the rig's size, so the file stays small): the
board reads whichever cameras it is given.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import math
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from tablesense.daemon.link import LinkMessage, LinkSettings, ReaderLink  # noqa: E402
from tablesense.onboard.wire import codec  # noqa: E402
from tablesense.vision import geometry as g  # noqa: E402
from tablesense.vision.pipeline import PLATE_HALF, plate_image  # noqa: E402
from tablesense.vision.render import CONDITIONS, Renderer  # noqa: E402
from tablesense.vision.scene import Scene  # noqa: E402

HOST = Path(__file__).resolve().parent.parent / "host"
FPS = 10
PLATE_FRAMES = 10
# frame number -> moves (seat, card, zone, face) shown from that frame on
MOVES: dict[int, list[tuple[str, str, str, str]]] = {
    15: [("S", "SA", "trick", "up")],
    25: [("N", "HK", "table", "up"), ("N", "HQ", "table", "up")],
    35: [("S", "SA", "table", "down")],  # the trick quitted: its back, the same card
    45: [("W", "D7", "trick", "up")],
}
FRAMES = 60
FAST = LinkSettings(heartbeat_timeout_ms=3500, backoff_initial_ms=20, backoff_max_ms=200)


def _write_video(path: Path, plate: bool) -> None:
    cam = g.rig(0.5)["O"]
    renderer = Renderer({"O": cam})
    cond = CONDITIONS["clean"]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS,
                          (cam.width, cam.height))
    assert out.isOpened()
    out.set(cv2.VIDEOWRITER_PROP_QUALITY, 95)

    def put(img: Any) -> None:
        out.write(cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR))

    if plate:
        frame = renderer.render_plate("O", plate_image(), PLATE_HALF, cond)
        for _ in range(PLATE_FRAMES):
            put(frame)
    scene = Scene()
    for i in range(PLATE_FRAMES, FRAMES):
        for move in MOVES.get(i, []):
            scene.move(*move)
        put(renderer.update("O", scene.placed(), cond, i)[0])
    out.release()


@pytest.fixture(scope="module")
def videos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("camera")
    made = {"play": d / "O.avi", "noplate": d / "noplate.avi"}
    _write_video(made["play"], plate=True)
    _write_video(made["noplate"], plate=False)
    return made


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "tablesense.cli", *args]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HOST), env.get("PYTHONPATH", "")])
    return env


def until(pred: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


class Board:
    """``tablesense camera`` in a process of its own; ``port`` from its first line."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(_cli("camera", *args), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=_env())
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def port(self, timeout: float = 60.0) -> str:
        assert until(lambda: bool(self.lines) or self.proc.poll() is not None, timeout), \
            "the board printed nothing"
        assert self.lines, self.stop()[1]
        head, _, port = self.lines[0].partition(" → ")
        assert head.startswith("camera board "), self.lines
        return port

    def stop(self) -> tuple[int, str]:
        if self.proc.poll() is None:
            self.proc.terminate()
        rc = self.proc.wait(10)
        assert self.proc.stderr is not None
        return rc, self.proc.stderr.read()


@pytest.fixture
def board() -> Iterator[Callable[..., Board]]:
    made: list[Board] = []

    def start(*args: str) -> Board:
        b = Board(*args)
        made.append(b)
        return b

    yield start
    for b in made:
        b.stop()


class Daemon:
    """A real reader link on the board's port, its messages collected as the core would."""

    def __init__(self, port: str) -> None:
        self.q: queue.Queue[LinkMessage] = queue.Queue()
        self.link = ReaderLink("1", "N", lambda: port, self.q, FAST)
        self.items: list[LinkMessage] = []
        self.link.start()

    def drain(self) -> None:
        while True:
            try:
                self.items.append(self.q.get_nowait())
            except queue.Empty:
                return

    def observed(self) -> list[dict[str, Any]]:
        self.drain()
        return [dict(m.frame.fields) for m in self.items
                if m.frame is not None and m.frame.mtype == codec.OBSERVE]

    def stop(self) -> None:
        self.link.stop()


@pytest.mark.parametrize("wire", ["--pty", "--listen"])
def test_a_video_file_reaches_the_daemon_as_observations(
        videos: dict[str, Path], board: Callable[..., Board], wire: str) -> None:
    args = ["--source", f"O={videos['play']}", "--serial", "CAM-T"]
    args += ["--pty"] if wire == "--pty" else ["--listen", "127.0.0.1:0"]
    b = board(*args)
    port = b.port()
    assert port.startswith("/dev/") if wire == "--pty" else port.startswith("socket://127.0.0.1:")
    daemon = Daemon(port)
    try:
        # the file plays in 5 s from the board's CONFIG; a busy machine may read it late
        assert until(lambda: any(f["card"] == "D7" for f in daemon.observed()), 90), \
            daemon.observed()
        got = daemon.observed()
    finally:
        daemon.stop()
    assert any(m.kind == "online" for m in daemon.items)
    # the HELLO the link answered with its CONFIG: a camera, by its serial number
    assert daemon.link.identity["serial"] == "CAM-T"
    assert daemon.link.identity["kind"] == "camera"
    moves = [(f["seat"], f["card"], f["zone"], f["face"]) for f in got]
    assert moves[0] == ("S", "SA", "trick", "up")
    assert set(moves[1:3]) == {("N", "HK", "table", "up"), ("N", "HQ", "table", "up")}
    assert moves[3:] == [("S", "SA", "table", "down"), ("W", "D7", "trick", "up")]
    assert all(f["level"] == "at" for f in got)
    # who could see each face: measured from the geometry, as the simulated board does
    assert got[0]["seen_by"] == ["N", "E", "W"] and got[3]["seen_by"] == []
    ts = [f["t"] for f in got]  # the board's clock
    assert ts == sorted(ts)


class Bridge:
    """A serial-over-TCP bridge, as ser2net is: the board's serial side connects to one
    listening port (``--port socket://...``: the board as a client, through pyserial),
    the daemon's link to the other, and the bytes go across both ways."""

    def __init__(self) -> None:
        self.board_side = socket.create_server(("127.0.0.1", 0))
        self.host_side = socket.create_server(("127.0.0.1", 0))
        self.board_url = f"socket://127.0.0.1:{self.board_side.getsockname()[1]}"
        self.host_url = f"socket://127.0.0.1:{self.host_side.getsockname()[1]}"
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        a, _ = self.board_side.accept()
        b, _ = self.host_side.accept()
        self.conns += [a, b]
        threading.Thread(target=self._pump, args=(a, b), daemon=True).start()
        self._pump(b, a)

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(4096):
                dst.sendall(data)

    def close(self) -> None:
        for s in (*self.conns, self.board_side, self.host_side):
            s.close()


def test_the_board_on_a_serial_port_url(videos: dict[str, Path],
                                        board: Callable[..., Board]) -> None:
    bridge = Bridge()
    try:
        b = board("--source", f"O={videos['play']}", "--port", bridge.board_url)
        assert b.port() == bridge.board_url
        daemon = Daemon(bridge.host_url)
        try:
            assert until(lambda: any(f["card"] == "D7" for f in daemon.observed()), 90), \
                daemon.observed()
        finally:
            daemon.stop()
    finally:
        bridge.close()
    assert [f["card"] for f in daemon.observed()][:1] == ["SA"]


def test_calibrate_takes_a_live_frame_and_the_board_uses_its_poses(
        videos: dict[str, Path], board: Callable[..., Board], tmp_path: Path) -> None:
    poses = tmp_path / "poses.json"
    out = subprocess.run(_cli("calibrate", "--source", f"O={videos['play']}", "--json",
                              "--write-poses", str(poses)),
                         capture_output=True, text=True, env=_env(), timeout=120)
    assert out.returncode == 0, out.stderr
    assert '"ok": true' in out.stdout and poses.exists()
    # no plate in this file: only the poses saved let the board start
    bad = subprocess.run(_cli("camera", "--source", f"O={videos['noplate']}", "--pty"),
                         capture_output=True, text=True, env=_env(), timeout=120)
    assert bad.returncode == 1
    assert "calibration failed" in bad.stderr and "plate not found" in bad.stderr
    b = board("--source", f"O={videos['noplate']}", "--poses", str(poses), "--pty")
    daemon = Daemon(b.port())
    try:
        assert until(lambda: any(f["card"] == "D7" for f in daemon.observed()), 90), \
            daemon.observed()
    finally:
        daemon.stop()
    assert [f["card"] for f in daemon.observed()][:1] == ["SA"]


@pytest.mark.parametrize("spec", ["missing.avi", "/dev/video99", "rtsp://127.0.0.1:9/none",
                                  "not-a-video.txt"])
def test_a_source_that_cannot_be_opened_is_one_line(tmp_path: Path, spec: str) -> None:
    (tmp_path / "not-a-video.txt").write_text("hello\n")
    out = subprocess.run(_cli("camera", "--source", f"O={spec}", "--pty"), cwd=tmp_path,
                         capture_output=True, text=True, env=_env(), timeout=60)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"tablesense camera: {spec}: "), out.stderr


def test_a_bad_poses_file_names_the_file_and_field(videos: dict[str, Path],
                                                   tmp_path: Path) -> None:
    poses = tmp_path / "poses.json"
    poses.write_text('{"v": 1, "cameras": {"O": {"width": 2028, "height": 1520, "K": 3}}}')
    out = subprocess.run(_cli("camera", "--source", f"O={videos['play']}", "--poses",
                              str(poses), "--pty"),
                         capture_output=True, text=True, env=_env(), timeout=60)
    assert out.returncode == 2
    assert out.stderr.startswith(f"tablesense camera: {poses}: field cameras.O: "), out.stderr


def test_a_stream_that_drops_out_is_opened_again(videos: dict[str, Path]) -> None:
    """An HTTP source (the recording served by a web server: FFmpeg reads it as a
    stream) ends; a live source that stops is opened again, and frames come on."""
    from tablesense.vision.capture import Source

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(videos["play"].parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    src = Source(f"http://127.0.0.1:{server.server_address[1]}/{videos['play'].name}")
    try:
        assert src.kind == "stream" and not src.realtime
        assert src.first().shape == (g.rig(0.5)["O"].height, g.rig(0.5)["O"].width, 3)
        assert until(lambda: src.reopened >= 1 and src.frame()[0] > FRAMES, 60), \
            (src.reopened, src.frame()[0])
        assert not src.ended  # a stream never ends: it is waited for
    finally:
        src.close()
        server.shutdown()


def test_a_camera_s_own_lens_is_given_by_its_field_of_view(videos: dict[str, Path],
                                                          tmp_path: Path) -> None:
    """Seen straight down, a plate fits any focal length at some height: only the right
    lens puts the camera where it is (1.0 m above the table), so a camera's own lens
    must be said (``--hfov``) when it is not the rig's."""
    cam = g.rig(0.5)["O"]
    true_hfov = 2 * math.degrees(math.atan(cam.width / 2 / cam.K[0, 0]))
    heights = {}
    for hfov in (true_hfov, 45.0):
        poses = tmp_path / f"poses-{hfov:.0f}.json"
        out = subprocess.run(_cli("calibrate", "--source", f"O={videos['play']}", "--json",
                                  "--hfov", f"O={hfov}", "--write-poses", str(poses)),
                             capture_output=True, text=True, env=_env(), timeout=120)
        row = json.loads(out.stdout)
        assert row["ok"], row  # the markers fit either lens ...
        heights[hfov] = row["position"][2]
        K = json.loads(poses.read_text())["cameras"]["O"]["K"]
        assert abs(K[0][0] - cam.width / 2 / math.tan(math.radians(hfov) / 2)) < 0.5
    # ... but only the right one puts the camera where it hangs
    assert abs(heights[true_hfov] - 1.0) < 0.01
    assert abs(heights[45.0] - 1.0) > 0.2, heights
