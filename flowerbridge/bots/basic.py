"""The ``basic`` bot: the bidding system and a club player's rules of thumb.

Card play, in order of priority, each rule naming itself in the decision's
explanation. Declarer sees two hands, its own and the dummy; ``partner``
below is the other hand of the side.

* declarer leading: while the opponents may hold trumps, first a loser for
  partner to ruff (as below: ruffs in the shorter trump hand come before
  drawing trumps), then draw trumps, with a boss trump (a low trump when
  partner holds a boss trump too, to win with partner's and keep this
  hand's), or else when the two hands hold at least as many trumps as
  declarer has not seen (with the top trump when partner holds none higher,
  else a low one toward partner's); at
  No Trump, while the tricks won and the boss cards of both hands cannot make
  the contract, set up the long suit (counted over both hands) unless all its
  cards are boss; cash a boss card in a suit the opponents cannot ruff, except
  where partner is shorter in that suit and holds a boss card of it too (the
  short hand's boss card is cashed first; but not a single one where the
  opponents hold none of the suit: it falls under the long hand's); lead low to partner's boss card in
  a side suit the opponents cannot ruff; at a suit contract, lead a loser (a
  side-suit card that is not boss) in a suit partner is out of, when partner
  holds trumps but no more than the hand on lead; otherwise take the longest
  suit (at No Trump, counted over both hands): lead its top card when partner
  holds no higher card of it or when that card is boss, else a low card toward
  partner's (a suit the opponents may ruff only when every legal card is in
  one);
* defender leading: at No Trump, when the tricks won and its boss cards
  defeat the contract, cash them; at a suit contract, cash a boss card in a
  suit the opponents cannot ruff; lead partner's suit (the suits partner bid, the
  last first, then the first suit partner led): a boss card, or the top of
  a one- or two-card holding or of a sequence (the two highest cards equal
  or adjacent in rank), else a low card; at a suit contract, holding
  trumps, lead a singleton that is not boss, to ruff the suit later;
  otherwise lead the longest suit, trumps aside: its boss card, or the top of a
  sequence of three or more cards, else a low card. Partner's suit, the
  singleton and the long suit are chosen among the suits the opponents
  cannot ruff while there is one. At No Trump a defender cashes boss cards
  only in the suit it leads this way (unless they defeat the contract), so
  as not to set up the opponents' cards in the other suits;
* following: second hand low (a sure winner takes a trick with honors in
  it, except declarer's when partner, playing fourth, is sure to win the
  trick — at a suit contract, only once the opponents can hold no trump or
  when trumps are led: it keeps its winner, often an entry) — and the
  second hand wins with its cheapest boss card of the suit led at a suit
  contract unless partner, seen playing fourth, holds a boss card of it;
  it wins with its cheapest winner when partner, seen playing fourth,
  cannot beat the card led, and in the last four tricks; third hand high,
  but low when every card the fourth hand may hold that beats partner's
  card beats ours too — and low to partner's opening lead where the only card that may
  beat partner's is the twin of ours (ours would win nothing the twin would not); never
  overtake a trick partner is sure to win — throw a small card, or (except
  declarer at No Trump, whose honors may win tricks of their own later) feed
  partner's trick an honor card that could not win a trick of its own — two
  or more copies of higher cards may be with the opponents (captured honors
  score, Chapter 13); win as cheaply as possible in fourth seat;
* out of the suit led: trump when the opponents are winning, with the
  cheapest trump that wins — high enough to be sure only where an opponent
  still to play has shown out of the suit led (only then can it overtrump)
  — unless declarer's second hand sees partner, fourth, win the trick with
  a boss card; never ruff a trick partner is sure to win while another
  card is legal (discard a boss card rather than a trump), but ruff one
  an opponent still to play may beat (with the cheapest trump sure to
  win, else the cheapest); otherwise discard the least useful card (one
  that cannot win a trick before one that may, honors aside).

A "low card" is the one least worth keeping: fewest honor points, then the
lowest rank. "Boss" accounts for both copies of every card and for the 8 undealt cards:
a card is boss when no higher card of its suit may be with an opponent
(:class:`~flowerbridge.bots.knowledge.Knowledge`). Among boss cards, those
whose identical twin may be with an opponent are cashed first: they win
only when played before it (R12).
"""

