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


def saved_first_board(session) -> int:
    """The board of its seed a saved session began at (``"first_board"``, which ``play
    --board`` writes): 1 where it names none, or none that is a board."""
    first = session.extra.get("first_board", 1) if session is not None else 1
    return first if isinstance(first, int) and not isinstance(first, bool) and first >= 1 else 1


def dealt_from_seed(state, seed: int | str, board: int) -> bool:
    """Whether ``state`` is board ``board`` of ``seed``: its cards (in any order) and the
    dealer of that board (North for board 1, then clockwise)."""
    from ..dealing import Deal
    from ..seats import Seat

    return state.dealer is Seat.N.next(board - 1) and _held(Deal.from_seed(seed, board)) == _held(state.deal)


def _held(deal) -> list[list[int]]:
    """Each seat's cards, in the deck's order (a record may list them in any)."""
    return [sorted(card.index for card in hand) for hand in deal.hands]


def saved_unfinished(session, name: str):
    """The hand a session that ``play --save`` wrote was playing (its ``"unfinished"``),
    replayed through the engine as it stands; None where there is none. A UsageError
    naming ``name`` where it is no hand record, or breaks a rule."""
    from collections.abc import Mapping

    from ..errors import FlowerBridgeError
    from ..records import HandRecord
    from . import UsageError
    from ._save import UNFINISHED

    data = session.extra.get(UNFINISHED) if session is not None else None
    if data is None:
        return None
    if isinstance(data, Mapping) and data.get("options") is None:     # as a session's hands read
        data = {**data, "options": session.options.to_dict()}
    try:
        return HandRecord.from_dict(data).state
    except FlowerBridgeError as exc:
        raise UsageError(f"{name}: its unfinished hand (board {saved_first_board(session) + len(session.hands)}): "
                         f"{exc}") from None
