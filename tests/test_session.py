"""The reader session as a state machine: bytes and time in, actions out.

No port, no thread, no waiting: each test plays a reader by encoding its
frames with the real codec, hands them to :class:`ReaderSession` at chosen
host times, and reads back what the session asks for (frames for the core,
bytes for the reader, hang-ups), decoded with the real codec.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tablesense.daemon.config import LinkSettings
from tablesense.daemon.session import (
    ACK_EVERY_FRAMES,
    ACK_EVERY_MS,
    CONFIG_RETRY_MS,
    SPOOF_ALERT_INTERVAL_MS,
    Action,
    Hangup,
    LinkMessage,
    ReaderSession,
    Transmit,
)
from tablesense.daemon.stamps import host_stamp
from tablesense.onboard.wire import codec

T0 = 1_800_000_000_000  # host time, ms since the epoch (2027)
KEY = bytes(range(32))
OTHER = bytes(range(1, 33))
TIMING = LinkSettings(heartbeat_timeout_ms=3500, resend_timeout_ms=500, health_interval_ms=1000)


class Reader:
    """A reader's side of the wire: numbered (and, with a key, signed) frames."""

    def __init__(self, reader: int = 1, seq: int = 0, key: bytes | None = None) -> None:
        self.reader = reader
        self.seq = seq
        self.key = key
        self.stamp = 0
        self.sent: dict[int, bytes] = {}

    def frame(self, mtype: int, fields: dict[str, Any], key: bytes | None = None) -> bytes:
        key = key or self.key
        self.stamp += 1
        data = codec.encode(mtype, fields, self.reader, self.seq, key=key,
                            stamp=self.stamp if key else 0)
        self.sent[self.seq] = data
        self.seq = codec.seq_next(self.seq)
        return data

    def hello(self, serial: str = "R-1", capabilities: tuple[str, ...] = ()) -> bytes:
        return self.frame(codec.HELLO, {"kind": "rfid", "firmware": "0.5.0", "serial": serial,
                                        "capabilities": list(capabilities)})

    def beat(self) -> bytes:
        return self.frame(codec.HEARTBEAT, {"uptime": 1, "reads": 0, "errors": 0,
                                            "dropped": 0})

    def observe(self, card: str, seat: str = "N") -> bytes:
        return self.frame(codec.OBSERVE, {"seat": seat, "card": card, "zone": "trick",
                                          "face": "up", "level": "at", "t": 5})

    def ack(self, seq: int) -> bytes:
        return self.frame(codec.ACK, {"ack_seq": seq})

    def adopt(self, config: codec.Frame) -> None:
        """What the firmware does with a CONFIG's stamp: the host's clock."""
        if config.stamp is not None:
            self.stamp = max(self.stamp, config.stamp)


def sent(actions: list[Action], key: bytes | None = None) -> list[codec.Frame]:
    """The host frames among ``actions``, decoded as a reader decodes them."""
    dec = codec.Decoder(key, sender="host") if key else codec.Decoder()
    out: list[codec.Frame] = []
    for a in actions:
        if type(a) is Transmit:
            (f,) = dec.feed(a.data)
            assert isinstance(f, codec.Frame)
            out.append(f)
    return out


def cards(actions: list[Action]) -> list[str]:
    return [a.frame.fields["card"] for a in actions if type(a) is LinkMessage
            and a.frame is not None and a.frame.mtype == codec.OBSERVE]


def kinds(actions: list[Action]) -> list[str]:
    return [a.kind for a in actions if type(a) is LinkMessage and a.kind != "frame"]


def hangups(actions: list[Action]) -> list[Hangup]:
    return [a for a in actions if type(a) is Hangup]


def online(s: ReaderSession, r: Reader, t: int = T0) -> list[Action]:
    """The session as a configured reader leaves it: the port opened, a HELLO (a signed
    session sends its CONFIG at once), the CONFIG ACKed."""
    out = s.opened(t)
    if r.key is None:
        out += s.receive(r.hello(), t + 1)
    (config,) = [f for f in sent(out, r.key) if f.mtype == codec.CONFIG]
    r.adopt(config)
    out += s.receive(r.ack(config.seq), t + 2)
    return out + s.tick(t + 2)  # the first ACK goes at once


