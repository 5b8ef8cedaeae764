"""A session of hands and its scoresheet (Chapter 12, Appendix B, RULINGS R5, R18, R19).

The dealer moves one seat clockwise after every hand, a passed-out hand
included. Contract points accumulate below the line; a side reaching the
game threshold (100) wins the game and a new line is drawn. Above-the-line
points are never reset. A session may end after a number of hands or games.

>>> s = Session(max_hands=4)
>>> s.next_dealer
<Seat.N: 0>
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from .dealing import Deal
from .errors import FlowerBridgeError, RecordError, shown
from .options import RuleOptions, as_options
from .render import count_text
from .records import HandRecord, seat_field, unknown_options
from .scoring import BRIGHTS, HandScore
from .seats import Seat, SeatLike, Side, SideLike
from .state import HandState

SESSION_FORMAT = "flowerbridge-session"


#: keys only a session record has (:meth:`Session.to_dict` writes them), and keys only a
#: hand record has: an object with one of the latter at its top is a hand record
SESSION_KEYS = ("first_dealer", "max_hands", "max_games")
HAND_KEYS = ("dealer", "undealt", "auction", "play")
#: every key of a session record's own; any other at its top is kept in :attr:`Session.extra`
SESSION_RECORD_KEYS = ("format", "options", *SESSION_KEYS, "hands")


def is_session_record(data: Any) -> bool:
    """Whether a JSON value is a session record, not a hand record: it says so
    (``"format": "flowerbridge-session"``, as :meth:`Session.to_dict` writes), or its
    ``hands`` is an array and it carries a session's own keys (``first_dealer``,
    ``max_hands``, ``max_games``) or an entry of ``hands`` that is a hand record (an
    object with a ``dealer`` or ``hands``) — and no hand record's own key (``dealer``,
    ``undealt``, ``auction``, ``play``) at its top.

    A hand record's ``hands`` is an object of seats, and it is a hand record whatever
    other keys it carries (FORMATS: an unknown key is never an error, ``"format"``
    included). One whose ``hands`` is damaged — an array of holdings, or of an object
    of seats — is a hand record all the same, and its error is the hand record's."""
    if not isinstance(data, Mapping):
        return False
    hands = data.get("hands")
    if isinstance(hands, Mapping):
        return False
    if data.get("format") == SESSION_FORMAT:
        return True
    if not isinstance(hands, list) or any(key in data for key in HAND_KEYS):
        return False
    return any(key in data for key in SESSION_KEYS) or any(
        isinstance(hand, Mapping) and ("dealer" in hand or "hands" in hand) for hand in hands)


@dataclass
class GameRecord:
    """One game: the below-the-line entries since the last line, and who won it."""

    number: int
    below: list[tuple[int, Side, int]] = field(default_factory=list)  # (hand number, side, points)
    winner: Side | None = None

    def total(self, side: SideLike) -> int:
        side = Side(side)
        return sum(p for _, s, p in self.below if s is side)


