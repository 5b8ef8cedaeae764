"""The generic core on Contract Bridge, against DDS (through endplay)."""

from __future__ import annotations

import json
import random

import pytest

from flowerbridge import FlowerBridgeError
from flowerbridge.solver import BRIDGE, DoubleDummy, dd_tables
from flowerbridge.solver.bridge import PBNError, parse_pbn, to_pbn

endplay = pytest.importorskip("endplay")
from endplay.dds import calc_dd_table, solve_board  # noqa: E402
from endplay.types import Deal, Denom, Player  # noqa: E402

# endplay's order: spades, hearts, diamonds, clubs, NT; ours: clubs .. spades, NT
_DENOMS = (Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt)
_PLAYERS = (Player.north, Player.east, Player.south, Player.west)


def random_deal(rng: random.Random, cards: int = 13) -> list[list[int]]:
    deck = list(range(52))
    rng.shuffle(deck)
    return [sorted(deck[i * cards:(i + 1) * cards]) for i in range(4)]


def dds_table(hands) -> list[list[int]]:
    """DDS's table, in our layout [denomination][declarer]."""
    if len(hands[0]) == 13:
        ref = calc_dd_table(Deal.from_pbn(to_pbn(hands))).to_list()
        return [list(ref[int(d)]) for d in _DENOMS]
    # partial deals: DDS's SolveBoard for every strain and opening leader
    out = []
    for d in _DENOMS:
        row = []
        for declarer in range(4):
            deal = Deal.from_pbn(to_pbn(hands))
            deal.trump = d
            deal.first = _PLAYERS[(declarer + 1) % 4]
            best = max(t for _, t in solve_board(deal))
            row.append(len(hands[0]) - best)
        out.append(row)
    return out


def test_solver_matches_dds_on_100_random_full_bridge_deals():
    # every entry of the DD table (5 denominations x 4 declarers) of 100 random
    # 13-card deals against DDS's calc_dd_table; 1,000 in the benchmark script
    rng = random.Random(2026)
    deals = [random_deal(rng) for _ in range(100)]
    ours = dd_tables(deals, BRIDGE, workers=2)
    for hands, table in zip(deals, ours, strict=True):
        assert table == dds_table(hands), to_pbn(hands)


def test_solver_matches_dds_on_partial_bridge_deals_every_leader():
    # 6 to 9 cards a hand, DDS's SolveBoard for each strain and opening leader
    # separately (the other path into DDS, and endings the full deals rarely reach)
    rng = random.Random(52)
    deals = [random_deal(rng, rng.randint(6, 9)) for _ in range(40)]
    ours = dd_tables(deals, BRIDGE, workers=2, memory_mb=64)
    for hands, table in zip(deals, ours, strict=True):
        assert table == dds_table(hands), to_pbn(hands)


def test_one_bridge_table_shared_among_threads_matches_dds():
    # a single deal's 20 entries searched by two threads on one shared table
    rng = random.Random(77)
    for _ in range(5):
        hands = random_deal(rng)
        assert dd_tables([hands], BRIDGE, workers=2) == [dds_table(hands)], to_pbn(hands)


def test_card_values_match_dds_mid_trick():
    rng = random.Random(11)
    solver = DoubleDummy(BRIDGE, memory_mb=32)
    for _ in range(30):
        hands = random_deal(rng, rng.randint(3, 7))
        trump = rng.randrange(5)
        leader = rng.randrange(4)
        deal = Deal.from_pbn(to_pbn(hands))
        deal.trump = _DENOMS[trump]
        deal.first = _PLAYERS[leader]
        trick = []
        for i in range(rng.randint(0, 3)):
            moves = deal.legal_moves()
            card = moves[rng.randrange(len(moves))]
            deal.play(card)
            index = (3 - int(card.suit)) * 13 + "23456789TJQKA".index(card.rank.abbr)
            hands[(leader + i) % 4].remove(index)
            trick.append(index)
        seat, values = solver.card_values(hands, None if trump == 4 else trump, leader, trick)
        ref = {(3 - int(c.suit)) * 13 + "23456789TJQKA".index(c.rank.abbr): t for c, t in solve_board(deal)}
        assert values == ref


def test_pbn_parsing_and_errors():
    hands = parse_pbn("E:AKQ2.JT9.876.543 T987.AKQ.5432.K2 J6.8765.AKQJ.A76 543.432.T9.QJT98")
    assert [len(h) for h in hands] == [13, 13, 13, 13]
    assert 3 * 13 + 12 in hands[1]  # spade ace with East, the first hand
    for bad in ("AKQ2.JT9.876.543", "N:AK.QJ.T9 2.3.4.5 6.7.8.9 A.K.Q.J", "N:A... A... K... Q...",
                "N:X... A... K... Q..."):
        with pytest.raises(PBNError):
            parse_pbn(bad)
    # (one hierarchy for the package's errors: PBNError was a bare ValueError)
    with pytest.raises(FlowerBridgeError, match="4 hands, not 1"):
        parse_pbn("N:AKQ2.JT9.876.543")
    for other in (None, b"N:AKQ2.JT9.876.543"):     # (an AttributeError from .strip())
        with pytest.raises(PBNError, match="a PBN deal is a string, not "):
            parse_pbn(other)


