"""The bots' natural bidding system, as data (``docs/bidding.md``).

Hands are valued by points that count high cards by rank (:data:`TOP_POINTS`:
the four highest ranks of every suit 4, 3, 2, 1, every copy at full value)
and by suit length; not by the rulebook's honor count (Chapter 10), which
counts the cards by kind (Bright 4, Animal 2, Ribbon 1), as captured ones
score, not by what takes tricks (docs/bidding.md).

The system is the table :data:`SYSTEM`: for each situation of the auction,
rules in priority order, each naming a call and what it shows. One table
serves both directions:

* :func:`choose_call` bids a hand: the first rule of the situation whose
  requirements the hand meets and whose call is legal;
* :func:`auction_meanings` reads an auction: each call shows what the rules
  that could have produced it have in common. :func:`explain_call` gives
  that as one line, for a bot's call or a person's.

``docs/bidding.md`` prints :func:`system_table`; a test checks that the
document and this table agree.

>>> from flowerbridge.calls import parse_call
>>> from flowerbridge.seats import Seat
>>> explain_call([(Seat.N, parse_call("1R"))], 0)
'opening: 5+ Ribbons, longest suit, 15+ points'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Iterable, Sequence

from ..calls import BID, PASS, Call, Denomination, parse_call
from ..errors import FlowerBridgeError
from ..cards import Card, Suit
from ..seats import Seat

TOP_POINTS = {9: 4, 8: 3, 7: 2, 6: 1}
"""Points of a card by its rank (0 lowest, 9 highest): the four highest ranks of
every suit count 4, 3, 2, 1, every copy at full value (docs/bidding.md)."""

MAX_POINTS = 60
"""The whole deck's count (20 a suit): no hand holds more."""

FIT = 10
"""Cards in one suit between the partners that make it a trump fit (of 20 in a suit)."""

MOST_POINTS_READ = 32
"""The most points a call is read as showing in one hand. A row that needs partnership
points reads the rest as the caller's (game at 38, less partner's least shown): opposite a
partner who passed, a person's game bid on their own judgement read as 38+ points, which two
hands in 100,000 hold, and partner bid a grand slam on it. Past this (about one hand in a
thousand holds more) a call's points are not read: it shows its shape alone."""

GAME_LEVEL = {Denomination.P: 5, Denomination.R: 4, Denomination.A: 4, Denomination.NT: 3}
"""The lowest level whose contract points reach a game (100) on their own."""

OPENING = "opening"
RESPONSE_SUIT = "response to 1 of a suit"
RESPONSE_NT = "response to 1NT"
OVERCALL = "overcall"
CONTINUATION = "continuation"


# --------------------------------------------------------------------- hands

@dataclass(frozen=True)
class HandFacts:
    """What the system looks at in a 13-card hand: its points (:data:`TOP_POINTS`)
    and suit lengths."""

    points: int
    lengths: tuple[int, int, int]  # by Suit

    @classmethod
    def of(cls, cards: Iterable[Card]) -> "HandFacts":
        cards = list(cards)
        lengths = [0, 0, 0]
        for c in cards:
            lengths[c.suit] += 1
        return cls(sum(TOP_POINTS.get(c.rank, 0) for c in cards), (lengths[0], lengths[1], lengths[2]))

    @property
    def balanced(self) -> bool:
        """Every suit of :data:`BALANCED` length, 4 or 5 cards: with 13 cards in three suits, 5-4-4."""
        return min(self.lengths) >= BALANCED[0] and max(self.lengths) <= BALANCED[1]

    @property
    def longest(self) -> Suit:
        """The longest suit; of equal lengths, the higher-ranking suit."""
        return max(Suit, key=lambda s: (self.lengths[s], s))


LONG_SUIT = 6
"""A suit this long is rebid rather than No Trump raised (:meth:`Context.fit`)."""

BALANCED = (4, 5)
"""Suit lengths of a balanced hand."""


# ------------------------------------------------------------------ meanings