from __future__ import annotations

from typing import cast

from ..cards import CARDS, Card
from ..errors import FlowerBridgeError
from ..observation import Observation
from ..seats import Seat
from ..state import beats, trick_winner
from .base import Decision
from .bidding import choose_call
from .knowledge import Knowledge


class BasicBot:
    """Bids by :mod:`~flowerbridge.bots.bidding` and plays by rules of thumb.

    Deterministic: it uses no randomness, so ``seed`` is accepted and ignored.
    """

    name = "basic"

    def __init__(self, seed: int | str | None = None) -> None:
        self.seed = seed

    def decide(self, observation: Observation) -> Decision:
        """The call or card, with a one-line reason."""
        if not observation.legal:
            raise FlowerBridgeError(f"{observation.seat} has nothing to do")
        if observation.phase == "auction":
            bid = choose_call(observation.hand, observation.auction, observation.seat)
            return Decision(bid.call, bid.explanation)
        return self.decide_card(observation)

    def act(self, observation: Observation):
        return self.decide(observation).action

    def decide_card(self, observation: Observation) -> Decision:
        card, reason = choose_card(Knowledge(observation))
        return Decision(card, reason)


def _cheap(card: Card) -> tuple[int, int]:
    """Sort key: the card least worth keeping — fewest honor points, then lowest."""
    return (card.points, card.rank)


def choose_card(k: Knowledge) -> tuple[Card, str]:
    """A card from ``k.obs.legal`` by the rules of thumb, and the rule used."""
    legal = cast("list[Card]", list(k.obs.legal))    # (the play: cards only)
    if len(legal) == 1:
        return legal[0], "the only legal card"
    if not k.obs.current_trick:
        return _lead(k, legal)
    return _follow(k, legal)


def _lead(k: Knowledge, legal: list[Card]) -> tuple[Card, str]:
    declaring = k.contract is not None and k.hand_seat.side is k.contract.side
    if declaring:
        return _declarer_lead(k, legal)
    return _defender_lead(k, legal)


def _top(cards: list[Card]) -> Card:
    return max(cards, key=lambda c: c.rank)


def _declarer_lead(k: Knowledge, legal: list[Card]) -> tuple[Card, str]:
    """Declarer's lead, from either hand: it sees both (its own and the dummy)."""
    other = k.visible.get(k.hand_seat.partner, ())
    trumps = [c for c in legal if c.suit is k.trump]
    if trumps and k.opponents_may_hold_trumps():
        # Ruffs in the hand with no more trumps come before drawing trumps: drawn, its
        # trumps would fall under the opponents' instead of taking a trick each.
        ruff = _ruff_lead(k, legal, other)
        if ruff is not None:
            return ruff
        if k.is_boss(_top(trumps)):
            # Partner holds a boss trump too, sure to win led to: lead low to it,
            # keeping this hand's.
            if len(trumps) > 1 and any(c.suit is k.trump and _wins_led_to(k, c) for c in other):
                return min(trumps, key=_cheap), "draws trumps with a low trump to partner's boss trump"
            return _top(trumps), "draws trumps with a boss trump"
        # Without a boss trump: draw them while the side holds at least as
        # many trumps as it has not seen (with the opponents or undealt).
        ours = sum(1 for c in (*k.hand, *other) if c.suit is k.trump)
        unseen = sum(k.unseen[c.index] for c in CARDS if c.suit is k.trump)
        if ours >= unseen:
            partners = [c for c in other if c.suit is k.trump]
            if not partners or _top(trumps).rank > _top(partners).rank:
                return _top(trumps), "draws trumps with its top trump"
            return min(trumps, key=_cheap), "draws trumps with a low trump"
    # At No Trump, while the boss cards of both hands cannot make the contract,
    # set up the long suit before cashing boss cards (which would set up the
    # opponents' next cards in their suits).
    if k.trump is None and not _enough_boss_tricks(k, other):
        setup = _long_suit(k, legal, other, setting_up=True)
        if setup is not None:
            return setup[0], "sets up its long suit before cashing boss cards"
    # High card from the short hand first: where partner holds a boss card of
    # the suit too and fewer cards in it, partner's is cashed first (below).
    bosses = [c for c in legal if k.is_boss(c) and c.suit is not k.trump
              and not k.opponents_may_ruff(c.suit) and not _cross_first(k, c.suit, other)]
    if bosses:
        return _cash(k, bosses), "cashes a boss card"
    for c in sorted(legal, key=_cheap):
        if c.suit is k.trump or k.opponents_may_ruff(c.suit):
            continue
        if any(x.suit is c.suit and _wins_led_to(k, x) for x in other):
            return c, "leads low to partner's boss card"
    ruff = _ruff_lead(k, legal, other)
    if ruff is not None:
        return ruff
    long = _long_suit(k, legal, other)
    assert long is not None
    return long


