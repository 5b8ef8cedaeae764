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
from typing import Any, Callable, Iterable, Mapping

from .dealing import Deal
from .errors import FlowerBridgeError, RecordError, shown
from .options import RuleOptions, as_options
from .render import count_text, fit_lines
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
                "five_bright": {side.name: any(i.side is side and i.label == "Five Bright Bonus"
                                               for i in last_score.items) for side in (Side.NS, Side.EW)},
                "ten_bright": {side.name: any(i.side is side and i.label == "Ten Bright Bonus"
                                              for i in last_score.items) for side in (Side.NS, Side.EW)},
            }
        return {
            "above": [{"hand": n, "side": s.name, "points": p, "label": lab} for n, s, p, lab in self.above],
            "games": [{"number": g.number, "below": [{"hand": n, "side": s.name, "points": p,
                                                      "contract": self._contract_code(n)}
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

    def _contract_code(self, number: int) -> str:
        """The contract of hand ``number`` (1-based), which scored below the line: ``"2A"``."""
        contract = self.scores[number - 1].contract
        assert contract is not None     # (a hand scores below the line only by its contract)
        return contract.code

    def _below_text(self, number: int, points: int, width: int) -> str:
        """An entry below the line, its contract named: ``" 60  2A (hand 3)"``."""
        return f"{points:>{width}}  {self._contract_code(number)} (hand {number})"

    def render(self, width: int | None = None, *, record: bool = True) -> str:
        """The scoresheet as text, laid out like Appendix B: North-South's
        entries beside East-West's, or, where that is wider than ``width``
        characters (a narrow terminal), one side's under the other's. Without
        ``record``, the sheet ends at the totals (no record of the last hand)."""
        rule = "=" * min(49, width or 49)
        # the points right-aligned, so that what they are for starts in one column
        pw = max([1] + [len(str(p)) for _, _, p, _ in self.above]
                 + [len(str(p)) for game in self.games for _, _, p in game.below])
        above = [(s, f"{p:>{pw}}  {lab} (hand {n})") for n, s, p, lab in self.above]
        below = [(s, self._below_text(n, p, pw)) for game in self.games for n, s, p in game.below]
        # North-South's column is as wide as its longest entry, so East-West's stays in line
        w = max([34] + [len(text) for side, text in above + below if side is Side.NS])
        # and East-West's must fit beside it: a longer entry of theirs, wrapped, went on
        # under North-South's column, reading as theirs
        e = max([len("EAST-WEST")] + [len(text) for side, text in above + below if side is Side.EW])
        beside = width is None or 2 * w + 3 <= width and w + 3 + e <= width
        header = f"{'NORTH-SOUTH':<{w}}   EAST-WEST" if beside else None

        def entries(items: list[tuple[Side, str]], total: Callable[[Side], int] | None) -> list[str]:
            totals = (f"—— {total(Side.NS)}", f"—— {total(Side.EW)}") if total else None
            if beside:
                return _columns(items, w) + ([f"{totals[0]:<{w}}   {totals[1]}"] if totals else [])
            if not items and total:    # the session's totals alone: one line
                return [f"—— NORTH-SOUTH {total(Side.NS)}, EAST-WEST {total(Side.EW)}"]
            out = []
            for i, side in enumerate((Side.NS, Side.EW)):
                mine = [text for s, text in items if s is side]
                if mine or totals:
                    out += [side.label, *("  " + text for text in mine)]
                    out += ["  " + totals[i]] if totals else []
            return out

        lines = [rule, "FLOWER BRIDGE".center(len(rule)).rstrip(), rule]
        # rule options other than the defaults, which the entries follow (a penalty of 0
        # leaves a failed contract no entry: the sheet says why)
        changes = self.options.changes()
        if changes:
            lines += [f"Rule options: {'; '.join(changes)}", rule]
        lines += ["ABOVE THE LINE", *([header] if header else [])]
        lines += entries(above, self.above_total)
        lines += [rule, "BELOW THE LINE", *([header] if header else [])]
        for game in self.games:
            if not game.below and game.winner is None and game is self.games[-1] and len(self.games) > 1:
                continue
            lines += entries([(s, self._below_text(n, p, pw)) for n, s, p in game.below], None)
            if game.winner is not None:
                # as wide as the rules of "=" (it ran 2 characters past them, North-South's)
                label = f" game {game.number} to {game.winner.label} "
                left = 20 if beside else 4
                lines.append(f"{'-' * left}{label}{'-' * max(0, len(rule) - left - len(label))}".rstrip())
        # each side's below-the-line total over the session (R19)
        lines += entries([], self.below_total)
        lines += [rule, "GAME WINNER"]
        ns, ew = self.games_won
        lines.append(f"NORTH-SOUTH {ns} game{'s' if ns != 1 else ''}, EAST-WEST {ew} game{'s' if ew != 1 else ''}")
        totals = f"Totals: NORTH-SOUTH {self.total(Side.NS)}, EAST-WEST {self.total(Side.EW)}"
        standing = f"{self.leader.label} ahead" if self.leader is not None else "level"
        if self.is_over:    # its result (R19), as the web client says it, on a line of its own
            # (with the points, as the turn line says it: "won" alone, under a totals line)
            if self.leader is not None:
                won, lost = self.total(self.leader), self.total(self.leader.other)
                lines += [totals, f"The session is over: {self.leader.label} won, {won} points to {lost}"]
            else:
                lines += [totals, f"The session is over: a tie, {self.total(Side.NS)} points each"]
        else:
            lines += [f"{totals} — {standing}"] if beside else [totals, standing]
        last = self.scoresheet()["last_hand"] if record else None
        if last is not None:
            lines += [rule, "HAND RECORD", f"Hand      {last['hand']}",
                      f"Dealer    {Seat[last['dealer']].full_name}",
                      f"Contract  {last['contract'] or 'passed out'}",
                      f"Declarer  {Seat[last['declarer']].full_name if last['declarer'] else '—'}",
                      f"Tricks    NS {last['tricks']['NS']}  EW {last['tricks']['EW']}",
                      rule, f"{'HONORS':<20}{'NS':<10}EW"]
            for b in BRIGHTS:
                boxes = []
                for side in ("NS", "EW"):
                    n = last["honors"][side][b.name]
                    boxes.append(" ".join(("■" if n >= k else "□") + str(k) for k in (1, 2)))
                lines.append(f"{b.name.upper():<20}{boxes[0]:<10}{boxes[1]}")
            lines.append(f"{'HONOR POINTS':<20}{last['honor_points']['NS']:<10}"
                         f"{last['honor_points']['EW']}")
            # (as the browser's caption says it: under the Brights alone, "every honor captured"
            # read to a new player as if Animals and Ribbons scored nothing)
            lines += ["(the boxes are the Brights captured; honor points",
                      " count every honor: Brights, Animals, Ribbons)"]
            lines.append("-" * len(rule))
            bonuses = [(key, f"{label} (+{pts})") for key, label, pts in (
                ("five_bright", "FIVE BRIGHT BONUS", self.options.five_bright_bonus),
                ("ten_bright", "TEN BRIGHT BONUS", self.options.ten_bright_bonus))]
            # the labels padded alike, so that the two rows' marks stand in line
            label_width = max(len(label) for _, label in bonuses)
            for key, label in bonuses:
                marks = "  ".join(f"{side} {'■' if last[key][side] else '□'}" for side in ("NS", "EW"))
                lines.append(f"{label:<{label_width}}  {marks}")
            lines.append("Ten Bright Bonus replaces Five Bright Bonus.")
        lines.append(rule)
        # what is still too long goes on, indented, on the next line
        return fit_lines("\n".join(lines), width)


def _columns(entries: Iterable[tuple[Side, str]], width: int) -> list[str]:
    entries = list(entries)
    ns = [t for s, t in entries if s is Side.NS]
    ew = [t for s, t in entries if s is Side.EW]
    rows = []
    for i in range(max(len(ns), len(ew))):
        left = ns[i] if i < len(ns) else ""
        right = ew[i] if i < len(ew) else ""
        rows.append(f"{left:<{width}}   {right}".rstrip())
    return rows


def _opt_int(data: Mapping, key: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{key} must be a whole number or null")
    return value
