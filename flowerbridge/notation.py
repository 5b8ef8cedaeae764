"""A text notation for Flower Bridge hands, for people (inspired by PBN).

A hand is a block of tag pairs ``[Name "value"]``; the ``Auction`` and ``Play``
tags are followed by their sections. Hands in one file are separated by a
blank line. The hand of the rulebook's Chapter 16, abridged (``docs/notation.md``
has it whole)::

    [Event "Club night"]
    [Date "2026.11.30"]
    [Board "16"]
    [Dealer "S"]
    [Deal "N:11B 7A 6A 6A / 9R 7R 7R 6R / 9P 6P 6P 5P 5P E:… S:… W:…"]
    [Undealt "11B 8B 8B 3B 3B 1B 1B / - / 1Pa"]
    [Options "undertrick_penalty=50 declarer=final-bidder"]
    [Auction "S"]
    1A Pass 3A Pass
    4A Pass Pass Pass
    [Contract "4A"]
    [Declarer "S"]
    [Play "W"]
    11R 6R 6R 10R
    …
    [Result "11"]
    [Score "NS below 120 above 70; EW below 0 above 5"]

A holding is written suit by suit, Bright Animals / Ribbons / Plains, each
highest first, ``-`` for a void. Auction lines hold four calls, the first by
the dealer; each play line is one trick in the order its cards were played.

Reading replays every call and card through
:class:`~flowerbridge.state.HandState`, so text the rules reject cannot be
read; an error names the line. The reader is lenient (tags in any order, any
Unicode whitespace where whitespace goes, seats in any case or as words, cards
in any order within a suit group, spaces inside an option's JSON value, derived
tags compared but for case and spacing: ``docs/notation.md``, *What the reader
takes*); lines end at LF, CR LF or CR only. The writer is canonical. ``Contract``, ``Declarer``, ``Result``,
``Score``, the ``Auction`` tag's dealer and the ``Play`` tag's leader are
derived from the replay: they may be left out, and when given they must agree
with it. Every other tag (``Event``, ``Site``, ``Date``, ``Board`` and any
unknown tag) is kept, in order, in :attr:`HandRecord.extra
<flowerbridge.records.HandRecord.extra>`, so that the same record can be
written as JSON (:mod:`flowerbridge.records`) or as text. Writing is
canonical: ``dumps(loads(text)) == text`` for canonical text.

The functions mirror :mod:`flowerbridge.records`: :func:`loads`, :func:`load`,
:func:`dumps`, :func:`dump`, and :func:`loads_all` / :func:`dumps_all` for
files of several hands.
"""

from __future__ import annotations

import calendar
import dataclasses
import json
import math
import re
from typing import IO, Any, Callable, Iterable, Iterator, TypeVar

from .cards import Card, Suit, parse_card, parse_cards
from .dealing import Deal
from .errors import FlowerBridgeError, RecordError, quoted

from .options import RuleOptions
from .records import KNOWN_KEYS, HandRecord, as_record, read_open_file
from .seats import SEATS, Seat, Side
from .state import HandState, Phase

T = TypeVar("T")

# how much of a line or tag value an error quotes (a longer one is cut short, its length said)
LINE_SHOWN = 100

# Tags whose values the notation itself defines, in the order they are written.
HAND_TAGS = ("Dealer", "Deal", "Undealt", "Options", "Auction", "Contract", "Declarer", "Play",
             "Result", "Score")
# Tags checked against the replay rather than read from the text.
DERIVED_TAGS = ("Contract", "Declarer", "Result", "Score")

SUIT_ORDER = (Suit.ANIMALS, Suit.RIBBONS, Suit.PLAINS)
CALLS_PER_LINE = 4

_TAG_RE = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]$')
_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_DATE_RE = re.compile(r"([0-9?]{4})\.([0-9?]{2})\.([0-9?]{2})")
_SEAT_LABEL_RE = re.compile(r"(?:^|\s)([NESW]):", re.IGNORECASE)
# Where a line ends: LF, CR LF or CR, and nowhere else.
_LINE_END = re.compile(r"\r\n|\r|\n")


# ------------------------------------------------------------------ writing

