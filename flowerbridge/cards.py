"""The hwatu deck and the 60-card Flower Bridge deck built from it.

Chapter 2 (classification), Chapter 3 (deck construction), Chapter 4 (suits),
Appendix A (ranks), RULINGS R1–R4 and R20. The 48-card deck is modelled month
by month; :func:`strip_deck` keeps the cards Chapter 3 retains, from two decks.

Internally a card is an index 0–29: ``suit * 10 + rank`` with suits
Plains 0, Ribbons 1, Bright Animals 2 and rank 0 the lowest of its suit.
:class:`Card` objects are singletons (``CARDS[i]``), so ``is`` and ``==`` agree
and hashing is cheap.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, NoReturn
from dataclasses import dataclass
from enum import IntEnum
from operator import attrgetter

from .errors import CardCodeError, FlowerBridgeError, ascii_hint, json_type, quoted


class Kind(IntEnum):
    """Traditional classification of a hwatu card (Chapter 2, RULINGS R3)."""

    PLAIN = 0
    RIBBON = 1
    ANIMAL = 2
    BRIGHT = 3

    @property
    def letter(self) -> str:
        return "PRAB"[self]

    @property
    def english(self) -> str:
        return ("Plain", "Ribbon", "Animal", "Bright")[self]

    @property
    def japanese(self) -> str:
        return ("カス (kasu)", "短冊 (tanzaku)", "種 (tane)", "光 (hikari)")[self]

    @property
    def korean(self) -> str:
        return ("피", "띠", "열끗", "광")[self]

    @property
    def hand_points(self) -> int:
        """Honor count for bidding (Chapter 10, RULINGS R20)."""
        return (0, 1, 2, 4)[self]


class Suit(IntEnum):
    """The three Flower Bridge suits, lowest first (Chapter 4)."""

    PLAINS = 0
    RIBBONS = 1
    ANIMALS = 2

    @property
    def letter(self) -> str:
        return "PRA"[self]

    @property
    def english(self) -> str:
        return ("Plains", "Ribbons", "Bright Animals")[self]

    @property
    def short(self) -> str:
        return ("Plains", "Ribbons", "Animals")[self]

    def __str__(self) -> str:
        return self.english


MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July",
               "August", "September", "October", "November", "December")

# Month plants in English, Japanese (Hanafuda option, Appendix C) and Korean.
# Korean decks swap the numbers of willow (비) and paulownia (오동); the rulebook's
# Japanese numbering is used throughout (RULINGS R1).
PLANTS = (
    ("pine", "松 (matsu)", "송학"),
    ("plum", "梅 (ume)", "매조"),
    ("cherry", "桜 (sakura)", "벚꽃"),
    ("wisteria", "藤 (fuji)", "흑싸리"),
    ("iris", "菖蒲 (ayame)", "난초"),
    ("peony", "牡丹 (botan)", "모란"),
    ("bush clover", "萩 (hagi)", "홍싸리"),
    ("pampas grass", "芒 (susuki)", "공산"),
    ("chrysanthemum", "菊 (kiku)", "국진"),
    ("maple", "紅葉 (momiji)", "단풍"),
    ("willow", "柳 (yanagi)", "비"),
    ("paulownia", "桐 (kiri)", "오동"),
)


@dataclass(frozen=True)
class HwatuCard:
    """One card of a standard 48-card hwatu / hanafuda deck."""

    month: int
    kind: Kind
    picture: str
    japanese: str
    variant: str = ""  # "A", "B", "C" for a month's plains, in printing order

    @property
    def plant(self) -> str:
        return PLANTS[self.month - 1][0]


def _month(month: int, *cards: tuple[Kind, str, str]) -> list[HwatuCard]:
    out: list[HwatuCard] = []
    plains = 0
    for kind, picture, japanese in cards:
        variant = ""
        if kind is Kind.PLAIN:
            variant = "ABC"[plains]
            plains += 1
        out.append(HwatuCard(month, kind, picture, japanese, variant))
    return out


HWATU_DECK: tuple[HwatuCard, ...] = tuple(
    _month(1, (Kind.BRIGHT, "crane and sun", "松に鶴 (matsu ni tsuru)"),
           (Kind.RIBBON, "red poetry ribbon", "松に赤短 (matsu ni akatan)"),
           (Kind.PLAIN, "pine", "松のカス"), (Kind.PLAIN, "pine", "松のカス"))
    + _month(2, (Kind.ANIMAL, "bush warbler (nightingale)", "梅に鶯 (ume ni uguisu)"),
             (Kind.RIBBON, "red poetry ribbon", "梅に赤短 (ume ni akatan)"),
             (Kind.PLAIN, "plum blossom", "梅のカス"), (Kind.PLAIN, "plum blossom", "梅のカス"))
    + _month(3, (Kind.BRIGHT, "curtain", "桜に幕 (sakura ni maku)"),
             (Kind.RIBBON, "red poetry ribbon", "桜に赤短 (sakura ni akatan)"),
             (Kind.PLAIN, "cherry blossom", "桜のカス"), (Kind.PLAIN, "cherry blossom", "桜のカス"))
    + _month(4, (Kind.ANIMAL, "cuckoo", "藤に不如帰 (fuji ni hototogisu)"),
             (Kind.RIBBON, "red ribbon", "藤に短冊 (fuji ni tanzaku)"),
             (Kind.PLAIN, "wisteria", "藤のカス"), (Kind.PLAIN, "wisteria", "藤のカス"))
    + _month(5, (Kind.ANIMAL, "eight-plank bridge", "菖蒲に八橋 (ayame ni yatsuhashi)"),
             (Kind.RIBBON, "red ribbon", "菖蒲に短冊 (ayame ni tanzaku)"),
             (Kind.PLAIN, "iris", "菖蒲のカス"), (Kind.PLAIN, "iris", "菖蒲のカス"))
    + _month(6, (Kind.ANIMAL, "butterflies", "牡丹に蝶 (botan ni chō)"),
             (Kind.RIBBON, "blue ribbon", "牡丹に青短 (botan ni aotan)"),
             (Kind.PLAIN, "peony", "牡丹のカス"), (Kind.PLAIN, "peony", "牡丹のカス"))
    + _month(7, (Kind.ANIMAL, "boar", "萩に猪 (hagi ni inoshishi)"),
             (Kind.RIBBON, "red ribbon", "萩に短冊 (hagi ni tanzaku)"),
             (Kind.PLAIN, "bush clover", "萩のカス"), (Kind.PLAIN, "bush clover", "萩のカス"))
    + _month(8, (Kind.BRIGHT, "full moon", "芒に月 (susuki ni tsuki)"),
             (Kind.ANIMAL, "geese", "芒に雁 (susuki ni kari)"),
             (Kind.PLAIN, "pampas grass", "芒のカス"), (Kind.PLAIN, "pampas grass", "芒のカス"))
    + _month(9, (Kind.ANIMAL, "sake cup", "菊に盃 (kiku ni sakazuki)"),
             (Kind.RIBBON, "blue ribbon", "菊に青短 (kiku ni aotan)"),
             (Kind.PLAIN, "chrysanthemum", "菊のカス"), (Kind.PLAIN, "chrysanthemum", "菊のカス"))
    + _month(10, (Kind.ANIMAL, "deer", "紅葉に鹿 (momiji ni shika)"),
             (Kind.RIBBON, "blue ribbon", "紅葉に青短 (momiji ni aotan)"),
             (Kind.PLAIN, "maple leaves", "紅葉のカス"), (Kind.PLAIN, "maple leaves", "紅葉のカス"))
    + _month(11, (Kind.BRIGHT, "rain man", "柳に小野道風 (yanagi ni ono no michikaze)"),
             (Kind.ANIMAL, "swallow", "柳に燕 (yanagi ni tsubame)"),
             (Kind.RIBBON, "red ribbon", "柳に短冊 (yanagi ni tanzaku)"),
             (Kind.PLAIN, "lightning", "柳のカス (雷)"))
    + _month(12, (Kind.BRIGHT, "phoenix", "桐に鳳凰 (kiri ni hōō)"),
             (Kind.PLAIN, "paulownia", "桐のカス"), (Kind.PLAIN, "paulownia", "桐のカス"),
             (Kind.PLAIN, "paulownia", "桐のカス"))
)

# Chapter 3: which cards each of the two decks keeps.
_KEPT_PLAINS = {(1, "A"), (1, "B"), (2, "A"), (3, "A"), (4, "A"), (5, "A"), (6, "A"),
                (9, "A"), (10, "A"), (11, "A")}
_KEPT_ANIMALS = {2, 5, 6, 7, 8}


def is_kept(card: HwatuCard) -> bool:
    """Whether Chapter 3 retains this hwatu card in the Flower Bridge deck."""
    if card.kind is Kind.RIBBON or card.kind is Kind.BRIGHT:
        return True
    if card.kind is Kind.ANIMAL:
        return card.month in _KEPT_ANIMALS
    return (card.month, card.variant) in _KEPT_PLAINS


def strip_deck(*decks: tuple[HwatuCard, ...]) -> list[HwatuCard]:
    """Combine hwatu decks and strip them to the Flower Bridge deck (Chapter 3)."""
    return [card for deck in decks for card in deck if is_kept(card)]


def suit_of_kind(kind: Kind) -> Suit:
    """Chapter 4: Brights and Animals form one suit, Bright Animals."""
    return (Suit.PLAINS, Suit.RIBBONS, Suit.ANIMALS, Suit.ANIMALS)[kind]


def _code(card: HwatuCard) -> str:
    if card.kind is Kind.PLAIN and card.month == 1:
        return f"1P{card.variant.lower()}"
    return f"{card.month}{card.kind.letter}"


def _english(card: HwatuCard) -> str:
    month = MONTH_NAMES[card.month - 1]
    if card.kind is Kind.ANIMAL:
        return f"{month} {_ANIMAL_NAMES.get(card.month, card.picture.title())}"
    if card.kind is Kind.PLAIN and card.month == 1:
        return f"January Plain {card.variant}"
    return f"{month} {card.kind.english}"


_ANIMAL_NAMES = {2: "Nightingale", 5: "Bridge", 6: "Butterfly", 7: "Boar", 8: "Geese"}

# Appendix A, highest first, by code (RULINGS R2).
RANK_TABLES: dict[Suit, tuple[str, ...]] = {
    Suit.ANIMALS: ("12B", "11B", "8B", "3B", "1B", "8A", "7A", "6A", "5A", "2A"),
    Suit.RIBBONS: ("11R", "10R", "9R", "7R", "6R", "5R", "4R", "3R", "2R", "1R"),
    Suit.PLAINS: ("11P", "10P", "9P", "6P", "5P", "4P", "3P", "2P", "1Pb", "1Pa"),
}


class Card:
    """A Flower Bridge card (one of 30; the deck holds each twice).

    >>> c = parse_card("11b")
    >>> c.code, c.name, c.suit.english, c.rank, c.points
    ('11B', 'November Bright', 'Bright Animals', 8, 4)
    """

    __slots__ = ("index", "suit", "rank", "code", "month", "kind", "name",
                 "name_ja", "name_ko", "picture", "points", "hwatu")

    index: int
    suit: Suit
    rank: int
    code: str
    month: int
    kind: Kind
    name: str
    name_ja: str
    name_ko: str
    picture: str
    points: int
    hwatu: HwatuCard

    def __init__(self, hwatu: HwatuCard, suit: Suit, rank: int) -> None:
        object.__setattr__(self, "hwatu", hwatu)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "index", suit * 10 + rank)
        object.__setattr__(self, "code", _code(hwatu))
        object.__setattr__(self, "month", hwatu.month)
        object.__setattr__(self, "kind", hwatu.kind)
        object.__setattr__(self, "name", _english(hwatu))
        # the two January Plains are two cards (R2): each name says which
        variant = f" {hwatu.variant}" if hwatu.month == 1 and hwatu.kind is Kind.PLAIN else ""
        object.__setattr__(self, "name_ja", f"{hwatu.japanese}{variant}")
        object.__setattr__(self, "name_ko", f"{PLANTS[hwatu.month - 1][2]} {hwatu.kind.korean}{variant}")
        object.__setattr__(self, "picture", hwatu.picture)
        object.__setattr__(self, "points", hwatu.kind.hand_points)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[Callable[[int], "Card"], tuple[int]]:
        return (card_at, (self.index,))

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __str__(self) -> str:
        return self.code

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):     # not a card: Python's TypeError, not ours
            return NotImplemented
        return self.index < other.index

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Card):     # not a card: Python's TypeError, not ours
            return NotImplemented
        return self.index <= other.index

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Card):     # not a card: Python's TypeError, not ours
            return NotImplemented
        return self.index > other.index

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Card):     # not a card: Python's TypeError, not ours
            return NotImplemented
        return self.index >= other.index

    def label(self, language: str = "en") -> str:
        """The card's name in ``en``, ``ja`` (Hanafuda option) or ``ko``."""
        names = {"en": self.name, "ja": self.name_ja, "ko": self.name_ko}
        if language not in names:
            raise FlowerBridgeError(f"unknown language {language!r}: expected en, ja or ko")
        return names[language]