def _enough_boss_tricks(k: Knowledge, other: tuple[Card, ...]) -> bool:
    """Whether the tricks won and the boss cards of both hands (in each suit
    no more than the longer hand's length) make the contract."""
    assert k.contract is not None
    sure = 0
    for suit in {c.suit for c in (*k.hand, *other)}:
        mine = [c for c in k.hand if c.suit is suit]
        theirs = [c for c in other if c.suit is suit]
        sure += min(sum(1 for c in (*mine, *theirs) if k.is_boss(c)), max(len(mine), len(theirs)))
    return k.obs.tricks_won[k.hand_seat.side] + sure >= k.contract.tricks_required


def _long_suit(k: Knowledge, legal: list[Card], other: tuple[Card, ...],
               setting_up: bool = False) -> tuple[Card, str] | None:
    """A lead in the longest suit (at No Trump, counted over both hands); when
    ``setting_up``, none where every card of it in both hands is boss. A suit
    the opponents may ruff is left alone while another is legal."""
    legal = _unruffed(k, legal)
    lengths = {c.suit: sum(1 for x in k.hand if x.suit is c.suit) for c in legal}
    if k.trump is None:
        for x in other:
            if x.suit in lengths:
                lengths[x.suit] += 1
    suit = max(lengths, key=lambda s: (lengths[s], -s))
    own = [c for c in legal if c.suit is suit]
    partners = [c for c in other if c.suit is suit]
    if setting_up and all(k.is_boss(c) for c in (*own, *partners)):
        return None
    if not partners or _top(own).rank > _top(partners).rank:
        return _top(own), "leads the top of its long suit"
    if k.is_boss(_top(own)):
        return _top(own), "cashes a boss card of its long suit"
    return min(own, key=_cheap), "leads from length"


def _cross_first(k: Knowledge, suit: int, other: tuple[Card, ...]) -> bool:
    """Whether partner, shorter in ``suit``, holds a boss card of it too, sure to win
    led to (:func:`_wins_led_to`). Not a single card where the opponents can hold none of
    the suit: it falls under this hand's card led, or wins the trick anyway, where led to
    it would leave this hand's winners behind."""
    theirs = [c for c in other if c.suit == suit]
    mine = [c for c in k.hand if c.suit == suit]
    if len(theirs) == 1 and not any(k.is_opponent(s) and k.may_hold(s, c)
                                    for s in Seat for c in CARDS if c.suit == suit):
        return False
    return 0 < len(theirs) < len(mine) and any(_wins_led_to(k, c) for c in theirs)


def _wins_led_to(k: Knowledge, card: Card) -> bool:
    """Whether partner's boss ``card`` wins a trick this hand leads to it: the next
    hand, playing before partner, may not hold its twin, which played first would
    win (R12). (An opponent's twin played after it loses.)"""
    return k.is_boss(card) and not k.may_hold(k.hand_seat.lho, card)


