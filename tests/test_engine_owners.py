"""Unit tests of the engine's owners, each driven directly: the board, the tracker,
the incident grouper, the timeline (what time closes), the trick as the table shows
it, the exposures (cards shown outside the trick zones), the readers where they
disagree, and ``Engine.do`` (the one door through which law codes change the table).
The golden scenarios and the property tests drive them together; these say what each
one promises alone."""

from __future__ import annotations

import pytest

from tablesense.contract.events import BoardStart, Call, Dealt, Observe
from tablesense.contract.vocab import Zone
from tablesense.engine import Engine
from tablesense.engine.board import Board
from tablesense.engine.effects import Covered, Play, PlayAtTurn, TakeBack, Uncovered
from tablesense.engine.errors import InvalidEvent
from tablesense.engine.exposure import Exposures, combined, visibility
from tablesense.engine.fusion import CardFusion
from tablesense.engine.incidents import TOGETHER_MS, Group, Incidents
from tablesense.engine.sensing import SensingFilter, Tuning
from tablesense.engine.timeline import Timeline
from tablesense.engine.tracker import Tracker
from tablesense.engine.trick import Trick
from tablesense.laws import CODES

HANDS = {
    "N": ("ST", "S2", "HA", "HQ", "H6", "H4", "H3", "DA", "D5", "D2", "C7", "C6", "C3"),
    "E": ("SK", "SJ", "S6", "H7", "DK", "DJ", "D6", "CK", "CT", "C9", "C8", "C5", "C4"),
    "S": ("S9", "S8", "S7", "S5", "S3", "HJ", "HT", "H2", "DQ", "DT", "CA", "CQ", "C2"),
    "W": ("SA", "SQ", "S4", "HK", "H9", "H8", "H5", "D9", "D8", "D7", "D4", "D3", "CJ"),
}


def obs(t: int, seat: str, card: str, zone: Zone = "trick") -> Observe:
    return Observe(t, seat, card, zone, "up", "at")


# -- Board ----------------------------------------------------------------------------
def board_in_play() -> Board:
    b = Board("1", 1, "N", "None", "duplicate-2017", whist=False)
    b.set_deal(HANDS, "N")
    b.move("dealt")
    for seat, call in zip("NESWNE", ("1N", "P", "3N", "P", "P", "P"), strict=True):
        if b.call(seat, call) == "over":
            b.move("auction-over")
    return b


def test_board_moves_only_by_its_table_of_phases() -> None:
    b = board_in_play()
    assert (b.phase, b.declarer, b.dummy, b.leader) == ("lead", "N", "S", "E")
    assert b.role("W") == "leaders-partner"
    with pytest.raises(InvalidEvent):
        b.check("call")  # no call after the auction
    with pytest.raises(InvalidEvent):
        b.move("last-trick")  # no such transition from the lead


def test_board_counts_a_trick_and_its_winner() -> None:
    b = board_in_play()
    b.face_opening_lead()
    b.add_play("E", "CK")
    assert b.is_legal("S", "CA") and not b.is_legal("S", "S9")  # South holds clubs
    for seat, card in (("S", "CA"), ("W", "CJ"), ("N", "C3")):
        assert b.next_to_play() == seat
        b.add_play(seat, card)
    assert b.trick_complete() and b.turn == "S"
    b.quit_trick()
    assert dict(b.won) == {"NS": 1, "EW": 0} and not b.trick


def test_board_takes_back_only_a_card_of_the_trick() -> None:
    b = board_in_play()
    b.face_opening_lead()
    b.add_play("E", "CK")
    assert not b.take_back("S", "CA")  # never played
    assert b.take_back("E", "CK") and not b.trick


# -- Tracker ----------------------------------------------------------------------------
def test_tracker_remembers_where_a_gone_card_was() -> None:
    tr = Tracker()
    assert tr.update(obs(1, "E", "CK", "hand")) is None
    prev = tr.update(obs(2, "E", "CK", "trick"))
    assert prev is not None and prev.zone == "hand"
    tr.update(Observe(3, "E", "CK", "gone"))
    where = tr.where("CK")
    assert where is not None and where.zone == "gone"
    assert tr.before_gone["CK"].zone == "trick"