def _build_cards() -> tuple[Card, ...]:
    # One deck's worth of distinct cards: strip a single hwatu deck.
    kept = {_code(c): c for c in strip_deck(HWATU_DECK)}
    cards: list[Card | None] = [None] * 30
    for suit, codes in RANK_TABLES.items():
        for position, code in enumerate(codes):
            rank = len(codes) - 1 - position
            hw = kept[code]
            assert suit_of_kind(hw.kind) is suit
            card = Card(hw, suit, rank)
            cards[card.index] = card
    return tuple(cards)  # type: ignore[arg-type]


CARDS: tuple[Card, ...] = _build_cards()
"""The 30 distinct cards, indexed by :attr:`Card.index`."""

DECK: tuple[Card, ...] = tuple(c for c in CARDS for _ in range(2))
"""The 60-card Flower Bridge deck: every card twice, in index order."""

_BY_CODE = {c.code.upper(): c for c in CARDS}


def card_at(index: int) -> Card:
    """The card with internal index ``index`` (0–29); another is a :class:`CardCodeError`
    (``-1`` read the last card, Python's way, and ``30`` was an ``IndexError``)."""
    if not 0 <= index < len(CARDS):
        raise CardCodeError(f"no card has the index {index!r}: indices run from 0 to {len(CARDS) - 1}")
    return CARDS[index]


