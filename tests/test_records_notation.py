"""The text notation (flowerbridge.notation): canonical form, round trips, checks, errors."""

from __future__ import annotations

import io
import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowerbridge import (CardCodeError, DealError, FlowerBridgeError, HandState, IllegalCallError,
                          IllegalPlayError, OptionError, PhaseError, RecordError, RuleOptions,
                          notation, records)
from flowerbridge.cards import parse_cards
from flowerbridge.records import HandRecord, replay, to_dict

CH16_TEXT = """\
[Event "Flower Bridge rulebook, Chapter 16"]
[Site "Seoul"]
[Date "2026.11.30"]
[Board "16"]
[Dealer "S"]
[Deal "N:11B 7A 6A 6A / 9R 7R 7R 6R / 9P 6P 6P 5P 5P E:5A 2A / 6R 5R 4R 3R 2R 1R / 4P 3P 2P 1Pb 1Pa S:12B 12B 8A 8A 7A / 11R 10R 10R 9R / 11P 10P 10P 9P W:5A 2A / 11R 5R 4R 3R 2R 1R / 11P 4P 3P 2P 1Pb"]
[Undealt "11B 8B 8B 3B 3B 1B 1B / - / 1Pa"]
[Options "undertrick_penalty=50 declarer=final-bidder"]
[Auction "S"]
1A Pass 3A Pass
4A Pass Pass Pass
[Contract "4A"]
[Declarer "S"]
[Play "W"]
11R 6R 6R 10R
2A 7A 2A 8A
11P 4P 9P 1Pb
12B 5A 6A 5A
9P 2P 6P 4P
7A 5R 11B 5R
5P 3P 10P 1Pb
8A 1R 6A 2P
11R 3R 7R 3R
9R 4R 9R 2R
10R 2R 7R 4R
12B 3P 6P 1Pa
10P 11P 5P 1R
[Result "11"]
[Score "NS below 120 above 70; EW below 0 above 5"]
"""
CH16_HAND = notation.loads(CH16_TEXT)
METADATA = {"Event": "Flower Bridge rulebook, Chapter 16", "Site": "Seoul", "Date": "2026.11.30",
            "Board": "16"}


def edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def drop(text: str, *prefixes: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(prefixes))


# ----------------------------------------------------------- canonical form

def test_notation_reads_the_ch16_hand(ch16_record):
    record = notation.loads(CH16_TEXT)
    assert to_dict(record.state) == to_dict(replay(ch16_record))
    assert record.extra == METADATA
    assert list(record.extra) == ["Event", "Site", "Date", "Board"]


def test_notation_canonical_text_round_trips_exactly():
    assert notation.dumps(notation.loads(CH16_TEXT)) == CH16_TEXT


def test_notation_writes_the_ch16_hand_canonically(ch16_record):
    assert notation.dumps(HandRecord(replay(ch16_record), dict(METADATA))) == CH16_TEXT


def test_notation_and_json_carry_the_same_record(ch16_record):
    as_json = records.dumps(HandRecord.from_dict({**ch16_record, **METADATA}))
    assert notation.dumps(records.loads(as_json)) == CH16_TEXT
    assert records.dumps(notation.loads(CH16_TEXT)) == as_json


def test_notation_load_and_dump_use_files():
    buffer = io.StringIO()
    notation.dump(notation.load(io.StringIO(CH16_TEXT)), buffer)
    assert buffer.getvalue() == CH16_TEXT


def test_notation_load_reads_a_file_as_records_load_does_text_or_binary():
    # a binary file was "not bytes", a file's name an AttributeError: records.load took both
    encoded = CH16_TEXT.encode("utf-8")
    assert notation.dumps(notation.load(io.BytesIO(encoded))) == CH16_TEXT
    assert notation.dumps(notation.loads(bytearray(b"\xef\xbb\xbf" + encoded))) == CH16_TEXT
    for name in ("h.fbn", pathlib.Path("h.fbn")):
        with pytest.raises(RecordError, match="^load reads an open file, not .*Path|^load reads an open file, "
                                              "not str \\(a file's name: open it first"):
            notation.load(name)
    with pytest.raises(RecordError, match="^line 2: byte 0xff is not UTF-8"):
        notation.loads(b'[Dealer "N"]\n\xff\n')


def test_notation_holding_form():
    cards = parse_cards("1Pa 11B 12B 11R 1Pb")
    assert notation.format_holding(cards) == "12B 11B / 11R / 1Pb 1Pa"
    assert notation.format_holding(parse_cards("2R")) == "- / 2R / -"
    assert sorted(notation.parse_holding("12b 11B / - / 1pa 1Pb")) == sorted(parse_cards("12B 11B 1Pa 1Pb"))