def test_to_pbn_writes_each_card_once_and_refuses_what_is_no_card():
    hands = random_deal(random.Random(8), 5)
    assert [sorted(hand) for hand in parse_pbn(to_pbn(hands))] == hands
    numpy = pytest.importorskip("numpy")
    assert to_pbn(numpy.array(hands)) == to_pbn(hands)     # (NumPy's integers are cards too)
    # a card out of range was left out of the text, a card given twice written twice
    for bad, complaint in (([[52, 60], [0, 1], [2, 3], [4, 5]], "hand N: 52 is no card"),
                           ([[0, 1], [2, -1], [3, 4], [5, 6]], "hand E: -1 is no card"),
                           ([[0, True], [1, 2], [3, 4], [5, 6]], "hand N: True is no card"),
                           ([[0, "1"], [2, 3], [4, 5], [6, 7]], "hand N: '1' is no card"),
                           ([[0, 0], [1, 2], [3, 4], [5, 6]], "card C2 is dealt twice"),
                           ([[0, 1], [2, 3], [4, 5]], "4 hands, not 3"),
                           # (hands of unequal sizes were written, which parse_pbn refused;
                           # None and 5 were a TypeError)
                           ([[0], [1], [2], []], r"same number of cards \(1 to 13\), not 1, 1, 1, 0"),
                           (None, "4 hands, each an iterable of card indices"),
                           (5, "4 hands, each an iterable of card indices")):
        with pytest.raises(PBNError, match=complaint):
            to_pbn(bad)


def test_bridge_dd_table_refuses_a_solver_that_is_not_a_bridge_one():
    # a solver of another geometry read the cards as its own: a wrong table, silently
    # (Geometry(4, 14, 1)), or a card "out of range 0..29"; a falsy one was replaced
    from flowerbridge.solver import FLOWER, DoubleDummy, Geometry
    from flowerbridge.solver.bridge import dd_table
    pbn = "N:AKQ2.JT9.876.543 JT9.876.543.AKQ2 876.543.AKQ2.JT9 543.AKQ2.JT9.876"
    for solver, what in ((DoubleDummy(Geometry(4, 14, 1), 1), r"a DoubleDummy of Geometry\(suits=4, ranks=14"),
                         (DoubleDummy(FLOWER, 1), r"a DoubleDummy of Geometry\(suits=3"),
                         ("abc", "a str"), (0, "an int")):
        with pytest.raises(PBNError, match=rf"^solver must be a Bridge DoubleDummy \(DoubleDummy\(BRIDGE\)\), "
                                           rf"not {what}"):
            dd_table(pbn, solver)
    assert dd_table(pbn, DoubleDummy(BRIDGE, 1)) == dd_table(pbn)


def test_dd_table_many_of_one_pbn_string_says_it_takes_a_list():
    # (each letter was read as a deal: "a PBN deal starts with the first hand's seat" of 'N:...')
    from flowerbridge.solver.bridge import dd_table_many

    with pytest.raises(PBNError, match=r"dd_table_many solves many PBN deals \(a list of them\): dd_table solves one"):
        dd_table_many(to_pbn(random_deal(random.Random(9), 2)))


def test_a_pbn_deal_names_its_first_seat_by_an_ascii_letter_only():
    hands = "AKQ2.JT9.876.543 T987.AKQ.5432.K2 J6.8765.AKQJ.A76 543.432.T9.QJT98"
    assert parse_pbn("s:" + hands) == parse_pbn("S:" + hands)
    with pytest.raises(PBNError, match="first hand's seat"):
        parse_pbn("\u017f:" + hands)       # the long s, which str.upper() makes an S