class Session:
    """A series of hands at one table under one set of rule options.

    Its lists (:attr:`hands`, :attr:`scores`, :attr:`games`, :attr:`above`) are the
    session's own, to read: the scoresheet and the record are made from them.
    :meth:`hand_records` gives copies of the hands, to replay or undo at will."""

    def __init__(self, options: RuleOptions | None = None, *, first_dealer: SeatLike = Seat.N,
                 max_hands: int | None = None, max_games: int | None = None) -> None:
        for length, unit in ((max_hands, "hands"), (max_games, "games")):
            # (2.5 hands was taken, and the session's own record then refused by from_dict)
            if length is not None and (isinstance(length, bool) or not isinstance(length, int)):
                raise RecordError(f"a session's length in {unit} is a whole number, not {shown(length)}")
            if length is not None and length < 1:
                raise RecordError(f"a session's length in {unit} must be at least 1")
        self.options = as_options(options)
        self.first_dealer = Seat(first_dealer)
        self.max_hands = max_hands
        self.max_games = max_games
        self.hands: list[HandState] = []
        self.scores: list[HandScore] = []
        self.games: list[GameRecord] = [GameRecord(1)]
        self.above: list[tuple[int, Side, int, str]] = []  # (hand number, side, points, label)
        #: the keys of the session record that the format does not know, as read (FORMATS.md:
        #: kept and written back); each hand's own are in :meth:`hand_records`
        self.extra: dict[str, Any] = {}
        #: the keys of the record's ``options`` that :class:`RuleOptions` does not know, as read
        self.options_extra: dict[str, Any] = {}
        # each hand's (extra, hands_extra, options_extra): see HandRecord
        self._hand_extras: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = []

    # ------------------------------------------------------------- progress

    @property
    def next_dealer(self) -> Seat:
        return self.first_dealer.next(len(self.hands))

    @property
    def games_won(self) -> tuple[int, int]:
        ns = sum(1 for g in self.games if g.winner is Side.NS)
        ew = sum(1 for g in self.games if g.winner is Side.EW)
        return ns, ew

    @property
    def is_over(self) -> bool:
        return self._over_because() is not None

    def _over_because(self) -> str | None:
        """Why the session is over (its length reached), or None."""
        if self.max_hands is not None and len(self.hands) >= self.max_hands:
            return f"it was set to {count_text(self.max_hands, 'hand')}"
        if self.max_games is not None and sum(self.games_won) >= self.max_games:
            return f"it was set to {count_text(self.max_games, 'game')}"
        return None

    def _refuse_when_over(self) -> None:
        why = self._over_because()
        if why is not None:
            raise RecordError(f"hand {len(self.hands) + 1}: the session is over ({why})", rule="R19")

    def new_hand(self, deal: Deal) -> HandState:
        """A fresh hand dealt by the next dealer under the session's options."""
        self._refuse_when_over()
        return HandState(deal, self.next_dealer, self.options)

    def verify_next(self, state: HandState) -> None:
        """Raise RecordError unless ``state``, finished or not, may be the session's next hand:
        dealt by the next dealer (R5), under the session's rule options."""
        if state.dealer is not self.next_dealer:
            raise RecordError(f"dealer must be {self.next_dealer} (the deal rotates clockwise), "
                              f"not {state.dealer}", rule="R5")
        # (the game threshold is the session's alone: it does not change a hand's score;
        # compared without making options, which a stored table's may not pass again)
        if {**state.options.to_dict(), "game_points": None} != {**self.options.to_dict(), "game_points": None}:
            raise RecordError(f"played under other rule options ({state.options.to_dict()}) than the "
                              f"session's ({self.options.to_dict()})")

    def add(self, state: HandState) -> HandScore:
        """Enter a finished or passed-out hand on the scoresheet (a copy of it:
        ``state`` may go on changing without changing the session)."""
        self._refuse_when_over()
        number = len(self.hands) + 1
        try:
            self.verify_next(state)
        except RecordError as exc:
            raise RecordError(f"hand {number}: {exc.detail}", rule=exc.rule) from None
        try:
            score = state.score()
        except FlowerBridgeError as exc:    # an unfinished hand: say which
            raise type(exc)(f"hand {number}: {exc.detail}", rule=exc.rule) from None
        self.hands.append(state.copy())  # the caller's may go on changing
        self._hand_extras.append(({}, {}, {}))
        self.scores.append(score)
        game = self.games[-1]
        for item in score.items:
            if item.below:
                game.below.append((number, item.side, item.points))
            else:
                self.above.append((number, item.side, item.points, item.label))
        for side in (Side.NS, Side.EW):
            if game.total(side) >= self.options.game_points:
                game.winner = side
                self.games.append(GameRecord(game.number + 1))
                break
        return score

    # --------------------------------------------------------------- totals

    def above_total(self, side: SideLike) -> int:
        side = Side(side)
        return sum(p for _, s, p, _ in self.above if s is side)

    def below_total(self, side: SideLike) -> int:
        return sum(g.total(side) for g in self.games)

    def total(self, side: SideLike) -> int:
        return self.above_total(side) + self.below_total(side)

    @property
    def leader(self) -> Side | None:
        """The side ahead on total points (R19), or ``None`` when level."""
        ns, ew = self.total(Side.NS), self.total(Side.EW)
        return None if ns == ew else (Side.NS if ns > ew else Side.EW)

    # ------------------------------------------------------------ records

    def hand_records(self) -> list[HandRecord]:
        """The hands, each a copy (changing it changes nothing here) with the keys its
        record carried besides (read by :meth:`from_dict`; a hand entered by :meth:`add`
        carries none)."""
        return [dataclasses.replace(record, state=record.state.copy()) for record in self._records()]

    def _records(self) -> list[HandRecord]:
        """:meth:`hand_records` of the session's own hands, for reading."""
        return [HandRecord(state, dict(extra), dict(hands_extra), dict(options_extra))
                for state, (extra, hands_extra, options_extra) in zip(self.hands, self._hand_extras)]

    def to_dict(self) -> dict[str, Any]:
        """The session record: the session's own keys, the keys :attr:`extra` kept, and
        its hands, each with the keys it carried besides."""
        own = {
            "format": SESSION_FORMAT,
            "options": {**self.options.to_dict(), **self.options_extra},
            "first_dealer": self.first_dealer.name,
            "max_hands": self.max_hands,
            "max_games": self.max_games,
            "hands": [record.to_dict() for record in self._records()],
        }
        return {**own, **{k: v for k, v in self.extra.items() if k not in own}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Session":
        """Replay a session record hand by hand through the engine. Keys it does not
        know are kept: its own in :attr:`extra`, each hand's in :meth:`hand_records`."""
        if not isinstance(data, Mapping):
            raise RecordError("a session record is a JSON object")
        if data.get("format") not in (None, SESSION_FORMAT):
            # another format's record (or a later version's) read as this one would be
            # written back as this one, its format replaced unsaid
            raise RecordError(f"format {shown(data['format'])} is not a session record's ({SESSION_FORMAT!r})")
        options = RuleOptions.from_dict(data.get("options"))
        hands = data.get("hands")
        if not isinstance(hands, list):
            raise RecordError("a session record needs 'hands', an array of hand records")
        first = data.get("first_dealer")
        if first is None:
            # no first_dealer: the first hand's dealer. A dealer that is not a seat is
            # that hand's error, which its replay below names (hand 1: dealer ...).
            first_dealer = Seat.N
            if hands and isinstance(hands[0], Mapping):
                try:
                    first_dealer = seat_field(hands[0].get("dealer"), "dealer")
                except RecordError:
                    pass
        else:
            first_dealer = seat_field(first, "first_dealer")
        session = cls(options, first_dealer=first_dealer, max_hands=_opt_int(data, "max_hands"),
                      max_games=_opt_int(data, "max_games"))
        for i, hand in enumerate(hands, 1):
            if isinstance(hand, Mapping) and hand.get("options") is None:   # null: absent
                hand = {**hand, "options": options.to_dict()}
            try:
                record = HandRecord.from_dict(hand)
            except FlowerBridgeError as exc:
                raise type(exc)(f"hand {i}: {exc}") from None
            session.add(record.state)  # its errors name the hand
            session._hand_extras[-1] = (record.extra, record.hands_extra, record.options_extra)
        session.extra = {k: v for k, v in data.items() if k not in SESSION_RECORD_KEYS}
        session.options_extra = unknown_options(data.get("options"))
        return session

    # ----------------------------------------------------------- scoresheet

    def scoresheet(self) -> dict[str, Any]:
        """The scoresheet of Appendix B as data a web page can draw."""
        last = self.hands[-1] if self.hands else None
        last_score = self.scores[-1] if self.scores else None
        record = None
        if last is not None and last_score is not None:
            least = {side: min(last_score.honor_copies[side].get(b.code, 0) for b in BRIGHTS)
                     for side in (Side.NS, Side.EW)}
            record = {
                "hand": len(self.hands),
                "dealer": last.dealer.name,
                "contract": last_score.contract.code if last_score.contract else None,
                "declarer": last_score.contract.declarer.name if last_score.contract else None,
                "tricks": {"NS": last_score.tricks[0], "EW": last_score.tricks[1]},
                "honors": {side.name: {b.name: last_score.honor_copies[side].get(b.code, 0)
                                       for b in BRIGHTS} for side in (Side.NS, Side.EW)},
                # every honor captured (Brights, Animals, Ribbons), where the boxes above
                # are the Brights alone (for the bonuses)
                "honor_points": {side.name: last_score.honors(side) for side in (Side.NS, Side.EW)},
                # earned by the copies captured (R17), ticked even where a variant's bonus is 0
                "five_bright": {side.name: least[side] == 1 for side in (Side.NS, Side.EW)},
                "ten_bright": {side.name: least[side] >= 2 for side in (Side.NS, Side.EW)},
            }
        return {
            "above": [{"hand": n, "side": s.name, "points": p, "label": lab} for n, s, p, lab in self.above],
            "games": [{"number": g.number, "below": [{"hand": n, "side": s.name, "points": p,
                                                      "contract": self.contract_code(n)}
                                                     for n, s, p in g.below],
                       "winner": g.winner.name if g.winner is not None else None} for g in self.games],
            "totals": {side.name: {"above": self.above_total(side), "below": self.below_total(side),
                                   "total": self.total(side), "games": self.games_won[side]}
                       for side in (Side.NS, Side.EW)},
            "hands_played": len(self.hands),
            "is_over": self.is_over,
            "leader": self.leader.name if self.leader is not None else None,
            "last_hand": record,
        }

    def contract_code(self, number: int) -> str:
        """The contract of hand ``number`` (1-based): ``"2A"``; a FlowerBridgeError where the
        session has no such hand, or it was passed out."""
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(self.scores):
            held = f"its hands are 1 to {len(self.scores)}" if self.scores else "it has no hand yet"
            raise FlowerBridgeError(f"the session has no hand {number!r}: {held}")
        contract = self.scores[number - 1].contract
        if contract is None:
            raise FlowerBridgeError(f"hand {number} was passed out: it scored nothing below the line")
        return contract.code

    def render(self, width: int | None = None, *, record: bool = True) -> str:
        """The scoresheet as text, laid out like Appendix B
        (:func:`flowerbridge.render.render_scoresheet`)."""
        from .render import render_scoresheet

        return render_scoresheet(self, width, record=record)


def _opt_int(data: Mapping, key: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{key} must be a whole number or null")
    return value
