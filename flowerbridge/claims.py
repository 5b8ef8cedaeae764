"""Claims: the side to play says it takes every trick left.

A claim is judged as a careful director would, not double dummy alone:
the claiming side must take every trick left against any defence (the
double-dummy solver, every hand in view), *and* along the way each of its
cards must be one that takes them all in every layout of the cards it cannot
see — 1,000 of them sampled, consistent with what it has seen (its own hand, the dummy,
the cards played, the voids shown; not what the auction suggested). A claim is made
with the claimer's hand faced, as at the table: a defender's partner sees it too. A claim
that needs a guess, which the solver would make right because it sees the
hidden hands, is refused. When accepted, the cards are played out along
that line: the claiming side's cards as chosen so, each defender's its
lowest legal card (every defence loses every trick left, so no search).

The claiming side's choices depend only on what it sees; the sample is
seeded by the position, so the same claim is judged the same way again.
"""

from __future__ import annotations

import copy
import random

from .bots.knowledge import Knowledge
from .cards import Card
from .seats import Seat
from .state import HandState

CLAIM_SAMPLES = 1000
"""Layouts of the unseen cards each of the claiming side's cards is tried in. A
review's exhaustive check found 24 too few: a claim that fails in one layout in
twenty got through 29 times in 100 (seeds 418, 200 and 666 of
``tests/test_claims.py``); every case it found is refused at 1,000, at up to a
quarter of a second a claim (300 positions of random play, 46 claims good; most
refusals stop at the double-dummy check, or at the first layout that defeats them)."""

REFUSED = ("a defence, or a lie of the cards you cannot see, could still take a trick "
           "from your side")
"""Why a claim is refused: one reason for both, so that a refusal does not tell
the claimant whether the hidden cards lie for them."""


def judge_claim(state: HandState, samples: int = CLAIM_SAMPLES) -> list[tuple[Seat, Card]] | None:
    """The line a claim of every trick left by the side to play is played out
    along, or ``None`` when the claim is refused (some defence takes a trick,
    or the claiming side would have to guess). ``state`` is not changed."""
    from .bots.pimc import thread_solver, world_values
    from .bots.sampling import Sampler
    from .solver.game import card_values, position

    solver = thread_solver()    # the thread's own, as the pimc bot's worlds are solved with
    if not solver.takes_all(*position(state)):     # some defence takes a trick: no need to look further
        return None
    work = copy.deepcopy(state)
    assert work.to_play is not None and work.actor is not None
    side = int(work.to_play) % 2
    claimer = work.actor    # (declarer, for the dummy's turn too)
    line: list[tuple[Seat, Card]] = []
    while not work.is_over:
        seat, actor = work.to_play, work.actor
        assert seat is not None and actor is not None
        if int(seat) % 2 != side:
            # a defender: each of its cards loses every trick left (the claim holds
            # against any defence), and its lowest is played
            card = min(work.legal_cards(), key=lambda c: c.index)
        else:
            left = 13 - len(work.tricks)
            safe = {c for c, v in card_values(work, solver).items() if v == left}
            observation = work.observation(actor)
            # the claimer's partner, a defender, plays seeing the claimer's faced hand: from its
            # own view alone it could not know that the claimer's cards win, and every
            # defender's claim was refused at its partner's first card
            knowledge = Knowledge(observation) if actor is claimer else \
                Knowledge(observation, faced={claimer: work.remaining(claimer)})
            sampler = Sampler(knowledge, use_auction=False)
            trick = tuple(c for _, c in work.current_trick)
            leader = work.current_trick[0][0] if trick else seat
            # drawn afresh for each position (seeded by its cards played, so the same
            # claim is judged the same way again): a sample that missed a layout in one
            # position does not miss it in all
            played = " ".join(p.card.code for p in work.plays)
            for number in range(samples):
                world = sampler.sample(random.Random(f"claim:{played}:{number}"))
                seen = world_values({**knowledge.visible, **world.hands}, knowledge.trump, leader, trick)
                safe = {c for c in safe if seen.get(c.index) == left}
                if not safe:
                    return None
            card = min(safe, key=lambda c: c.index)
        work.apply(card, actor)
        line.append((seat, card))
    return line
