"""Bots at the server's tables: which levels a seat may have, and asking one to act.

A bot sees only its seat's observation (``flowerbridge.bots``). Only the
explanation of a *call* is kept and shown to everyone: it says what the call
means in the bidding system, which every player is entitled to know. Reasons
for cards ("the only legal card") would tell the table about the bot's hand,
so they are dropped.
"""

from __future__ import annotations

import logging
from functools import cache

from ..bots.base import BOT_LEVELS, Bot, RandomBot, decide, load_bot
from ..calls import Call
from ..cards import Card
from ..errors import FlowerBridgeError
from ..observation import Observation
from .table import TableError

log = logging.getLogger("flowerbridge.server")


@cache
def bot_levels() -> tuple[str, ...]:
    """The registered bot levels that load here, weakest first."""
    usable = []
    for level in BOT_LEVELS:
        try:
            load_bot(level)
        except FlowerBridgeError as exc:
            log.warning("bot level %s is not available: %s", level, exc)
            continue
        usable.append(level)
    return tuple(usable)


def default_bot() -> str:
    """The level a new seat or a stand-in gets unless told otherwise: ``basic`` when available."""
    return "basic" if "basic" in bot_levels() else "random"


def check_level(level: str | None, where: str) -> str:
    """``level`` if a seat may have it; otherwise a precise error naming ``where``."""
    if level not in bot_levels():
        raise TableError("bad_request", f"{where}: unknown bot level {level!r}; "
                                        f"use one of {', '.join(bot_levels())}")
    return level


# Levels whose decisions take long (pimc: many sampled deals, double-dummy
# solved): they think on an executor of their own, so that they cannot hold up
# the quick levels' moves (TableManager's executors).
SLOW_LEVELS = frozenset({"pimc"})


def is_slow(level: str) -> bool:
    """Whether a level's decisions take long (:data:`SLOW_LEVELS`)."""
    return level in SLOW_LEVELS


def new_bot(level: str, seed: str) -> Bot:
    """A bot of ``level``, seeded so that a table's bots differ from seat to seat."""
    return load_bot(level, seed=seed)


def hint_level(levels) -> str:
    """The level that advises the person at a table of bots: the strongest of
    the table's ``levels`` (:data:`BOT_LEVELS` lists them weakest first), but
    never ``random``, whose choice would be no advice."""
    usable = [level for level in bot_levels() if level != "random"]
    if not usable:
        return "random"
    ranked = [level for level in levels if level in usable]
    return max(ranked, key=usable.index) if ranked else usable[0]


def advise(bot: Bot, observation: Observation) -> tuple[Call | Card, str]:
    """The bot's action for the person it advises, with its reason, card or call
    (the person's own view: the reason tells them nothing they do not see).
    A failure, or an illegal choice, is a ``no_hint`` error, logged."""
    try:
        decision = decide(bot, observation)
    except Exception:  # a bot is third-party code
        log.exception("hint bot %s at %s failed", type(bot).__name__, observation.seat.name)
        raise TableError("no_hint", "the bot failed to give a hint (logged)") from None
    if decision.action not in observation.legal:
        log.error("hint bot %s at %s chose %r, which is not legal", type(bot).__name__,
                  observation.seat.name, decision.action)
        raise TableError("no_hint", "the bot gave no legal hint (logged)")
    return decision.action, decision.explanation


def choose(bot: Bot, observation: Observation) -> tuple[Call | Card, str | None]:
    """The bot's action and, for a call, its explanation.

    A bot that fails or answers with something illegal is replaced for this
    one action by a random legal choice, so a faulty bot never stalls a table.
    """
    try:
        decision = decide(bot, observation)
        if decision.action in observation.legal:
            note = decision.explanation if isinstance(decision.action, Call) else ""
            return decision.action, note or None
        log.error("bot %s at %s chose %r, which is not legal", type(bot).__name__,
                  observation.seat.name, decision.action)
    except Exception:  # a bot is third-party code: whatever it raises, the table goes on
        log.exception("bot %s at %s failed", type(bot).__name__, observation.seat.name)
    return RandomBot().act(observation), None
