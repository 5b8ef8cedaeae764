"""The bot protocol and the simplest bot.

A bot receives only an :class:`~flowerbridge.observation.Observation` — the
seat's own view — and returns one of ``observation.legal``. It has no way to
reach the hidden state: :func:`play_hand` hands it nothing else.
"""

from __future__ import annotations

import importlib
import random
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

from ..errors import FlowerBridgeError
from ..observation import Observation
from ..seats import SEATS, Seat
from ..state import HandState


@runtime_checkable
class Bot(Protocol):
    """Anything that chooses a legal call or card from an observation."""

    def act(self, observation: Observation) -> Any:  # Call or Card
        ...


class RandomBot:
    """Any legal call or card, uniformly; passes with probability ``pass_rate``."""

    name = "random"

    def __init__(self, seed: int | str | None = None, pass_rate: float = 0.75) -> None:
        self.rng = random.Random(seed)
        self.pass_rate = pass_rate

    def act(self, observation: Observation):
        legal = observation.legal
        if not legal:
            raise FlowerBridgeError(f"{observation.seat} has nothing to do")
        if observation.phase == "auction" and len(legal) > 1:
            if self.rng.random() < self.pass_rate:
                return legal[0]
            return legal[1 + self.rng.randrange(min(6, len(legal) - 1))]
        return legal[self.rng.randrange(len(legal))]


BOT_LEVELS: dict[str, str] = {"random": "flowerbridge.bots.base:RandomBot"}
"""Bot levels by name; other modules add theirs here."""


def load_bot(spec: str, **kwargs: Any) -> Bot:
    """A bot from a level name (``random``, ...) or a ``module:attribute`` path.

    The attribute may be a class or factory (called with ``kwargs``) or a bot object.
    """
    path = BOT_LEVELS.get(spec, spec)
    if ":" not in path:
        raise FlowerBridgeError(f"unknown bot {spec!r}: use a level ({', '.join(sorted(BOT_LEVELS))}) "
                                "or a module:attribute path")
    module_name, _, attr = path.partition(":")
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise FlowerBridgeError(f"cannot load bot {spec!r}: {exc}") from None
    bot = target(**kwargs) if callable(target) and not hasattr(target, "act") or isinstance(target, type) \
        else target
    if not callable(getattr(bot, "act", None)):
        raise FlowerBridgeError(f"bot {spec!r} has no act(observation) method")
    return bot


def play_hand(state: HandState, bots: Mapping[Seat, Bot] | Callable[[Seat], Bot]) -> HandState:
    """Let bots finish ``state``: each actor is asked with its own observation only."""
    get = bots if callable(bots) else bots.__getitem__
    while not state.is_over:
        seat = state.actor
        assert seat is not None
        action = get(seat).act(state.observation(seat))
        state.apply(action, seat)
    return state


__all__ = ["Bot", "RandomBot", "BOT_LEVELS", "load_bot", "play_hand", "SEATS"]