def session(seat: str = "E", **kw: Any) -> ReaderSession:
    kw.setdefault("settings", TIMING)
    return ReaderSession("1", seat, now=T0, **kw)


# -- handshake, order, acknowledgement ------------------------------------------------------


def test_hello_is_answered_by_config_and_the_reader_is_online() -> None:
    s, r = session("E"), Reader(reader=2)
    assert s.opened(T0) == []  # an unsigned session waits for the reader's HELLO
    out = s.receive(r.hello(serial="RDR-E-1"), T0 + 5)
    (config,) = sent(out)
    assert (config.mtype, config.reader, config.fields) == (
        codec.CONFIG, 2, {"seat": "E", "scan_ms": 20, "debounce_ms": 0})
    assert kinds(out) == ["online"] and s.state == "online" and s.since == T0 + 5
    health = next(a for a in out if type(a) is LinkMessage).health
    assert (health["serial"], health["state"], health["seat"]) == ("RDR-E-1", "online", "E")
    # unacknowledged, the CONFIG goes again every CONFIG_RETRY_MS; its ACK ends that
    def configs(t: int) -> list[codec.Frame]:
        return [f for f in sent(s.tick(t)) if f.mtype == codec.CONFIG]

    assert configs(T0 + 5 + CONFIG_RETRY_MS - 1) == []
    (again,) = configs(T0 + 5 + CONFIG_RETRY_MS)
    assert again.fields == config.fields and s.counters["config_retries"] == 1
    s.receive(r.ack(again.seq), T0 + 600)
    assert configs(T0 + 5 + 3 * CONFIG_RETRY_MS) == []


def test_delivered_frames_are_acked_after_a_few_frames_or_a_quarter_second() -> None:
    s, r = session(), Reader()
    online(s, r)
    t = T0 + 10
    out = s.receive(b"".join(r.observe(c) for c in ("SA", "SK", "SQ")), t)
    assert cards(out) == ["SA", "SK", "SQ"]
    assert all(m.t == t and m.seat == "E" for m in out if type(m) is LinkMessage)
    assert sent(s.tick(t)) == []  # three frames: not yet
    (ack,) = sent(s.tick(t + ACK_EVERY_MS))
    assert (ack.mtype, ack.fields) == (codec.ACK, {"ack_seq": r.seq - 1})
    s.receive(b"".join(r.observe("H" + c) for c in "AKQJT987"), t + ACK_EVERY_MS + 1)
    (ack,) = sent(s.tick(t + ACK_EVERY_MS + 2))  # ACK_EVERY_FRAMES frames: at once
    assert ack.fields == {"ack_seq": r.seq - 1} and ACK_EVERY_FRAMES == 8


def test_a_gap_is_asked_for_and_filled_in_order_across_the_wrap() -> None:
    s, r = session(), Reader(seq=65530)
    online(s, r)
    assert cards(s.receive(r.observe("SA"), T0 + 10)) == ["SA"]
    lost, lost_seq = r.observe("SK"), r.seq - 1
    held = s.receive(r.observe("SQ") + r.observe("SJ"), T0 + 11)
    assert cards(held) == []  # they wait for SK
    (resend,) = [f for f in sent(s.tick(T0 + 12)) if f.mtype == codec.RESEND]
    assert resend.fields == {"from_seq": lost_seq}
    out = s.receive(lost, T0 + 20)
    assert cards(out) == ["SK", "SQ", "SJ"]
    assert [m.t for m in out if type(m) is LinkMessage] == [T0 + 20, T0 + 11, T0 + 11]
    # a duplicate of the lost frame and one from before the wrap: dropped
    assert cards(s.receive(lost + r.sent[65531], T0 + 21)) == []
    assert cards(s.receive(r.observe("ST"), T0 + 22)) == ["ST"]
    c = s.all_counters()
    assert (c["duplicates"], c["gaps"], c["resends"], c["lost"]) == (2, 1, 1, 0)