def test_cli_bridge_file_prints_one_table_per_deal(tmp_path, capsys):
    from flowerbridge.cli import main

    rng = random.Random(4)
    deals = [random_deal(rng, 7) for _ in range(3)]
    path = tmp_path / "deals.pbn"
    path.write_text("\n".join(to_pbn(d) for d in deals) + "\n")
    assert main(["solve", "--bridge-file", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for line, hands in zip(lines, deals):
        table = json.loads(line)
        assert list(table) == ["C", "D", "H", "S", "NT"]
        ref = dds_table(hands)
        assert [[table[d][s] for s in "NESW"] for d in table] == ref
    path.write_text("# one deal\nN:AK.QJ\n")
    assert main(["solve", "--bridge-file", str(path)]) == 2
    err = capsys.readouterr().err       # (it named the line, not the file)
    assert err.startswith(f"error: {path}, line 2: ") and err.count("\n") == 1
    for text in ("", "\n\n", "# only a comment\n"):      # no deal at all is an error too
        path.write_text(text)
        assert main(["solve", "--bridge-file", str(path)]) == 2
        assert "no deal in it" in capsys.readouterr().err


def test_cli_bridge_file_hands_the_deals_to_the_solver_in_batches_each_table_in_order(tmp_path, capsys,
                                                                                     monkeypatch):
    # all of a file's deals were parsed and checked, three times over, before the first table
    # came out (a 63 MB file: 2.6 GB and a minute): a batch at a time now, the same lines
    from flowerbridge.cli import main, solve
    from flowerbridge.solver import bridge

    rng = random.Random(6)
    deals = [random_deal(rng, 5) for _ in range(7)]
    path = tmp_path / "deals.pbn"
    path.write_text("\n".join(to_pbn(d) for d in deals) + "\n")
    assert main(["solve", "--bridge-file", str(path), "--workers", "1"]) == 0
    whole = capsys.readouterr().out
    batches = []
    solved = bridge.iter_dd_table_many

    def counted(pbns, **kwargs):
        batches.append(len(pbns))
        return solved(pbns, **kwargs)

    monkeypatch.setattr(solve, "BATCH", 3)
    monkeypatch.setattr(bridge, "iter_dd_table_many", counted)
    assert main(["solve", "--bridge-file", str(path), "--workers", "2"]) == 0
    assert capsys.readouterr().out == whole and batches == [3, 3, 1]
    assert [json.loads(line)["NT"] for line in whole.splitlines()] == \
        [dict(zip("NESW", dds_table(d)[4])) for d in deals]


@pytest.mark.parametrize("breaker", ["\u2028", "\x85", "\f"])
def test_cli_bridge_file_counts_lines_as_editors_do(tmp_path, capsys, breaker):
    # str.splitlines broke a line at U+2028, U+0085 or a form feed: one line of two deals
    # was read as two, and a bad deal on the next line was said to be on line 3
    from flowerbridge.cli import main

    deal = to_pbn(random_deal(random.Random(5), 7))
    path = tmp_path / "deals.pbn"
    path.write_text(f"{deal}{breaker}{deal}\nN:xyz\n", encoding="utf-8")
    assert main(["solve", "--bridge-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}, line 1: ") and err.count("\n") == 1, err


def test_iter_dd_tables_hands_the_workers_a_bounded_number_of_deals_ahead(monkeypatch):
    # every deal was given to the pool before the first table: a million deals' futures
    # held at once (a --bridge-file of 63 MB ran out of memory before a line came out)
    from flowerbridge.solver import core
    from flowerbridge.solver.core import iter_dd_tables

    monkeypatch.setattr(core, "AHEAD", 3)
    submitted = []

    class Counted(core.ThreadPoolExecutor):
        def submit(self, *args, **kwargs):
            submitted.append(1)
            return super().submit(*args, **kwargs)

    monkeypatch.setattr(core, "ThreadPoolExecutor", Counted)
    deal = parse_pbn("N:A.2.3.4 K.5.6.7 Q.8.9.T J.J.J.J")    # (four cards a hand: quick)
    expected = DoubleDummy(BRIDGE).dd_table(deal)
    tables = iter_dd_tables([deal] * 40, BRIDGE, workers=2)
    assert next(tables) == expected
    assert len(submitted) <= 2 * 3 + 1
    assert [next(tables) for _ in range(39)] == [expected] * 39 and len(submitted) == 40
    assert next(tables, None) is None


def test_iter_dd_tables_gives_a_table_before_the_later_deals_are_solved(monkeypatch):
    import threading

    from flowerbridge.solver import core
    from flowerbridge.solver.core import iter_dd_tables

    deals = [parse_pbn(p) for p in (
        "N:AKQJ63.AQ3.A7.KJ .T8742.T9863.A64 85.KJ6.KQ2.T9872 T9742.95.J54.Q53",
        "N:AT987.Q9.A73.854 QJ32.743.62.AKT9 654.JT865.J94.72 K.AK2.KQT85.QJ63",
        "N:A84.Q42.K53.QT92 K62.AJ6.J4.AK653 J9753.T97.A986.J QT.K853.QT72.874")]
    last_may_go = threading.Event()
    solved = core.DoubleDummy.dd_table

    def last_waits(self, hands):
        # (by value: the deals are copied before they are solved, and a test of the copy's
        # identity held nothing back)
        if [list(hand) for hand in hands] == [list(hand) for hand in deals[-1]]:
            assert last_may_go.wait(30), "the first table never came out"
        return solved(self, hands)

    expected = [DoubleDummy(BRIDGE).dd_table(d) for d in deals]
    monkeypatch.setattr(core.DoubleDummy, "dd_table", last_waits)
    tables = iter_dd_tables(deals, BRIDGE, workers=2)
    try:
        first = next(tables)            # the last deal is still held back
    finally:
        last_may_go.set()
    rest = list(tables)
    assert [first, *rest] == expected