def format_holding(cards: Iterable[Card]) -> str:
    """A holding in the notation: ``12B 6A / 11R 9R / -`` (suits high to low, ``-`` for a void).

    >>> from flowerbridge.cards import parse_cards
    >>> format_holding(parse_cards("1Pa 11B 12B 11R"))
    '12B 11B / 11R / 1Pa'
    """
    cards = parse_cards(cards)      # (codes too, as everywhere in the engine)
    groups = []
    for suit in SUIT_ORDER:
        held = sorted((c for c in cards if c.suit is suit), key=lambda c: -c.index)
        groups.append(" ".join(c.code for c in held) or "-")
    return " / ".join(groups)


def format_score(state: HandState) -> str:
    """The ``Score`` tag of a hand that is over: ``NS below 120 above 52; EW below 0 above 9``."""
    score = state.score()
    return "; ".join(f"{side.name} below {score.below(side)} above {score.above(side)}"
                     for side in (Side.NS, Side.EW))


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _tag(name: str, value: str) -> str:
    return f'[{name} "{_quote(value)}"]'


def _format_options(options: RuleOptions) -> str:
    # Strings are written bare, numbers and lists as compact JSON (no spaces),
    # so that whitespace separates the pairs.
    return " ".join(f"{key}={value if isinstance(value, str) else json.dumps(value, separators=(',', ':'))}"
                    for key, value in options.to_dict().items())


def _extra_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def dumps(record: HandRecord | HandState) -> str:
    """One hand in canonical text, ending with a newline.

    Keys of :attr:`HandRecord.extra` become tags, before the hand's own tags;
    a value that is not a string is written as JSON text. A key the text could
    not give back is left out, as FORMATS.md lets a program ignore an unknown
    key (never an error): a name that is no tag name or is one of the hand's
    own tags, a value with a line end (LF, CR), a ``Date`` or ``Board`` the reader
    refuses. See :func:`writable_tag`.
    """
    record = as_record(record)
    state = record.state
    lines = []
    for name, value in record.extra.items():
        text = writable_tag(name, value)
        if text is not None:
            lines.append(_tag(name, text))
    lines += [_tag("Dealer", state.dealer.name),
              _tag("Deal", " ".join(f"{seat.name}:{format_holding(state.deal.hands[seat])}"
                                    for seat in SEATS)),
              _tag("Undealt", format_holding(state.deal.undealt)),
              _tag("Options", _format_options(state.options)),
              _tag("Auction", state.dealer.name)]
    calls = [ev.call.text for ev in state.calls]
    lines += [" ".join(calls[i:i + CALLS_PER_LINE]) for i in range(0, len(calls), CALLS_PER_LINE)]
    contract = state.contract
    if state.phase is Phase.PASSED_OUT:
        lines.append(_tag("Contract", "Pass"))
    elif contract is not None:
        lines += [_tag("Contract", contract.code), _tag("Declarer", contract.declarer.name),
                  _tag("Play", contract.opening_leader.name)]
        lines += [" ".join(card.code for _, card in trick.plays) for trick in state.tricks]
        if state.current_trick:
            lines.append(" ".join(card.code for _, card in state.current_trick))
    if state.phase is Phase.FINISHED:
        assert contract is not None
        lines.append(_tag("Result", str(state.tricks_won[contract.side])))
    if state.is_over:
        lines.append(_tag("Score", format_score(state)))
    return "\n".join(lines) + "\n"


def writable_tag(name: str, value: Any) -> str | None:
    """The value of the tag an extra key is written as, or None when the reader
    would not give the key back as it is (so it is not written): a name that is
    not letters, digits and '_' after a letter, or is one of the hand's own tags;
    a value with a line end, LF or CR (a tag is one line); a ``Date`` or ``Board``
    the reader refuses."""
    if not (isinstance(name, str) and _NAME_RE.fullmatch(name)) or name in HAND_TAGS:
        return None
    text = _extra_value(value)
    if _LINE_END.search(text) or "\0" in text:     # (a NUL: no text file the CLI reads holds one)
        return None
    try:
        _check_extra_tag(name, text)
    except RecordError:
        return None
    return text


def dumps_all(records: Iterable[HandRecord | HandState]) -> str:
    """Several hands in canonical text, separated by a blank line."""
    return "\n".join(dumps(r) for r in records)


def dump(record: HandRecord | HandState, fp: IO[str]) -> None:
    """Write one hand to a text file."""
    fp.write(dumps(record))


# ------------------------------------------------------------------ reading