def _ruff_lead(k: Knowledge, legal: list[Card], other: tuple[Card, ...]) -> tuple[Card, str] | None:
    """At a suit contract, a loser led for the hand with fewer trumps to ruff."""
    if k.trump is None:
        return None
    mine = sum(1 for c in k.hand if c.suit is k.trump)
    theirs = sum(1 for c in other if c.suit is k.trump)
    if 0 < theirs <= mine:
        held = {c.suit for c in other}
        losers = [c for c in legal if c.suit not in held and c.suit is not k.trump and not k.is_boss(c)]
        if losers:
            return min(losers, key=_cheap), "leads a loser for partner to ruff"
    return None


def _defender_lead(k: Knowledge, legal: list[Card]) -> tuple[Card, str]:
    """A defender's lead: trumps only when it holds nothing else."""
    assert k.contract is not None
    bosses = [c for c in legal if k.is_boss(c) and c.suit is not k.trump
              and not k.opponents_may_ruff(c.suit)]
    # At No Trump, only the boss cards that defeat the contract are cashed,
    # before they can be squeezed out or their twins cashed first (R12).
    if bosses and (k.trump is not None
                   or k.obs.tricks_won[k.hand_seat.side] + len(bosses) > 13 - k.contract.tricks_required):
        return _cash(k, bosses), ("cashes a boss card" if k.trump is not None
                                  else "cashes the boss cards that defeat the contract")
    # Suits the opponents may ruff are led only when nothing else is left.
    pool = _unruffed(k, [c for c in legal if c.suit is not k.trump] or legal)
    # Partner's suits: the bid ones, the last bid first, then the first suit partner led.
    bid = [call.strain.trump for s, call in k.obs.auction
           if s is k.hand_seat.partner and call.is_bid and call.strain.trump is not None]
    led = [plays[0][1].suit for leader, plays, _ in k.obs.tricks
           if leader is k.hand_seat.partner and plays[0][1].suit is not k.trump]
    # (a holding is judged by the hand's cards: ``legal`` names two identical cards once,
    # so twins at the top never made a sequence and 10P 10P 3P was a doubleton)
    for suit in [*reversed(bid), *led[:1]]:
        held = [c for c in k.hand if c.suit is suit]
        if any(c.suit is suit for c in pool):
            if k.is_boss(_top(held)):
                return _top(held), "cashes a boss card of partner's suit"
            if len(held) <= 2:
                return _top(held), "leads the top of a short holding in partner's suit"
            if _sequence(held):
                return _top(held), "leads the top of a sequence in partner's suit"
            return min(held, key=_cheap), "leads partner's suit"
    lengths = {c.suit: sum(1 for x in k.hand if x.suit is c.suit) for c in pool}
    if k.trump is not None and any(c.suit is k.trump for c in k.hand):
        singles = [c for c in pool if lengths[c.suit] == 1 and not k.is_boss(c)]
        if singles:
            return min(singles, key=_cheap), "leads a singleton to ruff the suit later"
    suit = max(lengths, key=lambda s: (lengths[s], -s))
    own = [c for c in k.hand if c.suit is suit]
    if k.is_boss(_top(own)):
        return _top(own), "cashes a boss card of its long suit"
    if len(own) >= 3 and _sequence(own):
        return _top(own), "leads the top of a sequence"
    return min(own, key=_cheap), "leads from length"


def _unruffed(k: Knowledge, cards: list[Card]) -> list[Card]:
    """``cards`` less those of suits the opponents may ruff, unless that leaves none."""
    return [c for c in cards if not k.opponents_may_ruff(c.suit)] or cards


def _cash(k: Knowledge, bosses: list[Card]) -> Card:
    """The boss card to cash first: one whose twin an opponent may hold
    (R12), then the most honor points, then the highest."""
    return max(bosses, key=lambda c: (_twin_out(k, c), c.points, c.rank))


