"""The cards: Chapters 2–5, Appendix A, RULINGS R1–R4 and R20, card codes of FORMATS.md."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from flowerbridge import CARDS, DECK, CardCodeError, FlowerBridgeError, Kind, Suit, parse_card, parse_cards
from flowerbridge.cards import HWATU_DECK, hand_points, sort_cards, strip_deck, suit_cards


def codes(cards) -> list[str]:
    return [c.code for c in cards]


# ------------------------------------------------------------ Chapter 3, R1

def test_ch3_hwatu_deck_has_48_cards_four_per_month():
    assert len(HWATU_DECK) == 48
    assert Counter(c.month for c in HWATU_DECK) == {m: 4 for m in range(1, 13)}
    # The traditional composition: 5 Brights, 9 Animals, 10 Ribbons, 24 Plains.
    assert Counter(c.kind for c in HWATU_DECK) == {Kind.BRIGHT: 5, Kind.ANIMAL: 9,
                                                   Kind.RIBBON: 10, Kind.PLAIN: 24}


def test_ch3_stripping_two_decks_keeps_60_cards_20_per_suit():
    kept = strip_deck(HWATU_DECK, HWATU_DECK)
    assert len(kept) == 60
    by_kind = Counter(c.kind for c in kept)
    assert by_kind[Kind.PLAIN] == 20
    assert by_kind[Kind.RIBBON] == 20
    assert by_kind[Kind.BRIGHT] + by_kind[Kind.ANIMAL] == 20


def test_ch3_kept_plains_are_the_ten_listed():
    kept = strip_deck(HWATU_DECK)
    plains = sorted((c.month, c.variant) for c in kept if c.kind is Kind.PLAIN)
    # January Plain A and B, then one plain of Feb, Mar, Apr, May, Jun, Sep, Oct, Nov.
    assert plains == [(1, "A"), (1, "B"), (2, "A"), (3, "A"), (4, "A"), (5, "A"), (6, "A"),
                      (9, "A"), (10, "A"), (11, "A")]


def test_ch3_all_ribbons_and_brights_kept_and_five_animals():
    kept = strip_deck(HWATU_DECK)
    assert sorted(c.month for c in kept if c.kind is Kind.RIBBON) == [1, 2, 3, 4, 5, 6, 7, 9, 10, 11]
    assert sorted(c.month for c in kept if c.kind is Kind.BRIGHT) == [1, 3, 8, 11, 12]
    # Nightingale (Feb), Bridge (May), Butterfly (Jun), Boar (Jul), Geese (Aug).
    assert sorted(c.month for c in kept if c.kind is Kind.ANIMAL) == [2, 5, 6, 7, 8]


def test_ch3_removed_cards_are_the_rest():
    removed = [c for c in HWATU_DECK if c not in strip_deck(HWATU_DECK)]
    assert len(removed) == 18
    removed_animals = sorted(c.month for c in removed if c.kind is Kind.ANIMAL)
    assert removed_animals == [4, 9, 10, 11]  # cuckoo, sake cup, deer, swallow
    assert all(c.kind in (Kind.PLAIN, Kind.ANIMAL) for c in removed)


def test_ch3_every_card_exactly_twice_in_the_60_card_deck():
    assert len(DECK) == 60
    assert len(CARDS) == 30
    assert Counter(DECK) == {c: 2 for c in CARDS}
    assert Counter(c.suit for c in DECK) == {Suit.PLAINS: 20, Suit.RIBBONS: 20, Suit.ANIMALS: 20}


def test_ch3_every_card_has_a_name_of_its_own_in_each_language():
    # the two January Plains were both 松のカス in Japanese, though they rank apart (R2)
    for field in ("name", "name_ja", "name_ko"):
        assert len({getattr(card, field) for card in CARDS}) == 30, field
    assert [parse_card(c).name_ja for c in ("1Pa", "1Pb")] == ["松のカス A", "松のカス B"]


def test_ruling_r1_november_is_willow_and_december_paulownia():
    assert parse_card("11B").picture == "rain man"
    assert parse_card("12B").picture == "phoenix"
    assert parse_card("11P").picture == "lightning"
    assert parse_card("11R").name == "November Ribbon"
    # Korean decks number them the other way round; the Korean name is shown beside.
    assert parse_card("11B").name_ko.startswith("비")
    assert parse_card("12B").name_ko.startswith("오동")


# ------------------------------------------------------------ Chapter 2, R3

def test_ch2_may_bridge_is_an_animal_despite_no_animal():
    bridge = parse_card("5A")
    assert bridge.kind is Kind.ANIMAL
    assert bridge.name == "May Bridge"
    assert bridge.suit is Suit.ANIMALS


def test_ch2_brights_depicting_living_beings_remain_brights():
    for code in ("1B", "11B", "12B"):  # crane, rain man, phoenix
        assert parse_card(code).kind is Kind.BRIGHT


def test_ruling_r3_honor_kinds():
    assert codes(c for c in CARDS if c.kind is Kind.BRIGHT) == ["1B", "3B", "8B", "11B", "12B"]
    assert sorted(c.month for c in CARDS if c.kind is Kind.ANIMAL) == [2, 5, 6, 7, 8]
    assert len([c for c in CARDS if c.kind is Kind.RIBBON]) == 10
    assert len([c for c in CARDS if c.kind is Kind.PLAIN]) == 10


# --------------------------------------------------- Chapter 4, Appendix A, R2

def test_ch4_suits_ranked_plains_ribbons_bright_animals():
    assert Suit.PLAINS < Suit.RIBBONS < Suit.ANIMALS
    assert Suit.ANIMALS.english == "Bright Animals"
    assert Suit.ANIMALS.short == "Animals"  # "Players may abbreviate Bright Animals simply as Animals"


def test_appendix_a_bright_animal_ranks():
    assert codes(suit_cards(Suit.ANIMALS)) == ["12B", "11B", "8B", "3B", "1B", "8A", "7A", "6A", "5A", "2A"]
    assert [c.name for c in suit_cards(Suit.ANIMALS)] == [
        "December Bright", "November Bright", "August Bright", "March Bright", "January Bright",
        "August Geese", "July Boar", "June Butterfly", "May Bridge", "February Nightingale"]


def test_appendix_a_ribbon_ranks():
    assert [c.month for c in suit_cards(Suit.RIBBONS)] == [11, 10, 9, 7, 6, 5, 4, 3, 2, 1]
    assert all(c.kind is Kind.RIBBON for c in suit_cards(Suit.RIBBONS))


def test_appendix_a_ruling_r2_plain_ranks_january_plain_b_above_a():
    assert [c.name for c in suit_cards(Suit.PLAINS)] == [
        "November Plain", "October Plain", "September Plain", "June Plain", "May Plain",
        "April Plain", "March Plain", "February Plain", "January Plain B", "January Plain A"]
    assert parse_card("1Pb").rank > parse_card("1Pa").rank


def test_appendix_a_ranks_are_zero_to_nine_lowest_first():
    for suit in Suit:
        assert [c.rank for c in suit_cards(suit)] == list(range(9, -1, -1))
        assert all(c.index == suit * 10 + c.rank for c in suit_cards(suit))


# ------------------------------------------------------ FORMATS.md card codes, R4

def test_formats_card_codes_highest_first():
    assert " ".join(codes(suit_cards(Suit.ANIMALS))) == "12B 11B 8B 3B 1B 8A 7A 6A 5A 2A"
    assert " ".join(codes(suit_cards(Suit.RIBBONS))) == "11R 10R 9R 7R 6R 5R 4R 3R 2R 1R"
    assert " ".join(codes(suit_cards(Suit.PLAINS))) == "11P 10P 9P 6P 5P 4P 3P 2P 1Pb 1Pa"


@pytest.mark.parametrize("text", ["11b", "11B", "1pa", "1PA", "1Pa"])
def test_formats_card_codes_case_insensitive(text):
    assert parse_card(text).code in ("11B", "1Pa")


@pytest.mark.parametrize("text", ["13B", "1P", "4A", "12R", "", "B11", "x", " 11B", "11B\t", "11 B",
                                  "11B\n", "０11B"])
def test_formats_unknown_card_code_is_an_error(text):
    with pytest.raises(CardCodeError, match="unknown card code"):
        parse_card(text)


def test_cards_are_singletons_sorted_for_display():
    assert parse_card("11b") is parse_card("11B") is CARDS[28]
    assert codes(sort_cards(parse_cards("1Pa 11R 12B 5A"))) == ["12B", "5A", "11R", "1Pa"]


def test_ch4_appendix_a_cards_compare_by_suit_then_rank_and_not_with_other_things():
    # Plains < Ribbons < Bright Animals (Ch. 4), then by rank within a suit (App. A)
    assert parse_card("1Pa") < parse_card("1Pb") < parse_card("11P") < parse_card("1R") < parse_card("2A")
    assert parse_card("12B") > parse_card("11B") >= parse_card("11B") and parse_card("9R") <= parse_card("9R")
    assert sorted(parse_cards("12B 1Pa 9R 5A")) == parse_cards("1Pa 9R 5A 12B")
    for other in ("12B", 5, None):
        with pytest.raises(TypeError):
            parse_card("12B") < other      # noqa: B015 (Python's own error, not a card's)


def test_appendix_a_a_card_index_outside_the_30_cards_is_refused():
    from flowerbridge.cards import CARDS, card_at
    assert [card_at(i) for i in range(30)] == list(CARDS)
    for index in (-1, 30):      # (-1 read the last card, Python's way; 30 an IndexError)
        with pytest.raises(CardCodeError, match=f"no card has the index {index}: indices run from 0 to 29"):
            card_at(index)


def test_ruling_r4_japanese_names_change_terminology_only():
    crane = parse_card("1B")
    assert crane.label("ja").startswith("松に鶴")
    assert crane.label("en") == "January Bright"
    assert crane.kind is Kind.BRIGHT  # the rank and kind are the same in every language
    with pytest.raises(FlowerBridgeError, match="unknown language 'fr': expected en, ja or ko"):
        crane.label("fr")


# ------------------------------------------------------------ Chapter 10, R20

def test_ch10_honor_values_bright_4_animal_2_ribbon_1_plain_0():
    assert [parse_card(c).points for c in ("11B", "7A", "7R", "6P")] == [4, 2, 1, 0]


def test_ch10_every_copy_counts_full_value():
    assert hand_points(parse_cards("11B 11B")) == 8


def test_ruling_r20_deck_holds_80_points_a_hand_averages_about_17_3():
    assert hand_points(DECK) == 80
    # every card is as likely in a hand as among the 8 undealt, so a dealt hand
    # averages 80 x 13 / 60 = 17.3 (over 8,000 hands: a standard error near 0.05)
    from statistics import fmean

    from flowerbridge import Deal
    hands = [hand for i in range(2000) for hand in Deal.from_seed("r20", i).hands]
    assert abs(fmean(hand_points(hand) for hand in hands) - 80 * 13 / 60) < 0.25


@pytest.mark.parametrize("text, hint", [
    ("1P", "January has two Plains, 1Pa and 1Pb"),
    ("1pc", "January has two Plains, 1Pa and 1Pb"),
    ("4A", "the deck has no April Animal; April's cards are 4R and 4P"),
    ("12R", "the deck has no December Ribbon; December's one card is 12B"),
    ("13B", "a code is a month, 1 to 12, then B, A, R or P (11B, 7A, 9R, 10P; 1Pa, 1Pb)"),
    ("11Z", "after the month comes one letter, B, A, R or P (Bright, Animal, Ribbon, Plain)"),
    ("11 b", "write it without spaces, 11B"),
    ("011B", "write it 11B"),
    # characters outside ASCII (said only "unknown card code"): full-width ones, which have an
    # ASCII form, and a Cyrillic А that only looks like the letter
    ("６A", "write it in ASCII letters and digits, 6A"), ("１ｐａ", "write it in ASCII letters and digits, 1Pa"),
    ("6А", "'А' (CYRILLIC CAPITAL LETTER A) is not one of the ASCII letters and digits a card code is written in"),
])
def test_formats_an_unknown_card_code_near_a_card_says_what_the_deck_has(text, hint):
    # (each was only "unknown card code '1P'")
    with pytest.raises(CardCodeError, match=f"^unknown card code {re.escape(repr(text))}: {re.escape(hint)}$"):
        parse_card(text)


@pytest.mark.parametrize("text, hint", [
    ("3" * 4301 + "B", "a code is a month, 1 to 12, then B, A, R or P"),    # more digits than int() reads
    ("x" * 100_000, None)])
def test_formats_an_unknown_card_code_of_any_length_is_one_short_error(text, hint):
    # 4,301 digits raised ValueError from int() (a traceback in play, score and show), and
    # a line pasted by mistake was echoed back whole in the error
    with pytest.raises(CardCodeError) as error:
        parse_card(text)
    said = str(error.value)
    assert said.startswith(f"unknown card code {text[:30]!r}... ({len(text):,} characters)"), said[:200]
    assert len(said) < 200 and (hint is None or said.endswith(hint + " (11B, 7A, 9R, 10P; 1Pa, 1Pb)"))


@pytest.mark.parametrize("text", ["x", "", "B11", "Pass"])
def test_formats_an_unknown_card_code_near_no_card_is_said_plainly(text):
    with pytest.raises(CardCodeError, match=f"^unknown card code {re.escape(repr(text))}$"):
        parse_card(text)