def test_a_gap_never_filled_is_asked_again_then_given_up() -> None:
    s, r = session(), Reader()
    online(s, r)
    r.observe("SA")  # lost on the wire
    s.receive(r.observe("SK"), T0 + 10)
    asks = [f.fields["from_seq"] for t in range(T0 + 10, T0 + 2000, 50)
            for f in sent(s.tick(t)) if f.mtype == codec.RESEND]
    assert asks == [2, 2, 2]  # asked, then twice more a resend timeout apart
    assert s.all_counters()["lost"] == 1


def test_a_damaged_frame_is_asked_for_at_once_and_a_burst_asks_once() -> None:
    """Before any later frame shows the gap: else other readers' later cards would
    overtake it at the engine."""
    s, r = session(), Reader(seq=10)
    online(s, r)
    s.receive(r.observe("SA"), T0 + 10)
    good, good_seq = r.observe("SK"), r.seq - 1
    bad = bytearray(good)
    bad[-3] ^= 0x01 if bad[-3] != 1 else 0x02  # one bit of the CRC flipped on the wire
    s.receive(bytes(bad) + bytes(bad), T0 + 11)
    resends = [f.fields for f in sent(s.tick(T0 + 12)) if f.mtype == codec.RESEND]
    assert resends == [{"from_seq": good_seq}]
    assert cards(s.receive(good, T0 + 13) + s.receive(r.observe("SQ"), T0 + 14)) == ["SK", "SQ"]
    c = s.all_counters()
    assert (c["bad_crc"], c["nacks"], c["gaps"], c["lost"]) == (2, 1, 0, 0)


def test_after_a_daemon_restart_the_frames_sent_meanwhile_are_asked_for() -> None:
    s, r = session(), Reader(seq=40)
    s.resume_after(36)  # the journal's last frame from this reader
    s.opened(T0)
    assert cards(s.receive(r.observe("SA"), T0 + 1)) == []
    (resend,) = sent(s.tick(T0 + 2))
    assert resend.fields == {"from_seq": 37} and s.counters["resumed"] == 1
    # a reader that rebooted meanwhile starts afresh with its HELLO instead
    s2, r2 = session(), Reader(seq=0)
    s2.resume_after(36)
    s2.opened(T0)
    assert kinds(s2.receive(r2.hello(), T0 + 1)) == ["online"]
    assert cards(s2.receive(r2.observe("SA"), T0 + 2)) == ["SA"]


def test_an_observation_its_reader_does_not_claim_is_not_taken() -> None:
    s, r = session(), Reader()
    s.opened(T0)
    s.receive(r.hello(capabilities=("table", "trick", "floor")), T0 + 1)
    hand = r.frame(codec.OBSERVE, {"seat": "N", "card": "SA", "zone": "hand", "face": "down",
                                   "level": "at", "t": 5})
    assert cards(s.receive(hand + r.observe("SK"), T0 + 2)) == ["SK"]
    assert s.counters["unclaimed-zone"] == 1


# -- liveness --------------------------------------------------------------------------------


def test_silence_past_the_heartbeat_timeout_is_offline_and_hangs_up() -> None:
    s, r = session(), Reader()
    online(s, r)
    t = T0
    for _ in range(5):  # 1 Hz beats keep it online well past the timeout
        t += 1000
        assert kinds(s.receive(r.beat(), t)) == [] and hangups(s.tick(t)) == []
    assert s.state == "online"
    assert hangups(s.tick(t + TIMING.heartbeat_timeout_ms)) == []
    out = s.tick(t + TIMING.heartbeat_timeout_ms + 1)
    assert kinds(out) == ["offline"] and hangups(out) == [Hangup(worked=True, reset=True)]
    offline = next(a for a in out if type(a) is LinkMessage)
    assert offline.reason == "heartbeat-timeout" and offline.health["state"] == "offline"
    assert s.counters["timeouts"] == 1
    # the port is opened again; the reader carries on and is online once more
    t += 4000
    assert s.opened(t) == []
    assert kinds(s.receive(r.beat(), t + 5)) == ["online"] and s.since == t + 5