def test_tracker_seeds_only_cards_no_reader_reported() -> None:
    tr = Tracker()
    tr.record(obs(5, "E", "CK", "trick"))
    tr.seed({"E": ("CK", "CT")}, 9)
    ck, ct = tr.where("CK"), tr.where("CT")
    assert ck is not None and ct is not None
    assert (ck.zone, ck.t) == ("trick", 5) and (ct.zone, ct.face, ct.t) == ("hand", "down", 9)


# -- Incidents --------------------------------------------------------------------------
def test_cards_within_300_ms_join_one_group_and_a_new_seat_gets_its_own_window() -> None:
    inc = Incidents()
    inc.join("trick", obs(1000, "E", "C9"))
    inc.join("trick", obs(1200, "S", "CQ"))  # within E's window: the group waits for S's
    (g,) = inc.groups
    assert g.window == 1200 + TOGETHER_MS - 1000 and not g.expired(1450)
    inc.join("trick", obs(1450, "S", "C2"))
    assert len(inc.groups) == 1 and g.cards == ("C9", "CQ", "C2")
    assert g.expired(1501)


def test_a_table_group_whose_cards_all_came_late_stays_open() -> None:
    inc = Incidents()
    inc.join("trick", obs(1000, "E", "C9"))
    inc.join("table", obs(1100, "W", "HK", "table"))
    done = inc.take_all(moving_since=1050)
    assert [g.kind for g in done] == ["trick"] and [g.kind for g in inc.groups] == ["table"]


# -- Timeline ---------------------------------------------------------------------------
class Calls:
    def __init__(self) -> None:
        self.log: list[tuple[str, object]] = []

    def timeline(self, inc: Incidents) -> Timeline:
        tuning = Tuning()
        sensing = SensingFilter(tuning, Tracker(), inc)
        fusion = CardFusion(tuning.conflict_ms, tuning.min_conf)
        return Timeline(inc, sensing, fusion, tuning,
                        close_group=lambda g: self.log.append(("group", g.cards)),
                        conflict=lambda o: self.log.append(("conflict", o.card)),
                        disagree=lambda c: self.log.append(("disagree", c)),
                        withdraw=lambda o: self.log.append(("withdraw", o.card)))


def test_the_timeline_closes_a_window_only_once_it_is_over() -> None:
    calls, inc = Calls(), Incidents()
    tl = calls.timeline(inc)
    inc.join("trick", obs(1000, "E", "C9"))
    tl.advance(1000 + TOGETHER_MS)
    assert calls.log == [] and tl.open
    tl.advance(1001 + TOGETHER_MS)
    assert calls.log == [("group", ("C9",))] and not tl.open


def test_the_timeline_closes_the_oldest_first_and_an_open_one_holds_back_the_rest() -> None:
    calls, inc = Calls(), Incidents()
    tl = calls.timeline(inc)
    dropout = Tuning().dropout_ms
    tl.gone(Observe(900, "W", "HK", "gone"))
    inc.join("trick", obs(1000, "E", "C9"))
    tl.advance(1000 + TOGETHER_MS + 1)  # the group is over, but the gone card began first
    assert calls.log == []
    tl.advance(900 + dropout + 1)
    assert calls.log == [("withdraw", "HK"), ("group", ("C9",))]


def test_a_card_back_in_time_is_never_withdrawn() -> None:
    calls, inc = Calls(), Incidents()
    tl = calls.timeline(inc)
    tl.gone(Observe(900, "W", "HK", "gone"))
    assert tl.leaving
    back = tl.back("HK")
    assert back is not None and back.t == 900 and not tl.leaving
    tl.advance(10**9)
    assert calls.log == []