@dataclass(frozen=True)
class Meaning:
    """What calls show about the caller's 13 cards: a range of points (counted
    by rank, :data:`TOP_POINTS`) and a range of length for each suit (by :class:`Suit`)."""

    points: tuple[int, int] = (0, MAX_POINTS)
    min_length: tuple[int, int, int] = (0, 0, 0)
    max_length: tuple[int, int, int] = (13, 13, 13)

    def fits(self, facts: HandFacts) -> bool:
        """Whether a hand with ``facts`` could have made the calls."""
        return (self.points[0] <= facts.points <= self.points[1]
                and all(lo <= n <= hi for lo, n, hi in
                        zip(self.min_length, facts.lengths, self.max_length)))

    @property
    def possible(self) -> bool:
        """Whether some 13-card hand fits: calls off the system can contradict each other."""
        return (self.points[0] <= self.points[1] and sum(self.min_length) <= 13 <= sum(self.max_length)
                and all(lo <= hi for lo, hi in zip(self.min_length, self.max_length)))

    def __and__(self, other: "Meaning") -> "Meaning":
        """What two calls by one player show together."""
        return Meaning((max(self.points[0], other.points[0]), min(self.points[1], other.points[1])),
                       _pairwise(max, self.min_length, other.min_length),
                       _pairwise(min, self.max_length, other.max_length))

    def __or__(self, other: "Meaning") -> "Meaning":
        """What a call shows when either of two rules could have produced it."""
        return Meaning((min(self.points[0], other.points[0]), max(self.points[1], other.points[1])),
                       _pairwise(min, self.min_length, other.min_length),
                       _pairwise(max, self.max_length, other.max_length))


def _pairwise(f, a, b) -> tuple[int, int, int]:
    return (f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]))


NOTHING_SHOWN = Meaning()


# --------------------------------------------------------------------- rules

@dataclass(frozen=True)
class Rule:
    """One line of the system: in ``situation``, bid ``call`` with a hand that
    has ``points`` and the lengths asked for.

    ``call`` is ``Pass`` or ``LEVEL:STRAIN``. LEVEL is a number, ``cheap``
    (the cheapest legal level), ``jump`` (one above it) or ``game``
    (:data:`GAME_LEVEL`). STRAIN is ``P``/``R``/``A``/``NT`` or, relative to
    the hand and the auction, ``long`` (the bidder's longest suit),
    ``partner`` (partner's last suit), ``new`` (the longest suit partner has
    not bid) or ``fit`` (the partnership's fit, :func:`Context.fit`).

    ``length`` is the fewest cards in the suit bid; ``support`` the fewest in
    partner's suit. In the continuation, ``combined`` bounds the partnership's
    points: the bidder's own plus the least partner has shown. ``max_level``
    caps the level the rule may bid at. A ``contested`` rule bids only over
    an opponent's bid: when the last bid made was the opponents'. A
    ``suit_fit`` rule bids its fit only when that is a suit (a trump fit), not
    No Trump. An ``over_suit`` rule bids only over a suit bid, not over No Trump.
    """

    situation: str
    call: str
    label: str
    points: tuple[int, int] = (0, MAX_POINTS)
    length: int = 0
    support: int = 0
    balanced: bool = False
    combined: tuple[int, int] | None = None
    max_level: int = 7
    contested: bool = False
    suit_fit: bool = False
    over_suit: bool = False

    @property
    def strain(self) -> str:
        return self.call.partition(":")[2]

    @property
    def level(self) -> str:
        return self.call.partition(":")[0]


def _r(situation: str, call: str, label: str, **kw) -> Rule:
    return Rule(situation, call, label, **kw)