def test_notation_holding_given_as_other_than_text_is_a_record_error():
    # an AttributeError (None) and a TypeError (bytes) escaped
    for other in (None, b"- / - / -"):
        with pytest.raises(RecordError, match="a holding is a string, not "):
            notation.parse_holding(other)


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_notation_a_lone_surrogate_is_refused_naming_its_line(end):
    # read into a tag, it was kept and written as JSON that the JSON reader refuses (and
    # that no UTF-8 file can hold); the JSON reader refuses it as it reads (its line was
    # counted by LFs alone: "line 1" where lines end in CR)
    with pytest.raises(RecordError, match=r"line 2: holds a lone surrogate \\ud800"):
        notation.loads(end.join(['[Site "Seoul"]', '[Event "\ud800"]', *CH16_TEXT.split("\n")]))


def test_notation_a_tag_holding_a_nul_is_refused_naming_its_line():
    # (it was read, and the tag then left out when written: the doc says reading refuses it)
    with pytest.raises(RecordError, match=r"line 2: tag Note: holds a NUL character"):
        notation.loads('[Round "1"]\n[Note "a\0b"]\n' + CH16_TEXT)


def test_notation_reading_is_lenient_about_spacing_and_case():
    loose = CH16_TEXT.replace("[Dealer \"S\"]", "  [ Dealer   \"S\" ]  ").replace(
        "N:11B 7A 6A 6A /", "n:  6a 7a 11b 6A/")
    assert to_dict(notation.loads(loose).state) == to_dict(notation.loads(CH16_TEXT).state)


def test_notation_reader_takes_what_docs_notation_md_says_it_takes():
    # docs/notation.md, "What the reader takes": seats in any case or as words in the seat
    # tags, Deal labels in any case and order, cards in any order and case within a suit group,
    # calls in any case, derived tags but for case and runs of spaces; the writer writes the
    # canonical form
    deal = CH16_TEXT.splitlines()[5]
    loose_deal = ('[Deal "e:5a 2A/6R 5R 4R 3R 2R 1R/1pa 4P 3P 2P 1Pb  n: 6a 11b 6A 7a / 7r 9R 7R 6R / '
                  '5P 9P 6P 6P 5p W:5A 2A / 11R 5R 4R 3R 2R 1R / 11P 4P 3P 2P 1Pb '
                  's:12B 12B 8A 8A 7A / 11R 10R 10R 9R / 11P 10P 10P 9P"]')
    loose = (CH16_TEXT.replace(deal, loose_deal).replace('[Dealer "S"]', '[Dealer "south"]')
             .replace('[Auction "S"]', '[Auction "South"]').replace('[Play "W"]', '[Play "w"]')
             .replace('[Declarer "S"]', '[Declarer "SOUTH"]').replace('[Contract "4A"]', '[Contract "4a"]')
             .replace("1A Pass 3A Pass", "1a pass 3A PASS")
             .replace('[Score "NS below 120 above 70; EW below 0 above 5"]',
                      '[Score "ns below 120  above 70;  ew BELOW 0 above 5"]'))
    assert deal.startswith('[Deal "N:11B 7A 6A 6A / 9R 7R 7R 6R / 9P 6P 6P 5P 5P E:')
    assert loose.count("\n") == CH16_TEXT.count("\n") and loose != CH16_TEXT
    assert notation.dumps(notation.loads(loose)) == CH16_TEXT


def test_notation_reader_takes_the_tags_in_any_order_each_section_after_its_tag():
    # docs/notation.md, "What the reader takes": Dealer last, Play and its lines before
    # Auction and its lines, the derived tags and unknown tags anywhere
    lines = CH16_TEXT.splitlines(keepends=True)
    auction, play = "".join(lines[8:11]), "".join(lines[13:27])
    shuffled = ("".join(lines[27:29]) + play + '[Round "2"]\n' + "".join(lines[11:13]) + auction
                + "".join(lines[5:8]) + "".join(lines[:4]) + lines[4])
    assert auction.startswith("[Auction") and play.startswith("[Play") and lines[4] == '[Dealer "S"]\n'
    record = notation.loads(shuffled)
    assert notation.dumps(record) == '[Round "2"]\n' + CH16_TEXT    # unknown tags in the order read
    # a section's lines are those right after its tag, up to the next tag
    with pytest.raises(RecordError, match=r"^line 12: '4A Pass Pass Pass' is neither a tag nor part of an "
                                          r"Auction or Play section$"):
        notation.loads(edit(CH16_TEXT, "4A Pass Pass Pass\n", '[Round "2"]\n4A Pass Pass Pass\n'))


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "\u2003", "\f", "\v", "\x85", "\u2028"])
def test_notation_reader_takes_any_unicode_whitespace_where_it_takes_whitespace(space):
    # docs/notation.md, "What the reader takes": whitespace is what str.isspace takes (a
    # no-break space pasted from a web page, an ideographic space from an input method)
    loose = (CH16_TEXT.replace("\n", f"{space}\n")
             .replace('[Dealer "S"]', f'[{space}Dealer{space}"S"{space}]')
             .replace("1A Pass 3A Pass", f"1A{space}Pass 3A{space}{space}Pass")
             .replace("N:11B 7A 6A 6A / 9R", f"N:{space}11B{space}7A 6A 6A{space}/{space}9R")
             .replace("undertrick_penalty=50 declarer", f"undertrick_penalty=50{space}declarer")
             .replace("11R 6R 6R 10R", f"{space}11R{space}6R 6R 10R"))
    assert loose.count(space) > 30
    assert notation.dumps(notation.loads(loose)) == CH16_TEXT
    # a line of whitespace only is a blank line, which ends a hand
    two = notation.loads_all(f"{CH16_TEXT}{space}{space}\n{CH16_TEXT}")
    assert notation.dumps_all(two) == f"{CH16_TEXT}\n{CH16_TEXT}"
    with pytest.raises(RecordError, match=r"^hand at lines 1-4: missing tag Dealer$"):
        notation.loads_all(edit(CH16_TEXT, '[Board "16"]\n', f'[Board "16"]\n{space}\n'))