class _Block:
    """The lines of one hand: ``(line number, text)`` pairs, without blank lines."""

    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self.lines = lines
        self.tags: list[tuple[int, str, str]] = []  # (line, name, value), in order
        self.sections: dict[str, list[tuple[int, str]]] = {"Auction": [], "Play": []}
        section: str | None = None
        names: set[str] = set()
        for number, text in lines:
            match = _TAG_RE.match(text)
            if match:
                name = match.group(1)
                # \" and \\ stand for " and \; any other backslash is itself
                value = re.sub(r'\\([\\"])', r"\1", match.group(2))
                if name in names:
                    raise RecordError(f"tag {name} appears twice in one hand", position=f"line {number}")
                names.add(name)
                self.tags.append((number, name, value))
                section = name if name in self.sections else None
            elif text.startswith("["):
                raise RecordError(f'malformed tag {quoted(text, LINE_SHOWN)}: expected [Name "value"]',
                                  position=f"line {number}")
            elif section is None:
                raise RecordError(f"{quoted(text, LINE_SHOWN)} is neither a tag nor part of an Auction or Play "
                                  "section", position=f"line {number}")
            else:
                self.sections[section].append((number, text))

    def get(self, name: str) -> tuple[int, str] | None:
        for number, tag, value in self.tags:
            if tag == name:
                return number, value
        return None

    def require(self, name: str) -> tuple[int, str]:
        found = self.get(name)
        if found is None:
            # the lines the hand holds: where a blank line cut a hand in two, that shows
            first, last = self.lines[0][0], self.lines[-1][0]
            raise RecordError(f"missing tag {name}", position=f"hand at line {first}" if first == last
                              else f"hand at lines {first}-{last}")
        return found


def text_lines(text: str) -> list[str]:
    """The lines of ``text`` as editors and grep count them: broken at \\n, \\r\\n and \\r
    only (str.splitlines also breaks at \\v, \\f, \\x1c-\\x1e, \\x85, U+2028 and U+2029, where
    they go on: the line numbers of errors would drift from theirs)."""
    return _LINE_END.split(text)


def _blocks(text: str) -> Iterator[_Block]:
    current: list[tuple[int, str]] = []
    for number, line in enumerate(text_lines(text), 1):
        line = line.strip()
        if line:
            current.append((number, line))
        elif current:
            yield _Block(current)
            current = []
    if current:
        yield _Block(current)


def _at(exc: FlowerBridgeError, where: str) -> FlowerBridgeError:
    """``exc`` again, of the same class, its position prefixed with ``where`` (a line, a tag)."""
    position = f"{where}, {exc.position}" if exc.position else where
    return type(exc)(exc.detail, rule=exc.rule, seat=exc.seat, position=position)


def parse_holding(text: str) -> list[Card]:
    """Read a holding written as :func:`format_holding` writes it.

    >>> [c.code for c in parse_holding("12B 6A / - / 1Pa")]
    ['12B', '6A', '1Pa']
    """
    if not isinstance(text, str):
        raise RecordError(f"a holding is a string, not {type(text).__name__}")
    groups = text.split("/")
    if len(groups) != len(SUIT_ORDER):
        raise RecordError(f"holding {quoted(text.strip(), LINE_SHOWN)}: expected three suits, Bright Animals / "
                          "Ribbons / Plains, '-' for a void")
    cards: list[Card] = []
    for suit, group in zip(SUIT_ORDER, groups):
        codes = group.split()
        if codes == ["-"]:
            continue
        if not codes:
            raise RecordError(f"holding {quoted(text.strip(), LINE_SHOWN)}: write '-' for a void in {suit.english}")
        for code in codes:
            card = parse_card(code)
            if card.suit is not suit:
                raise RecordError(f"holding {quoted(text.strip(), LINE_SHOWN)}: {card.code} is not one of the "
                                  f"{suit.english}")
            cards.append(card)
    return cards


def _parse_deal(value: str) -> dict[str, list[Card]]:
    labels = list(_SEAT_LABEL_RE.finditer(value))
    if not labels or value[:labels[0].start()].strip():
        raise RecordError('expected "N:<holding> E:<holding> S:<holding> W:<holding>"')
    hands: dict[str, list[Card]] = {}
    for i, label in enumerate(labels):
        seat = label.group(1).upper()
        if seat in hands:
            raise RecordError(f"seat {seat} appears twice")
        end = labels[i + 1].start() if i + 1 < len(labels) else len(value)
        try:
            hands[seat] = parse_holding(value[label.end():end])
        except FlowerBridgeError as exc:
            raise _at(exc, seat) from None
    missing = [s.name for s in SEATS if s.name not in hands]
    if missing:
        raise RecordError(f"missing seat {', '.join(missing)}")
    return hands


