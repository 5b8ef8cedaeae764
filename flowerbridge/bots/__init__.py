"""Bots: players that see only :meth:`HandState.observation`.

A bot is any object with ``act(observation) -> Call | Card``; see
:mod:`flowerbridge.bots.base` for the protocol and :func:`load_bot` for
naming bots by level or by ``module:attribute`` path.
"""

from .base import Bot, RandomBot, load_bot, play_hand

__all__ = ["Bot", "RandomBot", "load_bot", "play_hand"]