SYSTEM: tuple[Rule, ...] = (
    _r(OPENING, "2:NT", "strong balanced", points=(23, 27), balanced=True),
    _r(OPENING, "1:NT", "1NT opening", points=(17, 22), balanced=True),
    _r(OPENING, "1:long", "opening", points=(15, MAX_POINTS), length=5),
    _r(OPENING, "3:long", "preempt", points=(5, 14), length=8),
    _r(OPENING, "2:long", "weak two", points=(5, 14), length=7),
    _r(OPENING, "Pass", "no opening", points=(0, 14)),

    _r(RESPONSE_SUIT, "game:partner", "game raise", points=(24, MAX_POINTS), support=5),
    # (game at 38 together, less the jump's 15: "invites game" alone promised more than
    # the few openers of 23+ that hold no 2NT opening)
    _r(RESPONSE_SUIT, "jump:partner", "jump raise, invites game (opener bids it with 23+ points)",
       points=(15, 23), support=5),
    _r(RESPONSE_SUIT, "cheap:partner", "simple raise", points=(8, 14), support=5),
    _r(RESPONSE_SUIT, "cheap:new", "new suit", points=(11, MAX_POINTS), length=5, max_level=2),
    # 11+ points without support always has a new suit to bid (9 cards in the
    # other two suits hold a 5-card one), so "no fit" is 9-10 points, and a
    # response rests below game when it has no fit.
    _r(RESPONSE_SUIT, "cheap:NT", "no fit", points=(9, 10)),
    _r(RESPONSE_SUIT, "Pass", "weak", points=(0, 8)),

    _r(RESPONSE_NT, "2:long", "to play", length=6),
    _r(RESPONSE_NT, "Pass", "no long suit"),

    _r(OVERCALL, "cheap:NT", "1NT overcall", points=(18, 22), balanced=True, max_level=1),
    _r(OVERCALL, "cheap:long", "overcall", points=(13, MAX_POINTS), length=5, max_level=1),
    _r(OVERCALL, "cheap:long", "overcall", points=(14, MAX_POINTS), length=6, max_level=2),
    _r(OVERCALL, "jump:long", "weak jump overcall", points=(8, 12), length=7, max_level=2),
    # not over No Trump: 2NT over the opponents' 1NT (an opening of 17-22, or a
    # response where they hold 24+ together) lost double dummy every time it
    # changed the result (the bidding review of 7 December 2026, docs/bidding.md)
    _r(OVERCALL, "cheap:NT", "No Trump overcall", points=(18, MAX_POINTS), balanced=True, max_level=2,
       over_suit=True),
    _r(OVERCALL, "cheap:long", "overcall", points=(16, MAX_POINTS), length=6, max_level=3),
    _r(OVERCALL, "Pass", "no overcall"),

    _r(CONTINUATION, "7:fit", "grand slam", combined=(48, MAX_POINTS)),
    _r(CONTINUATION, "6:fit", "small slam", combined=(43, MAX_POINTS)),
    _r(CONTINUATION, "game:fit", "game", combined=(38, MAX_POINTS)),
    _r(CONTINUATION, "cheap:fit", "competes", max_level=3, contested=True, suit_fit=True),
    # (in a suit: 2NT over partner's 1NT scores what 1NT with an overtrick does and risks a
    # trick more: matched in play, passing gained, the bidding review of 7 December 2026, second)
    _r(CONTINUATION, "cheap:fit", "competes", combined=(26, MAX_POINTS), max_level=2, suit_fit=True),
    _r(CONTINUATION, "cheap:long", "long suit", length=6, combined=(26, MAX_POINTS), max_level=2),
    _r(CONTINUATION, "cheap:long", "long suit", points=(15, MAX_POINTS), length=7, max_level=3),
    _r(CONTINUATION, "cheap:long", "long suit", points=(15, MAX_POINTS), length=6, max_level=2),
    _r(CONTINUATION, "Pass", "no reason to bid on"),
)
"""The bidding system: per situation, rules in priority order."""


# -------------------------------------------------------------------- context

@dataclass(frozen=True)
class Context:
    """Where one call in an auction is made, from the caller's side of the table."""

    situation: str
    last_bid: Call | None
    partner_shows: Meaning
    partner_strains: tuple[Denomination, ...]  # partner's bids' denominations, in order
    contested: bool = False  # the last bid was an opponent's
    their_strains: tuple[Denomination, ...] = ()  # the opponents' strains this side has not bid

    @cached_property
    def own_suits(self) -> list[Suit]:
        """The suits this side may name as its own: all but those only the opponents have bid."""
        theirs = {d.trump for d in self.their_strains}
        return [s for s in Suit if s not in theirs]

    def longest(self, facts: HandFacts) -> Suit | None:
        """The bidder's longest suit of :attr:`own_suits` (of equal lengths, the higher)."""
        suits = self.own_suits
        return max(suits, key=lambda s: (facts.lengths[s], s)) if suits else None

    @property
    def partner_suit(self) -> Suit | None:
        """Partner's last suit bid, if the last strain partner named is a suit."""
        if not self.partner_strains:
            return None
        return self.partner_strains[-1].trump

    def cheapest(self, strain: Denomination) -> int:
        """The lowest level at which ``strain`` may be bid now (8 when none)."""
        if self.last_bid is None:
            return 1
        return self.last_bid.level + (1 if strain <= self.last_bid.strain else 0)

    def fit(self, facts: HandFacts) -> Denomination | None:
        """The partnership's strain: the suit of :attr:`own_suits` where this
        hand and partner's shown length reach :data:`FIT` (the longer, then
        the higher); else No Trump when partner's last bid was No Trump and
        this hand has no suit of its own of :data:`LONG_SUIT` cards (it rebids that
        suit instead; a long suit the opponents bid is no suit to rebid); else none."""
        suits = self.own_suits
        if suits:
            best = max(suits, key=lambda s: (facts.lengths[s] + self.partner_shows.min_length[s], s))
            if facts.lengths[best] + self.partner_shows.min_length[best] >= FIT:
                return Denomination(best)
        if self.partner_strains and self.partner_strains[-1] is Denomination.NT \
                and max((facts.lengths[s] for s in suits), default=0) < LONG_SUIT:
            return Denomination.NT
        return None