def _twin_out(k: Knowledge, card: Card) -> bool:
    """Whether the identical twin of ``card`` may be with an opponent: then
    ``card`` wins only when played before it (R12), so it is cashed first."""
    return any(k.is_opponent(s) and k.may_hold(s, card) for s in Seat)


def _sequence(cards: list[Card]) -> bool:
    """Whether the two highest cards are equal or adjacent in rank."""
    ranks = sorted((c.rank for c in cards), reverse=True)
    return len(ranks) >= 2 and ranks[0] - ranks[1] <= 1


def _follow(k: Knowledge, legal: list[Card]) -> tuple[Card, str]:
    trick = k.obs.current_trick
    led = trick[0][1].suit
    win_seat, winning = trick[trick_winner([c for _, c in trick], k.trump)]
    played = {s for s, _ in trick}
    still = [s for s in (k.hand_seat.lho, k.hand_seat.partner, k.hand_seat.rho) if s not in played]
    partner_wins = win_seat.side is k.hand_seat.side
    winners = sorted((c for c in legal if beats(c, winning, k.trump)), key=lambda c: c.rank)
    following = legal[0].suit is led
    sure = [c for c in winners if k.safe(c, still, led)]

    if partner_wins:
        if k.safe(winning, still, led):
            # Captured honors score for the side (Chapter 13): give partner's sure
            # trick an honor that could not win a trick of its own.
            feed = [c for c in legal if c.points and c.suit is not k.trump and _cannot_win(k, c)]
            if feed and (k.trump is not None or k.hand_seat.partner not in k.visible):
                return max(feed, key=lambda c: (c.points, -c.rank)), "feeds an honor to partner's sure trick"
            if not following:
                return _discard(k, legal, keep_trumps=True)
            return min(legal, key=_cheap), "partner's trick: plays low"
        if not following:
            # An opponent still to play may beat partner's card: ruff it
            # (high enough to be sure where one has shown out and may overruff).
            if winners:
                return (sure or winners)[0], "ruffs partner's trick, which an opponent may beat"
            return _discard(k, legal)
        # To the opening lead, where the only card the fourth hand may beat partner's with is
        # our winner's twin, ours wins nothing theirs would not: low keeps it for a trick of
        # its own (matched in play: not kept at later tricks, where it lost)
        if sure and len(trick) == 2 and not k.obs.tricks and all(
                t.suit is sure[0].suit and t.rank == sure[0].rank for t in k.threats(still[0], winning, led)):
            return min(legal, key=_cheap), "partner's opening lead: only our card's twin beats it, plays low"
        if sure:
            return sure[0], "makes sure of partner's trick"
        if len(trick) == 2 and winners:
            # Overtaking gains nothing when every card the fourth hand may
            # hold that beats partner's card beats ours too.
            threats = list(k.threats(still[0], winning, led))
            if any(not beats(t, winners[-1], k.trump) for t in threats):
                return winners[-1], "third hand high"
            return min(legal, key=_cheap), "partner's trick: overtaking cannot gain, plays low"
        return min(legal, key=_cheap), "partner's trick: plays low"
    if not winners:
        if not following:
            return _discard(k, legal)
        return min(legal, key=_cheap), "second hand low" if len(trick) == 1 else "cannot win: plays low"
    if not following:
        fourth = k.visible.get(k.hand_seat.partner) if len(trick) == 1 else None
        if fourth and _fourth_tops_third(k, fourth, trick[0][1]):
            return _discard(k, legal, keep_trumps=True)
        # An opponent still to play overtrumps only when out of the suit led
        # too: ruff high enough to be sure only where one has shown that.
        if sure and any(k.is_opponent(s) and led in k.voids[s] for s in still):
            return sure[0], "trumps high enough against an overtrump"
        return winners[0], "trumps the opponents' trick"
    if len(trick) == 1:
        fourth = k.visible.get(k.hand_seat.partner)
        honored = [c for c in sure if c.points or any(x.points for _, x in trick)]
        if honored and fourth is not None and _fourth_sure_to_win(k, fourth, trick[0][1]):
            return min(legal, key=_cheap), "second hand low: partner, fourth, is sure to win"
        if honored:
            return honored[0], "takes a sure trick with honors in it"
        bosses = [c for c in winners if c.suit is led and k.is_boss(c)]
        if bosses and k.trump is not None and not (
                fourth is not None and _fourth_tops_third(k, fourth, trick[0][1])):
            return bosses[0], "second hand takes a boss trick partner cannot"
        # Ducking gives the opponents the trick when partner, fourth, is seen
        # not to beat the card led; and in the last tricks there is nothing
        # left to keep a high card for.
        if fourth is not None and not k.may_beat(k.hand_seat.partner, trick[0][1], led):
            return winners[0], "second hand wins: partner, fourth, cannot beat the card led"
        if len(k.hand) <= _LAST_TRICKS:
            return winners[0], "second hand wins in the last tricks"
        return min(legal, key=_cheap), "second hand low"
    if sure:
        return sure[0], "wins as cheaply as is sure"
    if len(trick) == 2:
        return winners[-1], "third hand high"
    return winners[0], "wins as cheaply as possible"