@pytest.mark.parametrize("tag, value", [("Declarer", "N"), ("Declarer", "North"), ("Declarer", "So"),
                                        ("Contract", "4 A"), ("Contract", "4Animals")])
def test_notation_derived_tags_are_compared_as_docs_notation_md_says(tag, value):
    text = edit(CH16_TEXT, f'[{tag} "' + ("S" if tag == "Declarer" else "4A") + '"]', f'[{tag} "{value}"]')
    with pytest.raises(RecordError, match=rf"tag {tag} says"):
        notation.loads(text)


@pytest.mark.parametrize("written", ["honor_bright=[4, 2]", "honor_bright=[ 4 , 2 ]",
                                     'declarer=\\"final-bidder\\"  honor_bright=[4,\t2]'])
def test_notation_options_tag_takes_spaces_inside_a_json_value(written):
    # it was "'2]' is not key=value"
    text = drop(edit(CH16_TEXT, '[Options "undertrick_penalty=50 declarer=final-bidder"]',
                     f'[Options "{written} honor_animal=[3, 1]"]'), "[Score")
    options = notation.loads(text).state.options
    assert options.honor_bright == (4, 2) and options.honor_animal == (3, 1)
    written_back = notation.dumps(notation.loads(text))
    assert '[Options "undertrick_penalty=50 declarer=final-bidder honor_animal=[3,1]"]' in written_back


def test_notation_options_tag_with_a_broken_list_names_the_option():
    text = edit(CH16_TEXT, '[Options "undertrick_penalty=50 declarer=final-bidder"]',
                '[Options "honor_bright=[4, 2 declarer=final-bidder"]')
    with pytest.raises(RecordError, match=r"^line 8, tag Options: option honor_bright: '\[4, 2 declarer=final-bidder' "
                                          r"is not a JSON list such as \[4, 2\]$"):
        notation.loads(text)


@pytest.mark.parametrize("value, said", [
    ("1e999", "1e999"), ("2.5E400", r"2\.5E400"), ("9" * 5000, r"9{20}\.\.\. \(5,000 characters\)")])
def test_notation_options_tag_with_a_number_too_large_to_read_says_it_is_too_large(value, said):
    # 1e999 was read as Infinity ("Infinity is not a non-negative whole number", a value
    # never written), 5,000 digits as text ("... is not a non-negative whole number")
    text = edit(CH16_TEXT, '[Options "undertrick_penalty=50 ', f'[Options "undertrick_penalty={value} ')
    with pytest.raises(RecordError, match=rf"^line 8, tag Options: option undertrick_penalty: {said} is more "
                                          r"than 1,000,000$"):
        notation.loads(text)


@pytest.mark.parametrize("value", ["[" * 100_000, "[" * 100_000 + "]" * 100_000, "[" * 500 + "]" * 500,
                                   "[" * 17 + "4" + "]" * 17],
                         ids=["100000-open", "100000-closed", "500-closed", "17-deep"])
def test_notation_options_tag_with_a_list_nested_too_deeply_names_the_option(value):
    # honor_bright=[[[... 100,000 deep raised RecursionError (no FlowerBridgeError), and
    # the command said "the input is nested too deeply to read", naming no line nor tag
    text = edit(CH16_TEXT, '[Options "undertrick_penalty=50 ', f'[Options "undertrick_penalty=50 honor_bright={value} ')
    with pytest.raises(RecordError, match=r"^line 8, tag Options: option honor_bright: '\[\[\[\[.*…?' is a list "
                                          r"nested too deeply \(an option is a number, a list of numbers "
                                          r"or a list of pairs\)$"):
        notation.loads(text)


