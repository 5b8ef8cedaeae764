"""Shared fixtures: hands played to a chosen point by seeded random legal actions."""

from __future__ import annotations

import random

import pytest

from flowerbridge import Deal, HandState, Phase, RuleOptions, Seat


def _random_hand(seed: int, *, options: RuleOptions | None = None, actions: int | None = None,
                 pass_rate: float = 0.6) -> HandState:
    """A hand from ``Deal.from_seed(seed)`` with the dealer, the calls and the
    cards drawn from ``seed``; it stops after ``actions`` actions, or when over.

    Only :meth:`HandState.legal_actions` is consulted, so the hands cover
    every contract level and denomination, passed-out hands included.
    """
    rng = random.Random(seed)
    state = HandState(Deal.from_seed(seed), Seat(rng.randrange(4)), options)
    while not state.is_over and (actions is None or len(state.history) < actions):
        legal = state.legal_actions()
        if state.phase is Phase.AUCTION and len(legal) > 1:
            # Pass (legal[0]) often, else one of the six cheapest bids, so that
            # auctions reach every level without racing to 7NT.
            choice = 0 if rng.random() < pass_rate else 1 + rng.randrange(min(6, len(legal) - 1))
            state.apply(legal[choice])
        else:
            state.apply(legal[rng.randrange(len(legal))])
    return state


@pytest.fixture(scope="session")
def random_hand():
    """``random_hand(seed, options=None, actions=None)``: a reproducible random legal hand."""
    return _random_hand