def _level(rule: Rule, strain: Denomination, ctx: Context) -> int:
    spec = rule.level
    if spec == "cheap":
        return ctx.cheapest(strain)
    if spec == "jump":
        return ctx.cheapest(strain) + 1
    if spec == "game":
        return GAME_LEVEL[strain]
    return int(spec)


def _strains(rule: Rule, ctx: Context, facts: HandFacts | None) -> list[Denomination]:
    """The strains ``rule`` may bid: for a hand, the one it names; without
    a hand (reading an auction), every one it could name."""
    spec = rule.strain
    if spec in ("P", "R", "A", "NT"):
        return [Denomination.parse(spec)]
    if spec == "partner":
        suit = ctx.partner_suit
        return [] if suit is None else [Denomination(suit)]
    if facts is None:
        choices = [Denomination(s) for s in ctx.own_suits]
        # No Trump is the fit only over partner's No Trump (Context.fit): read
        # otherwise, 1A Pass 2A Pass 2NT was taken for a call of the system
        if spec == "fit" and ctx.partner_strains and ctx.partner_strains[-1] is Denomination.NT:
            choices.append(Denomination.NT)
        if spec == "new" and ctx.partner_suit is not None and Denomination(ctx.partner_suit) in choices:
            choices.remove(Denomination(ctx.partner_suit))
        return choices
    fit = ctx.fit(facts)
    if spec == "long":
        longest = ctx.longest(facts)
        if longest is None:
            return []
        # in the continuation, a suit fit is not left for another long suit
        if rule.situation == CONTINUATION and fit is not None and fit.trump is not None \
                and fit.trump is not longest:
            return []
        return [Denomination(longest)]
    if spec == "new":
        others = [s for s in ctx.own_suits if s is not ctx.partner_suit]
        return [Denomination(max(others, key=lambda s: (facts.lengths[s], s)))] if others else []
    return [] if fit is None else [fit]


def _call(rule: Rule, strain: Denomination, ctx: Context) -> Call | None:
    """The call ``rule`` makes in ``strain``, if it is legal and within its cap."""
    level = _level(rule, strain, ctx)
    if level > min(rule.max_level, 7) or level < ctx.cheapest(strain):
        return None
    if rule.contested and not ctx.contested:
        return None
    if rule.suit_fit and strain is Denomination.NT:
        return None
    if rule.over_suit and ctx.last_bid is not None and ctx.last_bid.strain is Denomination.NT:
        return None
    return BID[level][strain]


def _meaning(rule: Rule, strain: Denomination | None, ctx: Context) -> Meaning:
    """What making ``rule``'s call in ``strain`` shows."""
    lo, hi = rule.points
    if rule.combined is not None:
        partner = ctx.partner_shows.points[0]
        lo = max(lo, rule.combined[0] - partner)
        if rule.combined[1] < MAX_POINTS:
            hi = min(hi, rule.combined[1] - partner)
    mins = [0, 0, 0]
    maxs = [13, 13, 13]
    if rule.balanced:
        mins = [BALANCED[0]] * 3
        maxs = [BALANCED[1]] * 3
    suit = strain.trump if strain is not None else None
    if suit is not None:
        mins[suit] = max(mins[suit], rule.length)
        if rule.strain == "fit" and rule.call != "Pass":
            mins[suit] = max(mins[suit], FIT - ctx.partner_shows.min_length[suit])
    elif strain is Denomination.NT and rule.strain == "fit":
        # No Trump is the fit only without a suit of its own long enough to rebid (Context.fit).
        maxs = [min(m, LONG_SUIT - 1) if Suit(i) in ctx.own_suits else m for i, m in enumerate(maxs)]
    if rule.support and ctx.partner_suit is not None:
        mins[ctx.partner_suit] = max(mins[ctx.partner_suit], rule.support)
    return Meaning((max(0, lo), max(0, hi)), (mins[0], mins[1], mins[2]), (maxs[0], maxs[1], maxs[2]))