def test_a_silent_port_is_hung_up_and_a_reader_never_heard_is_offline_once() -> None:
    s = session()
    s.opened(T0)
    assert hangups(s.tick(T0 + TIMING.heartbeat_timeout_ms)) == []
    out = s.tick(T0 + TIMING.heartbeat_timeout_ms + 1)
    assert kinds(out) == [] and hangups(out) == [Hangup(worked=False)]
    (offline,) = s.unreachable(T0 + 4000)
    assert type(offline) is LinkMessage and offline.reason == "never-answered"
    assert s.unreachable(T0 + 8000) == []  # said once
    assert s.health()["state"] == "offline"


def test_a_port_lost_while_the_reader_talked_is_offline() -> None:
    s, r = session(), Reader()
    s.opened(T0)
    assert s.port_failed(T0 + 1) == [Hangup(worked=False)]  # nothing heard: no news
    s.opened(T0 + 100)
    s.receive(r.hello(), T0 + 101)
    out = s.port_failed(T0 + 200)
    assert kinds(out) == ["offline"] and hangups(out) == [Hangup(worked=True)]
    assert next(a for a in out if type(a) is LinkMessage).reason == "port-lost"


def test_time_the_port_was_left_unread_is_not_the_readers_silence() -> None:
    s, r = session(), Reader()
    online(s, r)
    s.paused(10_000)  # back-pressure held the port for 10 s
    assert hangups(s.tick(T0 + 10_000)) == [] and s.counters["paused_ms"] == 10_000


def test_health_goes_out_when_counters_changed_at_most_each_interval() -> None:
    s, r = session(), Reader()
    online(s, r)
    assert kinds(s.tick(T0 + 900)) == []
    health = [a for a in s.tick(T0 + 1002) if type(a) is LinkMessage]
    assert [m.kind for m in health] == ["health"]  # the CONFIG's ACK counted a frame
    assert kinds(s.tick(T0 + 2100)) == []  # nothing changed since
    s.receive(r.beat(), T0 + 2200)
    assert kinds(s.tick(T0 + 2300)) == ["health"]


# -- signing -----------------------------------------------------------------------------------


def test_a_signed_session_starts_when_the_port_opens_on_the_hosts_clock() -> None:
    s, r = session(key=KEY, require_signed=True), Reader(key=KEY)
    (config,) = sent(s.opened(T0), KEY)
    assert config.mtype == codec.CONFIG and config.stamp == host_stamp(T0 / 1000)
    r.adopt(config)
    out = s.receive(r.beat() + r.observe("SA"), T0 + 5)
    assert kinds(out) == ["online"] and cards(out) == ["SA"]
    # everything the host sends is signed, stamps counting up from the clock
    (ack,) = sent(s.tick(T0 + 5 + ACK_EVERY_MS), KEY)
    assert ack.stamp is not None and ack.stamp == config.stamp + 1


def test_forged_and_unsigned_frames_are_dropped_and_alerted_once_a_minute() -> None:
    s, r = session(key=KEY, require_signed=True), Reader(key=KEY)
    online(s, r)
    spoof = Reader(key=OTHER, seq=5000)
    forged = b"".join(spoof.observe("HA") for _ in range(20))
    plain = b"".join(Reader(seq=6000).observe("HK") for _ in range(20))
    out = s.receive(forged + plain + r.observe("SK"), T0 + 10)
    assert cards(out) == ["SK"]
    (alert,) = [a for a in out if type(a) is LinkMessage and a.kind == "spoofed"]
    assert alert.reason == "bad_signature" and alert.health["counters"]["bad_signature"] >= 1
    assert (s.counters["bad_signature"], s.counters["unsigned"]) == (20, 20)
    later = T0 + 10 + SPOOF_ALERT_INTERVAL_MS
    assert kinds(s.receive(spoof.observe("HQ"), later - 1)) == []
    assert kinds(s.receive(spoof.observe("HJ"), later)) == ["spoofed"]
    assert s.state == "online" and s.all_counters()["lost"] == 0