@pytest.mark.parametrize("value", ["1e999", "9" * 5000, "[1,2", "[" * 100 + "]" * 100, '{\\"a\\": [1, 2]}', "word"])
def test_notation_options_tag_ignores_an_unknown_option_whatever_its_value(value):
    # an option this version does not know was held to an option's bounds
    # ("option foo: 1e999 is more than 1,000,000"), where unknown keys are ignored
    text = edit(CH16_TEXT, '[Options "undertrick_penalty=50 ', f'[Options "foo={value} undertrick_penalty=50 ')
    record = notation.loads(text)
    assert record.state.options == notation.loads(CH16_TEXT).state.options


def test_notation_auction_lines_may_hold_any_number_of_calls():
    text = edit(CH16_TEXT, "1A Pass 3A Pass\n4A Pass Pass Pass\n", "1A\nPass 3A Pass 4A Pass\nPass Pass\n")
    assert notation.dumps(notation.loads(text)) == CH16_TEXT


# ------------------------------------------------------- derived and optional tags

def test_notation_derived_tags_may_be_left_out():
    bare = drop(CH16_TEXT, "[Contract", "[Declarer", "[Result", "[Score", "[Undealt", "[Options")
    assert notation.dumps(notation.loads(bare)) == CH16_TEXT


@pytest.mark.parametrize("old, new, tag", [
    ('[Contract "4A"]', '[Contract "3A"]', "Contract"),
    ('[Declarer "S"]', '[Declarer "N"]', "Declarer"),
    ('[Result "11"]', '[Result "10"]', "Result"),
    ('[Score "NS below 120 above 70; EW below 0 above 5"]',
     '[Score "NS below 120 above 30; EW below 0 above 5"]', "Score"),
    ('[Play "W"]', '[Play "E"]', "Play"),
    ('[Auction "S"]', '[Auction "N"]', "Auction"),
])
def test_notation_derived_tag_mismatch_names_the_tag(old, new, tag):
    with pytest.raises(RecordError, match=rf"line \d+: tag {tag} "):
        notation.loads(edit(CH16_TEXT, old, new))


def test_notation_result_and_score_of_an_unfinished_hand_are_errors():
    text = edit(CH16_TEXT, "10P 11P 5P 1R\n", "10P 11P 5P\n")
    with pytest.raises(RecordError, match=r"tag Result '11' given, but the hand has no result"):
        notation.loads(text)
    unfinished = drop(text, "[Result", "[Score")
    record = notation.loads(unfinished)
    assert len(record.state.plays) == 51 and not record.state.is_over
    assert notation.dumps(record) == unfinished


def test_notation_passed_out_hand(ch16_record):
    written = notation.dumps(replay({**ch16_record, "auction": ["Pass"] * 4, "play": []}))
    assert written.endswith('[Auction "S"]\nPass Pass Pass Pass\n[Contract "Pass"]\n'
                            '[Score "NS below 0 above 0; EW below 0 above 0"]\n')
    record = notation.loads(written)
    assert record.state.phase.value == "passed out"
    assert notation.dumps(record) == written


def test_notation_hand_at_the_deal_has_only_the_deal_tags(ch16_record):
    written = notation.dumps(replay({**ch16_record, "auction": [], "play": []}))
    assert written.endswith('[Options "undertrick_penalty=50 declarer=final-bidder"]\n'
                            '[Auction "S"]\n')
    record = notation.loads(written)
    assert record.state.history == () and notation.dumps(record) == written


def test_notation_options_round_trip_with_non_default_values(ch16_record):
    options = RuleOptions(declarer="first-named", undertrick_penalty=0, five_bright_bonus=30,
                          contract_points=((20, 20), (30, 30), (30, 30), (40, 30)),
                          honor_bright=(5, 2))
    state = replay({**ch16_record, "auction": [], "play": []}, options=options)
    text = notation.dumps(state)
    assert '[Options "undertrick_penalty=0 declarer=first-named honor_bright=[5,2] ' \
           'five_bright_bonus=30"]' in text
    assert notation.loads(text).state.options == options


def test_notation_options_argument_overrides_the_tag():
    record = notation.loads(CH16_TEXT, options=RuleOptions.strict())
    assert record.state.options.undertrick_penalty == 0


def _down_hand(random_hand) -> HandState:
    """A hand whose declarer went down: its score differs under RuleOptions.strict()."""
    return next(state for state in map(random_hand, range(200))
                if state.contract is not None and state.score().to_dict()
                != replay(to_dict(state), options=RuleOptions.strict()).score().to_dict())