def _qualifies(rule: Rule, facts: HandFacts, strain: Denomination | None, ctx: Context) -> bool:
    meaning = _meaning(rule, strain, ctx)
    if rule.strain == "long" and strain is not None and strain.trump is not ctx.longest(facts):
        return False
    return meaning.fits(facts)


# ------------------------------------------------------------------ choosing

@dataclass(frozen=True)
class Bid:
    """A call chosen or read by the system, the rule behind it and what it shows."""

    call: Call
    rule: Rule | None
    meaning: Meaning
    explanation: str
    # read as more points than a hand holds but rarely: its points not read (MOST_POINTS_READ),
    # and the seat's calls not replayed by a sampler (no hand it deals would make them)
    past_belief: bool = False


def choose_call(hand: Iterable[Card], auction: Sequence[tuple[Seat, Call]], seat: Seat) -> Bid:
    """The call the system makes for ``seat`` holding ``hand`` after ``auction``."""
    ctx = _contexts(auction, next_seat=seat)[0][-1]
    return _read(_choose(HandFacts.of(hand), ctx), ctx)


def _choose(facts: HandFacts, ctx: Context) -> Call:
    """The call of the first rule of ``ctx``'s situation that ``facts`` meet."""
    for rule in _rules(ctx.situation):
        if rule.call == "Pass":
            if _qualifies(rule, facts, None, ctx):
                return PASS
            continue
        for strain in _strains(rule, ctx, facts):
            call = _call(rule, strain, ctx)
            if call is not None and _qualifies(rule, facts, strain, ctx):
                return call
    return PASS


def system_calls(auction: Sequence[tuple[Seat, Call]]) -> dict[Seat, list[tuple[Context, Call]]]:
    """Each seat's calls of ``auction``, each with the context it was made in,
    to replay on a hand with :func:`makes_calls`; a seat that made a call no
    row of the system produces, or one read past belief (more than
    :data:`MOST_POINTS_READ` points), is left out (nothing could be replayed for it)."""
    return read_auction(auction)[1]


def makes_calls(facts: HandFacts, calls: Sequence[tuple[Context, Call]]) -> bool:
    """Whether a hand with ``facts`` would have made every one of ``calls``
    (from :func:`system_calls`) by the system."""
    return all(_choose(facts, ctx) == call for ctx, call in calls)


# The rows of SYSTEM by situation, made from the table they were made of (a
# test or a study may swap the table: the rows are made again from the new one)
_RULES: tuple[tuple[Rule, ...], dict[str, list[Rule]]] = ((), {})


def _rules(situation: str) -> list[Rule]:
    global _RULES
    system, by_situation = _RULES
    if system is not SYSTEM:
        system, by_situation = SYSTEM, {}
        _RULES = (system, by_situation)
    if situation not in by_situation:
        by_situation[situation] = [r for r in system if r.situation == situation]
    return by_situation[situation]


def _read(call: Call, ctx: Context) -> Bid:
    """What ``call`` shows in ``ctx``: the hull of every rule that could make it."""
    matches: list[tuple[Rule, Meaning]] = []
    for rule in _rules(ctx.situation):
        if call.is_pass:
            if rule.call == "Pass":
                matches.append((rule, _meaning(rule, None, ctx)))
            continue
        if rule.call == "Pass":
            continue
        if call.denomination in _strains(rule, ctx, None) and _call(rule, call.denomination, ctx) is call:
            matches.append((rule, _meaning(rule, call.denomination, ctx)))
    if not matches:
        article = "an" if ctx.situation[0] in "aeiou" else "a"
        return Bid(call, None, NOTHING_SHOWN, f"not part of the system for {article} {ctx.situation}")
    meaning = matches[0][1]
    for _, m in matches[1:]:
        meaning = meaning | m
    rules = [rule for rule, _ in matches]
    barred = [s for s in Suit if s not in ctx.own_suits]
    if meaning.points[0] > MOST_POINTS_READ:
        # (said with its figures, "38+ points, partnership 38+ (... not counted on)", it
        # contradicted itself)
        shown = meaning.points[0]
        meaning = replace(meaning, points=(0, meaning.points[1]))
        said = (describe(rules, call, meaning, ctx.partner_shows.points[0], barred, partnership=False)
                + f" (its points are not read: it would show {shown}+, and a hand rarely holds more than "
                  f"{MOST_POINTS_READ})")
        return Bid(call, rules[0], meaning, said, past_belief=True)
    return Bid(call, rules[0], meaning, describe(rules, call, meaning, ctx.partner_shows.points[0], barred))


