"""One hand of Flower Bridge as a state machine: auction → play → finished.

:class:`HandState` is the single place where legality is decided. Every
action comes as a triple, as in PokerKit:

* ``verify_call(call)`` / ``verify_play(card)`` raise a
  :class:`~flowerbridge.errors.FlowerBridgeError` saying why not;
* ``can_call(call)`` / ``can_play(card)`` answer yes or no;
* ``call(call)`` / ``play(card)`` apply the action and return a frozen event.

``legal_calls()``, ``legal_cards()`` and ``legal_actions()`` list what is
allowed; ``undo()`` takes back the last action, all the way to the deal.
An illegal action raises and leaves the state exactly as it was.

>>> from flowerbridge import HandState, Deal, Seat
>>> h = HandState(Deal.from_seed(7), dealer=Seat.N)
>>> for c in ["1A", "Pass", "Pass", "Pass"]:
...     _ = h.call(c)
>>> str(h.contract), h.turn
('1A by N', <Seat.E: 1>)
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple, Sequence, Union

from .calls import BIDS, PASS, Call, parse_call
from .cards import Card, Suit, parse_card
from .contract import Contract
from .dealing import Deal
from .errors import CallSyntaxError, CardCodeError, DealError, IllegalCallError, IllegalPlayError, PhaseError, quoted
from .options import FIRST_NAMED, RuleOptions, as_options
from .seats import SEATS, Seat, SeatLike, Side, SideLike

if TYPE_CHECKING:  # pragma: no cover
    from .observation import Observation
    from .scoring import HandScore


class Phase(StrEnum):
    """Where a hand stands. Its members are strings too, their values
    (``Phase.PLAY == "play"``), as an observation's ``phase`` is."""

    AUCTION = "auction"
    PLAY = "play"
    FINISHED = "finished"
    PASSED_OUT = "passed out"

    @property
    def is_over(self) -> bool:
        return self is Phase.FINISHED or self is Phase.PASSED_OUT


class CallMade(NamedTuple):
    """A call in the auction; ``number`` is 1-based."""

    number: int
    seat: Seat
    call: Call


class CardPlayed(NamedTuple):
    """A card played; ``number`` is 1-based over the whole hand. ``seat`` is
    the hand the card came from (the dummy's cards are chosen by declarer)."""

    number: int
    seat: Seat
    card: Card
    trick: int


Event = Union[CallMade, CardPlayed]
Action = Union[Call, Card]


class Trick(NamedTuple):
    """A completed trick: 1-based number, leader, the four plays in order, winner."""

    number: int
    leader: Seat
    plays: tuple[tuple[Seat, Card], ...]
    winner: Seat

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(card for _, card in self.plays)


def beats(card: Card, winning: Card, trump: Suit | None) -> bool:
    """Whether ``card`` takes the trick from ``winning`` (Chapter 9, RULINGS R12).

    A card wins only by *outranking* the card currently winning, so an
    identical card never beats its twin (Chapter 5).
    """
    if card.suit is winning.suit:
        return card.rank > winning.rank
    return card.suit is trump


def trick_winner(plays: Sequence[Card], trump: Suit | None) -> int:
    """Index in ``plays`` (cards in the order played) of the card that wins."""
    best = 0
    for i in range(1, len(plays)):
        if beats(plays[i], plays[best], trump):
            best = i
    return best