def test_close_all_closes_groups_and_withdraws_in_the_order_they_began() -> None:
    calls, inc = Calls(), Incidents()
    tl = calls.timeline(inc)
    inc.join("trick", obs(1000, "E", "C9"))
    tl.gone(Observe(1100, "W", "HK", "gone"))
    inc.join("table", obs(1200, "S", "D2", "table"))
    closed: list[Group] = []
    tl.close_all(closed.extend)
    assert [g.first_t for g in closed] == [1000, 1200] and calls.log == [("withdraw", "HK")]
    assert not tl.open


def test_withdraw_now_keeps_only_what_it_is_told_to() -> None:
    calls, inc = Calls(), Incidents()
    tl = calls.timeline(inc)
    tl.gone(Observe(1100, "W", "HK", "gone"))
    tl.gone(Observe(1000, "E", "CK", "gone"))
    tl.withdraw_now(keep=lambda g: g.card == "HK")
    assert calls.log == [("withdraw", "CK")] and tl.back("HK") is not None


# -- Engine.do --------------------------------------------------------------------------
def engine_at_the_lead() -> Engine:
    eng = Engine(table="1", codes=CODES)
    eng.apply(BoardStart(1000, "1", 1, "N", "None", "duplicate-2017"))
    eng.apply(Dealt(2000, {s: tuple(h) for s, h in HANDS.items()}))
    for i, (seat, call) in enumerate(zip("NESWNE", ("1N", "P", "3N", "P", "P", "P"),
                                         strict=True)):
        eng.apply(Call(3000 + 1000 * i, seat, call))
    return eng


def test_do_play_counts_the_card_at_its_turn() -> None:
    eng = engine_at_the_lead()
    assert eng.do(Play("E", "CK"), 10_000)
    b = eng.b
    assert b.trick == [("E", "CK")] and "CK" in eng.played


def test_do_play_at_turn_waits_for_the_turn() -> None:
    eng = engine_at_the_lead()
    assert eng.do(PlayAtTurn("W", "CJ"), 10_000)
    assert "CJ" not in eng.played  # not West's turn yet
    eng.do(Play("E", "CK"), 10_100)
    eng.do(Play("S", "CA"), 10_200)
    assert eng.b.trick[-1] == ("W", "CJ") and "CJ" in eng.played


def test_do_take_back_refuses_a_card_not_in_the_trick() -> None:
    eng = engine_at_the_lead()
    assert not eng.do(TakeBack("E", "CK", keep_place=False), 10_000)
    eng.do(Play("E", "CK"), 10_000)
    assert eng.do(TakeBack("E", "CK", keep_place=False), 10_100)
    assert "CK" not in eng.played and not eng.b.trick


def test_do_covered_and_uncovered_keep_the_exposed_index() -> None:
    eng = engine_at_the_lead()
    eng.do(Covered(("HK",), "1-1-1"), 10_000)
    eng.do(Covered(("HK",), "1-1-2", replace=False), 10_000)
    assert eng.exposed["HK"] == "1-1-1"
    eng.do(Covered(("HK",), "1-1-3", replace=True), 10_000)
    assert eng.exposed["HK"] == "1-1-3"
    eng.do(Uncovered(("HK",)), 10_000)
    assert "HK" not in eng.exposed


