"""A table in memory: its session and current hand, rebuilt from its event log.

:class:`Table` is synchronous and knows nothing of sockets or databases. It
replays stored events through the engine, turns an accepted action into the
events to store, and renders events and snapshots for one role (a seat, or
spectators). :mod:`flowerbridge.server.manager` adds locking, storage,
broadcasting and bots around it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, NamedTuple, Sequence

from ..dealing import Deal
from ..options import RuleOptions
from ..render import count_text
from ..seats import Seat
from ..session import Session
from ..state import CallMade, CardPlayed, HandState
from .limits import MAX_CATCH_UP_EVENTS, MAX_TAKE_BACKS
from .schemas import ProtocolError
from .models import AnalysisRow, EventRow, SeatRow, TableRow, utcnow
from .views import DDValues, Role, copies_seen, review, view

PROTOCOL_VERSION = 1
PLAYING, OVER = "playing", "over"
HUMAN, BOT = "human", "bot"


class TableError(ProtocolError):
    """A request the table cannot carry out."""

    def __init__(self, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(code, message, retry_after=retry_after)


@dataclass
class SeatPlayer:
    """Who sits in a seat: a bot of ``level``, or a person holding a token."""

    player: str
    level: str | None = None
    token_hash: str | None = None
    joined: bool = False
    replaced: bool = False      # a stand-in plays for the person (as stored: see SeatRow)
    replaced_seq: int | None = None     # the table's seq when it took the seat (SeatRow too)
    left_at: datetime | None = None     # when the person left, while away (SeatRow too)


class Event(NamedTuple):
    """One event of a table's log as kept in memory: an immutable record of
    the fields of its :class:`~.models.EventRow`, made from and into one only
    where the log meets the database (:meth:`of`, :meth:`row`).

    A SQLAlchemy row object costs about 1.6 KB and four objects the garbage
    collector tracks; a table of 8 hands holds some 450 events, and a server
    hundreds of tables, so rows kept in memory made every full collection
    (which pauses every table) longer with each table open. A tuple of strings,
    numbers and a time is not tracked at all (a deal's ``detail`` still is).
    """

    seq: int
    kind: str
    hand: int
    seat: str | None = None
    action: str | None = None
    # a deal's hands, a close's reason and minutes, a call's explanation
    detail: dict[str, Any] | None = None
    created_at: datetime | None = None

    @classmethod
    def of(cls, row: "EventRow | Event") -> "Event":
        """The record of a stored row (an event already one is itself)."""
        if isinstance(row, Event):
            return row
        return cls(row.seq, row.kind, row.hand, row.seat, row.action, row.detail, row.created_at)

    def row(self, table_id: str) -> EventRow:
        """The row that stores this event in ``table_id``'s log."""
        return EventRow(table_id=table_id, seq=self.seq, kind=self.kind, hand=self.hand,
                        seat=self.seat, action=self.action, detail=self.detail,
                        created_at=self.created_at)

    @property
    def explanation(self) -> str | None:
        return (self.detail or {}).get("explanation") if self.kind == "call" else None


@dataclass
class HandLog:
    """The events of one hand (its deal first) and the explanations of its calls."""

    events: list[Event] = field(default_factory=list)
    explanations: list[str | None] = field(default_factory=list)
    dd: DDValues | None = None
    dd_status: str = "pending"
    # the table's seq when a ``review`` message told the hand's values (or that
    # there are none) after its hand_over had said "pending"; None: none was sent
    review_seq: int | None = None
    # finished before this process read the log: a client may have seen its
    # review "pending" before a restart, and must be told how it ended
    replayed: bool = False


class Table:
    """One table's session, rebuilt by replaying its log through the engine."""

    def __init__(self, row: TableRow, seats: Iterable[SeatRow],
                 events: Iterable[EventRow | Event], analyses: Iterable[AnalysisRow] = ()) -> None:
        self.row = row      # kept to rebuild the table from memory (without)
        self.id = row.id
        self.name = row.name
        self.seed = row.seed
        self.created = as_utc(row.created_at)
        self.stand_in_level = row.stand_in
        self.options = RuleOptions.stored(row.options)
        self.session = Session(self.options, max_hands=row.max_hands, max_games=row.max_games)
        self.players: dict[Seat, SeatPlayer] = {
            Seat[s.seat]: SeatPlayer(s.player, s.level, s.token_hash, s.joined, bool(s.replaced),
                                     s.replaced_seq, as_utc(s.left_at) if s.left_at else None)
            for s in seats}
        self.seq = 0
        self.hands: list[HandLog] = []
        self.state: HandState | None = None
        # when the latest event was made (closing an idle table goes by it)
        self.last_event_at = self.created
        # why the table was closed before its session was over (its ``close``
        # event: idle, to make room, or by its one person); None while it is not
        self.closed: str | None = None
        for event in events:
            self._replay(Event.of(event))
        for log in self.hands[:len(self.session.hands)]:
            log.replayed = True
        for analysis in analyses:
            # when its review message was sent is not stored: as if just now, so
            # that a client back from before (it saw "pending") is sent it again
            self.set_analysis(analysis.hand, [(a, b) for a, b in analysis.values], announced=True)

    # ----------------------------------------------------------- creation

    @staticmethod
    def new_rows(name: str | None, options: RuleOptions, max_hands: int | None,
                 max_games: int | None, players: dict[Seat, SeatPlayer],
                 stand_in: str) -> tuple[TableRow, list[SeatRow], list[EventRow]]:
        """The rows of a new table, its first hand dealt."""
        table_id = secrets.token_urlsafe(6)
        row = TableRow(id=table_id, name=name or f"Table {table_id}", seed=secrets.token_hex(16),
                       options=options.to_dict(), max_hands=max_hands, max_games=max_games,
                       stand_in=stand_in, status=PLAYING, created_at=utcnow())
        seats = [SeatRow(table_id=table_id, seat=seat.name, player=p.player, level=p.level,
                         token_hash=p.token_hash, joined=False, replaced=False)
                 for seat, p in players.items()]
        first_deal = _deal_event(row.seed, seq=1, hand=1).row(table_id)
        return row, seats, [first_deal]

    # ------------------------------------------------------------- status

    @property
    def is_over(self) -> bool:
        """The session is over: all its hands played, or the table closed."""
        return self.session.is_over or self.closed is not None

    @property
    def closed_reason(self) -> str | None:
        """Why the table was closed before its session was over (``None``: it was
        not): ``closed after 75 minutes without play to make room``, ``closed by South``."""
        return self.closed

    @property
    def status(self) -> str:
        return OVER if self.is_over else PLAYING

    @property
    def hand_number(self) -> int:
        """The number of the hand in progress, or of the last hand once the session is over."""
        return len(self.hands)

    @property
    def actor(self) -> Seat | None:
        """The seat that decides the next action, ``None`` when the session is over."""
        return None if self.state is None or self.is_over else self.state.actor

    def seat_for_token_hash(self, digest: str) -> Seat | None:
        """The seat whose token has this hash (compared in constant time)."""
        found = None
        for seat, player in self.players.items():
            if player.token_hash and secrets.compare_digest(player.token_hash, digest):
                found = seat
        return found

    # ------------------------------------------------------------ actions

    def act(self, seat: Seat, kind: str, action: str, explanation: str | None = None,
            stand_in: bool = False) -> list[Event]:
        """Apply ``seat``'s call or card through the engine and return the new
        events to store: the action, and the next deal when it ended a hand.
        ``stand_in``: a stand-in bot made it for the seat's person (the event
        says so, for :meth:`stood_in`).

        Raises (changing nothing) when the engine refuses the action.
        """
        self.check_open()
        assert self.state is not None
        hand = self.state.to_play if kind == "play" else None     # (the dummy's, on its turn)
        text = self._apply(kind, action, seat)
        detail: dict[str, Any] = {"explanation": explanation} if explanation else {}
        if stand_in:
            detail["stand_in"] = True
            if hand is not None and hand is not seat:   # a declarer's stand-in played the dummy's card
                detail["from"] = hand.name
        row = Event(self.seq + 1, kind, self.hand_number, seat.name, text, detail or None, utcnow())
        self._record(row, explanation)
        rows = [row]
        if self.state.is_over:
            self.session.add(self.state)
            if not self.is_over:
                deal = _deal_event(self.seed, seq=self.seq + 1, hand=self.hand_number + 1)
                self._replay(deal)
                rows.append(deal)
        return rows

    def take_back(self, seat: Seat) -> list[Event]:
        """Take back ``seat``'s last call or card of the hand in progress (a card
        of the dummy's it played as declarer included) and everything made after
        it: the ``undo`` event to store, which names what was taken back. The
        events taken back stay in the log; the hand goes on as if they had not
        been made. Raises ``no_undo`` (changing nothing) when ``seat`` has made
        nothing this hand."""
        self.check_open()
        assert self.state is not None
        taken = sum(row.kind == "undo" and row.seat == seat.name for row in self.hands[-1].events)
        if taken >= MAX_TAKE_BACKS:
            raise TableError("no_undo", f"{count_text(taken, 'take-back')} in this hand, the most a hand "
                                        "allows: play on")
        undone = self.state.take_back(seat)
        if not undone:
            raise TableError("no_undo", "nothing of yours to take back in this hand (a hand "
                                        "that is over stays as it was played)")
        self._forget_explanations(undone)
        row = Event(self.seq + 1, "undo", self.hand_number, seat.name,
                    detail={"taken_back": [_told(event) for event in undone]}, created_at=utcnow())
        self._record(row, None)
        return [row]

    def close(self, minutes: int) -> list[Event]:
        """Close the table before its session is over, idle for ``minutes``: the
        ``close`` event to store. Nothing more can be called or played; what was
        played stays."""
        return self._close(None, {"reason": "idle", "minutes": minutes})

    def close_by(self, seat: Seat) -> list[Event]:
        """Close the table before its session is over at the word of ``seat``'s
        person (the manager checks that they may): the ``close`` event to store."""
        return self._close(seat, {"reason": "person"})

    def _close(self, seat: Seat | None, detail: dict[str, Any]) -> list[Event]:
        self.check_open(closing=True)
        row = Event(self.seq + 1, "close", self.hand_number, None if seat is None else seat.name,
                    detail=detail, created_at=utcnow())
        self._replay(row)
        return [row]

    def check_open(self, closing: bool = False) -> None:
        """Refuse (``table_over``) an action, or with ``closing`` a close, at a table
        closed or whose session is over, saying which."""
        if self.closed_reason is not None:
            raise TableError("table_over", f"this table was {self.closed_reason}: "
                             + ("it is closed already" if closing else "nothing more is played here"))
        if self.is_over:
            raise TableError("table_over", "the session is over: "
                             + ("there is nothing left to close" if closing else "nothing more is played here"))

    def without(self, rows: Sequence[Event]) -> "Table":
        """This table rebuilt from its own log less ``rows``, the newest events
        (those of an action that could not be stored), with nothing read from
        the database: as it was before that action."""
        dropped = {row.seq for row in rows}
        events = [e for log in self.hands for e in log.events if e.seq not in dropped]
        seats = [SeatRow(table_id=self.id, seat=seat.name, player=p.player, level=p.level,
                         token_hash=p.token_hash, joined=p.joined, replaced=p.replaced,
                         replaced_seq=p.replaced_seq, left_at=p.left_at)
                 for seat, p in self.players.items()]
        table = Table(self.row, seats, events)
        for old, new in zip(self.hands, table.hands):
            new.dd, new.dd_status, new.review_seq = old.dd, old.dd_status, old.review_seq
            new.replayed = old.replayed
        return table

    def _apply(self, kind: str, action: str, seat: Seat | None) -> str:
        # The engine checks turn, phase and legality; the canonical text is what is stored.
        assert self.state is not None
        if kind == "call":
            return self.state.call(action, seat).call.text
        return self.state.play(action, seat).card.code

    def _replay(self, row: Event) -> None:
        if row.kind == "close":
            # a close's row says why: idle for so many minutes, or its person's word
            assert row.detail is not None
            if row.detail["reason"] == "person":
                assert row.seat is not None
                self.closed = f"closed by {Seat[row.seat].full_name}"
            else:
                self.closed = f"closed after {minutes_text(int(row.detail['minutes']))} without play to make room"
            self._record(row, None)
            return
        if row.kind == "undo":
            assert self.state is not None
            self._forget_explanations(_advance(self.state, row))
            self._record(row, None)
            return
        if row.kind == "deal":
            assert row.detail is not None   # a deal's row holds its hands
            deal = Deal.from_hands(row.detail["hands"], row.detail["undealt"])
            self.state = self.session.new_hand(deal)
            self.hands.append(HandLog())
            self._record(row, None)
            return
        # a call's or a card's row names its action and seat, after a deal's
        assert row.action is not None and row.seat is not None and self.state is not None
        self._apply(row.kind, row.action, Seat[row.seat])
        self._record(row, row.explanation)
        if self.state.is_over:
            self.session.add(self.state)

    def _forget_explanations(self, undone: Sequence[CallMade | CardPlayed]) -> None:
        calls = sum(isinstance(event, CallMade) for event in undone)
        if calls:
            del self.hands[-1].explanations[-calls:]

    def _record(self, row: Event, explanation: str | None) -> None:
        log = self.hands[-1]
        log.events.append(row)
        if row.kind == "call":
            log.explanations.append(explanation)
        self.seq = row.seq
        if row.created_at is not None:
            self.last_event_at = as_utc(row.created_at)

    # ------------------------------------------------------------ reviews

    def is_finished(self, hand: int) -> bool:
        return 1 <= hand <= len(self.session.hands)

    def finished_state(self, hand: int) -> HandState:
        """The finished hand number ``hand`` (1-based)."""
        if not self.is_finished(hand):
            raise TableError("no_hand", f"hand {hand} is not over"
                             if 1 <= hand <= self.hand_number else f"there is no hand {hand}")
        return self.session.hands[hand - 1]

    def keep_analyses(self, other: "Table") -> None:
        """Take ``other``'s double-dummy values of the same hands where this
        table has none yet (a table rebuilt from the database while a value was
        known only in memory, its save having failed)."""
        for mine, theirs in zip(self.hands, other.hands):
            if mine.dd_status == "pending" and theirs.dd_status != "pending" \
                    and [(e.seq, e.action) for e in mine.events] == [(e.seq, e.action) for e in theirs.events]:
                mine.dd, mine.dd_status, mine.review_seq = theirs.dd, theirs.dd_status, theirs.review_seq

    def set_analysis(self, hand: int, values: DDValues | None, announced: bool = False) -> None:
        """Record a finished hand's double-dummy values (``None``: there will be none);
        ``announced``: they came after its hand_over, and its ``review`` message is sent now."""
        if not self.is_finished(hand):
            return      # (a stored analysis of a hand this log does not finish)
        log = self.hands[hand - 1]
        log.dd = values
        log.dd_status = "unavailable" if values is None else "ready"
        if announced:
            log.review_seq = self.seq

    def review(self, hand: int) -> dict[str, Any]:
        """The review of finished hand ``hand``, with its double-dummy values when known."""
        state = self.finished_state(hand)   # refuses a hand not over, or none (no_hand)
        log = self.hands[hand - 1]
        return review(state, hand, log.explanations, log.dd, log.dd_status)

    def last_review(self) -> dict[str, Any] | None:
        return self.review(len(self.session.hands)) if self.session.hands else None

    def review_message(self, hand: int) -> dict[str, Any]:
        """The ``review`` message of finished hand ``hand``, sent when its values are known."""
        return {"v": PROTOCOL_VERSION, "type": "review", "hand": hand, "review": self.review(hand)}

    # ------------------------------------------------------------ messages

    def event_message(self, row: Event, state: HandState, role: Role) -> dict[str, Any]:
        """The message announcing ``row`` to ``role``, with its view of ``state`` after it."""
        message: dict[str, Any] = {"v": PROTOCOL_VERSION, "type": row.kind, "seq": row.seq,
                                   "hand": row.hand}
        if row.kind == "deal":
            message["dealer"] = state.dealer.name
        elif row.kind == "undo":
            assert row.detail is not None
            message.update(seat=row.seat, taken_back=row.detail["taken_back"])
        elif row.kind == "call":
            message.update(seat=row.seat, call=row.action, explanation=row.explanation)
        else:
            message.update(seat=state.plays[-1].seat.name, by=row.seat, card=row.action)
        message.update(view=view(state, role), seen=copies_seen(state))
        if row.kind != "deal" and state.is_over:
            message["hand_over"] = {"score": state.score().to_dict(),
                                    "scoresheet": self.session.scoresheet(),
                                    "review": self.review(row.hand)}
        return message

    def live_messages(self, rows: Sequence[Event], role: Role) -> list[dict[str, Any]]:
        """The messages for events just applied by :meth:`act` (a hand's last
        event and the next deal carry different hands' views). Several actions of
        one hand at once (a claim played out) are each told with the view after
        it, the hand replayed to it, as :meth:`missed_messages` does."""
        messages = []
        for hand in dict.fromkeys(row.hand for row in rows):
            mine = [row for row in rows if row.hand == hand]
            state = self._state_of(hand)
            if sum(row.kind != "deal" for row in mine) <= 1:
                messages += [self.event_message(row, state, role) for row in mine]
                continue
            replay = HandState(state.deal, state.dealer, self.options)
            for row in self.hands[hand - 1].events:
                if row.seq > mine[-1].seq:
                    break
                _advance(replay, row)
                if row.seq >= mine[0].seq:
                    messages.append(self.event_message(row, replay, role))
        return messages

    def _state_of(self, hand: int) -> HandState:
        assert self.state is not None
        return self.state if hand == self.hand_number else self.finished_state(hand)

    def stood_in(self, seat: Seat) -> list[dict[str, Any]]:
        """What the stand-in playing for ``seat``'s person has done since it took
        the seat: its calls and cards, each with its hand, in order (``[]`` when
        no stand-in plays for them), a card it played from the dummy with the
        dummy's seat (``from``). Read off the log, so a restart loses none."""
        player = self.players[seat]
        if not player.replaced:
            return []
        # (a seat stood in for since before the log marked a stand-in's actions has
        # no seq stored: every marked action of the seat is since then)
        since = player.replaced_seq or 0
        return [{"hand": e.hand, "kind": e.kind, "action": e.action}
                | ({"from": e.detail["from"]} if "from" in e.detail else {})
                for log in self.hands for e in log.events
                if e.seq > since and e.seat == seat.name and e.detail and e.detail.get("stand_in")]

    def missed_messages(self, since: int, role: Role, reviews: bool = True) -> list[dict[str, Any]] | None:
        """The events after ``since`` for ``role``, replayed through the engine,
        or ``None`` when they reach back before the current hand or are more than
        :data:`~.limits.MAX_CATCH_UP_EVENTS` (send a snapshot: it costs less).

        With ``reviews`` (a reconnection), a client that saw the last finished
        hand end (its review then ``pending``) may have been away when the
        ``review`` message with its values (or saying there are none) was sent:
        when it may not have seen that message, it comes again, last. A client
        that processed a later event had it; a ``sync`` on a connection (no
        ``reviews``) had it live or in the catch-up that seated it."""
        events = self.hands[-1].events
        if not events[0].seq - 1 <= since <= self.seq or self.seq - since > MAX_CATCH_UP_EVENTS \
                or self.closed is not None:
            return None     # (a closed table: the snapshot says so, and why)
        finished = len(self.session.hands)
        announced = self.hands[finished - 1].review_seq if finished else None
        again = reviews and announced is not None and since <= announced
        assert self.state is not None
        state = HandState(self.state.deal, self.state.dealer, self.options)
        messages = []
        for row in events:
            _advance(state, row)
            if row.seq > since:
                messages.append(self.event_message(row, state, role))
        return messages + [self.review_message(finished)] if again else messages

    def snapshot(self, role: Role, table_info: dict[str, Any]) -> dict[str, Any]:
        """Everything ``role`` needs to draw the table from nothing."""
        assert self.state is not None
        shown = view(self.state, role)
        if self.closed is not None:
            shown["legal"] = []      # the hand stands where it was closed: nothing to choose
        return {"v": PROTOCOL_VERSION, "type": "snapshot", "seq": self.seq, "table": table_info,
                "role": "spectator" if role is None else "seat",
                "seat": None if role is None else role.name, "hand": self.hand_number,
                "view": shown, "seen": copies_seen(self.state),
                "explanations": list(self.hands[-1].explanations),
                "scoresheet": self.session.scoresheet(), "last_review": self.last_review()}

    def info(self) -> dict[str, Any]:
        """The table's public description, without presence (the manager adds it)."""
        # (a table played to games has its most hands too, MAX_LENGTH: its length is the games)
        length = {"games": self.session.max_games} if self.session.max_games is not None \
            else {"hands": self.session.max_hands}
        return {"id": self.id, "name": self.name, "created": self.created.isoformat(),
                "options": self.options.to_dict(), "options_changed": self.options.changes(),
                "length": length, "status": self.status,
                "hand": self.hand_number, "hands_played": len(self.session.hands),
                "seq": self.seq, "stand_in": self.stand_in_level, "closed": self.closed_reason}


def minutes_text(minutes: int) -> str:
    """``1 minute``, ``1,440 minutes``."""
    return count_text(minutes, "minute")


def as_utc(time: datetime) -> datetime:
    """A stored time in UTC: SQLite hands back naive datetimes, PostgreSQL times
    in its session's zone; every stored time is UTC, and is shown in UTC."""
    return time.astimezone(timezone.utc) if time.tzinfo else time.replace(tzinfo=timezone.utc)


def _told(event: CallMade | CardPlayed) -> dict[str, str]:
    """A call or card as an ``undo`` event names it: ``{"seat": "S", "call": "1P"}``,
    ``{"seat": "N", "card": "9R"}`` (the seat whose call or card it was)."""
    if isinstance(event, CallMade):
        return {"seat": event.seat.name, "call": event.call.text}
    return {"seat": event.seat.name, "card": event.card.code}


def _advance(state: HandState, row: Event) -> list[CallMade | CardPlayed]:
    """Bring a replayed hand past ``row``, one of its events after its deal: a
    call or card made, or an ``undo``'s actions taken back (returned, checked
    against what the row names)."""
    if row.kind == "deal":
        return []
    if row.kind == "undo":
        assert row.detail is not None
        named = row.detail["taken_back"]
        undone = [state.undo() for _ in named][::-1]
        assert [_told(event) for event in undone] == named, (row.seq, named)
        return undone
    assert row.action is not None
    state.apply(row.action)
    return []


def _deal_event(seed: str, *, seq: int, hand: int) -> Event:
    # Board numbers are hand numbers; the dealt cards are stored, not just the seed.
    return Event(seq, "deal", hand, detail=Deal.from_seed(seed, hand).to_dict(), created_at=utcnow())