def test_notation_options_argument_scores_afresh_the_score_tag_is_not_checked(random_hand):
    # loads(dumps(state), options=strict) on a hand that went down was refused: "tag Score
    # says '... above 530', the replay gives '... above 80'" (the tag is the default's score)
    state = _down_hand(random_hand)
    text = notation.dumps(state)
    strict = RuleOptions.strict()
    record = notation.loads(text, options=strict)
    assert record.state.options == strict
    assert record.state.score().to_dict() == replay(to_dict(state), options=strict).score().to_dict()
    assert notation.loads(notation.dumps(record)).state.options == strict     # written anew
    assert [to_dict(r.state) for r in notation.loads_all(text + "\n" + text, options=strict)] \
        == [to_dict(record.state)] * 2
    assert records.loads(records.dumps(state), options=strict).state.score() == record.state.score()
    # read under its own Options tag, the Score tag is checked as ever
    wrong = edit(text, "[Score \"", "[Score \"NS below 1 above 1; EW below 1 above 1\"]\n[X \"")
    with pytest.raises(RecordError, match=r"line \d+: tag Score says"):
        notation.loads(wrong)
    # and the other derived tags, which the play itself gives, are checked under an override too
    with pytest.raises(RecordError, match=r"line \d+: tag Result says"):
        notation.loads(edit(CH16_TEXT, '[Result "11"]', '[Result "10"]'), options=strict)
    unfinished = edit(CH16_TEXT, "10P 11P 5P 1R\n", "10P 11P 5P\n")
    with pytest.raises(RecordError, match=r"line \d+: tag Score '.*' given, but the hand has no score"):
        notation.loads(drop(unfinished, "[Result"), options=strict)


def test_notation_unknown_tags_kept_in_order_and_written_first():
    text = edit(CH16_TEXT, '[Result "11"]\n', '[Result "11"]\n[Scorer "Monty"]\n[Round "2"]\n')
    record = notation.loads(text)
    assert list(record.extra) == ["Event", "Site", "Date", "Board", "Scorer", "Round"]
    written = notation.dumps(record)
    assert written.startswith('[Event "Flower Bridge rulebook, Chapter 16"]\n[Site "Seoul"]\n'
                              '[Date "2026.11.30"]\n[Board "16"]\n[Scorer "Monty"]\n[Round "2"]\n'
                              '[Dealer "S"]')
    assert notation.dumps(notation.loads(written)) == written


def test_notation_tag_values_escape_quotes_and_backslashes(ch16_record):
    record = HandRecord(replay(ch16_record), {"Event": 'The "Flower" Cup \\ final'})
    text = notation.dumps(record)
    assert '[Event "The \\"Flower\\" Cup \\\\ final"]' in text
    assert notation.loads(text).extra["Event"] == 'The "Flower" Cup \\ final'


def test_notation_json_extras_that_are_not_strings_are_written_as_json(ch16_record):
    record = HandRecord(replay(ch16_record), {"Board": 7, "Notes": ["a", 1]})
    text = notation.dumps(record)
    assert '[Board "7"]' in text and '[Notes "[\\"a\\", 1]"]' in text


@pytest.mark.parametrize(("key", "value"), [
    ("two words", "x"), ("source-file", "hand.json"), ("9lives", "x"), ("Event\n", "x"),  # no tag name
    ("Deal", "x"), ("Score", "x"),                              # one of the hand's own tags
    ("Event", "Club\nnight"), ("Event", "a\rb"), ("Event", "a\r\nb"),  # a tag is one line
    ("Event", "a\0b"),         # a NUL: written, the file was refused by show (no text holds one)
    ("Board", 0), ("Date", "yesterday"), ("Date", "today"), ("Date", None),   # the reader refuses
])
def test_formats_unknown_keys_the_notation_cannot_write_are_ignored_never_an_error(ch16_record, key,
                                                                                   value):
    # FORMATS.md: unknown keys are kept when a record is read and written, or ignored, never
    # an error. The text could not give this one back, so it is left out; the others stay.
    record = HandRecord.from_dict({**ch16_record, "Site": "Seoul", key: value, "Round": 2})
    text = notation.dumps(record)
    assert text == notation.dumps(HandRecord(record.state, {"Site": "Seoul", "Round": 2}))
    back = notation.loads(text)
    assert back.extra == {"Site": "Seoul", "Round": "2"}
    assert notation.dumps(back) == text


