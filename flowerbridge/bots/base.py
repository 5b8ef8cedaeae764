"""The bot protocol, the simplest bot, and how bots are named and run.

A bot receives only an :class:`~flowerbridge.observation.Observation` — the
seat's own view — and returns one of ``observation.legal``. It has no way to
reach the hidden state: :func:`play_hand` hands it nothing else.

A bot needs only ``act(observation)``. A bot that can say *why* also offers
``decide(observation) -> Decision``; :func:`decide` asks any bot for a
:class:`Decision`, using ``decide`` when the bot has it.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import inspect
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from .._signals import Terminated, stop_behind
from ..calls import Call
from ..cards import Card
from ..errors import BotError, FlowerBridgeError
from ..observation import Observation
from ..seats import SEATS, Seat
from ..state import HandState


@runtime_checkable
class Bot(Protocol):
    """Anything that chooses a legal call or card from an observation."""

    def act(self, observation: Observation) -> Call | Card:
        ...


@dataclass(frozen=True)
class Decision:
    """A bot's choice and a one-line reason a person can read.

    ``explanation`` is what the call shows under the bidding system
    (``"opening: 5+ Ribbons, longest suit, 15+ points"``) or why the card was chosen; it may be
    empty for bots that give no reasons.
    """

    action: Call | Card
    explanation: str = ""


def bot_seed(*parts: Any) -> str:
    """The seed of one bot, from the run's seed and where the bot sits (a deal,
    a table, a seat), through SHA-256: the same parts give the same bot, but
    the bot cannot read the deal's seed straight out of its own, as it could
    out of ``"7:N"`` — and from the deal's seed, the hidden hands. (A bot
    written to cheat could still try likely run seeds: bots loaded by path
    are trusted code, ``docs/bots.md``.)"""
    text = "\x1f".join(str(part) for part in parts)
    return hashlib.sha256(b"flowerbridge bot\x00" + text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


_ctrl_c_is_not_the_persons = False


def _persons_stop(exc: KeyboardInterrupt) -> bool:
    """Whether a KeyboardInterrupt out of a bot's code is the person's stop: SIGTERM's
    (Terminated) always; Ctrl-C's but in a process that takes none
    (:func:`ctrl_c_is_not_the_persons`), where it can only be the bot's own."""
    return isinstance(exc, Terminated) or not _ctrl_c_is_not_the_persons


def ctrl_c_is_not_the_persons() -> None:
    """Say that this process takes no Ctrl-C (a worker process whose driver stops it):
    from now on, a bot's KeyboardInterrupt is :func:`ask`'s failure of the bot, not a stop.
    (Not read off SIGINT's disposition: a command started in the background by a shell
    ignores SIGINT too, and there the person's stop is still raised as one.)"""
    global _ctrl_c_is_not_the_persons
    _ctrl_c_is_not_the_persons = True


def ask(bot: Bot, seat: Seat, observation: Observation) -> Decision:
    """:func:`decide`, with a bot that raises (anything, ``GeneratorExit`` included), or
    calls ``exit()``, reported as a :class:`BotError` naming the seat (a bot loaded by path
    is other people's code). KeyboardInterrupt is the person's, and goes through."""
    # (decide's own BotError, a rule the bot broke, already names the seat)
    return _theirs(lambda: decide(bot, observation),
                   lambda exc: f"the bot at {seat.full_name} failed: {failure(exc)}", keep=(BotError,))


def _theirs(call: Callable[[], Any], said: Callable[[BaseException], str],
            keep: tuple[type[BaseException], ...] = ()) -> Any:
    """``call()``, other people's code (a bot's decision, its module's import, its class or
    factory, its copy, its ``act`` attribute): whatever it raises -- ``exit()``,
    ``GeneratorExit``, a class of its own from BaseException -- is a :class:`BotError` in
    ``said``'s words, but ``keep`` (raised as it is) and the person's stop
    (:func:`_persons_stop`; and a Ctrl-C that landed inside a lock the bot waited on),
    which goes through."""
    try:
        return call()
    except keep:        # (an empty tuple catches nothing)
        raise
    except Exception as exc:  # noqa: BLE001 -- any failure of theirs, as one line
        stop = stop_behind(exc)
        if stop is not None:
            raise stop from None
        raise BotError(said(exc)) from exc
    except KeyboardInterrupt as exc:
        if _persons_stop(exc):
            raise
        raise BotError(said(exc)) from exc
    except BaseException as exc:  # noqa: BLE001 -- SystemExit, GeneratorExit, their own classes
        raise BotError(said(exc)) from exc


def decide(bot: Bot, observation: Observation) -> Decision:
    """Ask ``bot`` for a :class:`Decision`, whether or not it gives reasons.

    A bot without ``decide`` gets, for a call, what the bidding system reads
    the call to show (the same text a person's call gets); for a card, no reason.
    """
    method = getattr(bot, "decide", None)
    if callable(method):
        decision = method(observation)
        if not isinstance(decision, Decision):
            raise TypeError(f"decide() returned {type(decision).__name__}, not a Decision")
        _check_action(decision.action, "decide()", observation)
        return _one_line(decision)
    action = bot.act(observation)
    _check_action(action, "act()", observation)
    if isinstance(action, Call):
        from .bidding import explain_call

        auction = (*observation.auction, (observation.seat, action))
        return Decision(action, explain_call(auction, len(auction) - 1))
    return Decision(action)


