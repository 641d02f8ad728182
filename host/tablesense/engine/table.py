"""The engine for one table: events in, rulings out. Pure: no I/O, no clock.

``Engine.apply`` takes one typed event (docs/contract.md), updates the board and the
card tracker, asks the law code in force what each irregularity costs, and
returns the rulings made. Incidents that span time (cards played together, a
thrown hand) are closed when a later event shows their window has passed, or
by ``flush()`` at the end of a journal, or ``tick(now)`` from a daemon.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar

from tablesense.contract.cards import SEATS, lho, partner
from tablesense.contract.events import (
    BoardStart,
    Call,
    Claim,
    Concede,
    Dealt,
    Decide,
    Declare,
    Event,
    Named,
    Object,
    Observe,
    Reopen,
    Resolve,
    Setup,
)
from tablesense.engine.board import ALLOWED, Board
from tablesense.engine.code import Code, Codes, UnknownCode, find_code
from tablesense.engine.effects import (
    AcceptLead,
    Answered,
    CloseRulings,
    Covered,
    LeadNextTrick,
    OpeningLeadFaced,
    Play,
    PlayAtTurn,
    StopPlay,
    SwapDeclarer,
    TakeBack,
    Uncovered,
)
from tablesense.engine.errors import EngineError, InvalidEvent
from tablesense.engine.exposure import Exposures
from tablesense.engine.fouling import Fouling
from tablesense.engine.fusion import CardFusion
from tablesense.engine.incidents import Group, Incidents
from tablesense.engine.readers import Readers
from tablesense.engine.ruling import Draft, Ruling
from tablesense.engine.sensing import SensingFilter, Tuning
from tablesense.engine.snapshot import snapshot
from tablesense.engine.timeline import Timeline
from tablesense.engine.tracker import Position, Tracker
from tablesense.engine.trick import TRICK, Trick
from tablesense.engine.view import TableView

if TYPE_CHECKING:
    from tablesense.engine.effects import Effect


class Engine:
    """One table's board state, card positions, obligations and rulings."""

    # the fast paths (_unchanged, _arrives, _quits, _on_observe's one test, one group closed
    # in _advance and _close_trick); off only to prove that they change nothing
    fast_path: ClassVar[bool] = True
    plain_plays: ClassVar[bool] = True  # _arrival; off only to prove that it changes nothing

    def __init__(self, table: str | None = None, code: str | None = None,
                 tuning: Tuning | None = None, *, codes: Codes,
                 default_code: str = "duplicate-2017") -> None:
        self.table = table
        self.codes = codes
        self.default_code = default_code
        self.tuning = tuning or Tuning()
        self.code_override = code
        if code is not None:
            find_code(codes, code)  # fail early on an unknown id
        self.board: Board | None = None
        self.law: Code = find_code(codes, code or default_code)
        self.view = TableView(self)
        self.tracker = Tracker()
        self.incidents = Incidents()
        self.sensing = SensingFilter(self.tuning, self.tracker, self.incidents)
        # RFID tags and camera sightings of one card, one position (observations that
        # say which kind of reader sensed them); what the readers sense outlives a board
        self.fusion = CardFusion(self.tuning.conflict_ms, self.tuning.min_conf)
        # Glitches the sensing filter suppressed, per seat: the reader's health topic.
        self.noise = self.sensing.noise
        # the hand record against what the table shows (a fouled board, engine/fouling.py)
        self.fouling = Fouling()
        self.rulings: list[Ruling] = []
        self.closed: set[str] = set()
        self.answered: set[str] = set()
        self.known_ids: set[str] = set()
        # the sets and maps below are shared with the trick and the exposures (read or
        # written there): cleared in place for each deal, never replaced
        self.exposed: dict[str, str] = {}  # card -> ruling that already covers it
        self.played: set[str] = set()
        self.waiting_play: dict[str, str] = {}  # seat -> card to count at his turn
        self._taken_back: set[str] = set()  # taken back by a decision, still in a trick zone
        self._in_trick_zone: set[str] = set()  # last sensed in a trick zone, not yet played
        self.waiting_lead: tuple[str, str] | None = None  # an early lead that will stand
        self.conceding: set[str] = set()  # seats conceding the current trick
        # cards shown outside the trick zones that the law hears of (engine/exposure.py)
        self.exposures = Exposures(self.view, self.incidents, self.sensing,
                                   played=self.played, exposed=self.exposed,
                                   conceding=self.conceding, close=self._close)
        # the trick as the table shows it (engine/trick.py)
        self.trick = Trick(self.view, self.tracker, self.incidents, self.sensing, self.tuning,
                           played=self.played, lying=self._in_trick_zone,
                           taken_back=self._taken_back, waiting_play=self.waiting_play,
                           arrival=self._arrival, close=self._close, dropped=self._dropped)
        # the readers where they disagree, with each other or the deal (engine/readers.py)
        self.readers = Readers(self.view, self.tracker, self.sensing, self.fusion, self.fouling,
                               self.tuning, played=self.played, take_in=self._on_observe)
        # what time closes, in the order it began (incident windows, conflicts, cards gone
        # from a trick zone: withdrawn once dropout_ms pass without them coming back)
        self.timeline = Timeline(self.incidents, self.sensing, self.fusion, self.tuning,
                                 close_group=self._close_one, conflict=self.readers.conflict_due,
                                 disagree=self.readers.disagree, withdraw=self.trick.withdraw)
        self.conceder: str | None = None
        self.now = 0
        self._handlers: dict[str, Callable[[Any], None]] = {}
        self._n = 0
        self._out: list[Ruling] = []

    # -- public API ------------------------------------------------------------
    def apply(self, event: Event) -> list[Ruling]:
        """Apply one event; return the rulings it made (possibly closing earlier incidents).

        Raises InvalidEvent (an EngineError) when the event is not valid in the
        board's state; the event then changes nothing, though rulings of
        incidents that time had already closed are returned by the next call.
        """
        b = self.board
        kind, t = event.type, event.t
        if b is None:
            if not isinstance(event, BoardStart):
                raise InvalidEvent("idle", kind, "no board has started")
        elif kind != "observe" and kind not in ALLOWED[b.phase]:  # (observe: any phase)
            b.check(kind)
        if t < self.now:
            raise InvalidEvent(b.phase if b else "idle", kind,
                               f"time goes backwards ({t} < {self.now})")
        self.now = t
        if b is not None and (self.incidents.groups or self.sensing.conflicts
                              or self.fusion.open or self.timeline.gone_cards):
            self.timeline.advance(t)  # (what time has closed: engine/timeline.py)
        if type(event) is Observe:
            # RFID tags and camera sightings as one (engine/fusion.py), when it says which
            o = event if event.source is None else self.readers.fused(event)
            if o is not None:
                assert b is not None
                was = self.tracker.pos.get(o.card)
                if self.fast_path and was is not None and was.seat == o.seat and (
                        b.phase != "setup"):
                    # the fast paths, each for a card moving at the seat that holds it
                    if o.zone == "trick" and was.zone != "trick":
                        if self._arrives(o, was):
                            return self._take() if self._out else []  # (no sweep needed)
                        self._on_observe(o, was)
                    elif not (self._unchanged(o, was) or (
                            self._quits(o, was) if was.zone == "trick"
                            else self._displayed(o, was))):
                        self._on_observe(o, was)
                else:
                    self._on_observe(o, was)
        else:
            self._close_all()
            handler = self._handlers.get(kind)
            if handler is None:
                handler = self._handlers[kind] = getattr(self, "_on_" + kind)
            handler(event)
        if self._in_trick_zone:
            self.trick.sweep(t)
        out = self._out
        if not out:
            return []
        self._out = []
        return out

    def flush(self) -> list[Ruling]:
        """Close every open incident (end of a journal); a conflict still open counts."""
        if self.trick.quitting is not None and self.board is not None:
            self.trick.quit()
        self._advance(self.now + 10**9)
        self.trick.sweep(self.now)
        return self._take()

    def tick(self, now: int) -> list[Ruling]:
        """Time has passed without events: close the incidents whose window is over."""
        # No sweep here: a card counted at its turn is counted at the next event, in a
        # daemon that ticks and in the replay of its journal alike.
        self._advance(now)
        return self._take()

    def _advance(self, now: int) -> None:
        """Close what time has closed by ``now`` (engine/timeline.py)."""
        if self.board is not None:
            self.timeline.advance(now)

    def snapshot(self) -> dict[str, Any]:
        """The table's state as the daemon publishes it (engine/snapshot.py)."""
        return snapshot(self.table, self.board, self.law, self.tracker, self.rulings,
                        self.closed, self.answered)

    # -- for law codes ---------------------------------------------------------
    if TYPE_CHECKING:
        @property
        def b(self) -> Board:
            """The board (asked for only while one is in play)."""
    else:
        b = property(attrgetter("board"), doc="The board (asked for only while one is in "
                     "play): an attrgetter, read a few times every event.")

    def emit(self, d: Draft, t: int) -> Ruling:
        b = self.b
        self._n += 1
        role = d.role if d.role_given else (b.role(d.offender) if d.offender else None)
        r = Ruling(id=f"{b.table}-{b.number}-{self._n}", table=b.table, board=b.number,
                   code=self.law.id, phase=b.phase, kind=d.kind, citation=d.citation,
                   severity=d.severity, text=d.text, t=t, offender=d.offender, role=role,
                   cards=d.cards, options=d.options, until=d.until, supersedes=d.supersedes)
        self.closed.update(d.supersedes)
        self.rulings.append(r)
        self.known_ids.add(r.id)
        self._out.append(r)
        for c in d.cards:
            self.exposed.setdefault(c, r.id)
        return r

    def ruling(self, rid: str) -> Ruling | None:
        return next((r for r in self.rulings if r.id == rid), None)

    def do(self, e: Effect, t: int) -> bool:
        """Apply one effect a law code asked for: the one place where they change the table."""
        b = self.b
        if type(e) is Play:  # nearly every effect: before the match below tries
            self.play(e.seat, e.card, t)
            return True
        match e:
            case Play(seat, card):
                self.play(seat, card, t)
            case PlayAtTurn(seat, card):
                self.waiting_play[seat] = card
                if b.next_to_play() == seat and not b.trick_complete():
                    self.play(seat, self.waiting_play.pop(seat), t)
            case LeadNextTrick(seat, card):
                self.waiting_lead = (seat, card)
            case AcceptLead(seat, card):
                b.accept_lead(seat)
                self.play(seat, card, t)
            case TakeBack(seat, card, keep_place):
                if not b.take_back(seat, card, keep_place):
                    return False
                self.played.discard(card)
                pos = self.tracker.pos.get(card)
                if pos is not None and pos.zone == "trick":
                    # until the table shows it out of the trick zone (a card the table
                    # already shows out of it, taken back by the hand, is neither)
                    self._taken_back.add(card)
                    self._in_trick_zone.add(card)
            case SwapDeclarer():
                b.swap_declarer()
            case OpeningLeadFaced():
                if b.phase == "lead":
                    b.face_opening_lead()
            case StopPlay():
                if b.phase in ("lead", "play"):
                    b.move("claim")
            case CloseRulings(ids):
                self.closed.update(ids)
            case Answered(rid):
                self.answered.add(rid)
            case Covered(cards, rid, replace):
                for c in cards:
                    if replace:
                        self.exposed[c] = rid
                    else:
                        self.exposed.setdefault(c, rid)
            case Uncovered(cards):
                for c in cards:
                    self.exposed.pop(c, None)
        return True

    def play(self, seat: str, card: str, t: int) -> None:
        """Count ``card`` as played by ``seat`` in turn, with every consequence."""
        b = self.b
        complete = b.trick_complete()
        leading = not b.trick or complete
        if complete:
            b.quit_trick()
        self.law.before_play(self.view, seat, card, leading, t)
        b.add_play(seat, card)
        self.played.add(card)
        self._in_trick_zone.discard(card)
        self.law.after_play(self.view, seat, card, leading, t)
        if self.waiting_lead is not None and b.trick_complete():
            lead, self.waiting_lead = self.waiting_lead, None
            b.accept_lead(lead[0])
            self.play(lead[0], lead[1], t)
            return
        if not self.waiting_play:
            return
        nxt = b.next_to_play()
        if nxt is not None and nxt in self.waiting_play and not b.trick_complete():
            self.play(nxt, self.waiting_play.pop(nxt), t)

    def _arrival(self, seat: str, o: Observe) -> None:
        """``o``, the one card of ``seat`` sensed in his trick zone, is his: the law's
        ``arrival``. The fast path for a play: at his turn during the play, nothing waiting
        to be played, and the law saying its hooks have nothing to do for it
        (``plain_play``), the card is counted as ``play`` counts it, without them. It must
        stay exact: tests/test_fast_path.py replays journals with and without it."""
        b = self.b
        card = o.card
        trick = b.trick
        if (self.plain_plays and b.phase == "play" and self.waiting_lead is None
                and not self.waiting_play
                and seat == (_LEFT[trick[-1][0]] if 0 < len(trick) < 4 else b.turn)  # (his turn)
                and self.law.plain_play(self.view, seat, card)):
            if len(b.trick) == 4:
                b.quit_trick()
            b.add_play(seat, card)
            self.played.add(card)
            self._in_trick_zone.discard(card)
            return
        self.law.arrival(self.view, seat, o)

    # -- events ------------------------------------------------------------------
    def _on_board(self, e: BoardStart) -> None:
        code_id = self.code_override or e.code or self.default_code
        try:
            law = find_code(self.codes, code_id)
        except UnknownCode as exc:
            raise InvalidEvent(self.board.phase if self.board else "idle", "board",
                               str(exc)) from None
        if self.table is not None and e.table != self.table:
            raise InvalidEvent("idle", "board", f"board for table {e.table} at table {self.table}")
        self.law = law
        self.board = Board(e.table, e.board, e.dealer, e.vul, code_id, law.whist)
        self._new_deal()
        self.rulings = []
        self.closed = set()
        self.answered = set()
        self._n = 0

    def _new_deal(self) -> None:
        self.sensing.reset()
        self.fouling.reset()
        self.incidents.reset()
        self.tracker.reset()
        self.law.new_deal()
        self.exposed.clear()
        self.played.clear()
        self.waiting_play.clear()
        self.waiting_lead = None
        self._taken_back.clear()
        self._in_trick_zone.clear()
        self.trick.deal(self.b, self.law)
        self.exposures.deal(self.b, self.law)
        self.readers.deal(self.b, self.law)
        self.timeline.reset()
        self.conceding.clear()
        self.conceder = None

    def _on_setup(self, e: Setup) -> None:
        b = self.b
        if b.phase != "setup":
            b.move("setup")
            b.reset_deal()
            self._new_deal()
        elif b.dealt or e.step in ("draw", "shuffle"):
            # A new round of the setup (a redeal, a new shuffle): nothing sensed or owed in
            # the aborted one carries over, card positions and the code's state included.
            b.reset_deal()
            self._new_deal()
        b.setup_step(e.step)

    def _seed_positions(self, hands: dict[str, tuple[str, ...]], t: int) -> None:
        """Cards of a known deal that no reader has reported yet are in their hands:
        a reading of one of them at another seat is then a conflict, not a move."""
        for seat, held in self.tracker.seed(hands, t).items():
            self.fouling.seed(seat, held)

    def _deal_complete(self) -> bool:
        b = self.b
        if b.dealer is None or b.step not in (None, "deal"):
            return False
        count = dict.fromkeys(SEATS, 0)
        for p in self.tracker.pos.values():
            if p.zone == "hand" and p.face != "up":
                count[p.seat] += 1
        return all(n == 13 for n in count.values())

    def _on_dealt(self, e: Dealt) -> None:
        b = self.b
        if b.phase == "auction":
            # A dealing machine's `dealt` after the host inferred the deal: the same
            # deal, its hands taking precedence, as long as nobody has called.
            if b.calls or b.whist_declared:
                raise InvalidEvent(b.phase, "dealt", "the auction has started")
            if e.hands is not None:
                b.set_deal(e.hands, e.dealer)
                self.fouling.given(True)
            return
        self.fouling.given(e.hands is not None)
        hands = e.hands
        if hands is None:
            hands = {s: tuple(sorted(c for c, p in self.tracker.pos.items()
                                     if p.seat == s and p.zone == "hand")) for s in SEATS}
        b.set_deal(hands, e.dealer)
        self._seed_positions(hands, e.t)
        b.move("dealt")
        b.setup_step(None)
        self.law.after_dealt(self.view, e.t)

    def _on_call(self, e: Call) -> None:
        b = self.b
        if b.whist and not b.whist_declared:
            raise InvalidEvent(b.phase, "call", "no trump declaration yet")
        self.law.before_call(self.view, e)
        result = b.call(e.seat, e.call)
        self.law.after_call(self.view, e)
        if result == "over":
            b.move("auction-over")
            self.law.auction_end(self.view, e.t)
        elif result == "passed-out":
            b.move("passed-out")

    def _on_declare(self, e: Declare) -> None:
        self.b.declare(e.seat, e.strain)
        self.law.after_declare(self.view, e)

    def _on_claim(self, e: Claim) -> None:
        self.law.on_claim(self.view, e)
        self.b.move("claim")

    def _on_concede(self, e: Concede) -> None:
        b = self.b
        if e.current:
            if b.phase != "play":
                raise InvalidEvent(b.phase, "concede", "a concession of the current trick "
                                   "needs a trick in play")
            self.conceding.add(e.seat)
            return
        self.law.on_claim(self.view, e)
        self.conceder = e.seat
        b.move("concede")

    def _on_object(self, e: Object) -> None:
        b = self.b
        if b.phase != "claim" or self.conceder != partner(e.seat):
            raise InvalidEvent(b.phase, "object", f"{e.seat}'s partner has not conceded")
        self.conceder = None
        b.move("object")

    def _on_named(self, e: Named) -> None:
        self.law.named(self.view, e)

    def _on_resolve(self, e: Resolve) -> None:
        if e.alert not in self.known_ids:
            raise InvalidEvent(self.b.phase, "resolve", f"no alert {e.alert}")
        self.closed.add(e.alert)

    def _on_reopen(self, e: Reopen) -> None:
        """A director takes back an answer (or a resolution): the alert takes a new
        decision. One superseded stays closed: a later ruling replaced it."""
        phase = self.board.phase if self.board is not None else "idle"
        if e.alert not in self.known_ids:
            raise InvalidEvent(phase, "reopen", f"no alert {e.alert}")
        if any(e.alert in r.supersedes for r in self.rulings):
            raise InvalidEvent(phase, "reopen", f"alert {e.alert} was superseded")
        self.answered.discard(e.alert)
        self.closed.discard(e.alert)

    def _on_decide(self, e: Decide) -> None:
        target = self._decidable(e)
        self.law.decide(self.view, target, e)
        if self.law.closes(target, e.option):
            self.answered.add(target.id)

    def _decidable(self, e: Decide) -> Ruling:
        phase = self.b.phase
        if e.alert is not None:
            r = self.ruling(e.alert)
            if r is None:
                raise InvalidEvent(phase, "decide", f"no alert {e.alert} on this board")
            if r.id in self.closed or r.id in self.answered:
                raise InvalidEvent(phase, "decide", f"alert {e.alert} is no longer open")
            if e.option not in r.options:
                raise InvalidEvent(phase, "decide",
                                   f"alert {e.alert} does not offer option {e.option}")
            return r
        for r in reversed(self.rulings):
            if e.option in r.options and r.id not in self.closed and r.id not in self.answered:
                return r
        raise InvalidEvent(phase, "decide", f"no open alert offers option {e.option}")

    # -- observations --------------------------------------------------------------
    def _unchanged(self, o: Observe, prev: Position) -> bool:
        """The fast path, decided in O(1) before the filter, incidents and laws: is ``o``
        a card re-reported where the tracker has it (seat, zone, face, level, sight),
        or a played card turned face down in front of its player once its trick is
        quitted? Neither changes anything a law looks at but the card's position and
        time: those are recorded (with the law's ``observed``) and True. ``prev``: where
        the tracker has the card, at ``o``'s seat, out of the setup (``_on_observe``).
        It must stay exact: tests/test_fast_path.py replays journals with and without
        it."""
        zone = o.zone
        if prev.zone == zone:
            # re-reported; face unknown on the table may join an incident (_to_table)
            if (zone == "gone" or prev.face != o.face or prev.level != o.level
                    or prev.seen_by != o.seen_by
                    or (o.face == "unknown" and zone in ("table", "floor"))):
                return False
        else:
            b = self.b
            trick = b.trick
            if not (prev.zone == "trick" and zone == "table" and o.face == "down"
                    and o.card in self.played and not self.incidents.groups
                    and len(trick) != 4  # (not b.trick_complete())
                    and (not trick or all(c != o.card for _, c in trick))
                    and not (b.phase == "play" and len(b.tricks) == 13)):  # (all_played)
                return False  # (Trick.left: no trick to quit, nothing to reconcile or end)
        if (zone == "trick" and self.timeline.gone_cards) or not self.sensing.quiet(o):
            # a card sensed in a trick zone withdraws one its player took from his
            # (_withdrawn_by); the card itself is never gone (the timeline's) where the
            # tracker has it in a trick zone or on the table
            return False
        self.tracker.record(o)  # (never `gone` here)
        if zone == "trick" or self._in_trick_zone:
            self._index_trick_zone(o)
        if self.law.observes:
            self.law.observed(self.view, o, prev)
        return True

    def _arrives(self, o: Observe, prev: Position) -> bool:
        """The fast path for a card played: ``o`` brings a card of ``prev``'s seat (from
        his hand or his table) to his trick zone, and nothing is open: no incident group,
        no unplayed card lying in a trick zone, no card gone from one, no trick being
        quitted, no conflict, a confident reading. The general path then does exactly
        this: the filter admits it, the tracker records it, the law's ``observed`` sees
        it, and the card opens a trick group of its own, with nothing on the table it
        could have crossed (``_to_trick``); the sweep finds only that card, still being
        grouped. What the card is (a play, a lead out of turn, one of two played
        together) is for the group's close, as on the general path. It must stay exact:
        tests/test_fast_path.py replays journals with and without it."""
        card = o.card
        if (prev.zone == "gone" or self.incidents.groups or self._in_trick_zone
                or self.timeline.gone_cards or self.trick.quitting is not None
                or card in self.played
                or self.b.phase == "end" or not self.sensing.quiet(o)):
            return False
        self.tracker.record(o)
        self._in_trick_zone.add(card)
        if self.law.observes:
            self.law.observed(self.view, o, prev)
        self.sensing.arrived_in_trick(o)  # (nothing open: no transit, the time noted)
        self.incidents.join("trick", o)  # (a group of its own)
        return True

    def _quits(self, o: Observe, prev: Position) -> bool:
        """The fast path for a trick's quit: ``o`` turns a card of the complete trick face
        down on the table in front of its player, from his trick zone (the first card
        turned), with no incident group open, no trick being quitted already (an RFID
        tag's turn) and no conflict. The general path then records it (a card of the
        trick is played, and one in the tracker's trick zone is gone from nowhere), the
        law's ``observed`` sees it, and ``Trick.left`` finds nothing to close,
        reconcile or take back: the trick is quitted (``Trick.quit``), and with the last one
        the play ends (it is the same in the play and in a claim). It must stay exact:
        tests/test_fast_path.py replays journals with and without it."""
        b = self.b
        card = o.card
        trick = b.trick
        if (o.zone != "table" or o.face != "down" or len(trick) != 4
                or self.incidents.groups or self.trick.quitting is not None
                or card not in (trick[0][1], trick[1][1], trick[2][1], trick[3][1])
                or not self.sensing.quiet(o)):
            return False
        self.tracker.record(o)
        if self._in_trick_zone:
            self._index_trick_zone(o)  # (a card counted by a resync, Trick._force, still is)
        if self.law.observes:
            self.law.observed(self.view, o, prev)
        self.trick.quit(o)
        return True

    def _displayed(self, o: Observe, prev: Position) -> bool:
        """The fast path for dummy's cards during the play (the display): ``o`` moves a
        card of dummy's, neither to nor from a trick zone nor ``gone``, in the play or a
        claim, no conflict, a confident reading (the dummy spread: 13 cards a board).
        The general path then records it, the law's ``observed`` sees it, and finds
        that dummy's cards face up are no exposure (``Exposures.display``, in
        ``Exposures.to_table`` and ``Exposures.held``) and that nothing else moves. It
        must stay exact: tests/test_fast_path.py replays journals with and without it."""
        b = self.b
        zone = o.zone
        if (zone == "gone" or prev.zone == "gone" or o.seat != b.dummy
                or (b.phase != "play" and b.phase != "claim") or not self.sensing.quiet(o)):
            return False  # (prev.zone and zone are not "trick": _on_observe)
        self.tracker.record(o)
        if self._in_trick_zone:
            self._index_trick_zone(o)
        if self.law.observes:
            self.law.observed(self.view, o, prev)
        return True

    def _index_trick_zone(self, o: Observe) -> None:
        """Keep ``_in_trick_zone`` (unplayed cards lying in trick zones) up with ``o``."""
        if o.zone != "trick":
            if o.card in self._in_trick_zone:
                self._in_trick_zone.discard(o.card)
                self._taken_back.discard(o.card)
        elif o.card not in self.played:
            self._in_trick_zone.add(o.card)

    def _on_observe(self, o: Observe, was: Position | None) -> None:
        """Take ``o`` in, the general path (``apply`` tries the fast paths first); ``was``:
        where the tracker has the card."""
        b = self.b
        sf = self.sensing
        if (self.fast_path and was is not None and was.seat == o.seat and was.zone != "gone"
                and o.zone != "gone" and sf.quiet(o)):
            pass  # moved at its own seat (a card played): the filter's checks in one
            # (admitted, lost nowhere else, no conflict, none due, no dropout)
        elif not sf.admit(o) or sf.lost_elsewhere(o, was):
            return
        else:
            conflicting = sf.conflicting(o, was, self.readers.owner(o.card))
            for first in sf.due_conflicts(o.t):
                self.readers.conflict_due(first)
            if conflicting:
                return
            if sf.dropout(o, was):
                self.timeline.back(o.card)  # it never left the trick zone
                if o.zone == "trick" and o.card not in self.played:
                    self._in_trick_zone.add(o.card)
                return
        if o.zone == "trick" and self.timeline.leaving:
            self._withdrawn_by(o)
        prev = self.tracker.update(o)
        if self.timeline.back(o.card) is not None and (
                prev is not None and prev.zone == "gone"):
            prev = self.tracker.before_gone.get(o.card, prev)  # it moves on from the trick zone
        self._index_trick_zone(o)
        if self.law.observes:
            self.law.observed(self.view, o, prev)
        if o.zone == "gone":
            if (prev is not None and prev.zone == "trick" and prev.seat == o.seat
                    and b.phase in ("lead", "play")
                    and (o.card not in self.played or (o.seat, o.card) in b.trick)):
                self.timeline.gone(o)  # withdrawn, unless it is back within dropout_ms
            return
        if b.phase == "end":
            return
        if b.phase == "setup":
            if o.face == "up":
                self.law.setup_exposure(self.view, o, prev)
            elif o.zone == "hand" and self._deal_complete():
                self._on_dealt(Dealt(o.t))  # the contract: inferred when each reader holds 13
            return
        if o.zone == "trick":
            self._to_trick(o, prev)
            return
        if prev is not None and prev.zone == "trick":
            if not sf.flicker(o, prev, o.card in self.played):
                self.trick.left(o)
                return
            prev = None  # the card never really reached the trick: a fresh movement
        if o.face != "down" and o.zone in ("table", "floor"):
            self.exposures.to_table(o, prev)
        elif o.face == "up" and o.zone in ("hand", "detached"):
            self.exposures.held(o, prev)

    def _to_trick(self, o: Observe, prev: Position | None) -> None:
        if prev is not None and prev.zone == "trick" and not (prev.face == "down"
                                                              and o.face != "down"):
            return
        if self.trick.quitting is not None:
            self.trick.came(o, prev)
        if o.card in self.played:
            return
        # Passed over the table antenna on its way (a card dropped face up out of turn,
        # then played at its turn after the others' plays, was exposed before it was).
        transit = self.sensing.arrived_in_trick(o)
        self._close(self.incidents.take_holding(o.card))
        self.incidents.join("trick", o)
        if transit:  # the trick waited for it (_to_table): no longer
            self.incidents.narrow_tricks(o.t)

    def _dropped(self, o: Observe) -> None:
        """``o``'s card left its trick zone: it no longer waits to count at a turn."""
        if self.waiting_play.get(o.seat) == o.card:
            del self.waiting_play[o.seat]
        if self.waiting_lead == (o.seat, o.card):
            self.waiting_lead = None

    def _withdrawn_by(self, o: Observe) -> None:
        """``o``'s player put a card in his trick zone before ``dropout_ms`` passed on one
        he took from it (``gone``): that one went back to his hand, no dropout; withdrawn
        now, before the new card counts (a quick correction, a substitution). So is an
        uncounted card of another player's (a lead out of turn taken back, refused): the
        new card does not accept it."""
        self.timeline.withdraw_now(keep=lambda g: g.card == o.card or (
            g.seat != o.seat and g.card in self.played))


    # -- incidents -----------------------------------------------------------------
    def _close_all(self) -> None:
        """An event that is no observation (a call, a decision, a claim): the table has
        moved on, so every open incident closes, and a card gone from a trick zone is
        not coming back; in the order they began. A trick being quitted is quitted."""
        if self.trick.quitting is not None:
            self.trick.quit()
        self.timeline.close_all(self._close)

    def _close(self, groups: list[Group]) -> None:
        if not groups:
            return
        for g in sorted(groups, key=_began) if len(groups) > 1 else groups:
            self._close_one(g)

    def _close_one(self, g: Group) -> None:
        if g.kind != "trick":
            self.exposures.close(g)
            return
        b = self.b
        trick = self.trick
        if self.fast_path and len(g.items) == 1 and not (
                trick.free_lead or len(self._in_trick_zone) > 1
                or (trick.short[0] == b.number and trick.short[1] == len(b.tricks))):
            # one card (nearly every play): no order to find, no lead to free, no short
            # trick to set aside, no choice awaited; counted if it stayed (sensing.settled,
            # its common case written out)
            o = g.items[0]
            pos = self.tracker.pos.get(o.card)
            if pos is None or (pos.seat == o.seat and pos.zone == "trick"
                               and pos.face == o.face) or self.sensing.settled(o, TRICK):
                self._arrival(o.seat, o)
            return
        trick.close(g)

    def _take(self) -> list[Ruling]:
        out, self._out = self._out, []
        return out


_LEFT = {s: lho(s) for s in SEATS}  # (lho, looked up for every card played)


def _began(g: Group) -> int:
    return g.first_t


def next_seat(seat: str) -> str:
    return lho(seat)


__all__ = ["Engine", "EngineError", "InvalidEvent", "Ruling"]