class HandState:
    """One hand: the deal, the auction and the play, with undo to the deal."""

    __slots__ = ("_deal", "_dealer", "_options", "_phase", "_contract", "_history", "_calls",
                 "_holdings", "_turn", "_last_bid", "_last_bidder", "_passes",
                 "_trick", "_leader", "_win_i", "_trump", "_tricks", "_won", "_plays")

    def __init__(self, deal: Deal, dealer: SeatLike = Seat.N,
                 options: RuleOptions | None = None) -> None:
        if not isinstance(deal, Deal):     # (None, or a record's dict, failed inside with AttributeError)
            raise DealError(f"deal must be a Deal, not {type(deal).__name__} (Deal.from_seed deals one, "
                            "Deal.from_hands makes one of given hands)")
        self._deal = deal
        self._dealer = Seat(dealer)
        self._options = as_options(options)
        self._phase = Phase.AUCTION
        self._contract: Contract | None = None
        self._history: list[Event] = []
        self._calls: list[CallMade] = []
        self._holdings: list[list[Card]] = [list(h) for h in deal.hands]
        self._turn: Seat = self.dealer
        self._last_bid: Call | None = None
        self._last_bidder: Seat | None = None
        self._passes = 0
        self._trick: list[tuple[Seat, Card]] = []
        self._leader: Seat | None = None
        self._win_i = 0
        self._trump: Suit | None = None
        self._tricks: list[Trick] = []
        self._won = [0, 0]
        self._plays: list[CardPlayed] = []

    # ------------------------------------------------------------------ views

    # (read-only: the deal, the dealer and the options a hand is played under, and where the
    # rules have taken it, change only through call, play and undo)
    @property
    def deal(self) -> Deal:
        """The cards as dealt."""
        return self._deal

    @property
    def dealer(self) -> Seat:
        """The seat that calls first."""
        return self._dealer

    @property
    def options(self) -> RuleOptions:
        """The rule options the hand is played and scored under (RULINGS R9, R15)."""
        return self._options

    @property
    def phase(self) -> Phase:
        """Auction, play, finished or passed out."""
        return self._phase

    @property
    def contract(self) -> Contract | None:
        """The contract once the auction has ended with a bid; None before, and when passed out."""
        return self._contract

    # (the lists the engine keeps are its own: these give their entries as they are now,
    # a tuple that no caller can append to or take from behind the rules' back)
    @property
    def history(self) -> tuple[Event, ...]:
        """Every call and card so far, in order (:meth:`undo` takes back the last)."""
        return tuple(self._history)

    @property
    def calls(self) -> tuple[CallMade, ...]:
        """The auction so far."""
        return tuple(self._calls)

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The tricks finished so far."""
        return tuple(self._tricks)

    @property
    def turn(self) -> Seat | None:
        """The seat to call, or whose hand the next card comes from; ``None`` when over."""
        return None if self.phase.is_over else self._turn

    @property
    def actor(self) -> Seat | None:
        """Who decides the next action: declarer on the dummy's turn (Chapter 8)."""
        if self.phase.is_over:
            return None
        contract = self.contract
        if self.phase is Phase.PLAY and contract is not None and self._turn is contract.dummy:
            return contract.declarer
        return self._turn

    @property
    def to_play(self) -> Seat | None:
        """The hand the next card comes from, during the play; else ``None``."""
        return self._turn if self.phase is Phase.PLAY else None

    @property
    def plays(self) -> tuple[CardPlayed, ...]:
        return tuple(self._plays)

    @property
    def current_trick(self) -> tuple[tuple[Seat, Card], ...]:
        """The plays of the unfinished trick, in order."""
        return tuple(self._trick)

    @property
    def leader(self) -> Seat | None:
        """The seat that led (or leads) the current trick."""
        return self._leader

    @property
    def tricks_won(self) -> tuple[int, int]:
        """Tricks won so far, indexed by :class:`Side` (NS, EW)."""
        return (self._won[0], self._won[1])

    @property
    def dummy_visible(self) -> bool:
        """The dummy is faced once the opening lead is made (Chapter 8)."""
        return bool(self._plays)

    def remaining(self, seat: SeatLike) -> tuple[Card, ...]:
        """The cards still in ``seat``'s hand, highest first."""
        return tuple(self._holdings[Seat(seat)])

    def captured(self, side: SideLike) -> list[Card]:
        """Every card in the tricks ``side`` has won (Chapter 13)."""
        side = Side(side)
        return [card for t in self._tricks if t.winner & 1 == side for _, card in t.plays]

    # --------------------------------------------------------------- auction

    def legal_calls(self) -> list[Call]:
        """Pass and every bid that outranks the last bid, while the auction is open."""
        if self.phase is not Phase.AUCTION:
            return []
        start = 0 if self._last_bid is None else self._last_bid.order + 1
        return [PASS, *BIDS[start:]]

    def verify_call(self, call: Call | str, seat: SeatLike | None = None) -> Call:
        """Raise unless ``call`` is legal now (by ``seat``, when given); return it parsed."""
        number = len(self._calls) + 1
        where = f"call {number}"
        # An error names who made the call: ``seat`` when given, else the seat whose turn it is
        # (after the auction, the seat that would have called next, clockwise from the last call).
        caller = Seat(seat) if seat is not None else (
            self._turn if self.phase is Phase.AUCTION else self._calls[-1].seat.lho)
        try:
            parsed = parse_call(call)
        except CallSyntaxError as exc:
            raise CallSyntaxError(exc.detail, position=where, seat=caller) from None
        if self.phase is not Phase.AUCTION:
            raise PhaseError(f"{parsed} comes after the auction has ended", rule="R8",
                             position=where, seat=caller)
        if seat is not None and Seat(seat) is not self._turn:
            raise IllegalCallError(f"{parsed} out of turn: it is {self._turn}'s turn to call",
                                   rule="Ch. 7", position=where, seat=Seat(seat))
        if parsed.is_bid and self._last_bid is not None and parsed.order <= self._last_bid.order:
            raise IllegalCallError(f"insufficient bid {parsed}: it must outrank {self._last_bid}",
                                   rule="R7", position=where, seat=self._turn)
        return parsed

    def can_call(self, call: Call | str, seat: SeatLike | None = None) -> bool:
        try:
            self.verify_call(call, seat)
        except (IllegalCallError, PhaseError, CallSyntaxError):
            return False
        return True

    def call(self, call: Call | str, seat: SeatLike | None = None) -> CallMade:
        """Make a call for the seat whose turn it is; returns the event."""
        parsed = self.verify_call(call, seat)
        event = CallMade(len(self._calls) + 1, self._turn, parsed)
        self._calls.append(event)
        self._history.append(event)
        self._after_call(event)
        return event

    def _after_call(self, event: CallMade) -> None:
        if event.call.is_bid:
            self._last_bid = event.call
            self._last_bidder = event.seat
            self._passes = 0
        else:
            self._passes += 1
        self._turn = event.seat.lho
        if self._last_bid is None:
            if self._passes == 4:
                self._phase = Phase.PASSED_OUT
        elif self._passes == 3:
            self._begin_play()

    def _declarer(self) -> Seat:
        assert self._last_bid is not None and self._last_bidder is not None
        if self.options.declarer == FIRST_NAMED:
            side = self._last_bidder.side
            for ev in self._calls:
                if ev.call.denomination is self._last_bid.denomination and ev.seat.side is side:
                    return ev.seat
        return self._last_bidder

    def _begin_play(self) -> None:
        bid = self._last_bid
        assert bid is not None and bid.denomination is not None
        self._contract = Contract(bid.level, bid.denomination, self._declarer())
        self._trump = bid.denomination.trump
        self._phase = Phase.PLAY
        self._leader = self._turn = self._contract.opening_leader

    # ------------------------------------------------------------------ play

    def legal_cards(self) -> list[Card]:
        """Distinct cards the hand to play may play: the suit led if it holds any (Ch. 9)."""
        if self.phase is not Phase.PLAY:
            return []
        hand = self._holdings[self._turn]
        if self._trick:
            led = self._trick[0][1].suit
            follow = [c for c in hand if c.suit is led]
            if follow:
                hand = follow
        return list(dict.fromkeys(hand))

    def verify_play(self, card: Card | str, seat: SeatLike | None = None) -> Card:
        """Raise unless ``card`` may be played now; ``seat``, when given, is who
        decides (declarer for the dummy). Returns the card parsed."""
        number = len(self._plays) + 1
        where = f"play {number}"
        turn = self._turn
        # who an error names: the hand whose card it is, or a sender out of turn
        player = turn if seat is None or Seat(seat) is self.actor else Seat(seat)
        read: Card | None = None
        try:
            read = card if type(card) is Card else parse_card(card)
        except CardCodeError as exc:
            if not self.phase.is_over or not isinstance(card, str):
                raise CardCodeError(exc.detail, position=where, seat=player) from None
            # (in a hand that is over no card is played: said so first, not what the code lacks)
        shown = read.code if read is not None else quoted(str(card))
        if self.phase is not Phase.PLAY:
            if self.phase is Phase.AUCTION:
                raise PhaseError(f"{shown} played before the auction has ended", rule="Ch. 8",
                                 position=where, seat=player)
            if self.phase is Phase.PASSED_OUT:
                raise PhaseError(f"{shown} played in a passed-out hand", rule="R8",
                                 position=where, seat=player)
            raise PhaseError(f"{shown} played after the hand is over", rule="Ch. 9",
                             position=where, seat=player)
        assert read is not None
        parsed = read
        if seat is not None:
            actor = self.actor
            if Seat(seat) is not actor:
                raise IllegalPlayError(f"{parsed.code} out of turn: {actor} plays the next card"
                                       + (f" (from dummy, {turn})" if actor is not turn else ""),
                                       rule="Ch. 8", position=where, seat=Seat(seat))
        hand = self._holdings[turn]
        if parsed not in hand:
            # (declarer's card on dummy's turn, or dummy's on declarer's: said so, not only
            # "not in S's hand")
            whose = ""
            contract = self.contract
            if contract is not None and turn in (contract.declarer, contract.declarer.partner):
                declarer, dummy = contract.declarer, contract.declarer.partner
                if turn is dummy and parsed in self._holdings[declarer]:
                    whose = f" (dummy's turn: {parsed.code} is declarer {declarer}'s own card)"
                elif turn is declarer and parsed in self._holdings[dummy]:
                    whose = f" (declarer's own turn: {parsed.code} is in dummy {dummy}'s hand)"
            if not whose:   # (a card given twice said only that it was not there)
                tricks = [p.trick for p in self._plays if p.seat is turn and p.card is parsed]
                if tricks:
                    whose = f" (played at trick{'s' if len(tricks) > 1 else ''} {' and '.join(map(str, tricks))})"
            raise IllegalPlayError(f"{parsed.code} is not in {turn}'s hand{whose}", rule="Ch. 9",
                                   position=where, seat=turn)
        if self._trick:
            led = self._trick[0][1].suit
            if parsed.suit is not led:
                follow = [c.code for c in hand if c.suit is led]
                if follow:
                    raise IllegalPlayError(f"must follow {led.english}, holds {' '.join(follow)}",
                                           rule="R11", position=where, seat=turn)
        return parsed

    def can_play(self, card: Card | str, seat: SeatLike | None = None) -> bool:
        try:
            self.verify_play(card, seat)
        except (IllegalPlayError, PhaseError, CardCodeError):
            return False
        return True

    def play(self, card: Card | str, seat: SeatLike | None = None) -> CardPlayed:
        """Play ``card`` from the hand whose turn it is; returns the event."""
        turn = self._turn
        trick = self._trick
        hand = self._holdings[turn]
        # Fast path for the common case; verify_play explains any refusal.
        if type(card) is not Card or seat is not None or self.phase is not _PLAY or card not in hand:
            card = self.verify_play(card, seat)
        elif trick:
            led = trick[0][1].suit
            if card.suit is not led and any(c.suit is led for c in hand):
                self.verify_play(card, seat)
        plays = self._plays
        event = _new_event(CardPlayed, (len(plays) + 1, turn, card, len(self._tricks) + 1))
        hand.remove(card)
        plays.append(event)
        self._history.append(event)
        trick.append((turn, card))
        n = len(trick)
        if n > 1:
            # R12 inlined (see beats()): only a strictly higher card of the
            # winning suit, or the first trump over a non-trump, takes over.
            best = trick[self._win_i][1]
            if (card.rank > best.rank) if card.suit is best.suit else (card.suit is self._trump):
                self._win_i = n - 1
            if n == 4:
                winner = trick[self._win_i][0]
                self._tricks.append(_new_event(Trick, (len(self._tricks) + 1, self._leader,
                                                      tuple(trick), winner)))
                self._won[winner & 1] += 1
                self._trick = []
                self._win_i = 0
                self._leader = self._turn = winner
                if len(self._tricks) == 13:
                    self._phase = Phase.FINISHED
                return event
        self._turn = _LHO[turn]
        return event

    # --------------------------------------------------------------- generic

    def legal_actions(self) -> list[Action]:
        """Legal calls during the auction, legal cards during the play."""
        if self.phase is Phase.AUCTION:
            return self.legal_calls()  # type: ignore[return-value]
        return self.legal_cards()  # type: ignore[return-value]

    def apply(self, action: Action | str, seat: SeatLike | None = None) -> Event:
        """Make a call or play a card, whichever the phase calls for (in a hand that is
        over, whichever the action reads as, so that its error names the call or card)."""
        if self.phase is Phase.AUCTION or isinstance(action, Call) or (
                self.phase.is_over and isinstance(action, str) and _reads_as_call(action)):
            return self.call(action, seat)  # type: ignore[arg-type]
        return self.play(action, seat)

    def undo(self) -> Event:
        """Take back the last call or card, restoring the state before it."""
        if not self._history:
            raise PhaseError("nothing to undo: the hand is at the deal")
        event = self._history.pop()
        if isinstance(event, CallMade):
            self._calls.pop()
            self._replay_auction()
            return event
        self._plays.pop()
        if not self._trick:
            last = self._tricks.pop()
            self._won[last.winner & 1] -= 1
            self._trick = list(last.plays)
            self._leader = last.leader
            self._phase = Phase.PLAY
        self._trick.pop()
        self._holdings[event.seat].append(event.card)
        self._holdings[event.seat].sort(key=_display_order)
        self._win_i = trick_winner([c for _, c in self._trick], self._trump) if self._trick else 0
        self._turn = event.seat
        if not self._plays and not self._tricks:
            self._leader = event.seat
        return event

    def take_back(self, seat: SeatLike) -> list[Event]:
        """Take back ``seat``'s last call or card of the hand and everything made
        after it, restoring the state before them: the last that ``seat`` chose (a
        card of the dummy's is its declarer's choice, not the dummy's, so the dummy's
        last is its last call); the events taken back, in the order they were made
        (none when ``seat`` has made nothing this hand)."""
        seat = Seat(seat)
        dummy = self.contract.dummy if self.contract is not None else None
        declarer = self.contract.declarer if self.contract is not None else None

        def made_by_seat(event: Event) -> bool:
            if isinstance(event, CardPlayed) and event.seat is dummy:
                return declarer is seat
            return event.seat is seat

        last = next((i for i in range(len(self._history) - 1, -1, -1) if made_by_seat(self._history[i])), None)
        if last is None:
            return []
        return [self.undo() for _ in range(len(self._history) - last)][::-1]

    def _replay_auction(self) -> None:
        calls = self._calls
        self._calls = []
        self._phase = Phase.AUCTION
        self._contract = None
        self._trump = None
        self._leader = None
        self._turn = self.dealer
        self._last_bid = self._last_bidder = None
        self._passes = 0
        for ev in calls:
            self._calls.append(ev)
            self._after_call(ev)

    # --------------------------------------------------------------- results

    @property
    def is_over(self) -> bool:
        return self.phase.is_over

    def score(self) -> "HandScore":
        """The itemised score of a finished or passed-out hand (Chapters 11–15)."""
        from .scoring import score_hand
        return score_hand(self)

    def observation(self, seat: SeatLike) -> "Observation":
        """What ``seat`` may know now — the only view bots and clients get."""
        from .observation import observe
        return observe(self, Seat(seat))

    def copy(self) -> "HandState":
        """An independent copy, replayed from the deal."""
        other = HandState(self.deal, self.dealer, self.options)
        for ev in self._history:
            other.apply(ev.call if isinstance(ev, CallMade) else ev.card)
        return other

    def __repr__(self) -> str:
        where = self.phase.value
        if self.contract:
            where += f", {self.contract}, tricks NS {self._won[0]} EW {self._won[1]}"
        return f"<HandState dealer={self.dealer.name} {where}, {len(self._history)} actions>"


_PLAY = Phase.PLAY
_new_event = tuple.__new__  # builds a NamedTuple without its Python-level __new__
_LHO = tuple(s.lho for s in SEATS)


def _display_order(card: Card) -> int:
    return -card.index


def _reads_as_call(text: str) -> bool:
    """Whether ``text`` is a call's (``Pass``, ``3NT``)."""
    try:
        parse_call(text)
    except CallSyntaxError:
        return False
    return True