EXPLANATION_LENGTH = 200
"""The longest explanation shown: a longer one is cut there, ending in "…"."""


def _one_line(decision: Decision) -> Decision:
    """The decision with its explanation made the one line it must be: its runs of
    white space (new lines too) one space each, and at most EXPLANATION_LENGTH
    characters (a bot's pages of reasons would flood the terminal and the page)."""
    explanation = decision.explanation
    if explanation is None:
        explanation = ""
    if not isinstance(explanation, str):
        raise TypeError(f"decide() gave an explanation of type {type(explanation).__name__}, not a string")
    line = " ".join(explanation.split())
    if len(line) > EXPLANATION_LENGTH:
        line = line[:EXPLANATION_LENGTH - 1].rstrip() + "…"
    return decision if line == explanation else Decision(decision.action, line)


def _check_action(action: Any, source: str, observation: Observation) -> None:
    """A bot's action must be a call in the auction, a card in the play (whether
    it is legal, the rules say)."""
    if not isinstance(action, (Call, Card)):
        raise TypeError(f"{source} returned {type(action).__name__}, not a call or a card")
    wanted = {"auction": Call, "play": Card}.get(observation.phase)
    if wanted is not None and not isinstance(action, wanted):
        raise TypeError(f"{source} returned a {type(action).__name__} in the {observation.phase}, "
                        f"where it must return a {wanted.__name__}, one of observation.legal")


def position_key(observation: Observation) -> str:
    """What a bot sees of a position, as text: its seat, whose turn, its hand, the
    auction and the cards played (a position met again gives the same key)."""
    turn = observation.turn.name if observation.turn is not None else "-"
    return " ".join([observation.seat.name, turn, *(c.code for c in observation.hand), "|",
                     *(str(call) for _, call in observation.auction), "|",
                     *(seat.name + card.code for seat, card in observation.plays)])


class RandomBot:
    """Any legal call or card, uniformly; passes with probability ``pass_rate``.

    Seeded, it draws each choice from a stream named by its seed and the position
    (:func:`position_key`), so a position met again (after a person's take-back at a
    table, or a server's restart) gets the same choice; unseeded, from one stream."""

    name = "random"

    def __init__(self, seed: int | str | None = None, pass_rate: float = 0.75) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.pass_rate = pass_rate

    def act(self, observation: Observation):
        legal = observation.legal
        if not legal:
            raise FlowerBridgeError(f"{observation.seat} has nothing to do")
        rng = self.rng if self.seed is None else random.Random(f"random:{self.seed}:{position_key(observation)}")
        if observation.phase == "auction" and len(legal) > 1:
            if rng.random() < self.pass_rate:
                return legal[0]
            return legal[1 + rng.randrange(min(6, len(legal) - 1))]
        return legal[rng.randrange(len(legal))]


BOT_LEVELS: dict[str, str] = {
    "random": "flowerbridge.bots.base:RandomBot",
    "basic": "flowerbridge.bots.basic:BasicBot",
    "pimc": "flowerbridge.bots.pimc:PimcBot",
}
"""Bot levels by name, weakest first; each maps to a ``module:attribute`` path."""


def load_bot(spec: str | Any, **kwargs: Any) -> Bot:
    """A bot from a level name (``random``, ``basic``, ``pimc``) or a ``module:attribute`` path,
    or from what such a path names, given itself.

    The attribute may be a class or factory (called with ``kwargs``) or a bot
    object, copied for each call (so that seats never share one bot's state).
    A factory that does not take a keyword (a ``seed``, say) is called
    without it, so a minimal third-party bot class needs no constructor; the
    levels' own bots refuse an option they do not take (a misspelt
    ``sample=2`` ran ``pimc`` with its default samples), ``seed`` aside.
    """
    target = _target(spec)
    if isinstance(spec, str) and spec in BOT_LEVELS and _is_factory(target):
        taken = _accepted(target, kwargs)
        unknown = sorted(k for k in kwargs if k not in taken and k != "seed")
        if unknown:
            options = sorted(_accepted(target, {p: None for p in _parameters(target)}))
            raise BotError(f"bot {spec!r} takes no option {unknown[0]!r} (its options: "
                           f"{', '.join(options) or 'none'})")
    spec = bot_name(spec)
    # (a factory, a copy, an ``act`` property are other people's code: _theirs)
    if _is_factory(target):
        bot = _theirs(lambda: target(**_accepted(target, kwargs)),
                      lambda exc: f"cannot make bot {spec!r}: {failure(exc)}")
    else:
        bot = _theirs(lambda: copy.deepcopy(target),
                      lambda exc: f"bot {spec!r} is an object that cannot be copied for each seat "
                                  f"({type(exc).__name__}): name its class or a factory instead")
    act = _theirs(lambda: getattr(bot, "act", None),
                  lambda exc: f"bot {spec!r}: reading its act method failed: {failure(exc)}")
    if not callable(act):
        raise BotError(f"bot {spec!r} has no act(observation) method")
    return bot