# -- Trick ------------------------------------------------------------------------------
class TrickCalls:
    """What a Trick asks of its table, in order: cards counted, groups closed, cards that
    no longer wait at a turn."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str, str]] = []

    def arrival(self, seat: str, o: Observe) -> None:
        self.log.append(("arrival", seat, o.card))

    def close(self, groups: list[Group]) -> None:
        self.log.extend(("close", g.kind, ",".join(g.cards)) for g in groups)

    def dropped(self, o: Observe) -> None:
        self.log.append(("dropped", o.seat, o.card))


def trick_of(eng: Engine, calls: TrickCalls, lying: set[str] | None = None) -> Trick:
    """A Trick over ``eng``'s board, law code, view and positions, with card sets and
    ways back of its own: what it does is what ``calls`` records, not what the engine
    would do."""
    t = Trick(eng.view, eng.tracker, eng.incidents, eng.sensing, eng.tuning,
              played=set(), lying=set() if lying is None else lying, taken_back=set(),
              waiting_play={}, arrival=calls.arrival, close=calls.close,
              dropped=calls.dropped)
    t.deal(eng.b, eng.law)
    return t


def test_the_sweep_counts_only_the_card_lying_in_the_zone_of_the_player_to_play() -> None:
    eng, calls = engine_at_the_lead(), TrickCalls()  # East to lead
    eng.tracker.record(obs(10_000, "S", "CA"))
    trick_of(eng, calls, lying={"CA"}).sweep(10_000)
    assert calls.log == []  # South's card: not his turn
    eng.tracker.record(obs(10_100, "E", "CK"))
    trick = trick_of(eng, calls, lying={"CA", "CK"})
    trick.sweep(10_100)
    trick.sweep(10_200)  # (the same turn: looked at once)
    assert calls.log == [("arrival", "E", "CK")]


def test_the_sweep_leaves_two_cards_of_one_player_to_the_law() -> None:
    eng, calls = engine_at_the_lead(), TrickCalls()
    for i, card in enumerate(("CK", "CT")):
        eng.tracker.record(obs(10_000 + i, "E", card))
    trick_of(eng, calls, lying={"CK", "CT"}).sweep(10_100)
    assert calls.log == []


def test_a_group_counts_the_player_due_first_whatever_order_the_readers_gave() -> None:
    eng, calls = engine_at_the_lead(), TrickCalls()
    o1, o2 = obs(10_000, "S", "CA"), obs(10_100, "E", "CK")
    for o in (o1, o2):
        eng.tracker.record(o)
    # a lead due (East's) and South's card first, East's within 300 ms: two readers'
    # receipt jitter swaps such cards, so East's lead counts first and South's follows it
    trick_of(eng, calls).close(Group("trick", None, 10_000, TOGETHER_MS, [o1, o2]))
    assert calls.log == [("arrival", "E", "CK"), ("arrival", "S", "CA")]


def test_a_group_skips_a_card_that_moved_on_at_once() -> None:
    eng, calls = engine_at_the_lead(), TrickCalls()
    o = obs(10_000, "E", "CK")
    eng.tracker.record(obs(10_010, "E", "CK", "hand"))  # back in the hand 10 ms later
    trick_of(eng, calls).close(Group("trick", None, 10_000, TOGETHER_MS, [o]))
    assert calls.log == []


def test_a_complete_trick_turned_is_quitted_once() -> None:
    eng, calls = engine_at_the_lead(), TrickCalls()
    for i, (seat, card) in enumerate((("E", "CK"), ("S", "CA"), ("W", "CJ"), ("N", "C3"))):
        eng.do(Play(seat, card), 10_000 + 100 * i)
    trick = trick_of(eng, calls)
    trick.quit(Observe(11_000, "E", "CK", "table", "down", "at"))
    trick.quit(Observe(11_100, "S", "CA", "table", "down", "at"))
    assert eng.b.quitted and not eng.b.trick and len(eng.b.tricks) == 1
    assert trick.quitting is None and calls.log == []


def test_a_card_taken_from_its_zone_waits_no_more_and_closes_what_is_open() -> None:
    eng, calls = engine_at_the_lead(), TrickCalls()
    eng.tracker.record(obs(10_000, "E", "CK"))
    eng.incidents.join("trick", obs(10_000, "E", "CK"))
    trick = trick_of(eng, calls, lying={"CK"})
    trick.left(Observe(10_500, "E", "CK", "hand", "down", "at"))
    assert calls.log == [("dropped", "E", "CK"), ("close", "trick", "CK")]


def test_a_card_withdrawn_after_dropout_ms_only_while_it_is_gone() -> None:
    eng, calls = engine_at_the_lead(), TrickCalls()
    gone = Observe(10_000, "E", "CK", "gone", "unknown", "unknown")
    eng.tracker.record(obs(10_500, "E", "CK"))  # back in the trick zone: no withdrawal
    trick = trick_of(eng, calls)
    trick.withdraw(gone)
    assert calls.log == []
    eng.tracker.update(gone)
    trick.withdraw(gone)
    assert calls.log[0] == ("dropped", "E", "CK")


# -- Exposures --------------------------------------------------------------------------
def exposures_of(eng: Engine, calls: TrickCalls) -> Exposures:
    """Exposures over ``eng``'s board, law code, view and card sets, closing groups
    through ``calls``."""
    ex = Exposures(eng.view, eng.incidents, eng.sensing, played=eng.played,
                   exposed=eng.exposed, conceding=eng.conceding, close=calls.close)
    ex.deal(eng.b, eng.law)
    return ex


def test_visibility_is_no_for_a_face_down_card_and_the_cameras_word_otherwise() -> None:
    card = Observe(1, "E", "CK", "table", "down", "at")
    assert visibility(card, "E") == "no"
    assert visibility(Observe(1, "E", "CK", "table", "up", "at", ("W",)), "E") == "yes"
    assert visibility(Observe(1, "E", "CK", "table", "up", "at", ("N",)), "E") == "no"
    assert visibility(Observe(1, "E", "CK", "table", "unknown", "at"), "E") == "unknown"
    assert combined(["no", "unknown"]) == "unknown" and combined(["unknown", "yes"]) == "yes"


def test_a_card_held_face_up_is_one_exposure_and_a_played_one_none() -> None:
    eng, calls = engine_at_the_lead(), TrickCalls()
    ex = exposures_of(eng, calls)
    eng.do(Play("E", "CK"), 10_000)
    ex.held(Observe(10_100, "E", "CK", "hand", "up", "at"), None)
    assert eng.rulings == []
    ex.held(Observe(10_200, "S", "CA", "hand", "up", "at"), None)
    assert [r.cards for r in eng.rulings] == [("CA",)]


def test_cards_on_the_table_join_one_group_and_only_faces_shown_reach_the_law() -> None:
    eng, calls = engine_at_the_lead(), TrickCalls()
    ex = exposures_of(eng, calls)
    up, unseen = obs(10_000, "S", "CA", "table"), Observe(10_050, "S", "CQ", "table",
                                                          "unknown", "at")
    for o in (up, unseen):
        eng.tracker.record(o)
        ex.to_table(o, None)
    (g,) = eng.incidents.groups
    assert g.kind == "table" and g.cards == ("CA", "CQ")
    ex.close(eng.incidents.take_all()[0])
    assert [r.cards for r in eng.rulings] == [("CA",)]  # CQ's face: nobody's seen it


# -- Readers ----------------------------------------------------------------------------
def test_readers_place_a_card_by_the_deal_until_a_fouling_moves_it() -> None:
    eng = engine_at_the_lead()
    assert eng.readers.owner("CK") == "E" and eng.readers.owner("CA") == "S"
    eng.fouling.moved("CK", "E", "S")  # the table showed East's king at South
    assert eng.readers.owner("CK") == "S" and eng.readers.owner("CA") == "S"


def test_a_camera_gives_a_tag_its_face_and_then_confirming_it_moves_nothing() -> None:
    eng = engine_at_the_lead()
    tag = Observe(10_000, "E", "CK", "table", "unknown", "at", source="rfid")
    assert eng.readers.fused(tag) is tag  # one kind of reader alone: as it stands
    eng.tracker.record(tag)
    cam = Observe(10_050, "E", "CK", "table", "up", "at", source="camera")
    seen = eng.readers.fused(cam)
    assert seen is not None and (seen.seat, seen.zone, seen.face) == ("E", "table", "up")
    eng.tracker.record(seen)
    assert eng.readers.fused(Observe(10_100, "E", "CK", "table", "up", "at",
                                     source="camera")) is None
