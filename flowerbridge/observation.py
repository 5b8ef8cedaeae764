"""What one seat may know (Chapters 6 and 8, RULINGS R6 and R10).

An :class:`Observation` holds the seat's own cards, the auction, every card
played and by whom, the dummy once the opening lead is faced, and how many
cards are undealt — never which. After the hand, everything. It is the only
view of a hand that bots and web clients receive.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from .calls import Call, parse_call
from .cards import Card, parse_card
from .contract import Contract
from .dealing import UNDEALT_SIZE
from .errors import FlowerBridgeError, RecordError, json_type
from .options import RuleOptions
from .seats import Seat
from .state import Phase

if TYPE_CHECKING:  # pragma: no cover
    from .state import HandState


@dataclass(frozen=True)
class Observation:
    """A seat's view of a hand; all fields are plain values."""

    seat: Seat
    dealer: Seat
    phase: Phase
    options: RuleOptions
    hand: tuple[Card, ...]
    auction: tuple[tuple[Seat, Call], ...]
    contract: Contract | None
    turn: Seat | None
    actor: Seat | None
    plays: tuple[tuple[Seat, Card], ...]
    tricks: tuple[tuple[Seat, tuple[tuple[Seat, Card], ...], Seat], ...]
    current_trick: tuple[tuple[Seat, Card], ...]
    tricks_won: tuple[int, int]
    dummy: tuple[Card, ...] | None
    legal: tuple[Call | Card, ...]
    undealt_count: int = UNDEALT_SIZE
    all_hands: tuple[tuple[Card, ...], ...] | None = None
    undealt: tuple[Card, ...] | None = None

    @property
    def is_my_turn(self) -> bool:
        return self.actor is self.seat

    @property
    def dummy_seat(self) -> Seat | None:
        return self.contract.dummy if self.contract else None

    @property
    def playing_for(self) -> Seat | None:
        """The hand whose card this seat is to choose (its own or the dummy's)."""
        return self.turn if self.is_my_turn and self.phase == "play" else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form with card codes, as sent to web clients."""
        def plays(ps: Iterable[tuple[Seat, Card]]) -> list[dict[str, str]]:
            return [{"seat": s.name, "card": c.code} for s, c in ps]
        legal = [a.code if isinstance(a, Card) else a.text for a in self.legal]
        out: dict[str, Any] = {
            "seat": self.seat.name,
            "dealer": self.dealer.name,
            "phase": self.phase.value,
            "options": self.options.to_dict(),
            "hand": [c.code for c in self.hand],
            "auction": [{"seat": s.name, "call": c.text} for s, c in self.auction],
            "contract": None if self.contract is None else {
                "bid": self.contract.code, "declarer": self.contract.declarer.name,
                "dummy": self.contract.dummy.name},
            "turn": self.turn.name if self.turn is not None else None,
            "actor": self.actor.name if self.actor is not None else None,
            "plays": plays(self.plays),
            "tricks": [{"leader": lead.name, "plays": plays(ps), "winner": w.name}
                       for lead, ps, w in self.tricks],
            "current_trick": plays(self.current_trick),
            "tricks_won": {"NS": self.tricks_won[0], "EW": self.tricks_won[1]},
            "dummy": None if self.dummy is None else [c.code for c in self.dummy],
            "legal": legal,
            "undealt_count": self.undealt_count,
        }
        if self.all_hands is not None:
            out["all_hands"] = {s.name: [c.code for c in h] for s, h in zip(Seat, self.all_hands)}
            out["undealt"] = [c.code for c in self.undealt or ()]
        return out


    @classmethod
    def from_dict(cls, data: Any) -> "Observation":
        """The observation :meth:`to_dict` gave (the ``view`` of a protocol message):
        how a program holding a seat over the websocket protocol hands its bot what
        a bot is handed here. A value that is not such a view is a
        :class:`~flowerbridge.errors.RecordError` naming the field."""
        if not isinstance(data, dict):
            raise RecordError(f"an observation is a JSON object, not {json_type(data)}")
        field = ""

        def get(name: str) -> Any:
            nonlocal field
            field = name
            if name not in data:
                raise KeyError(name)
            return data[name]

        def seat(text: Any) -> Seat:
            if not isinstance(text, str) or text not in Seat.__members__:
                raise ValueError(f"{text!r} is not a seat (N, E, S or W)")
            return Seat[text]

        def maybe_seat(text: Any) -> Seat | None:
            return None if text is None else seat(text)

        def cards(codes: Any) -> tuple[Card, ...]:
            return tuple(parse_card(code) for code in _listed(codes))

        def plays(items: Any) -> tuple[tuple[Seat, Card], ...]:
            return tuple((seat(item["seat"]), parse_card(item["card"]))
                         for item in map(_object, _listed(items)))

        try:
            phase = Phase(get("phase"))
            contract = get("contract")
            if contract is not None:
                contract = _object(contract)
                bid = parse_call(contract["bid"])
                if bid.level is None or bid.denomination is None:
                    raise ValueError(f"{contract['bid']!r} is not a bid")
                contract = Contract(bid.level, bid.denomination, seat(contract["declarer"]))
            won = _object(get("tricks_won"))
            tricks_won = (_count(won["NS"]), _count(won["EW"]))
            read = parse_call if phase is Phase.AUCTION else parse_card
            observation = cls(
                seat=seat(get("seat")), dealer=seat(get("dealer")), phase=phase,
                options=RuleOptions.from_dict(get("options")),
                hand=cards(get("hand")),
                auction=tuple((seat(item["seat"]), parse_call(item["call"]))
                              for item in map(_object, _listed(get("auction")))),
                contract=contract, turn=maybe_seat(get("turn")), actor=maybe_seat(get("actor")),
                plays=plays(get("plays")),
                tricks=tuple((seat(t["leader"]), plays(t["plays"]), seat(t["winner"]))
                             for t in map(_object, _listed(get("tricks")))),
                current_trick=plays(get("current_trick")), tricks_won=tricks_won,
                dummy=None if get("dummy") is None else cards(data["dummy"]),
                legal=tuple(read(action) for action in _listed(get("legal"))),
                undealt_count=_count(get("undealt_count")))
            if "all_hands" in data:
                field = "all_hands"
                hands = _object(data["all_hands"])
                observation = dataclasses.replace(
                    observation, all_hands=tuple(cards(hands[s.name]) for s in Seat),
                    undealt=cards(get("undealt")))
            return observation
        except KeyError as exc:
            where = f"{field}: " if field and exc.args[0] != field else ""
            raise RecordError(f"observation {where}has no {exc.args[0]!r}") from None
        except (FlowerBridgeError, TypeError, ValueError) as exc:
            raise RecordError(f"observation {field}: {exc}") from None


def _object(value: Any) -> dict:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, not {json_type(value)}")
    return value


def _listed(value: Any) -> list:
    if not isinstance(value, list):
        raise TypeError(f"expected an array, not {json_type(value)}")
    return value


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{value!r} is not a count")
    return value


def observe(state: "HandState", seat: Seat) -> Observation:
    """Build ``seat``'s observation of ``state``."""
    over = state.phase.is_over
    contract = state.contract
    dummy = None
    if contract is not None and state.dummy_visible:
        dummy = state.remaining(contract.dummy)
    actor = state.actor
    legal = tuple(state.legal_actions()) if actor is seat else ()
    return Observation(
        seat=seat,
        dealer=state.dealer,
        phase=state.phase,
        options=state.options,
        hand=state.remaining(seat),
        auction=tuple((ev.seat, ev.call) for ev in state.calls),
        contract=contract,
        turn=state.turn,
        actor=actor,
        plays=tuple((ev.seat, ev.card) for ev in state.plays),
        tricks=tuple((t.leader, t.plays, t.winner) for t in state.tricks),
        current_trick=state.current_trick,
        tricks_won=state.tricks_won,
        dummy=dummy,
        legal=legal,
        all_hands=state.deal.hands if over else None,
        undealt=state.deal.undealt if over else None,
    )