def describe(rules: Sequence[Rule], call: Call, meaning: Meaning, partner_points: int = 0,
             barred: Sequence[Suit] = (), partnership: bool = True) -> str:
    """One line for a hover: ``opening: 5+ Ribbons, longest suit, 15+ points``.

    ``rules`` are the rows that could have made the call (their names are
    joined by "or"), ``meaning`` what they have in common; ``partner_points``
    is the least partner has shown, to state a partnership total where every
    row counts one; ``barred`` are the suits only the opponents have bid,
    which a ``long`` row does not count (``longest suit other than Plains``)."""
    balanced = all(rule.balanced for rule in rules)
    parts: list[str] = ["balanced"] if balanced else []
    floor = BALANCED[0] if balanced else 0
    parts += [f"{meaning.min_length[s]}+ {s.english}" for s in sorted(Suit, reverse=True)
              if meaning.min_length[s] > floor]
    if call.is_bid and all(rule.strain == "long" for rule in rules):
        parts.append("longest suit" + (" other than " + " and ".join(s.english for s in barred)
                                       if barred else ""))
    short = [s for s in Suit if meaning.max_length[s] < LONG_SUIT]
    if not balanced and short:
        # No Trump as the fit bars a long suit of this side's own (Context.fit), not one only
        # the opponents have bid: "no 6-card suit other than Ribbons" (it once said nothing)
        others = [s for s in sorted(Suit, reverse=True) if s not in short]
        if len(short) == 1:     # (both other suits the opponents': "other than Ribbons and Plains")
            parts.append(f"at most {LONG_SUIT - 1} {short[0].english}")
        else:
            parts.append(f"no {LONG_SUIT}-card suit" + (" other than " + " and ".join(s.english for s in others)
                                                         if others else ""))
    points = _points_text(meaning.points)
    if points:
        parts.append(points)
    if partnership and all(rule.combined is not None for rule in rules):
        parts.append(f"partnership {meaning.points[0] + partner_points}+")
    name = " or ".join(dict.fromkeys(rule.label for rule in rules))
    return f"{name}: {', '.join(parts)}" if parts else name


def _points_text(points: tuple[int, int]) -> str:
    lo, hi = points
    if lo <= 0 and hi >= MAX_POINTS:
        return ""
    if hi >= MAX_POINTS:
        return f"{lo}+ points"
    if lo <= 0:
        return f"at most {hi} points"
    return f"{lo}–{hi} points"


# ------------------------------------------------------------------- reading

def _contexts(auction: Sequence[tuple[Seat, Call]], next_seat: Seat) -> tuple[list[Context], list[Bid]]:
    """The context of every call of ``auction`` and of the next, by
    ``next_seat``, with what each caller's partner had shown, read left to
    right; and what each call of ``auction`` shows in its context."""
    shown: dict[Seat, Meaning] = {}
    strains: dict[Seat, list[Denomination]] = {s: [] for s in Seat}
    contexts: list[Context] = []
    bids: list[Bid] = []
    last_bid: Call | None = None
    last_bidder: Seat | None = None
    opening: tuple[Seat, Call] | None = None
    bids_by_side = [0, 0]
    for i in range(len(auction) + 1):
        seat = auction[i][0] if i < len(auction) else next_seat
        partner = seat.partner
        situation = _situation(seat, opening, bids_by_side)
        ours = strains[seat] + strains[partner]
        theirs = tuple(dict.fromkeys(d for d in strains[seat.lho] + strains[seat.rho] if d not in ours))
        ctx = Context(situation, last_bid, shown.get(partner, NOTHING_SHOWN), tuple(strains[partner]),
                      last_bidder is not None and last_bidder.side is not seat.side, theirs)
        contexts.append(ctx)
        if i == len(auction):
            break
        call = auction[i][1]
        bids.append(_read(call, ctx))
        meaning = bids[-1].meaning
        shown[seat] = shown[seat] & meaning if seat in shown else meaning
        if call.is_bid:
            if opening is None:
                opening = (seat, call)
            last_bid = call
            last_bidder = seat
            strains[seat].append(call.strain)
            bids_by_side[seat.side] += 1
    return contexts, bids


