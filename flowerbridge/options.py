"""Rule options a table plays under (RULINGS R9, R15) and the scoring scale.

The two options of the rulings are ``declarer`` and ``undertrick_penalty``.
The remaining fields hold the rulebook's own values (Chapters 11–15); the lab
changes them to study variants. Every record stores the options it was played
under; :meth:`RuleOptions.to_dict` writes the two rulings' options always and
any other field only when it differs from the rulebook.
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

from .errors import OptionError, json_type

_DENOMINATIONS = ("Plains", "Ribbons", "Bright Animals", "No Trump")
"""The denominations in the order of the options' lists (P, R, A, NT)."""
FINAL_BIDDER = "final-bidder"
FIRST_NAMED = "first-named"
DECLARER_RULES = (FINAL_BIDDER, FIRST_NAMED)
MAX_VALUE = 1_000_000
"""The largest value an option takes: far past any scoring scale, and small
enough that a lab's sums over millions of hands stay exact in 64 bits."""

# The bound the options being made are held to: MAX_VALUE, or none for a table
# stored by an earlier version (RuleOptions.stored).
_MOST: ContextVar[int | None] = ContextVar("most", default=MAX_VALUE)


@dataclass(frozen=True)
class RuleOptions:
    """How a table scores and who declares.

    >>> RuleOptions().undertrick_penalty, RuleOptions.strict().undertrick_penalty
    (50, 0)
    """

    declarer: str = FINAL_BIDDER
    undertrick_penalty: int = 50
    # Contract points per denomination P, R, A, NT: (first level, each further level).
    contract_points: tuple[tuple[int, int], ...] = ((20, 20), (30, 30), (30, 30), (40, 30))
    overtrick_points: tuple[int, ...] = (20, 30, 30, 30)
    # Honor bonus (first copy, second copy) for Ribbon, Animal, Bright (Chapter 13).
    honor_ribbon: tuple[int, int] = (1, 1)
    honor_animal: tuple[int, int] = (2, 1)
    honor_bright: tuple[int, int] = (4, 2)
    five_bright_bonus: int = 25
    ten_bright_bonus: int = 75
    game_points: int = 100

    def __post_init__(self) -> None:
        if self.declarer not in DECLARER_RULES:
            raise OptionError(f"option declarer: {_shown(self.declarer)} is not one of "
                              f"{', '.join(DECLARER_RULES)}", rule="R9")
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "declarer":
                continue
            # a list where one number belongs (or a number where a list does)
            # fails the shape checks below; a list for a number is caught here
            flat = _flatten(value) if isinstance(f.default, tuple) else [value]
            if flat is None or any(isinstance(v, bool) or not (
                    isinstance(v, int) or isinstance(v, float) and v.is_integer()) or v < 0 for v in flat):
                raise OptionError(f"option {f.name}: {_shown(value)} is not a non-negative whole number"
                                  + (" list" if isinstance(f.default, tuple) else ""))
            most = _MOST.get()
            if most is not None and any(v > most for v in flat):
                raise OptionError(f"option {f.name}: {_shown(value)} is more than {most:,}")
            if isinstance(f.default, tuple) and _shape(value) != _shape(f.default):
                raise OptionError(f"option {f.name}: expected the shape of {list(_lists(f.default))}")
            object.__setattr__(self, f.name, _tuples(value))
        if self.game_points == 0:
            raise OptionError("option game_points: must be at least 1")

    def sensible(self) -> "RuleOptions":
        """These options, if they make sense to begin a game or a study under;
        else an :class:`OptionError` naming what does not. Asked of new tables
        and lab variants only: a record or a stored table made under such
        options (earlier versions took them) is read and scored as it is."""
        if not any(first or each for first, each in self.contract_points):
            raise OptionError("option contract_points: every contract would score 0 below the line, "
                              "so no game could ever be won (R18)", rule="R13")
        if self.ten_bright_bonus < self.five_bright_bonus:
            raise OptionError(f"option ten_bright_bonus: {self.ten_bright_bonus} is less than "
                              f"five_bright_bonus ({self.five_bright_bonus}): the Ten Bright bonus "
                              "replaces the Five (never both), so capturing all ten Brights would "
                              "score less than capturing five; give it at least as much", rule="R17")
        return self

    @classmethod
    def strict(cls) -> "RuleOptions":
        """The rulebook read strictly: no penalty for a failed contract (R15)."""
        return cls(undertrick_penalty=0)

    def with_(self, **changes: Any) -> "RuleOptions":
        """These options with ``changes``. The values changed are checked as any new
        ones are; the others stay as they are (a stored table's may be past today's
        bound: :meth:`stored`); an unknown name is an :class:`OptionError`."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise OptionError(f"unknown option {unknown[0]!r}: expected one of "
                              + ", ".join(f.name for f in fields(self)))
        type(self)(**{name: value for name, value in changes.items() if value != getattr(self, name, None)})
        token = _MOST.set(None)
        try:
            return replace(self, **changes)
        finally:
            _MOST.reset(token)

    def changes(self) -> list[str]:
        """What these options change from the rulebook's with the rulings' defaults,
        one phrase each, for the people playing under them:

        >>> RuleOptions(undertrick_penalty=0, declarer="first-named").changes()
        ['no undertrick penalty (R15, the rulebook as written)', \
'the first of the declaring side to name the final denomination declares (R9)']
        """
        from .render import count_text      # (render imports the engine, which imports this)

        default = RuleOptions()
        out = []
        if self.undertrick_penalty != default.undertrick_penalty:
            out.append("no undertrick penalty (R15, the rulebook as written)" if self.undertrick_penalty == 0
                       else f"{count_text(self.undertrick_penalty, 'point')} a trick down to the "
                       "defenders (R15)")
        if self.declarer != default.declarer:
            out.append("the first of the declaring side to name the final denomination declares (R9)")
        if self.contract_points != default.contract_points:
            out.append("contract points a level (the first, each further one): " + ", ".join(
                f"{d} {first:,}/{each:,}" for d, (first, each) in zip(_DENOMINATIONS, self.contract_points)))
        if self.overtrick_points != default.overtrick_points:
            out.append("overtricks: " + ", ".join(f"{d} {points:,}" for d, points
                                                  in zip(_DENOMINATIONS, self.overtrick_points)))
        for kind, field_name in (("a Ribbon", "honor_ribbon"), ("an Animal", "honor_animal"),
                                 ("a Bright", "honor_bright")):
            values = getattr(self, field_name)
            if values != getattr(default, field_name):
                out.append(f"{kind} captured scores {values[0]:,}, both copies {values[0]:,} + {values[1]:,}")
        if self.five_bright_bonus != default.five_bright_bonus:
            out.append(f"Five Bright Bonus {self.five_bright_bonus:,}")
        if self.ten_bright_bonus != default.ten_bright_bonus:
            out.append(f"Ten Bright Bonus {self.ten_bright_bonus:,}")
        if self.game_points != default.game_points:
            out.append(f"game at {self.game_points:,} below the line")
        return out

    @property
    def honor_values(self) -> tuple[tuple[int, int], ...]:
        """Honor bonus by :class:`~flowerbridge.cards.Kind` (Plain, Ribbon, Animal, Bright)."""
        return ((0, 0), self.honor_ribbon, self.honor_animal, self.honor_bright)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"undertrick_penalty": self.undertrick_penalty,
                               "declarer": self.declarer}
        for f in fields(self):
            if f.name in out:
                continue
            value = getattr(self, f.name)
            if value != f.default:
                out[f.name] = _lists(value)
        return out

    @classmethod
    def field_names(cls) -> frozenset[str]:
        """The keys of a record's ``options`` that these options read."""
        return frozenset(f.name for f in fields(cls))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "RuleOptions":
        """Options from a record. Absent keys take defaults, and so does a key whose
        value is null (as ``options`` null is no options); unknown keys are ignored."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise OptionError(f"options must be an object, not {json_type(data)}")
        known = cls.field_names()
        kwargs = {k: whole_numbers(v) for k, v in data.items() if k in known and v is not None}
        return cls(**kwargs)

    @classmethod
    def stored(cls, data: Mapping[str, Any] | None) -> "RuleOptions":
        """The options of a table stored by this or an earlier version, read as they
        are: versions before 2 December 2026 took values past :data:`MAX_VALUE`, and
        a table they made must still load (a review found one left unreachable).
        Every other check holds."""
        token = _MOST.set(None)
        try:
            return cls.from_dict(data)
        finally:
            _MOST.reset(token)


def whole_numbers(value: Any, depth: int = 4) -> Any:
    """``value`` with each whole number written as a JSON fraction (``50.0``: JSON has
    one number type) made an ``int``; anything else as it is, for the checks to judge
    (a list nested deeper than any option's is left as it is, for them to refuse)."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2 ** 53:
        return int(value)   # (a larger one stays as sent, 1e+300: its digits were no number given)
    if isinstance(value, list) and depth > 0:
        return [whole_numbers(v, depth - 1) for v in value]
    return value


def _shown(value: Any, limit: int = 40) -> str:
    """A value as an error line shows it, cut short: a string quoted, anything else
    as JSON spells it (``true``, ``null``, ``{"a": 1}``, ``NaN``), since options
    come from JSON records and requests."""
    try:
        text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    except (RecursionError, ValueError):
        return "a list nested too deeply"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _flatten(value: Any, depth: int = 3) -> list | None:
    """The numbers of a (nested) list, or None: not a list of numbers nested at
    most ``depth`` deep (an option is at most a list of pairs)."""
    if isinstance(value, (list, tuple)):
        if depth == 0:
            return None
        out: list = []
        for v in value:
            inner = _flatten(v, depth - 1)
            if inner is None:
                return None
            out.extend(inner)
        return out
    return [value]


def _shape(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_shape(v) for v in value)
    return None


def _tuples(value: Any) -> Any:
    """A checked option value as kept: tuples for lists, and ``int`` for a whole
    number written as a float (``50.0``), so that scores are whole numbers too."""
    if isinstance(value, (list, tuple)):
        return tuple(_tuples(v) for v in value)
    return int(value)


def _lists(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_lists(v) for v in value]
    return value


DEFAULT_OPTIONS = RuleOptions()


def as_options(value: Any) -> RuleOptions:
    """``value`` as the options a hand, session or score is made under: ``None`` for the
    rulebook's, else :class:`RuleOptions` itself. Anything else is an :class:`OptionError`
    at once (a dict taken as options failed with ``AttributeError`` only once the hand
    needed one, leaving it broken)."""
    if value is None:
        return DEFAULT_OPTIONS
    if isinstance(value, RuleOptions):
        return value
    raise OptionError(f"options must be RuleOptions, not {type(value).__name__} "
                      "(RuleOptions.from_dict reads a record's options)")