_OPTION_KEY_RE = re.compile(r"[^\s=]*")
def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):   # (1e999: read as the text, and said to be too large)
        raise ValueError(f"{text} is beyond any floating-point number")
    return value


_JSON = json.JSONDecoder(parse_float=_finite)
# A non-negative JSON number, as an option's value that is too large to read is written
_NUMBER = re.compile(r"(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def _parse_options(value: str) -> RuleOptions:
    """``key=value`` pairs separated by whitespace. A value that reads as JSON is that
    JSON, which may hold spaces (``honor_bright=[4, 2]``, ``declarer="first-named"``);
    any other value is the text up to the next whitespace (``declarer=first-named``)."""
    data: dict[str, Any] = {}
    pos = 0
    while True:
        while pos < len(value) and value[pos].isspace():
            pos += 1
        if pos == len(value):
            break
        key = _OPTION_KEY_RE.match(value, pos).group()    # type: ignore[union-attr]
        bare_end = _word_end(value, pos)
        if not key or pos + len(key) == len(value) or value[pos + len(key)] != "=":
            raise RecordError(f"{quoted(value[pos:bare_end], LINE_SHOWN)} is not key=value")
        if key in data:
            raise RecordError(f"option {key} is given twice (which value is meant?)")
        start = pos + len(key) + 1
        if key not in _OPTION_NAMES:
            # an option this version does not know is ignored, whatever its value (its
            # bounds are an option's): passed over, JSON that may hold spaces, or a word
            try:
                _, pos = _JSON.raw_decode(value, start)
            except (ValueError, RecursionError):
                pos = _word_end(value, start)
            data[key] = None
            continue
        rest = value[start:]
        shown = rest if len(rest) <= 40 else rest[:39] + "…"
        too_deep = RecordError(f"option {key}: {shown!r} is a list nested too deeply (an option is "
                               "a number, a list of numbers or a list of pairs)")
        try:
            parsed, end = _JSON.raw_decode(value, start)
            if end < len(value) and not value[end].isspace():
                raise ValueError("more follows")
        except RecursionError:  # the JSON reader's answer to a list thousands deep
            raise too_deep from None
        except ValueError as exc:   # not JSON (or a number too long to read): the text itself
            if value[start:start + 1] in ("[", "{"):
                if "digits" in str(exc):    # Python's limit on a whole number's digits
                    raise RecordError(f"option {key}: {shown!r} holds a number with too many "
                                      "digits") from None
                raise RecordError(f"option {key}: {shown!r} is not a JSON list such as [4, 2]") from None
            pos = _word_end(value, start)
            word = value[start:pos]
            if _NUMBER.fullmatch(word):     # more digits than Python reads, or beyond any float
                from .options import MAX_VALUE
                said = word if len(word) <= 24 else f"{word[:20]}... ({len(word):,} characters)"
                raise RecordError(f"option {key}: {said} is more than {MAX_VALUE:,}") from None
            data[key] = word
            continue
        if _depth(parsed) > _MAX_DEPTH:     # the options' checks would recurse into it
            raise too_deep
        data[key], pos = parsed, end
    return RuleOptions.from_dict(data)


_OPTION_NAMES = frozenset(field.name for field in dataclasses.fields(RuleOptions))

# Deeper than any option (a list of pairs) by far, and far short of Python's recursion limit.
_MAX_DEPTH = 16


def _depth(value: Any) -> int:
    """How deep lists and objects nest in a JSON value (0 for a number or a string),
    worked out without recursion."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, dict)):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((item, depth) for item in (value.values() if isinstance(value, dict) else value))
    return deepest


def _word_end(text: str, pos: int) -> int:
    """Where the run of non-whitespace at ``pos`` ends."""
    while pos < len(text) and not text[pos].isspace():
        pos += 1
    return pos


def _parse_seat(value: str) -> Seat:
    try:
        return Seat.parse(value)
    except FlowerBridgeError:
        raise RecordError(f"{quoted(value, LINE_SHOWN)} is not one of N, E, S, W") from None


def _same_text(value: str, expected: str) -> bool:
    """A derived tag's value as the replay gives it, but for case and runs of whitespace."""
    return " ".join(value.split()).upper() == expected.upper()


def _same_seat(value: str, expected: str) -> bool:
    """A seat tag's value naming the seat the replay gives, read as the Dealer tag is."""
    try:
        return _parse_seat(value).name == expected
    except RecordError:
        return False


def _check_derived(block: _Block, name: str, expected: str | None,
                   same: Callable[[str, str], bool] = _same_text) -> None:
    """A derived tag, when given, must say what the replay says."""
    found = block.get(name)
    if found is None:
        return
    number, value = found
    if expected is None:
        raise RecordError(f"tag {name} {quoted(value, LINE_SHOWN)} given, but the hand has no {name.lower()}",
                          position=f"line {number}")
    if not same(value, expected):
        raise RecordError(f"tag {name} says {quoted(value, LINE_SHOWN)}, the replay gives {expected!r}",
                          position=f"line {number}")


def _tag_value(block: _Block, name: str, parse: Callable[[str], T]) -> T | None:
    """``parse`` applied to tag ``name``'s value (``None`` when the tag is absent),
    an error naming the line and the tag."""
    found = block.get(name)
    if found is None:
        return None
    number, value = found
    try:
        return parse(value)
    except FlowerBridgeError as exc:
        raise _at(exc, f"line {number}, tag {name}") from None


def _replay(lines: list[tuple[int, str]], act: Callable[[str], object]) -> None:
    for number, line in lines:
        for action in line.split():
            try:
                act(action)
            except FlowerBridgeError as exc:
                raise _at(exc, f"line {number}") from None


def _read(block: _Block, options: RuleOptions | None) -> HandRecord:
    block.require("Dealer")
    block.require("Deal")
    dealer = _tag_value(block, "Dealer", _parse_seat)
    deal = _tag_value(block, "Deal", lambda value: Deal.from_hands(_parse_deal(value)))
    assert dealer is not None and deal is not None      # (required above)
    # Undealt is optional; when given, Deal checks that it is the 8 cards left over.
    _tag_value(block, "Undealt", lambda value: Deal(deal.hands, tuple(parse_holding(value))))
    # The Score tag is the score under the hand's own Options tag: options given in its
    # place score the hand afresh, and the tag's points, which they need not give, are not
    # compared (a Score on a hand not over is still an error).
    own_options = options is None
    if options is None:
        options = _tag_value(block, "Options", _parse_options) or RuleOptions()
    state = HandState(deal, dealer, options)

    auction_dealer = _tag_value(block, "Auction", _parse_seat)
    if auction_dealer is not None and auction_dealer is not dealer:
        raise RecordError(f"tag Auction names {auction_dealer}, but the dealer is {dealer}",
                          position=f"line {block.require('Auction')[0]}")
    _replay(block.sections["Auction"], state.call)

    leader = _tag_value(block, "Play", _parse_seat)
    if leader is not None:
        where = f"line {block.require('Play')[0]}"
        if state.contract is None:
            raise RecordError("tag Play, but the auction has not made a contract", position=where)
        if leader is not state.contract.opening_leader:
            raise RecordError(f"tag Play names {leader}, but the opening leader is "
                              f"{state.contract.opening_leader} (declarer's left)", position=where)
    tricks = block.sections["Play"]
    for i, (number, line) in enumerate(tricks):
        size = len(line.split())
        if size > 4 or (size < 4 and i + 1 < len(tricks)):
            raise RecordError(f"a play line is one trick of 4 cards (the last may be unfinished), "
                              f"not {size}", position=f"line {number}")
    _replay(tricks, state.play)

    contract = state.contract
    _check_derived(block, "Contract", "Pass" if state.phase is Phase.PASSED_OUT
                   else contract.code if contract else None)
    _check_derived(block, "Declarer", contract.declarer.name if contract else None, _same_seat)
    _check_derived(block, "Result", str(state.tricks_won[contract.side])
                   if contract and state.phase is Phase.FINISHED else None)
    _check_derived(block, "Score", format_score(state) if state.is_over else None,
                   _same_text if own_options else lambda value, expected: True)

    extra: dict[str, str] = {}
    for number, name, value in block.tags:
        if name in HAND_TAGS:
            continue
        if name in KNOWN_KEYS:
            raise RecordError(f"tag {name}: the name of one of the JSON hand record's own fields "
                              f"({', '.join(KNOWN_KEYS)}): give it another name", position=f"line {number}")
        try:
            _check_extra_tag(name, value)
        except RecordError as exc:
            raise _at(exc, f"line {number}") from None
        extra[name] = value
    return HandRecord(state, extra)


def _check_extra_tag(name: str, value: str) -> None:
    """The checks of the tags the notation knows besides the hand's own, and of every
    extra tag's value: no NUL (no text file the commands read holds one, and a key whose
    value holds one is not written)."""
    if "\0" in value:
        raise RecordError(f"tag {name}: holds a NUL character (U+0000), which no tag may hold")
    if name == "Date" and not _is_date(value):
        raise RecordError(f'tag Date {quoted(value, LINE_SHOWN)}: expected "YYYY.MM.DD", a calendar date '
                          "('?' for unknown digits)")
    if name == "Board" and not (re.fullmatch(r"[0-9]{1,9}", value) and int(value) >= 1):
        raise RecordError(f"tag Board {quoted(value, LINE_SHOWN)}: expected a board number from 1 to 999,999,999")


def _completions(field: str) -> list[int]:
    """Every number a date field may stand for, each ``?`` being any digit."""
    values = [0]
    for ch in field:
        values = [10 * v + d for v in values for d in ((int(ch),) if ch != "?" else range(10))]
    return values


def _is_date(value: str) -> bool:
    """``YYYY.MM.DD`` in ASCII digits, ``?`` for any unknown digit, that some
    calendar date fits (``2026.02.30`` and ``2026.13.??`` fit none)."""
    match = _DATE_RE.fullmatch(value)
    if not match:
        return False
    year, month, day = match.groups()
    months = [m for m in _completions(month) if 1 <= m <= 12]
    days = [d for d in _completions(day) if 1 <= d <= 31]
    years = [y for y in _completions(year) if y >= 1] if "?" in year else [int(year)]
    if not (months and days and years and years[0] >= 1):
        return False
    leap = any(calendar.isleap(y) for y in years)
    return any(d <= (29 if m == 2 and leap else calendar.monthrange(2025 if m == 2 else 2024, m)[1])
               for m in months for d in days)


_SURROGATE = re.compile("[\ud800-\udfff]")


def loads_all(text: str | bytes | bytearray, *, options: RuleOptions | None = None) -> list[HandRecord]:
    """Every hand in ``text`` (or its UTF-8 bytes), replayed. ``options`` overrides each
    hand's ``Options`` tag (the hand is scored under them, and its ``Score`` tag, the score
    under its own options, is not compared).
    A byte-order mark at the start is dropped."""
    if isinstance(text, (bytes, bytearray)):
        encoded = bytes(text)
        try:
            text = encoded.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = len(text_lines(encoded[:exc.start].decode("utf-8", "replace")))
            raise RecordError(f"line {line}: byte 0x{encoded[exc.start]:02x} is not UTF-8 "
                              "(the notation is UTF-8 text)") from None
    if not isinstance(text, str):
        raise RecordError(f"a hand in the text notation is a string, not {type(text).__name__}")
    lone = _SURROGATE.search(text)
    if lone:    # no character: a tag holding it could not be written back (JSON, UTF-8)
        line = len(text_lines(text[:lone.start()]))     # (as the other errors count lines: CR ends one too)
        raise RecordError(f"line {line}: holds a lone surrogate \\u{ord(lone.group()):04x} (half of a "
                          "UTF-16 pair, not a Unicode character)")
    return [_read(block, options) for block in _blocks(text.removeprefix("\ufeff"))]


def loads(text: str | bytes | bytearray, *, options: RuleOptions | None = None) -> HandRecord:
    """The one hand in ``text`` (or its UTF-8 bytes), replayed; a file of several hands is
    an error."""
    records = loads_all(text, options=options)
    if len(records) != 1:
        raise RecordError(f"expected one hand, found {len(records)}"
                          + ("; use loads_all for a file of several hands" if records else ""))
    return records[0]


def load(fp: IO[str] | IO[bytes], *, options: RuleOptions | None = None) -> HandRecord:
    """Read one hand from an open file (text or binary), as :func:`records.load
    <flowerbridge.records.load>` reads one in JSON."""
    return loads(read_open_file(fp), options=options)


__all__ = ["DERIVED_TAGS", "HAND_TAGS", "dump", "dumps", "dumps_all", "format_holding",
           "format_score", "load", "loads", "loads_all", "parse_holding", "writable_tag"]