def _situation(seat: Seat, opening: tuple[Seat, Call] | None, bids_by_side: list[int]) -> str:
    """Which part of the system applies to ``seat``'s call (docs/bidding.md)."""
    if opening is None:
        return OPENING
    if bids_by_side[seat.side] == 0:
        return OVERCALL
    opener, call = opening
    if opener is seat.partner and bids_by_side[seat.side] == 1 and bids_by_side[1 - seat.side] == 0 \
            and call.level == 1:
        return RESPONSE_NT if call.denomination is Denomination.NT else RESPONSE_SUIT
    return CONTINUATION


def auction_meanings(auction: Sequence[tuple[Seat, Call]]) -> list[Bid]:
    """Every call of ``auction`` read by the system, in order."""
    if not auction:
        return []
    return _contexts(auction, next_seat=auction[-1][0].lho)[1]


def explain_call(auction: Sequence[tuple[Seat, Call]], index: int) -> str:
    """The one-line meaning of call ``index`` (0-based) of ``auction``,
    read by the system whoever made it. Seats and calls may be given as records write
    them (``("N", "1P")``)."""
    calls = [(Seat(seat), parse_call(call)) for seat, call in auction]
    if isinstance(index, bool) or not isinstance(index, int) or not -len(calls) <= index < len(calls):
        raise FlowerBridgeError(f"no call {index!r} in an auction of {len(calls)} "
                                f"(the first is 0, the last -1)")
    return auction_meanings(calls)[index].explanation


def shown_by_seat(auction: Sequence[tuple[Seat, Call]]) -> dict[Seat, Meaning]:
    """What each seat's calls have shown, all calls together."""
    return read_auction(auction)[0]


def read_auction(auction: Sequence[tuple[Seat, Call]]) -> tuple[dict[Seat, Meaning],
                                                              dict[Seat, list[tuple[Context, Call]]]]:
    """:func:`shown_by_seat` and :func:`system_calls` of ``auction`` from one
    reading of it (a sampler wants both at every decision)."""
    shown = {seat: NOTHING_SHOWN for seat in Seat}
    calls: dict[Seat, list[tuple[Context, Call]]] = {}
    off_system: set[Seat] = set()
    if auction:
        contexts, bids = _contexts(auction, next_seat=auction[-1][0].lho)
        for (seat, call), ctx, bid in zip(auction, contexts, bids):
            shown[seat] = shown[seat] & bid.meaning
            if bid.rule is None or bid.past_belief:
                off_system.add(seat)
            calls.setdefault(seat, []).append((ctx, call))
    return shown, {seat: c for seat, c in calls.items() if seat not in off_system}


def system_table() -> str:
    """The system as the Markdown table printed in ``docs/bidding.md``."""
    rows = ["| situation | call | name | points | shape | partnership |",
            "|---|---|---|---|---|---|"]
    for rule in SYSTEM:
        shape = []
        if rule.balanced:
            shape.append(f"balanced ({BALANCED[0]}–{BALANCED[1]} in every suit)")
        if rule.length:
            shape.append(f"{rule.length}+ cards in the suit bid")
        if rule.support:
            shape.append(f"{rule.support}+ cards in partner's suit")
        if rule.strain == "fit" and rule.call != "Pass":
            shape.append(f"{FIT}+ cards with partner's shown length")
        combined = "" if rule.combined is None else _points_text(rule.combined)
        cap = f" (level ≤ {rule.max_level})" if rule.max_level < 7 else ""
        if rule.contested:
            cap += " over an opponent's bid"
        if rule.suit_fit:
            cap += ", in a suit"
        if rule.over_suit:
            cap += " over a suit bid"
        rows.append(f"| {rule.situation} | `{rule.call}`{cap} | {rule.label} | "
                    f"{_points_text(rule.points) or 'any'} | {'; '.join(shape) or 'any'} | "
                    f"{combined or '—'} |")
    return "\n".join(rows)
