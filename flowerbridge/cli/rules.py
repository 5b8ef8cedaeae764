"""``flowerbridge rules``: the rules in brief, as text: the web client's *How to play*
page (``server/web/rules.html``, the one text of them) read and laid out for a terminal,
so that a player at the terminal (``play``) has them as one at a web table does."""

from __future__ import annotations

import re
import textwrap
from html.parser import HTMLParser
from pathlib import Path

from ..render import GLUE

PAGE = Path(__file__).resolve().parents[1] / "server" / "web" / "rules.html"


def register(subparsers) -> None:
    p = subparsers.add_parser("rules", help="the rules in brief (the web client's How to play)",
                              description="Print the rules of Flower Bridge in brief: the deal, the "
                                          "auction, the play, scoring with the default figures, "
                                          "games and the session.")
    p.set_defaults(func=run)


def run(args) -> int:
    from . import output_width

    print(render_rules(PAGE.read_text(encoding="utf-8"), output_width()))
    return 0


def render_rules(html: str, width: int | None = None) -> str:
    """The page's ``<main>`` as text: a heading underlined, a paragraph or list item
    wrapped to ``width`` (None: a line each), a table in aligned columns."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    out: list[str] = []
    for kind, text, rows in reader.blocks:
        if kind == "h2":
            out += ["", text, "-" * len(text)]
        elif kind == "table":
            out += ["", *_table(rows, width)]
        elif kind == "li" and out and out[-1].startswith(("- ", "  ")):     # the list goes on
            out += _wrapped(text, width, item=True)
        else:
            out += ["", *_wrapped(text, width, item=kind == "li")]
    # (a no-break space, the page's &nbsp;, holds "n + 6" together through the wrapping, as
    # render.GLUE does for fit_lines; printed as a space)
    return "\n".join(out).strip("\n").replace(GLUE, " ")


def _wrapped(text: str, width: int | None, item: bool = False) -> list[str]:
    """A paragraph, or a list item (``- `` before it), wrapped to ``width`` at spaces."""
    first, rest = ("- ", "  ") if item else ("", "")
    # runs of the page's white space as one space; not a no-break space (str.split() would)
    text = " ".join(word for word in re.split(r"[ \t\n\r\f\v]+", text) if word)
    if width is None:
        return [first + text]
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False)


def _table(rows: list[list[str]], width: int | None) -> list[str]:
    """Aligned columns (the first to the left, figures to the right); where they do not fit
    ``width``, a line a row, each figure named by its column."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    if width is None or sum(widths) + 2 * (len(widths) - 1) <= width:
        return ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
                .rstrip() for row in rows]
    head, *body = rows
    return [line for row in body for line in _wrapped(
        f"{row[0]}: " + ", ".join(f"{name.lower()} {cell}" for name, cell in zip(head[1:], row[1:])), width, True)]


class _Reader(HTMLParser):
    """The blocks of the page's ``<main>``: ("p" | "li" | "h2", text, []) and ("table", "", rows),
    what is said of the web site alone (class ``web``) left out."""

    BLOCKS = {"p", "li", "h2"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, str, list[list[str]]]] = []   # (kind, text, a table's rows)
        self.in_main = False
        self.block: str | None = None
        self.text: list[str] = []
        self.rows: list[list[str]] | None = None
        self.cell: list[str] | None = None
        self.skipped = 0    # depth inside an element of class "web"

    def handle_starttag(self, tag: str, attrs) -> None:
        if self.skipped or ("class", "web") in attrs:   # said of the web site alone
            self.skipped += 1
        elif tag == "main":
            self.in_main = True
        elif not self.in_main:
            return
        elif tag == "table":
            self.rows = []
        elif tag == "tr" and self.rows is not None:
            self.rows.append([])
        elif tag in ("td", "th") and self.rows is not None:
            self.cell = []
        elif tag in self.BLOCKS and self.block is None:
            self.block, self.text = tag, []

    def handle_endtag(self, tag: str) -> None:
        if self.skipped:
            self.skipped -= 1
            return
        if not self.in_main:
            return
        if tag == "main":
            self.in_main = False
        elif tag == "table" and self.rows is not None:
            self.blocks.append(("table", "", self.rows))
            self.rows = None
        elif tag in ("td", "th") and self.cell is not None and self.rows:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == self.block:
            self.blocks.append((tag, "".join(self.text), []))
            self.block = None

    def handle_data(self, data: str) -> None:
        if self.skipped:
            return
        data = data.replace("\u00ad", "")     # a soft hyphen (&shy;): where a browser may break a word
        if self.cell is not None:
            self.cell.append(data)
        elif self.block is not None:
            self.text.append(data)
