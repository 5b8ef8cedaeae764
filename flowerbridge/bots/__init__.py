"""Bots: players that see only :meth:`HandState.observation`.

A bot is any object with ``act(observation) -> Call | Card``; bots that
give reasons also offer ``decide(observation) -> Decision``. See
:mod:`flowerbridge.bots.base` for the protocol and :func:`load_bot` for
naming bots by level (``random``, ``basic``, ``pimc``) or by
``module:attribute`` path; :mod:`~flowerbridge.bots.bidding` for the
bidding system and :func:`~flowerbridge.bots.bidding.explain_call`;
:mod:`~flowerbridge.bots.match` for duplicate matches. ``docs/bots.md``
describes it all.
"""

from .base import BOT_LEVELS, Bot, Decision, RandomBot, ask, bot_seed, decide, load_bot, play_hand

__all__ = ["BOT_LEVELS", "Bot", "Decision", "RandomBot", "ask", "bot_seed", "decide", "load_bot", "play_hand"]
