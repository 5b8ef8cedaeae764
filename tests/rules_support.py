"""What more than one test file of the rules recomputes on its own: the score of a hand
(Chapters 11-15), from its tricks and its table of points."""

from __future__ import annotations

from collections import Counter

from flowerbridge import CARDS, HandState, Side
from flowerbridge.cards import Kind


def independent_score(state: HandState) -> dict:
    """Chapters 11–15 recomputed from the tricks and the table's scale of points."""
    opts = state.options
    out = {"below": [0, 0], "above": [0, 0], "honors": [0, 0], "bright": [0, 0]}
    contract = state.contract
    if contract is None:
        return out
    side = contract.declarer.side
    taken = sum(1 for t in state.tricks if t.winner.side is side)
    need = contract.level + 6
    denomination = int(contract.denomination)  # the options' tables run P, R, A, NT
    if taken >= need:
        first, each = opts.contract_points[denomination]
        out["below"][side] = first + each * (contract.level - 1)
        out["above"][side] += (taken - need) * opts.overtrick_points[denomination]
    else:
        out["above"][1 - side] += (need - taken) * opts.undertrick_penalty
    values = {Kind.BRIGHT: opts.honor_bright, Kind.ANIMAL: opts.honor_animal,
              Kind.RIBBON: opts.honor_ribbon, Kind.PLAIN: (0, 0)}
    brights = [c for c in CARDS if c.kind is Kind.BRIGHT]
    for s in (Side.NS, Side.EW):
        won = Counter(card for t in state.tricks if t.winner.side is s for _, card in t.plays)
        honors = sum(values[c.kind][0] + (values[c.kind][1] if n == 2 else 0) for c, n in won.items())
        bonus = (opts.ten_bright_bonus if all(won[b] == 2 for b in brights)
                 else opts.five_bright_bonus if all(won[b] for b in brights) else 0)
        out["honors"][s], out["bright"][s] = honors, bonus
        out["above"][s] += honors + bonus
    return out
