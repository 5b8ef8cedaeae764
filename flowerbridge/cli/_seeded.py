"""Sessions dealt from a seed, as ``play`` and ``demo`` save them (``"seed"``):
board K of the seed is the session's hand K, which ``show`` names and
``play --resume`` goes on from."""

from __future__ import annotations


def saved_seed(session) -> int | str | None:
    """The seed a saved session names (``"seed"``, which play and demo write), as ``--seed``
    reads it; ``None`` where there is none, or none that ``--seed`` would take."""
    from . import UsageError, parse_seed

    seed = session.extra.get("seed") if session is not None else None
    if not isinstance(seed, (int, str)) or isinstance(seed, bool):
        return None
    try:
        return parse_seed(str(seed))
    except UsageError:
        return None


def dealt_from_seed(state, seed: int | str, number: int) -> bool:
    """Whether ``state``, hand ``number`` of a session, is board ``number`` of ``seed``:
    its cards (in any order) and the dealer of that board (North first, then clockwise)."""
    from ..dealing import Deal
    from ..seats import Seat

    return state.dealer is Seat.N.next(number - 1) and _held(Deal.from_seed(seed, number)) == _held(state.deal)


def _held(deal) -> list[list[int]]:
    """Each seat's cards, in the deck's order (a record may list them in any)."""
    return [sorted(card.index for card in hand) for hand in deal.hands]
