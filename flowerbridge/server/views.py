"""What the server shows: each seat's view, the spectators' view, copies seen,
the card catalogue and the review of a finished hand.

Every view of a hand in progress is built from
:meth:`~flowerbridge.state.HandState.observation`; nothing here decides what
a seat may know. The spectators' view is a seat's observation with everything
private to that seat removed, so it holds exactly what all players may see.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from ..cards import CARDS, Card
from ..records import to_dict as hand_record
from ..seats import Seat
from ..state import HandState

Role = Seat | None
"""Whom a message is for: a seat, or ``None`` for spectators."""

# The observation fields private to its seat: its cards and the choices it has.
_PRIVATE: dict[str, Any] = {"seat": None, "hand": [], "legal": []}


def view(state: HandState, role: Role) -> dict[str, Any]:
    """``role``'s view of ``state``: the seat's observation, or the public one."""
    if role is not None:
        return state.observation(role).to_dict()
    # Any seat's observation, minus what is private to it, is what every player sees.
    return {**state.observation(Seat.N).to_dict(), **_PRIVATE}


def copies_seen(state: HandState) -> dict[str, int]:
    """For each of the 30 cards, how many of its copies have been played (0, 1 or 2)."""
    played = Counter(ev.card.code for ev in state.plays)
    return {card.code: played[card.code] for card in _CATALOGUE_ORDER}


def card_catalogue() -> list[dict[str, Any]]:
    """The 30 distinct cards, Bright Animals first, highest card first in each suit."""
    return [_card_entry(card) for card in _CATALOGUE_ORDER]


def _card_entry(card: Card) -> dict[str, Any]:
    return {"code": card.code, "index": card.index, "suit": card.suit.letter, "rank": card.rank,
            "kind": card.kind.letter, "month": card.month, "name": card.name,
            "name_ja": card.name_ja, "name_ko": card.name_ko, "picture": card.picture,
            "points": card.points}


_CATALOGUE_ORDER: tuple[Card, ...] = tuple(sorted(CARDS, key=lambda c: -c.index))

DDValues = Sequence[tuple[int, int]]
"""Per card played, in order: (tricks for declarer's side after it, the same
after the player's best card), as computed by the double-dummy solver."""


def review(state: HandState, hand: int, explanations: Sequence[str | None],
           dd: DDValues | None, dd_status: str) -> dict[str, Any]:
    """The review of a finished hand: every card, every trick, and per card its
    double-dummy value when known (``docs/protocol.md``, "The review")."""
    record = hand_record(state)
    contract = state.contract
    values = iter(dd or ())
    tricks = []
    for trick in state.tricks:
        plays = []
        for seat, card in trick.plays:
            value = next(values, None)
            plays.append({"seat": seat.name, "card": card.code,
                          "dd": value[0] if value else None, "best": value[1] if value else None})
        tricks.append({"number": trick.number, "leader": trick.leader.name,
                       "winner": trick.winner.name, "plays": plays})
    return {
        "hand": hand,
        "dealer": state.dealer.name,
        "options": state.options.to_dict(),
        "hands": record["hands"],
        "undealt": record["undealt"],
        "auction": [{"seat": ev.seat.name, "call": ev.call.text, "explanation": note}
                    for ev, note in zip(state.calls, explanations, strict=True)],
        "contract": None if contract is None else {
            "bid": contract.code, "declarer": contract.declarer.name,
            "dummy": contract.dummy.name},
        "tricks": tricks,
        "score": state.score().to_dict(),
        "record": record,
        "dd_status": dd_status,
    }
