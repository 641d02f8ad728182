"""Camera reader (OpenMV-class): recognised card faces become observations.

The camera object is handed in; ``recognise()`` returns the faces it found
this frame as ``(card, zone, face, level, seen_by, conf)`` tuples, where
``zone`` comes from the region of the image the card lies in and ``seen_by``
from which seats' sight lines reach the face. This module only filters and
merges them: it drops detections below ``min_conf``, keeps the most confident
detection of each card, and reports a fault when the camera fails.
"""

FAULT_CAMERA = 5


class CameraScanner:
    kind = "camera"
    capabilities = ("face", "level", "seen_by", "conf", "floor", "detached", "resend")

    def __init__(self, camera, min_conf=0.6):
        self.camera = camera
        self.min_conf = min_conf
        self.reads = 0
        self.errors = 0
        self._faults = []
        self._failed = False

    def init(self):
        pass

    def begin(self):
        return 0

    def held(self):
        return ("hand", "detached", "table", "trick", "floor") if self._failed else ()

    def scan(self):
        try:
            dets = self.camera.recognise()
        except OSError:
            if not self._failed:
                self._faults.append((FAULT_CAMERA, None, 255))
                self.errors += 1
            self._failed = True
            return {}
        self._failed = False
        seen: dict = {}
        for card, zone, face, level, seen_by, conf in dets:
            c = 1.0 if conf is None else conf
            if c < self.min_conf:
                continue
            old = seen.get(card)
            if old is not None and (1.0 if old[4] is None else old[4]) >= c:
                continue
            sb = None if seen_by is None else tuple(s for s in "NESW" if s in seen_by)
            seen[card] = (zone, face, level, sb, conf)
            self.reads += 1
        return seen

    def take_faults(self):
        f = self._faults
        self._faults = []
        return f