@pytest.mark.parametrize("char", ["\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_notation_a_tag_value_holding_a_character_that_ends_no_line_is_written_and_read_back(ch16_record,
                                                                                             char):
    # only LF, CR LF and CR end a line: a value holding a form feed or U+2028 was left out
    # (str.splitlines breaks there), though the reader keeps it
    record = HandRecord.from_dict({**ch16_record, "Event": f"a{char}b", "Site": f"{char}c{char}"})
    text = notation.dumps(record)
    assert text.count("\n") == CH16_TEXT.count("\n") - 2     # no Date, no Board
    assert notation.loads(text).extra == {"Event": f"a{char}b", "Site": f"{char}c{char}"}


@pytest.mark.parametrize("char", ["\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_notation_lines_end_at_lf_crlf_or_cr_only_so_an_errors_line_is_an_editors(char, newline):
    # str.splitlines also broke at these characters: the error's line drifted from what
    # an editor or grep shows, and a line holding one alone split the hand in two
    text = edit(CH16_TEXT, "1A Pass 3A Pass", f"1A{char}Pass 3A Pass{char}")
    text = edit(text, '[Site "Seoul"]', f'[Site "Seoul{char}"]{char}')
    text = edit(text, "11R 6R 6R 10R", "12B 6R 6R 10R")     # line 15: W holds no 12B
    with pytest.raises(IllegalPlayError, match=r"^line 15, play 1 \(W\): 12B is not in W's hand"):
        notation.loads(text.replace("\n", newline))
    assert notation.loads(edit(text, "12B 6R 6R 10R", "11R 6R 6R 10R")).extra["Site"] == f"Seoul{char}"


@pytest.mark.parametrize(("old", "new", "pattern"), [
    ('[Date "2026.11.30"]', '[Date "yesterday"]', r"line 3: tag Date 'yesterday': expected"),
    ('[Board "16"]', '[Board "0"]', r"line 4: tag Board '0': expected a board number"),
    ('[Site "Seoul"]', '[source-file "hand.json"]', r"line 2: malformed tag"),
    ('[Site "Seoul"]', '[Score "x"]', r"line 29: tag Score appears twice"),
])
def test_notation_a_tag_the_writer_leaves_out_is_still_refused_when_read(old, new, pattern):
    with pytest.raises(RecordError, match=pattern):
        notation.loads(edit(CH16_TEXT, old, new))


@pytest.mark.parametrize("name", ["dealer", "play", "hands", "options"])
def test_notation_a_tag_named_as_a_json_field_is_refused_with_its_line(name):
    with pytest.raises(RecordError, match=rf"line 1: tag {name}: the name of one of the JSON hand record's own"):
        notation.loads(f'[{name} "x"]\n' + CH16_TEXT)


def test_records_an_extra_key_may_not_reuse_a_fields_name(ch16_record):
    # it would be written over the field of that name
    with pytest.raises(RecordError, match="extra key 'play' is the name of one of the record's own fields"):
        HandRecord(replay(ch16_record), {"play": []})


def test_notation_a_backslash_before_another_character_is_itself(ch16_record):
    record = notation.loads('[Venue "C:\\new \\"x\\" \\\\"]\n' + CH16_TEXT)
    assert record.extra["Venue"] == 'C:\\new "x" \\'
    assert notation.loads(notation.dumps(record)).extra["Venue"] == record.extra["Venue"]


def test_notation_a_byte_order_mark_before_the_text_is_dropped():
    assert notation.dumps(notation.loads("\ufeff" + CH16_TEXT)) == notation.dumps(notation.loads(CH16_TEXT))


# ------------------------------------------------------------- several hands

def test_notation_several_hands_separated_by_a_blank_line(random_hand):
    states = [random_hand(seed) for seed in range(4)]
    text = notation.dumps_all(states)
    assert text.count("\n\n") == 3
    read = notation.loads_all(text)
    assert [to_dict(r.state) for r in read] == [to_dict(s) for s in states]
    assert notation.dumps_all(read) == text
    spaced = "\n\n" + text.replace("\n\n", "\n\n\n  \n") + "\n\n"
    assert notation.dumps_all(notation.loads_all(spaced)) == text


def test_notation_loads_wants_exactly_one_hand(random_hand):
    with pytest.raises(RecordError, match="expected one hand, found 2; use loads_all"):
        notation.loads(notation.dumps_all([random_hand(1), random_hand(2)]))
    with pytest.raises(RecordError, match="expected one hand, found 0"):
        notation.loads("\n\n")
    assert notation.loads_all("") == []


# --------------------------------------------------------------------- errors

@pytest.mark.parametrize("old, new, error, pattern", [
    ("11R 6R 6R 10R", "11R 9P 6R 10R", IllegalPlayError,
     r"line 15, play 2 \(N\): must follow Ribbons, holds 9R 7R 7R 6R \[R11\]"),
    ("11R 6R 6R 10R", "12B 6R 6R 10R", IllegalPlayError,
     r"line 15, play 1 \(W\): 12B is not in W's hand"),
    ("11R 6R 6R 10R", "11R 6R 6R 13B", CardCodeError, r"line 15, play 4 \(S\): unknown card code '13B'"),
    ("1A Pass 3A Pass", "1A Pass 1R Pass", IllegalCallError, r"line 10, call 3 \(N\): insufficient bid 1R"),
    ("4A Pass Pass Pass", "4A Pass Pass Pass Pass", PhaseError, r"line 11, call 9 \(S\): Pass comes after"),
    ("N:11B 7A 6A 6A /", "N:11B 7A 6A /", DealError, r"line 6, tag Deal: hand N has 12 cards"),
    ("N:11B 7A 6A 6A /", "N:12B 7A 6A 6A /", DealError, r"line 6, tag Deal: card 12B is dealt 3 times"),
    ("N:11B 7A 6A 6A /", "N:11R 7A 6A 6A /", RecordError,
     r"line 6, tag Deal, N: holding .*: 11R is not one of the Bright"),
    ("N:11B 7A 6A 6A / 9R 7R 7R 6R /", "N:11B 7A 6A 6A 9R 7R 7R 6R /", RecordError,
     r"line 6, tag Deal, N: holding .* expected three suits"),
    (" W:5A 2A /", " E:5A 2A /", RecordError, r"line 6, tag Deal: seat E appears twice"),
    ("N:11B", "N:11Z", CardCodeError, r"line 6, tag Deal, N: unknown card code '11Z'"),
    ("11B 8B 8B 3B 3B 1B 1B / - / 1Pa", "11B 8B 8B 3B 3B 1B 1B / - / 1Pb", DealError,
     r"line 7, tag Undealt: undealt must be exactly"),
    ('[Dealer "S"]', '[Dealer "Q"]', RecordError, r"line 5, tag Dealer: 'Q' is not one of N, E, S, W"),
    ('[Date "2026.11.30"]', '[Date "30/11/2026"]', RecordError, r"line 3: tag Date"),
    ('[Board "16"]', '[Board "0"]', RecordError, r"line 4: tag Board"),
    ('[Board "16"]', '[Board "²"]', RecordError, r"line 4: tag Board"),       # a digit to isdigit()
    ('[Board "16"]', '[Board "' + "9" * 5000 + '"]', RecordError, r"line 4: tag Board"),
    # docs/notation.md: "a board number from 1 to 999,999,999"
    ('[Board "16"]', '[Board "1000000000"]', RecordError, r"line 4: tag Board"),
    # docs/notation.md: the Deal tag is "N:<holding> E:<holding> ...", nothing before
    ('[Deal "N:', '[Deal "x N:', RecordError, r'line 6, tag Deal: expected "N:<holding> E:<holding>'),
    # docs/notation.md: a holding is written suit by suit, "`-` for a void"
    ("11B 8B 8B 3B 3B 1B 1B / - / 1Pa", "11B 8B 8B 3B 3B 1B 1B /  / 1Pa", RecordError,
     r"line 7, tag Undealt: holding .*: write '-' for a void in Ribbons"),
    # docs/notation.md: options are "key=value pairs"
    ("[Options \"undertrick_penalty=50", "[Options \"=5 undertrick_penalty=50", RecordError,
     r"line 8, tag Options: '=5' is not key=value"),
    ("[Options \"undertrick_penalty=50", "[Options \"undertrick_penalty=" + "9" * 5000, RecordError,
     r"line 8, tag Options: option undertrick_penalty: 9{20}\.\.\. \(5,000 characters\) is more than"),
    ('[Site "Seoul"]', '[Site "Seoul]', RecordError, r"line 2: malformed tag"),
    ('[Site "Seoul"]', 'Seoul', RecordError, r"line 2: 'Seoul' is neither a tag nor part of"),
    ('[Site "Seoul"]', '[Event "again"]', RecordError, r"line 2: tag Event appears twice"),
    ("2A 7A 2A 8A\n", "2A 7A 2A\n8A\n", RecordError, r"line 16: a play line is one trick of 4 cards"),
    ("[Options \"undertrick_penalty=50", "[Options \"undertrick_penalty=-1", OptionError,
     r"line 8, tag Options: option undertrick_penalty"),
    ("[Options \"undertrick_penalty=50", "[Options \"undertrick_penalty", RecordError,
     r"line 8, tag Options: 'undertrick_penalty' is not key=value"),
    ("[Options \"undertrick_penalty=50", "[Options \"undertrick_penalty=50 undertrick_penalty=0", RecordError,
     r"line 8, tag Options: option undertrick_penalty is given twice"),
])
def test_notation_errors_name_the_line(old, new, error, pattern):
    with pytest.raises(error, match=pattern):
        notation.loads(edit(CH16_TEXT, old, new))


@pytest.mark.parametrize("date, fits", [
    ("2026.11.30", True), ("2026.??.??", True), ("2026.1?.??", True), ("????.??.??", True),
    ("2024.02.29", True), ("20??.02.29", True), ("2026.??.31", True),
    ("2026.13.45", False), ("0000.01.01", False), ("2026.02.30", False), ("2025.02.29", False),
    ("2026.04.31", False), ("2026.00.10", False), ("2026.01.00", False), ("2026.01.0?", True), ("2026.13.??", False), ("２０２６.11.30", False),
    ("2026.11.30.", False), ("2026-11-30", False),
])
def test_notation_date_tag_must_fit_a_calendar_date(date, fits):
    text = edit(CH16_TEXT, '[Date "2026.11.30"]', f'[Date "{date}"]')
    if fits:
        assert notation.loads(text).extra["Date"] == date
    else:
        with pytest.raises(RecordError, match=r"line 3: tag Date .*expected \"YYYY.MM.DD\""):
            notation.loads(text)


def test_notation_board_tag_reads_up_to_999_999_999():
    for board in ("1", "999999999"):
        assert notation.loads(edit(CH16_TEXT, '[Board "16"]', f'[Board "{board}"]')).extra["Board"] == board


def test_notation_missing_required_tags():
    with pytest.raises(RecordError, match=r"^hand at lines 1-28: missing tag Dealer$"):
        notation.loads(drop(CH16_TEXT, "[Dealer"))
    with pytest.raises(RecordError, match=r"missing tag Deal$"):
        notation.loads(drop(CH16_TEXT, "[Deal "))


def test_notation_a_hand_missing_a_tag_says_which_lines_it_holds():
    # a line of whitespace only (a form feed) inside a hand ends it: "hand at line 1: missing
    # tag Dealer" did not say that the hand had stopped at line 2
    text = edit(CH16_TEXT, '[Site "Seoul"]\n', '[Site "Seoul"]\n\f\n')
    with pytest.raises(RecordError, match=r"^hand at lines 1-2: missing tag Dealer$"):
        notation.loads_all(text)
    with pytest.raises(RecordError, match=r"^hand at line 1: missing tag Dealer$"):
        notation.loads_all('[Event "x"]\n')


def test_notation_play_without_a_contract_is_an_error():
    text = edit(CH16_TEXT, "4A Pass Pass Pass\n", "4A Pass Pass\n")
    with pytest.raises(RecordError, match=r"tag Play, but the auction has not made a contract"):
        notation.loads(drop(text, "[Contract", "[Declarer"))


TEXT_PIECES = st.sampled_from(['[', ']', '"', '\\', '/', '-', ':', ' ', 'N:', 'W:', '12B', '1pa', '13B',
                               'Pass', '3NT', 'Deal', 'Play', 'Auction', '[Play "W"]', '=', '\n', 'x'])


@settings(max_examples=200, deadline=None)
@given(line=st.integers(0, CH16_TEXT.count("\n") - 1), pieces=st.lists(TEXT_PIECES, max_size=8))
def test_notation_any_damaged_line_reads_or_raises_a_flowerbridge_error(line, pieces):
    lines = CH16_TEXT.splitlines(keepends=True)
    lines[line] = "".join(pieces) + "\n"
    try:
        record = notation.loads("".join(lines))
    except FlowerBridgeError:
        return
    # What reads is written canonically, and that text reads back to itself.
    text = notation.dumps(record)
    assert notation.dumps(notation.loads(text)) == text
    assert to_dict(notation.loads(text).state) == to_dict(record.state)
    if line < 4:    # Event, Site, Date, Board: tags beside the hand, never the hand itself
        assert to_dict(record.state) == to_dict(CH16_HAND.state)


LONG = "x" * 200_000


@pytest.mark.parametrize("old, new, said", [
    ('[Board "16"]', f'[Board "{LONG}"]', r"tag Board 'x{90}'\.\.\. \(200,000 characters\): expected a board"),
    ('[Date "2026.11.30"]', f'[Date "{LONG}"]', r"tag Date 'x{90}'\.\.\. \(200,000 characters\): expected"),
    ('[Dealer "S"]', f'[Dealer "{LONG}"]', r"'x{90}'\.\.\. \(200,000 characters\) is not one of N, E, S, W"),
    ('[Result "11"]', f'[Result "{LONG}"]', r"tag Result says 'x{90}'\.\.\. \(200,000 characters\), the replay"),
    ('[Site "Seoul"]', f'[Site "Seoul"]\n[{LONG}', r"malformed tag '\[x{89}'\.\.\. \(200,001 characters\)"),
    ('[Site "Seoul"]', f'[Site "Seoul"]\n{LONG}', r"'x{90}'\.\.\. \(200,000 characters\) is neither a tag"),
    ('undertrick_penalty=50 ', f'undertrick_penalty=50 {LONG} ', r"'x{90}'\.\.\. \(200,000 characters\) is not "
                                                                 r"key=value"),
], ids=["Board", "Date", "Dealer", "Result", "malformed tag", "stray line", "stray option"])
def test_notation_an_error_quotes_a_long_value_cut_short(old, new, said):
    # each echoed the whole value: a line of a file read by mistake (show report.html)
    # made an error line of its whole length
    with pytest.raises(RecordError, match=said) as refused:
        notation.loads(edit(CH16_TEXT, old, new))
    assert len(str(refused.value)) < 200


def test_notation_options_tag_with_a_number_too_long_to_read_in_a_list_says_so():
    # it said "is not a JSON list such as [4, 2]" of a JSON list
    text = edit(CH16_TEXT, '[Options "undertrick_penalty=50 ',
                f'[Options "undertrick_penalty=50 contract_points=[[{"9" * 5000},1],[1,1],[1,1],[1,1]] ')
    with pytest.raises(RecordError, match=r"^line 8, tag Options: option contract_points: '\[\[9{37}…' holds a "
                                          r"number with too many digits$"):
        notation.loads(text)