def parse_card(code: "str | Card") -> Card:
    """Read a card code such as ``11B`` or ``1pa`` (case-insensitive, FORMATS.md;
    nothing else: no spaces around it)."""
    if isinstance(code, Card):
        return code
    if isinstance(code, str):
        card = _BY_CODE.get(code.upper())
        if card is not None:
            return card
        hint = _code_hint(code)
        if hint:
            raise CardCodeError(f"unknown card code {quoted(code)}: {hint}")
        raise CardCodeError(f"unknown card code {quoted(code)}")
    raise CardCodeError(f"a card is a code such as \"12B\", not {json_type(code)}")


_CODE_SHAPE = re.compile(r"([0-9]+)([A-Za-z]*)")


def _code_hint(code: str) -> str:
    """What a code that names no card comes nearest to, for its error: the code
    written without spaces, January's two Plains, the cards of its month; or ''."""
    compact = "".join(code.split())
    if compact != code and compact.upper() in _BY_CODE:
        return f"write it without spaces, {_BY_CODE[compact.upper()].code}"
    # (a full-width ６A, or a Cyrillic А, said only "unknown card code")
    odd = ascii_hint(compact, lambda plain: getattr(_BY_CODE.get(plain.upper()), "code", None), "a card code")
    if odd:
        return odd
    shape = _CODE_SHAPE.fullmatch(compact)
    if shape is None:
        return ""
    # (a month of more digits than Python converts is out of range all the same)
    digits, letters = shape.group(1), shape.group(2).upper()
    month = int(digits) if len(digits) <= 9 else 0
    if not 1 <= month <= 12:
        return "a code is a month, 1 to 12, then B, A, R or P (11B, 7A, 9R, 10P; 1Pa, 1Pb)"
    if month == 1 and letters.startswith("P"):
        return "January has two Plains, 1Pa and 1Pb"
    if len(letters) != 1 or letters not in "BARP":
        return "after the month comes one letter, B, A, R or P (Bright, Animal, Ribbon, Plain)"
    if f"{month}{letters}" in _BY_CODE:     # 011B
        return f"write it {_BY_CODE[f'{month}{letters}'].code}"
    name = MONTH_NAMES[month - 1]
    held = sorted((c for c in CARDS if c.month == month), key=_INDEX, reverse=True)
    cards = (f"{name}'s cards are {' and '.join(c.code for c in held)}" if len(held) > 1
             else f"{name}'s one card is {held[0].code}")
    return f"the deck has no {name} {Kind('PRAB'.index(letters)).english}; {cards}"


def parse_cards(codes: str | Iterable[str | Card]) -> list[Card]:
    """Read a sequence of codes, or one space-separated string of codes."""
    if isinstance(codes, str):
        codes = codes.split()
    elif not hasattr(codes, "__iter__"):
        raise CardCodeError(f"cards are a string of codes or a sequence of cards, not {codes!r}")
    return [parse_card(c) for c in codes]


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Cards sorted for display: Bright Animals, Ribbons, Plains; high to low."""
    return sorted(cards, key=_INDEX, reverse=True)


_INDEX = attrgetter("index")


def suit_cards(suit: Suit) -> tuple[Card, ...]:
    """The ten distinct cards of ``suit``, highest first."""
    return tuple(CARDS[suit * 10 + r] for r in range(9, -1, -1))


def hand_points(cards: Iterable[Card]) -> int:
    """Honor count of a holding for bidding (Chapter 10): every copy counts."""
    return sum(c.points for c in cards)