def test_replayed_frames_are_dropped_and_a_rebooted_readers_hello_is_answered() -> None:
    s, r = session(key=KEY, require_signed=True), Reader(key=KEY)
    online(s, r)
    captured = r.observe("DA")
    assert cards(s.receive(captured, T0 + 10)) == ["DA"]
    assert cards(s.receive(captured * 3 + r.observe("DK"), T0 + 11)) == ["DK"]
    assert s.counters["replayed"] == 3
    assert kinds(s.receive(captured, T0 + 12)) == []  # a good MAC: a replay, not a spoofer
    # the reader reboots: its stamps start again at 1; its HELLO is answered all the same
    r.stamp, r.seq = 0, 0
    out = s.receive(r.hello(), T0 + 5000)
    (config,) = sent(out, KEY)
    assert s.counters["stale_hello"] == 1 and config.stamp == host_stamp(5 + T0 / 1000)
    assert kinds(out) == []  # no sign of life: a recording can replay a HELLO too
    r.adopt(config)
    assert cards(s.receive(r.observe("DJ"), T0 + 5001)) == ["DJ"]
    assert cards(s.receive(captured, T0 + 5002)) == []  # the old session's frame stays stale
    assert s.counters["replayed"] == 5 and s.counters["bad_signature"] == 0


def test_a_lost_frame_comes_again_resigned() -> None:
    s, r = session(key=KEY, require_signed=True), Reader(key=KEY)
    online(s, r)
    t = T0 + 10
    s.receive(r.observe("CA"), t)
    lost, lost_seq = r.observe("CK"), r.seq - 1  # never arrives
    s.receive(r.observe("CQ"), t + 1)
    (resend,) = [f for f in sent(s.tick(t + 2), KEY) if f.mtype == codec.RESEND]
    assert resend.fields == {"from_seq": lost_seq}
    again = codec.resign(lost, KEY, r.stamp + 1)  # as the firmware resends: a fresh stamp
    assert cards(s.receive(again, t + 3)) == ["CK", "CQ"]
    assert s.counters["replayed"] == 0 and s.all_counters()["lost"] == 0


# -- any input ---------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(
    st.tuples(st.just("frame"), st.sampled_from(["observe", "beat", "hello", "ack", "skip"])),
    st.tuples(st.just("bytes"), st.binary(max_size=64)),
    st.tuples(st.just("tick"), st.integers(1, 2000)),
    st.tuples(st.just("fail"), st.just(0)),
), max_size=60), st.booleans())
def test_any_input_gives_actions_and_frames_in_order_once(steps: list[tuple[str, Any]],
                                                         signed: bool) -> None:
    """Whatever arrives, in whatever pieces, the session raises nothing, and the frames
    it hands the core since the reader's last HELLO have rising sequence numbers."""
    key = KEY if signed else None
    s, r = session(key=key, require_signed=signed), Reader(key=key)
    t = T0
    delivered: list[int] = []
    for step, arg in [("open", 0), *steps]:
        t += 1
        if step == "open":
            out = s.opened(t)
        elif step == "fail":
            out = s.port_failed(t)
        elif step == "tick":
            t += arg
            out = s.tick(t)
        elif step == "bytes":
            out = s.receive(arg, t)
        elif arg == "skip":
            r.observe("C2")  # lost on the wire
            continue
        else:
            data = {"observe": lambda: r.observe("SA"), "beat": r.beat, "hello": r.hello,
                    "ack": lambda: r.ack(0)}[arg]()
            if arg == "hello":
                delivered = []
            out = s.receive(data, t)
        for a in out:
            assert type(a) in (LinkMessage, Transmit, Hangup)
            if type(a) is Transmit:
                for f in sent([a], key):
                    r.adopt(f)
            elif type(a) is LinkMessage and a.frame is not None:
                delivered.append(a.frame.seq)
        if hangups(out):
            s.opened(t)
    assert delivered == sorted(set(delivered))
