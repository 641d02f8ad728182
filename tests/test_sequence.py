"""The Sequencer alone (daemon/sequence.py): order, gaps, resends and what is given up."""

from __future__ import annotations

from tablesense.daemon.sequence import Sequencer
from tablesense.onboard.wire import codec


def test_damage_before_anything_arrived_asks_nothing() -> None:
    s = Sequencer()
    s.damaged(0)  # line noise as the port opens: no count yet, nothing to ask for
    assert s.take_resend() is None and s.counters["nacks"] == 0
    s.accept(codec.Frame(codec.HELLO, {}, seq=3), 1)
    s.damaged(2)
    assert s.take_resend() == 4 and s.counters["nacks"] == 1
    s.damaged(3)  # nothing arrived since the last ask
    assert s.take_resend() is None
    o4 = codec.Frame(codec.OBSERVE, {}, seq=4)
    assert s.accept(o4, 4) == [(o4, 4)]
    s.damaged(5)
    assert s.take_resend() == 5 and s.counters["nacks"] == 2


def test_gap_never_filled_is_given_up_and_counted() -> None:
    s = Sequencer(resend_timeout_ms=100, max_retries=1)
    f = [codec.Frame(codec.OBSERVE, {"n": i}, seq=i) for i in range(5)]
    assert s.accept(codec.Frame(codec.HELLO, {}, seq=0), 0)
    assert s.accept(f[1], 0) == [(f[1], 0)]
    assert s.accept(f[3], 7) == [] and s.take_resend() == 2
    assert s.tick(50) == [] and s.take_resend() is None
    assert s.tick(150) == [] and s.take_resend() == 2  # asked once more
    assert s.tick(300) == [(f[3], 7)]  # delivered with the time it arrived
    assert s.counters["lost"] == 1 and s.accept(f[4], 301) == [(f[4], 301)]


def test_a_lost_heartbeat_does_not_hold_observations_back() -> None:
    """A reader that does not keep heartbeats (firmware 0.1.0 did not): the first resent
    frame shows the gap is unfillable."""
    s = Sequencer(resend_timeout_ms=10_000)
    hb = codec.Frame(codec.HEARTBEAT, {}, seq=5)
    o6, o7, o8 = (codec.Frame(codec.OBSERVE, {}, seq=n) for n in (6, 7, 8))
    s.accept(codec.Frame(codec.HELLO, {}, seq=4), 0)
    assert s.accept(o6, 1) == [] and s.accept(o7, 2) == []  # hb 5 lost on the wire
    assert s.take_resend() == 5
    # the reader resends what it kept from 5 on: 6 and 7 (not the heartbeat)
    assert s.accept(o6, 3) == [(o6, 1), (o7, 2)]
    assert s.accept(o7, 4) == [] and s.accept(o8, 5) == [(o8, 5)]
    assert s.counters["lost"] == 1 and s.counters["duplicates"] == 2
    assert hb.seq == 5