_LAST_TRICKS = 4
"""Cards in hand from which the second hand wins rather than ducks."""


def _fourth_sure_to_win(k: Knowledge, fourth: tuple[Card, ...], led: Card) -> bool:
    """Whether partner, playing fourth, holds a card of the suit led that
    beats ``led`` and that the third hand cannot beat: no card of the suit as
    high may be with it (its twin, played first, would win) — and, at a suit
    contract, the third hand cannot trump it: trumps are led, or it has not
    shown out of the suit led, or it can hold no trump. (A hand that has not
    shown out is taken to follow, as :meth:`Knowledge.safe` takes it: asking
    that no opponent might hold a trump anywhere made the second hand win
    with a top card a trick partner's was sure of as much, two top cards on
    one trick.)"""
    third = k.hand_seat.lho
    if (k.trump is not None and led.suit is not k.trump and led.suit in k.voids[third]
            and any(k.may_hold(third, c) for c in CARDS if c.suit is k.trump)):
        return False
    return _fourth_tops_third(k, fourth, led)


def _fourth_tops_third(k: Knowledge, fourth: tuple[Card, ...], led: Card) -> bool:
    """Whether partner, playing fourth, holds a card of the suit led that beats
    ``led`` and that the third hand cannot match or beat in the suit: no card of it as
    high may be with it, its twin included (played first, the twin would win, R12)."""
    third = k.hand_seat.lho
    return any(c.suit is led.suit and beats(c, led, k.trump)
               and not any(k.may_hold(third, CARDS[led.suit * 10 + r]) for r in range(c.rank, 10))
               for c in fourth)


def _discard(k: Knowledge, legal: list[Card], keep_trumps: bool = False) -> tuple[Card, str]:
    """Throw the least useful card: not a boss (but a boss card of a side suit
    the opponents may ruff counts as none: led, it is ruffed), not a trump, not
    one that may still win a trick (:func:`_cannot_win`: an honor that cannot
    goes before a Plain that may), few honor points, from a short suit. With
    ``keep_trumps`` (partner wins the trick: a trump would ruff it), any other
    card goes before a trump, a boss card included."""
    def worth(c: Card) -> tuple[int, int, int, int, int, int]:
        length = sum(1 for x in k.hand if x.suit is c.suit)
        trump = c.suit is k.trump
        boss = k.is_boss(c) and (k.trump is None or trump or not k.opponents_may_ruff(c.suit))
        return (keep_trumps and trump, boss, trump, not _cannot_win(k, c), c.points,
                length * 10 + c.rank)
    return min(legal, key=worth), "discards"


def _cannot_win(k: Knowledge, card: Card) -> bool:
    """Whether ``card`` could not win a trick of its own: at least two copies
    of higher cards of its suit may be with the opponents (a card with a
    single one above it becomes boss once that one falls)."""
    return k.higher_copies_out(card) >= 2