def failure(exc: BaseException) -> str:
    """How a failure of other people's code is said: ``exit()`` as a call of it, the
    package's own errors in their words, any other as its class and its words
    (``MemoryError`` alone where it has none)."""
    if isinstance(exc, SystemExit):     # (it ends what it was asked to do, not the command)
        return f"it called exit({exc.code!r})"
    if isinstance(exc, FlowerBridgeError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def bot_name(spec: str | Any) -> str:
    """How a bot is named in errors and results: its level or ``module:attribute`` path as
    given, or, for a class, factory or bot object given itself, the path to it (to its
    class, for an object)."""
    if isinstance(spec, str):
        return spec
    named = spec if isinstance(spec, type) or not hasattr(spec, "act") else type(spec)
    module = getattr(named, "__module__", None) or "?"
    return f"{module}:{getattr(named, '__qualname__', type(named).__qualname__)}"


def _target(spec: str | Any) -> Any:
    """What a bot name points at: a level's class, or a module's attribute; a class,
    factory or bot object given itself is what it is."""
    if not isinstance(spec, str):
        if not callable(spec) and not callable(getattr(spec, "act", None)):
            raise BotError(f"a bot is a level, a module:attribute path, a class, a factory "
                                    f"or an object with an act(observation) method, not {spec!r}")
        return spec
    path = BOT_LEVELS.get(spec, spec)
    if ":" not in path:
        raise BotError(f"unknown bot {spec!r}: use a level ({', '.join(BOT_LEVELS)}) "
                                "or a module:attribute path")
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise BotError(f"cannot load bot {spec!r}: write it as module:attribute")
    def said(exc: BaseException) -> str:
        if isinstance(exc, (ImportError, AttributeError)):
            return f"cannot load bot {spec!r}: {exc}"
        if isinstance(exc, SystemExit):     # a script's exit(main()) run on import, say
            return f"cannot load bot {spec!r}: importing {module_name} called exit({exc.code!r})"
        return f"cannot load bot {spec!r}: importing {module_name} failed: {failure(exc)}"

    return _theirs(lambda: getattr(importlib.import_module(module_name), attr), said)


def _is_factory(target: Any) -> bool:
    """A class or factory to call for each bot (else a bot object, copied)."""
    return isinstance(target, type) or (callable(target) and not hasattr(target, "act"))


def bot_takes(spec: str, option: str) -> bool:
    """Whether the bot ``spec`` names takes the keyword option ``option``
    (:func:`load_bot` passes a factory only the options it takes, so one it
    does not take would be ignored); a bot object takes none."""
    target = _target(spec)
    return _is_factory(target) and option in _accepted(target, {option: None})


def _parameters(factory: Callable) -> list[str]:
    """The names of ``factory``'s keyword parameters (none where it has no signature)."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _accepted(factory: Callable, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments ``factory`` takes."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature: pass everything
        return kwargs
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return kwargs
    names = {p.name for p in params}
    return {k: v for k, v in kwargs.items() if k in names}


def play_hand(state: HandState, bots: Mapping[Any, Bot] | Sequence[Bot] | Callable[[Seat], Bot],
              on_decision: Callable[[Seat, Decision, float], None] | None = None) -> HandState:
    """Let bots finish ``state``: each actor is asked with its own observation only.

    ``on_decision(seat, decision, seconds)``, when given, hears every
    decision and how long the bot took over it.
    """
    if callable(bots):
        get = bots
    else:   # keyed by Seat or by "N", "E", "S", "W" (or four in seat order); every seat needs one
        pairs: list[tuple[Any, Bot]]
        if isinstance(bots, Mapping):
            pairs = list(bots.items())
        elif isinstance(bots, (list, tuple)):
            pairs = list(enumerate(bots))
        else:
            raise BotError(f"bots: a mapping of each seat to its bot, four bots in seat order (N, E, "
                           f"S, W) or a function of the seat, not {type(bots).__name__}")
        by_seat = {Seat(seat): bot for seat, bot in pairs}
        missing = [seat.name for seat in SEATS if seat not in by_seat]
        if missing:
            raise BotError(f"bots: no bot for {', '.join(missing)} (play_hand needs one for each seat)")
        get = by_seat.__getitem__
    while not state.is_over:
        seat = state.actor
        assert seat is not None
        start = time.perf_counter()
        decision = ask(get(seat), seat, state.observation(seat))
        elapsed = time.perf_counter() - start
        try:
            state.apply(decision.action, seat)
        except FlowerBridgeError as exc:    # the rules refuse it: the bot's fault, said so
            what = "call" if isinstance(decision.action, Call) else "card"
            raise BotError(f"the bot at {seat.full_name} chose an illegal {what}: {exc}") from exc
        if on_decision is not None:
            on_decision(seat, decision, elapsed)
    return state


__all__ = ["Bot", "Decision", "RandomBot", "BOT_LEVELS", "ask", "position_key", "bot_name", "bot_seed", "decide",
           "load_bot", "play_hand", "SEATS"]
