"""The web client in a real browser (issue #5, parts 2, 3 and 7).

Headless Chromium, driven by Playwright, plays through the pages of a real
``flowerbridge serve``: the lobby creates a table, South plays a whole hand
with three bots by mouse (desktop) and by keyboard (360 px wide), a second
person joins the same table in a second browser context, a spectator watches.
Screenshots are saved under ``artifacts/browser/``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time

from urllib.parse import urlsplit

import httpx
import pytest

from browser_support import CHROMIUM, CHROMIUM_ARGS, DESKTOP, LIVE_RECORDER, PHONE, SHOWN_ALL, Server, closing_settled, \
    screenshot
from flowerbridge.server.testing import Client

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) "
                "to run the browser tests", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")

HAND_TIMEOUT_MS = 60_000
BOT = "random"  # the fastest level: these tests are about the page, not the bots


def open_page(browser, server, path, viewport=DESKTOP, *, csp=False, init_script=None, clock=False):
    """A page in its own context (its own storage), with page errors collected,
    whatever the server's Content-Security-Policy refused, and the text of every
    websocket message it received (``page.frames_in``). The policy is
    bypassed unless ``csp``: Playwright's waits on a JavaScript expression are
    an eval, which the policy refuses (the pages themselves never eval).
    ``init_script`` runs before the page's own scripts; ``clock`` installs
    Playwright's clock first (running at the wall clock's pace, which
    ``page.clock.run_for`` moves on at once)."""
    context = browser.new_context(viewport=viewport, base_url=server.url, bypass_csp=not csp)
    if clock:
        context.clock.install()
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    page.frames_in = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: page.frames_in.append(payload)))
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("console", lambda message: page.errors.append(message.text)
            if message.type == "error" and "Content Security Policy" in message.text else None)
    page.goto(path)
    return page


def wait_for_table(page):
    # (asked just after a click that leaves the page, the next one may have no body yet:
    # "cannot read properties of null" ended the wait at once)
    page.wait_for_function("document.body?.dataset.seq > 0", timeout=15_000)


# --------------------------------------------------------- playing by page


def highest_call(page):
    """The last call the bidding box offers: the highest legal bid (7NT when open)."""
    return page.locator("#bidding button").last.get_attribute("data-call")


# What the page offers, read in one go with the seq of the view that offers it
# (None while a window is open: the review of a finished hand, over the next one's
# bidding box). Once it is the page's turn nothing moves until it acts, so the
# action is made on that view and answered by the next seq.
TURN = """() => document.querySelector('dialog[open]') ? null : {
  seq: document.body.dataset.seq,
  call: document.querySelector('#bidding button') !== null,
  card: document.querySelector('#felt .card.playable') !== null,
}"""


def act_by_mouse(page, bid_once, before_card):
    """Make this page's call or play its card, if it is this page's turn; returns
    the seq of the view it acted on (None when it did not act).

    The first call of the page is the highest bid on offer (so that its side
    declares and this page plays the dummy too); later calls pass. Cards: the
    first card the page offers, from the hand or from the dummy, after
    ``before_card(page)`` has looked at the table (nothing moves until it is played).
    """
    turn = page.evaluate(TURN)
    if turn and turn["call"]:
        call = highest_call(page) if bid_once["open"] else "Pass"
        bid_once["open"] = False
        page.locator(f'#bidding button[data-call="{call}"]').click()
        return turn["seq"]
    if turn and turn["card"]:
        before_card(page)
        # Cards overlap: click the corner that shows, as a person would.
        page.locator("#felt .card.playable").first.click(position={"x": 6, "y": 12})
        return turn["seq"]
    return None


def act_by_keyboard(page, bid_once, before_card):
    """The same as :func:`act_by_mouse`, with keys only (see docs/client.md)."""
    turn = page.evaluate(TURN)
    if turn and turn["call"]:
        call = highest_call(page) if bid_once["open"] else "Pass"
        bid_once["open"] = False
        keys = ["p"] if call == "Pass" else [call[0], call[1].lower()]
        for key in keys:
            page.keyboard.press(key)
        return turn["seq"]
    if turn and turn["card"]:
        before_card(page)
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.activeElement.classList.contains('playable')")
        page.keyboard.press("Enter")
        return turn["seq"]
    return None


def play_hand(pages, act, before_card=lambda page: None):
    """Let each page act whenever it may, until the hand is over on all of them.

    Every action is followed by waiting for the server's next event after the
    view it was made on, so a page never acts twice on a view the server has
    already replaced. (That seq is the one :data:`TURN` read with the turn: read
    before it, a bot's card that gave the page its turn in between passed for
    the answer, and the page acted again on the view it had just acted on.)
    """
    bid_once = {page: {"open": True} for page in pages}
    while not all(page.locator("#review-dialog[open]").count() for page in pages):
        acted = False
        for page in pages:
            if page.locator("#review-dialog[open]").count():
                continue
            seq = act(page, bid_once[page], before_card)
            if seq is not None:
                acted = True
                page.wait_for_function(f"document.body.dataset.seq !== '{seq}' || "
                                       "document.querySelector('#refusal').textContent", timeout=HAND_TIMEOUT_MS)
                assert page.locator("#refusal").inner_text() == ""
        if not acted:
            pages[0].wait_for_timeout(30)


def trick_counts(page):
    text = page.locator("#contract .tricks-won")
    return int(text.get_attribute("data-ns")), int(text.get_attribute("data-ew"))


# ------------------------------------------------------------------- lobby


def test_lobby_creates_table_with_options_length_and_invitations(browser, server):
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.fill("input[name=name]", "Lobby test")
    page.select_option("select[name=declarer]", "first-named")
    page.fill("input[name=undertrick_penalty]", "0")
    page.fill("input[name=length]", "2")
    page.select_option("select[name=length_unit]", "games")
    page.select_option("select[name=player_N]", "human")
    # East and West of other levels: each seat's choice goes to that seat (a form sent
    # with its seats turned by two gave the same table where the choices were alike)
    page.select_option("select[name=level_E]", BOT)
    page.select_option("select[name=level_W]", "basic")
    page.click("#create-button")
    page.wait_for_selector("#created:not(.hidden)")
    assert page.locator("#created-title").inner_text() == "Invitations to Lobby test"
    links = {item.get_attribute("data-link"): item.locator("input").input_value()
             for item in page.locator("#invitations li").all()}
    assert set(links) == {"North", "South", "Spectators"}
    assert re.fullmatch(rf"{re.escape(server.url)}/t/[^#]+#token=.+", links["North"])
    assert links["North"] != links["South"]
    assert "#" not in links["Spectators"]
    assert page.locator("#go-to-table").is_hidden()      # two people: links to send, no way in of its own
    table_id = links["Spectators"].rsplit("/", 1)[1]
    table = server.api("GET", f"/api/tables/{table_id}")
    assert table["options"]["declarer"] == "first-named"
    assert table["options"]["undertrick_penalty"] == 0
    assert table["length"] == {"games": 2}
    assert table["seats"]["E"] == {**table["seats"]["E"], "player": "bot", "level": BOT}
    assert table["seats"]["W"] == {**table["seats"]["W"], "player": "bot", "level": "basic"}
    page.wait_for_selector(f'#tables li[data-table="{table_id}"]')
    screenshot(page, "lobby-desktop")
    phone = open_page(browser, server, "/", viewport=PHONE)
    phone.wait_for_selector(f'#tables li[data-table="{table_id}"] a[href="/t/{table_id}"]')
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(phone, "lobby-360")
    assert not page.errors and not phone.errors


def test_lobby_creates_a_table_of_a_designers_variant_from_more_rule_options(browser, server):
    # The API took every rule option, the lobby two: a variant the lab studies could not be
    # played at a table in the browser. Bad text is said before anything is sent.
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.fill("input[name=name]", "Variant")
    page.locator(".more-options summary").click()
    tables = len(server.api("GET", "/api/tables")["tables"])
    for text, said in [('{"game_points": 60', "More rule options: not JSON ("),
                       # (JavaScript's Infinity, sent as null: a table under the defaults, unsaid)
                       ('{"game_points": 1e400}', "More rule options: a number far too large"),
                       ("[60]", 'More rule options: give an object of options, as {"game_points": 60}'),
                       ('{"undertrick_penalty": 0}', "More rule options: undertrick_penalty is set above, not here"),
                       ('{"declarer": "first-named", "undertrick_penalty": 0}',
                        "More rule options: declarer and undertrick_penalty are set above, not here"),
                       ('{"game_point": 60}', "game_point")]:       # (the server's refusal names the key)
        page.fill("input[name=more_options]", text)
        page.click("#create-button")
        page.wait_for_function("document.querySelector('#create-error').textContent.length > 0")
        assert said in page.locator("#create-error").inner_text(), text
        if said.startswith("More rule options"):        # refused here: the field it is about
            field = page.locator("input[name=more_options]")
            assert field.evaluate("e => e === document.activeElement && e.getAttribute('aria-invalid') === 'true'")
    assert len(server.api("GET", "/api/tables")["tables"]) == tables
    page.fill("input[name=more_options]", '{"game_points": 60, "honor_bright": [5, 3]}')
    page.click("#create-button")
    page.wait_for_selector("#created:not(.hidden)")
    table_id = page.locator('#invitations li[data-link="Spectators"] input').input_value().rsplit("/", 1)[1]
    table = server.api("GET", f"/api/tables/{table_id}")
    assert table["options"] == {"undertrick_penalty": 50, "declarer": "final-bidder",
                                "game_points": 60, "honor_bright": [5, 3]}
    row = page.locator(f'#tables li[data-table="{table_id}"] .table-rules')
    row.wait_for()
    assert row.inner_text() == "Rules: a Bright captured scores 5, both copies 5 + 3; game at 60 below the line"
    assert not page.errors


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_lobby_a_table_of_one_person_offers_a_way_in_to_their_seat(browser, server, viewport):
    # (the way in was a small "open" beside "South", in a new tab, under a note to send
    # each person their link)
    page = open_page(browser, server, "/", viewport=viewport)
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.click("#create-button")            # the form's seats: South a person, three bots
    page.wait_for_selector("#created:not(.hidden)")
    south = page.locator("#invitations li[data-link=South] input").input_value()
    go = page.locator("#go-to-table a")
    assert go.is_visible() and go.inner_text() == "Go to your table, as South"
    assert go.get_attribute("target") is None and south.endswith(go.get_attribute("href"))
    note = page.locator("#created-note").inner_text()
    assert "send each person" not in note and note.startswith("Your link carries your seat's secret token")
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    go.click()                              # in this tab: the table, as South
    wait_for_table(page)
    assert page.url == south and page.locator("#title").inner_text().endswith("South")
    assert not page.errors


def test_r9_r15_a_tables_rule_options_are_shown_in_the_lobby_and_above_its_auction(browser, server):
    # A person invited to a table of no undertrick penalty (R15) where the first to name the
    # denomination declares (R9) bid with no word of either: the page showed neither.
    said = ("no undertrick penalty (R15, the rulebook as written); the first of the declaring side "
            "to name the final denomination declares (R9)")
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, name="Strict table",
                                  options={"undertrick_penalty": 0, "declarer": "first-named"})
    plain = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, name="Usual table")
    lobby = open_page(browser, server, "/")
    row = lobby.locator(f'#tables li[data-table="{created["table"]["id"]}"]')
    row.locator(".table-rules").wait_for()
    assert row.locator(".table-rules").inner_text() == f"Rules: {said}"
    assert lobby.locator(f'#tables li[data-table="{plain["table"]["id"]}"] .table-rules').count() == 0
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    south.locator("#bidding button").first.wait_for()
    assert south.locator("#table-rules").inner_text() == f"This table's rules: {said}."
    # and in Help, under the link to How to play (which gives the defaults' figures): on a
    # phone the auction's panel lies below the table
    south.locator("#open-keys").click()
    assert south.locator("#help-table-rules").inner_text() == f"This table changes them: {said}."
    usual = open_page(browser, server, plain["invitations"]["S"]["url"])
    usual.locator("#bidding button").first.wait_for()
    assert not usual.locator("#table-rules").is_visible()
    assert not lobby.errors and not south.errors and not usual.errors


def test_r9_r15_on_a_phone_a_tables_rule_options_are_one_line_above_the_bidding_box(browser, server):
    # Below 1000 px the auction's panel, which says them, lies below the table: a phone
    # player bid without seeing them. Folded to one line in the auction, opened on a tap.
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT},
                                  options={"undertrick_penalty": 0})
    for viewport in ({"width": 640, "height": 360}, {"width": 600, "height": 360}):   # on its side too
        turned = open_page(browser, server, created["invitations"]["S"]["url"], viewport=viewport)
        turned.locator("#bidding button").first.wait_for()
        assert turned.locator("#rules-note").bounding_box()["height"] < 30, viewport     # one line
        assert not turned.errors
        turned.context.close()
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=PHONE)
    south.locator("#bidding button").first.wait_for()
    note = south.locator("#rules-note")
    box = note.bounding_box()
    assert note.is_visible() and box and box["y"] + box["height"] <= PHONE["height"]
    assert box["height"] < 30                                              # one line
    first = south.locator("#bidding button").first.bounding_box()
    assert first and first["y"] + first["height"] <= PHONE["height"]      # still in view
    south.locator("#rules-note summary").click()
    assert south.locator("#rules-note-text").inner_text() == "no undertrick penalty (R15, the rulebook as written)."
    wide = open_page(browser, server, created["spectate_url"])            # the auction's panel says them there
    wait_for_table(wide)
    assert not wide.locator("#rules-note").is_visible() and wide.locator("#table-rules").is_visible()
    south.locator('#bidding button[data-call="7NT"]').click()             # the auction ends: the play
    south.locator("#felt .card.playable").first.wait_for()
    assert not note.is_visible()
    assert not south.errors and not wide.errors


def test_lobby_on_a_phone_a_table_created_for_one_person_shows_its_way_in(browser, server):
    # the heading focused, "Go to your table" lay below the screen's foot (390 x 844):
    # nothing seemed to have happened
    phone = open_page(browser, server, "/", viewport={"width": 390, "height": 844})
    phone.wait_for_selector("#seat-choices select[name=player_N]")
    phone.click("#create-button")                   # the defaults: South, three bots
    go = phone.locator("#go-to-table a")
    go.wait_for()
    box = go.bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= 844, box
    assert phone.locator("#created-title").evaluate("e => e === document.activeElement")
    assert not phone.errors


def test_lobby_a_double_click_on_create_table_creates_one_table(browser, server):
    # A double click (the second click 150 ms after the first, once the first table
    # was made) created two tables of one name, and showed the invitations of one; a
    # triple click, three.
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.fill("input[name=name]", "Clicked twice")
    box = page.locator("#create-button").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down(click_count=1)
    page.mouse.up(click_count=1)
    page.wait_for_selector("#created:not(.hidden)")      # the first click's table, made
    for count in (2, 3):
        page.mouse.down(click_count=count)
        page.mouse.up(click_count=count)
    # a click of its own makes a table, as ever
    page.fill("input[name=name]", "Clicked once after")
    page.click("#create-button")
    page.wait_for_function("document.querySelector('#created-title').textContent.includes('Clicked once after')")
    names = [table["name"] for table in server.api("GET", "/api/tables")["tables"]]
    assert sorted(name for name in names if name.startswith("Clicked")) == ["Clicked once after", "Clicked twice"]
    assert not page.errors


def first_answer_lost(keys, then=None):
    """A route for ``/api/tables`` under which the server makes the first table asked for
    but its answer is lost; each creation's Idempotency-Key goes into ``keys``, and a later
    one goes on to the server unless ``then(route, count)`` answered it."""
    def handler(route, request):
        if request.method != "POST":
            route.continue_()
            return
        keys.append(request.headers.get("idempotency-key"))
        if len(keys) == 1:
            route.fetch()                       # the server makes the table ...
            route.abort("connectionreset")      # ... and its answer is lost
        elif then is None or not then(route, len(keys)):
            route.continue_()
    return handler


def test_lobby_create_table_asked_again_after_its_answer_was_lost_shows_that_tables_links(browser, server):
    # The table was made but its answer lost on the way (a dropped connection, a proxy's
    # 504): its links, given only in that answer, were lost with it, and Create table again
    # made a second table. The request goes again with its Idempotency-Key.
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.fill("input[name=name]", "Answer lost")
    page.select_option("select[name=player_N]", "human")
    keys: list[str] = []

    def too_soon(route, asked):
        if asked != 2:
            return False
        route.fulfill(status=409, content_type="application/json", body=json.dumps(   # (a review's case)
            {"error": {"code": "conflict", "message": "the table is being made: ask again"}}))
        return True

    page.route("**/api/tables", first_answer_lost(keys, too_soon))
    for said in ("The server did not answer", "the table is being made"):
        page.click("#create-button")
        page.wait_for_function("document.querySelector('#create-error').textContent !== ''")
        assert page.locator("#create-error").inner_text().startswith(said)
    page.click("#create-button")
    page.wait_for_selector("#created:not(.hidden)")
    assert page.locator("#created-title").inner_text() == "Invitations to Answer lost"
    links = {item.get_attribute("data-link"): item.locator("input").input_value()
             for item in page.locator("#invitations li").all()}
    made = [t["id"] for t in server.api("GET", "/api/tables")["tables"] if t["name"] == "Answer lost"]
    assert made == [links["Spectators"].rsplit("/", 1)[1]]
    north = Client(server.url.replace("http", "ws", 1) + f"/ws/tables/{made[0]}")
    north.send({"type": "hello", "token": links["North"].split("#token=")[1]})
    assert north.until(lambda m: m["type"] == "welcome")["seat"] == "N"   # the link seats North
    north.close()
    assert re.fullmatch(r"[0-9a-f]{32}", keys[0]) and keys == [keys[0]] * 3
    page.unroute("**/api/tables")
    # answered, the same form again is another table, as ever
    page.click("#create-button")
    # (the new table's links shown: the old ones go as the request leaves, before it is answered)
    invitations = "document.querySelector('#invitations').textContent"
    page.wait_for_function(f"{invitations} !== '' && !{invitations}.includes('{made[0]}')")
    assert len([t for t in server.api("GET", "/api/tables")["tables"] if t["name"] == "Answer lost"]) == 2
    assert not page.errors


def test_lobby_create_table_asked_again_after_a_reload_shows_the_table_its_lost_answer_made(browser,
                                                                                           server):
    # The answer lost, the person reloads the lobby and asks for the same table: the key
    # lived in the page only, so the server made a second table and the first one's links
    # were lost. The tab keeps the unanswered request and its key across a reload.
    name = "Reloaded after a lost answer"
    page = open_page(browser, server, "/")

    def create(tab):
        tab.wait_for_selector("#seat-choices select[name=player_N]")
        tab.fill("input[name=name]", name)
        tab.select_option("select[name=player_N]", "human")
        tab.click("#create-button")

    def made():
        return [t["id"] for t in server.api("GET", "/api/tables")["tables"] if t["name"] == name]

    def spectators_table(tab):
        tab.wait_for_selector("#created:not(.hidden)")
        return tab.locator("#invitations li[data-link=Spectators] input").input_value().rsplit("/", 1)[1]

    keys: list[str] = []
    page.context.route("**/api/tables", first_answer_lost(keys))
    create(page)
    page.wait_for_function("document.querySelector('#create-error').textContent !== ''")
    (first,) = made()
    # another tab of the same browser starts afresh: two tabs may each ask for a table alike
    other = page.context.new_page()
    other.goto("/")
    create(other)
    second = spectators_table(other)
    assert keys[1] != keys[0] and second != first
    page.reload()
    create(page)
    assert spectators_table(page) == first and keys[2] == keys[0]
    assert sorted(made()) == sorted([first, second])
    # answered, the key is forgotten: after another reload the same form is another table
    page.reload()
    create(page)
    invitations = "document.querySelector('#invitations').textContent"
    page.wait_for_function(f"{invitations} !== '' && !{invitations}.includes('{first}')")
    assert keys[3] not in keys[:3] and len(made()) == 3
    assert not page.errors


def test_lobby_create_table_says_it_is_creating_while_the_table_is_on_its_way(browser, server):
    # A slow answer left the button looking dead, and a click meanwhile did nothing and
    # said nothing.
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    held = []
    page.route("**/api/tables", lambda route, request: held.append(route) if request.method == "POST"
               else route.continue_())
    page.fill("input[name=name]", "Slow answer")
    page.click("#create-button")
    page.wait_for_function("document.querySelector('#create-button').textContent === 'Creating…'")
    status = page.locator("#lobby-status")          # (role=status: what a screen reader says)
    assert status.text_content() == "Creating the table…"
    page.click("#create-button")                     # a click meanwhile asks for no second table
    assert status.text_content() == "Still creating the table…"
    page.wait_for_timeout(300)
    assert len(held) == 1
    held[0].continue_()
    page.wait_for_selector("#created:not(.hidden)")
    assert page.locator("#create-button").inner_text() == "Create table"
    assert status.text_content() == ""
    assert not page.errors


def test_lobby_keeps_the_invitations_of_tables_this_browser_created_while_they_are_open(browser,
                                                                                         server):
    # the server shows a table's links once (it keeps only their hashes): a reloaded
    # lobby must still be able to hand them out
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.select_option("select[name=player_N]", "human")
    page.click("#create-button")
    page.wait_for_selector("#created:not(.hidden)")
    shown = {item.get_attribute("data-link"): item.locator("input").input_value()
             for item in page.locator("#invitations li").all()}
    table_id = shown["Spectators"].rsplit("/", 1)[1]
    page.evaluate("localStorage.setItem('flowerbridge.invitations', JSON.stringify({"
                  "...JSON.parse(localStorage.getItem('flowerbridge.invitations')),"
                  " gone: {S: 'http://example.invalid/t/gone#token=x'}}))")
    page.reload()
    row = page.locator(f'#tables li[data-table="{table_id}"]')
    row.locator("details.kept-links summary").click()
    kept = {item.get_attribute("data-link"): item.locator("input").input_value()
            for item in row.locator("details.kept-links li").all()}
    assert kept == {seat: url for seat, url in shown.items() if seat != "Spectators"}
    # a redrawn list (here after creating another table) keeps them unfolded
    page.click("#create-button")
    page.wait_for_selector(f'#tables li:not([data-table="{table_id}"]) details.kept-links')
    assert row.locator("details.kept-links").get_attribute("open") is not None
    # the links of a table no longer open are forgotten
    stored = page.evaluate("JSON.parse(localStorage.getItem('flowerbridge.invitations'))")
    assert "gone" not in stored and table_id in stored
    assert not page.errors


def lobby_created_north_and_south(context):
    """A lobby page of ``context`` that has just created a table of North and
    South (people) and two bots: its invitations shown."""
    page = context.new_page()
    page.goto("/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.select_option("select[name=player_N]", "human")
    page.click("#create-button")
    page.wait_for_selector("#created:not(.hidden)")
    return page


def test_lobby_kept_links_survive_the_lists_refreshes(browser, server):
    # The list is refreshed every 10 s: an unchanged list is not redrawn (a redraw
    # dropped the focus and "Copied"), and a list asked for before a table was
    # created, answered after, does not forget that table's links.
    context = browser.new_context(viewport=DESKTOP, base_url=server.url)
    context.add_init_script("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
    context.clock.install()
    page = context.new_page()
    held, hold = [], {"on": False}

    def route(request_route, request):
        if request.method == "GET" and hold["on"] and not held:
            held.append((request_route, request_route.fetch()))   # answered later
        else:
            request_route.continue_()

    page.route("**/api/tables", route)
    page.goto("/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.click("#create-button")
    page.wait_for_selector("#created:not(.hidden)")
    first = page.locator("#invitations li[data-link=Spectators] input").input_value().rsplit("/", 1)[1]
    row = page.locator(f'#tables li[data-table="{first}"]')
    row.locator("details.kept-links summary").click()
    copy = row.locator("details.kept-links li").first.locator("button")
    copy.click()
    assert copy.inner_text().startswith("Selected")
    page.clock.run_for(11_000)                   # the timer's refresh: nothing changed
    page.wait_for_timeout(300)
    assert copy.inner_text().startswith("Selected")
    assert page.evaluate("document.activeElement.closest('details.kept-links') !== null")
    hold["on"] = True
    page.clock.run_for(10_000)                   # a refresh whose answer is held back
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "no refresh was asked for"
    hold["on"] = False
    page.click("#create-button")                 # a table created meanwhile
    page.wait_for_selector(f'#invitations li[data-link=Spectators] input:not([value$="/{first}"])')
    second = page.locator("#invitations li[data-link=Spectators] input").input_value().rsplit("/", 1)[1]
    page.wait_for_selector(f'#tables li[data-table="{second}"] details.kept-links')
    held_route, answer = held[0]
    held_route.fulfill(response=answer)          # the older list arrives last
    page.wait_for_timeout(500)
    stored = page.evaluate("JSON.parse(localStorage.getItem('flowerbridge.invitations'))")
    assert {first, second} <= set(stored)
    context.close()


def test_lobby_a_redrawn_list_gives_the_focus_back_to_the_control_that_had_it(browser, server):
    # A changed list is drawn anew; the keyboard's place in it (a table's Watch
    # link, one of its kept links) is kept, not thrown to the page's top.
    context = browser.new_context(viewport=DESKTOP, base_url=server.url)
    context.clock.install()
    page = lobby_created_north_and_south(context)
    table_id = page.locator("#invitations li[data-link=Spectators] input").input_value().rsplit("/", 1)[1]
    row = page.locator(f'#tables li[data-table="{table_id}"]')
    row.locator("details.kept-links summary").click()
    # every copy button names the link it copies
    assert page.get_by_role("button", name="Copy North link").count() == 2   # new, and kept
    row.get_by_role("button", name="Copy South link").focus()
    added = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})   # the list changes
    page.clock.run_for(11_000)
    page.wait_for_selector(f'#tables li[data-table="{added["table"]["id"]}"]')      # drawn anew
    assert page.evaluate("document.activeElement.dataset.focus") == "copy South"
    assert page.evaluate("document.activeElement.closest('li[data-table]').dataset.table") == table_id
    row.get_by_role("link", name=re.compile("^Watch ")).focus()
    added = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    page.clock.run_for(11_000)
    page.wait_for_selector(f'#tables li[data-table="{added["table"]["id"]}"]')
    assert page.evaluate("document.activeElement.dataset.focus") == "watch"
    assert page.evaluate("document.activeElement.closest('li[data-table]').dataset.table") == table_id
    context.close()


def test_a_spectator_is_told_the_table_waits_for_one_of_its_players(browser, server):
    # South has not come: the bots do not play for a spectator alone
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    page = open_page(browser, server, created["spectate_url"])
    wait_for_table(page)
    assert page.locator("#message").inner_text() == "The table waits for one of its players to come back."
    south = open_page(browser, server, created["invitations"]["S"]["url"])   # South comes
    south.wait_for_selector("#bidding button")
    page.wait_for_function("!document.querySelector('#message').textContent.includes('waits')")
    assert not page.errors and not south.errors


def test_a_spectator_pressing_a_call_key_is_told_only_the_seated_call(browser, server):
    # a person who opened the watching link pressed P and nothing happened, nor was said
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    south.wait_for_selector("#bidding button")
    page = open_page(browser, server, created["spectate_url"])
    wait_for_table(page)
    page.wait_for_function("document.querySelector('#message').textContent.includes('South')")
    page.keyboard.press("p")
    page.wait_for_function("document.querySelector('#refusal').textContent.length > 0")
    assert page.locator("#refusal").inner_text() == ("You are watching: only the people seated at the table "
                                                     "call and play.")
    assert south.locator("#bidding button").count() > 0    # nothing was sent: South's turn still
    assert not page.errors and not south.errors


def test_lobby_title_stays_on_one_line_beside_the_brand_at_360px(browser, server):
    # Below 800 px the table page's long title takes a line of its own; the
    # lobby's "Lobby" once did too, and the top bar took two lines for three words.
    page = open_page(browser, server, "/", viewport=PHONE)
    page.wait_for_selector("#seat-choices select[name=player_N]")
    brand = page.locator(".topbar .brand").bounding_box()
    title = page.locator(".topbar-title")
    box = title.bounding_box()
    assert title.inner_text() == "Lobby"
    assert box["height"] <= brand["height"] * 1.5, (box, brand)      # one line of text
    assert abs(box["y"] - brand["y"]) <= 3, (box, brand)               # on the brand's line
    assert title.evaluate("t => t.scrollWidth <= t.clientWidth + 1"), "the title is cut"
    tops = page.locator(".topbar > *").evaluate_all("items => items.map(i => i.getBoundingClientRect().top)")
    assert max(tops) - min(tops) <= 3, tops                            # the whole bar is one line
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "lobby-title-360")
    assert not page.errors


# Where the words of each seat of a listed table are drawn (not their cells:
# a cell may be wider than its words).
COMPASS_PLACES = """(compass) => {
  const box = (r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                        x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2 });
  const words = (node) => { const range = document.createRange(); range.selectNodeContents(node);
                            return box(range.getBoundingClientRect()); };
  return Object.fromEntries([...compass.querySelectorAll('li')].map((li) => [li.dataset.seat, words(li)]));
}"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_lobby_shows_who_sits_where_as_a_compass_and_says_it_in_words(browser, server, viewport):
    # The seats once read "N person, free · E bot (random) · S person, here · W bot (random)",
    # a line of text rather than the table as the players sit round it. (A person's seat
    # is not "free": it is theirs, by their link, here or not.)
    created = server.create_table({"N": "human", "E": BOT, "S": "human", "W": BOT})
    table_id = created["table"]["id"]
    south = open_page(browser, server, created["invitations"]["S"]["url"])    # South is here
    wait_for_table(south)
    # the lobby's list may be up to a second old (LOBBY_FRESH_SECONDS): opened once it is not
    deadline = time.monotonic() + 10
    while not any(t["id"] == table_id and t["seats"]["S"]["connected"]
                  for t in server.api("GET", "/api/tables")["tables"]):
        assert time.monotonic() < deadline, "the lobby's list never showed South here"
        time.sleep(0.2)
    lobby = open_page(browser, server, "/", viewport=viewport)
    row = lobby.locator(f'#tables li[data-table="{table_id}"]')
    row.wait_for()
    compass = row.get_by_role("list", name="Seats")
    assert compass.count() == 1
    # a screen reader hears each seat in full, clockwise from North
    assert compass.get_by_role("listitem").all_inner_texts() == [
        "North: person, not here", f"East: bot ({BOT})", "South: person, here", f"West: bot ({BOT})"]
    places = compass.evaluate(COMPASS_PLACES)
    north, east, south_seat, west = (places[seat] for seat in "NESW")
    assert abs(north["x"] - south_seat["x"]) <= 2, places                    # face to face
    assert abs(west["y"] - east["y"]) <= 2, places
    assert north["bottom"] <= min(west["top"], east["top"]), places          # North above
    assert south_seat["top"] >= max(west["bottom"], east["bottom"]), places  # South below
    assert west["right"] < north["x"] < east["left"], places                 # West left, East right
    assert lobby.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    screenshot(lobby, f"lobby-compass-{viewport['width']}")
    assert not lobby.errors and not south.errors
    south.context.close()


def test_lobby_says_a_table_of_bots_waits_until_someone_opens_it(browser, server):
    # long enough that it is still open, and listed, once the bots have begun
    created = server.create_table({seat: BOT for seat in "NESW"}, length={"hands": 100})
    table_id = created["table"]["id"]
    entry = f'#tables li[data-table="{table_id}"]'
    lobby = open_page(browser, server, "/")
    lobby.wait_for_selector(entry)
    assert "waits for someone to open it" in lobby.locator(entry).inner_text()
    watcher = open_page(browser, server, f"/t/{table_id}")    # a spectator opens it: the bots play
    wait_for_table(watcher)
    # the lobby's list may be up to a second old (LOBBY_FRESH_SECONDS): reloaded once it is not
    deadline = time.monotonic() + 10
    while not any(t["id"] == table_id and t["spectators"] == 1
                  for t in server.api("GET", "/api/tables")["tables"]):
        assert time.monotonic() < deadline, "the lobby's list never showed the spectator"
        time.sleep(0.2)
    lobby.reload()
    lobby.wait_for_selector(entry)
    assert "1 watching" in lobby.locator(entry).inner_text()
    assert not lobby.errors and not watcher.errors
    watcher.context.close()   # nobody watches again: the bots stop (the next tests run unloaded)


def test_lobby_a_long_list_is_shown_a_page_at_a_time_and_found_by_name(browser, tmp_path):
    # a server keeps up to --max-tables open (1,000 by default): the list drew every one
    with Server(tmp_path) as own:
        for number in range(1, 63):      # newest first: "Table 62" heads the list
            own.create_table({seat: BOT for seat in "NESW"}, name=f"Table {number}")
        kept = open_page(browser, own, "/", clock=True)
        kept.wait_for_selector("#seat-choices select[name=player_N]")
        kept.fill("input[name=name]", "Ours")
        kept.select_option("select[name=player_S]", "human")
        kept.click("#create-button")       # this browser keeps its links: the 63rd table
        kept.wait_for_selector("#tables li[data-table] .kept-links")
        rows = kept.locator("#tables > li[data-table]")
        assert rows.count() == 50 and rows.first.locator(":scope > strong").inner_text() == "Ours"
        assert kept.locator("#find-table").is_visible()
        assert kept.locator("#tables-count").inner_text() == "Showing 50 of 63 open tables"
        more = kept.locator("#show-more")
        assert more.inner_text() == "Show 13 more"
        more.click()
        assert rows.count() == 63 and more.is_hidden()
        assert kept.locator("#tables-count").inner_text() == ""
        # the keyboard goes on from the first row the click added
        focused = kept.evaluate("document.activeElement.closest('li[data-table]')"
                                ".querySelector(':scope > strong').textContent")
        assert focused == "Table 13"
        # a search by part of a name, case aside, from the first page again
        kept.fill("#table-filter", "table 1")
        names = [row.inner_text() for row in rows.locator(":scope > strong").all()]
        assert names == [f"Table {n}" for n in (19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1)]
        assert kept.locator("#tables-count").inner_text() == "11 of 63 open tables match “table 1”"
        kept.fill("#table-filter", " TABLE \t 1 ")    # runs of spaces as one, as the page shows them
        assert [row.inner_text() for row in rows.locator(":scope > strong").all()] == names
        assert kept.locator("#tables-count").inner_text() == "11 of 63 open tables match “TABLE 1”"
        kept.fill("#table-filter", "no such")
        assert kept.locator("#tables > li").inner_text() == "No open table's name contains “no such”."
        kept.fill("#table-filter", "ours")      # its kept links still under it
        assert rows.count() == 1 and rows.first.locator(".kept-links").count() == 1
        # a refresh keeps the search, and the row that has the keyboard: a new table that
        # matches comes in at the top, and pushed the last row of the page off it
        kept.fill("#table-filter", "table")
        assert rows.count() == 50
        watch = rows.nth(49).locator("[data-focus=watch]")
        assert watch.get_attribute("aria-label") == "Watch Table 13"
        watch.focus()
        own.create_table({seat: BOT for seat in "NESW"}, name="Table 99")
        kept.clock.run_for(10_500)          # the list's next refresh, at once
        kept.wait_for_selector("#tables > li[data-table] >> text=Table 99", timeout=20_000)
        assert rows.count() == 63 and "Ours" not in rows.locator(":scope > strong").all_inner_texts()
        assert kept.evaluate("document.activeElement.getAttribute('aria-label')") == "Watch Table 13"
        assert kept.locator("#tables-count").inner_text() == "63 of 64 open tables match “table”"
        assert not kept.errors
        kept.context.close()
    (tmp_path / "few").mkdir()
    with Server(tmp_path / "few") as few:
        few.create_table({seat: BOT for seat in "NESW"}, name="Only one")
        page = open_page(browser, few, "/")
        page.wait_for_selector("#tables li[data-table]")
        assert page.locator("#find-table").is_hidden() and page.locator("#show-more").is_hidden()
        assert page.locator("#tables-count").inner_text() == ""
        assert not page.errors
        page.context.close()


def test_lobby_a_table_of_bots_shows_only_a_spectator_link_and_says_so(browser, server):
    # "send each person their own link" once stood above the one link shown: the spectators'
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.fill("input[name=name]", "Bots only")
    page.select_option("select[name=player_S]", "bot")
    page.click("#create-button")
    page.wait_for_selector("#created:not(.hidden)")
    assert [item.get_attribute("data-link") for item in page.locator("#invitations li").all()] == ["Spectators"]
    note = page.locator("#created-note").inner_text()
    assert "send each person" not in note and "spectator link" in note, note
    assert "Invitations" not in page.locator("#created-title").inner_text()
    assert not page.errors


def test_lobby_says_what_each_level_of_bot_the_server_offers_is(browser, server):
    # the seats offered "random / basic / pimc" and said nothing of what they are
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=level_N]")
    levels = page.eval_on_selector("select[name=level_N]", "s => [...s.options].map(o => o.value)")
    said = page.locator("#bot-levels").inner_text()
    assert said.startswith("Bots: ") and said.endswith(".") and page.locator("#bot-levels").is_visible()
    for level in levels:
        assert f"{level}, " in said, (level, said)
    assert "basic, bids by a written system" in said and "pimc, the strongest" in said
    assert not page.errors


def test_the_table_pages_help_leads_with_the_rules_in_a_tab_of_their_own(browser, server):
    # the one link to them was at the foot of a window called Keys, after a dozen shortcuts
    south = south_alone_with_bots(browser, server)
    assert south.locator("#open-keys").inner_text() == "Help"
    south.locator("#open-keys").click()
    south.wait_for_selector("#keys-dialog[open]")
    first = south.locator("#keys-dialog p:not(.dialog-live)").first
    assert first.inner_text().startswith("The rules in brief: How to play")
    link = south.locator("#keys-dialog #rules-link")
    assert link.is_visible() and link.inner_text() == "How to play"
    assert (link.get_attribute("href"), link.get_attribute("target")) == ("/static/rules.html", "_blank")
    rules = open_page(browser, server, "/static/rules.html")
    assert rules.locator("h1").first.inner_text() and not rules.errors
    # then how to play by the mouse or a touch, before the keys (a phone's Help was all keys)
    headings = south.locator("#keys-dialog h3").all_inner_texts()
    assert headings[:2] == ["Playing", "Keyboard"], headings
    playing = south.locator("#keys-dialog h3 + p").first.inner_text()
    assert playing.startswith("Click or tap a card to play it") and "tap it" in playing
    assert not south.errors


def test_lobby_shows_the_servers_refusal(browser, server):
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    # The field's maxlength stops a person typing more; a script can still send it.
    page.eval_on_selector("input[name=name]", "input => { input.removeAttribute('maxlength'); }")
    page.fill("input[name=name]", "x" * 61)
    page.click("#create-button")
    page.wait_for_function("document.querySelector('#create-error').textContent !== ''")
    refusal = page.locator("#create-error").inner_text()
    assert refusal.startswith("name:") and "60" in refusal  # the server's message, as it wrote it
    assert page.locator("#created.hidden").count() == 1
    page.fill("input[name=name]", "x")  # a changed form answers the refusal
    assert page.locator("#create-error").inner_text() == ""
    assert not page.errors


def test_lobby_a_refusal_that_says_when_to_ask_again_says_when(browser, server):
    # a 429 (too many tables this minute) or 503 (every table in use) carries Retry-After:
    # the page said "wait a little" and not how long
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    refusal = {"error": {"code": "too_many", "message": "more than 30 tables a minute from this "
                                                        "address: wait a little"}}
    page.route("**/api/tables", lambda route: route.fulfill(
        status=429, headers={"Retry-After": "42"}, content_type="application/json", body=json.dumps(refusal))
        if route.request.method == "POST" else route.continue_())
    page.click("#create-button")
    page.wait_for_function("document.querySelector('#create-error').textContent !== ''")
    assert page.locator("#create-error").inner_text() == (
        "more than 30 tables a minute from this address: wait a little (try again in 42 s)")
    assert not page.errors


def test_lobby_says_the_server_did_not_answer_rather_than_the_browsers_failed_to_fetch(browser, server):
    # With the server gone, the list and Create table both said "Failed to fetch".
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.wait_for_selector("#tables li:not(:has-text('Loading'))")
    page.route("**/api/tables", lambda route: route.abort("connectionrefused"))
    page.click("#create-button")
    page.wait_for_function("document.querySelector('#create-error').textContent !== ''")
    no_answer = "The server did not answer: check your connection and try again."
    assert page.locator("#create-error").inner_text() == no_answer
    page.reload()    # the list, fetched as the lobby opens
    page.wait_for_selector("#tables .error-text")
    assert page.locator("#tables .error-text").inner_text() == f"Could not list the tables. {no_answer}"
    # a server that answers, refusing, did answer: it said "The server did not answer: 503 ..."
    page.route("**/api/meta", lambda route: route.fulfill(
        status=503, content_type="application/json",
        body='{"error": {"code": "busy", "message": "database write failed"}}'))
    page.reload()
    page.wait_for_function("document.querySelector('#create-error').textContent !== ''")
    assert re.fullmatch(r"Could not load the server's settings: database write failed\. Trying again in \d+ s…",
                        page.locator("#create-error").inner_text())
    assert not page.errors


def test_lobby_after_a_restart_counts_the_tables_still_loading_and_lists_them_once_loaded(browser, server):
    # docs/protocol.md: a list made while open tables are still loading counts them in
    # "loading"; the page says so and asks again soon, not in the usual 10 seconds
    listed = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, name="Loaded at last")["table"]
    asked = []

    def still_loading(route):
        asked.append(time.monotonic())
        if len(asked) == 1:
            route.fulfill(status=200, content_type="application/json", body='{"tables": [], "loading": 1035}')
        else:
            route.continue_()

    page = open_page(browser, server, "/")
    page.route("**/api/tables", still_loading)
    page.reload()
    page.wait_for_selector("#tables li[data-loading]")
    assert page.locator("#tables li").all_inner_texts() == [
        "1,035 more open tables are being loaded (the server has just started)…"]
    page.wait_for_selector(f"#tables li[data-table='{listed['id']}']", timeout=8000)
    assert page.locator("#tables li[data-loading]").count() == 0
    assert len(asked) == 2     # asked again soon (the wait above is under the 10 s refresh)
    assert not page.errors


def test_lobby_whose_settings_failed_to_load_asks_again_and_works_meanwhile(browser, server):
    # A lobby whose first /api/meta failed (a server restarting) stayed broken for good:
    # "Loading…" for ever in the list, no seats to choose, and Create table submitted the
    # form as a plain page load (/?name=&declarer=...)
    server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, name="Listed meanwhile")
    refused = []

    def refuse_twice(route):
        if len(refused) < 2:
            refused.append(route.request.url)
            route.fulfill(status=503, content_type="application/json",
                          body='{"error": {"code": "busy", "message": "starting"}}')
        else:
            route.continue_()
    context = browser.new_context(viewport=DESKTOP, base_url=server.url, bypass_csp=True)
    # the page's clock stands still but when the test moves it: the retries' waits run when
    # the test says, not by the wall clock (installed alone, the clock ran on at real
    # speed, and a machine slow by 3 s had the page retry before the test looked)
    now = time.time()
    context.clock.install(time=now)
    context.clock.pause_at(now + 1)
    context.route("**/api/meta", refuse_twice)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto("/")
    page.wait_for_function("document.querySelector('#create-error').textContent.includes('starting')")
    assert page.locator("#create-error").inner_text() == (
        "Could not load the server's settings: starting. Trying again in 1 s…")
    page.wait_for_selector("#tables li:has-text('Listed meanwhile')")       # the list, meanwhile
    # what the person chooses meanwhile is not overwritten by the defaults that come later
    page.select_option("select[name=declarer]", "first-named")
    page.fill("input[name=undertrick_penalty]", "100")
    page.click("#create-button")
    assert urlsplit(page.url).query == ""                                      # no plain form submit
    assert "still loading the server's settings" in page.locator("#lobby-status").inner_text()
    page.clock.run_for(1_100)
    page.wait_for_function("document.querySelector('#create-error').textContent.includes('in 2 s')")
    page.clock.run_for(2_100)                                                  # asked again
    page.wait_for_selector("#seat-choices select[name=player_N]")
    assert len(refused) == 2 and page.locator("#create-error").inner_text() == ""
    assert page.locator("#lobby-status").inner_text() == ""
    assert page.locator("#seat-choices select[name^=player_]").count() == 4
    assert page.input_value("select[name=declarer]") == "first-named"
    assert page.input_value("input[name=undertrick_penalty]") == "100"
    page.click("#create-button")
    page.wait_for_selector("#created:not(.hidden)")
    assert not errors
    context.close()


def test_lobby_a_long_table_name_without_spaces_does_not_widen_the_page(browser, server):
    # One table named 60 letters without a space made every visitor's lobby scroll sideways
    # (1,097 px at 390)
    server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, name="W" * 60)
    for viewport in (PHONE, DESKTOP):
        page = open_page(browser, server, "/", viewport=viewport)
        page.wait_for_selector("#tables li:has-text('WWWWWWWWWW')")
        page.wait_for_selector("#seat-choices select[name=player_N]")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], viewport
        page.fill("#create-form [name=name]", "W" * 60)
        page.click("#create-button")
        page.wait_for_selector("#created:not(.hidden)")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], viewport
        assert not page.errors
        page.context.close()


@pytest.mark.parametrize("width", [800, 853, 960, 1040])
def test_lobby_every_field_of_the_new_table_form_is_in_its_panel_and_takes_a_click(browser, server, width):
    # From 800 to about 1040 px wide (a laptop at 150 % zoom among them) the form ran past its
    # panel by up to 117 px, and East's and West's menus lay under the list of tables beside it
    page = open_page(browser, server, "/", viewport={"width": width, "height": 700})
    page.wait_for_selector("#seat-choices select[name=level_W]")
    page.locator(".more-options summary").click()       # (its field too)
    fields = page.evaluate("""() => {
      const panel = document.querySelector('#create-form').closest('.panel').getBoundingClientRect();
      return [...document.querySelectorAll('#create-form input, #create-form select')].map((e) => {
        const r = e.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return [e.name, r.left >= panel.left && r.right <= panel.right, hit === e];
      });
    }""")
    assert len(fields) >= 12 and all(inside and hit for _, inside, hit in fields), fields
    assert not page.errors
    page.context.close()


def test_lobby_gives_the_focus_to_its_heading_when_the_last_table_leaves_the_list(browser, server):
    # the Watch link of the only table had the focus; the table gone, the focus fell to
    # the page's body
    context = browser.new_context(viewport=DESKTOP, base_url=server.url, bypass_csp=True)
    context.clock.install()
    page = context.new_page()
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, name="Alone")
    page.goto("/")
    page.wait_for_selector("#tables li:has-text('Alone')")
    page.get_by_role("link", name="Watch Alone").focus()
    page.route("**/api/tables", _answering(status=200, content_type="application/json", body='{"tables": []}'))
    page.clock.run_for(11_000)
    page.wait_for_selector("#tables li:has-text('No open tables')")
    assert page.evaluate("document.activeElement.id") == "open-title"
    # and when the list cannot be fetched (a server restarting), the same
    page.unroute("**/api/tables")
    page.clock.run_for(10_000)
    page.wait_for_selector("#tables li:has-text('Alone')")
    page.get_by_role("link", name="Watch Alone").focus()
    page.route("**/api/tables", lambda route: route.abort("connectionrefused"))
    page.clock.run_for(10_000)
    page.wait_for_selector("#tables .error-text")
    assert page.evaluate("document.activeElement.id") == "open-title"
    assert created["table"]["id"]
    context.close()


def test_pages_work_where_the_browser_refuses_them_its_storage(browser, server):
    # With site data blocked, reading localStorage throws: the deck page showed "Could not
    # load the deck" and the table page stayed on "connecting" with nothing drawn
    blocked = ("Object.defineProperty(window, 'localStorage', { get() { "
               "throw new DOMException('The document is sandboxed', 'SecurityError'); } });")
    deck = open_page(browser, server, "/static/cards.html", init_script=blocked)
    deck.wait_for_selector("#gallery .card svg")
    assert not deck.errors
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    table = open_page(browser, server, created["invitations"]["S"]["url"], init_script=blocked)
    wait_for_table(table)
    table.wait_for_selector("#position-bottom .hand .card[data-code]")
    table.locator("#bidding button").first.wait_for()
    assert not table.errors


def _answering(**answer):
    """A route handler that answers every request with `answer` (Route.fulfill's keywords)."""
    return lambda route: route.fulfill(**answer)


def test_lobby_says_in_words_what_an_error_answer_not_of_this_server_means(browser, server):
    # A proxy's 502 for a server that is down, or the plain-text 500 of a request cut short
    # as the server stops, showed as "502 Bad Gateway" and "500 Internal Server Error"; an
    # answer cut off on its way, "Cannot read properties of null (reading 'invitations')".
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.wait_for_selector("#tables li:not(:has-text('Loading'))")
    no_answer = "The server did not answer: check your connection and try again."
    answers = [(502, "text/html", "<html><body>502 Bad Gateway</body></html>", no_answer),
               (504, "text/html", "<html><body>504 Gateway Time-out</body></html>", no_answer),
               (500, "text/plain", "Internal Server Error",
                "The server failed before it answered (500 Internal Server Error): try again."),
               (413, "text/html", "<html>413 Request Entity Too Large</html>",
                "413 Payload Too Large"),
               (201, "application/json", '{"table": {"id": "abc", ', no_answer)]   # cut off
    for status, content_type, body, said in answers:
        page.route("**/api/tables", _answering(status=status, content_type=content_type, body=body))
        page.click("#create-button")
        page.wait_for_function("document.querySelector('#create-error').textContent !== ''")
        assert page.locator("#create-error").inner_text() == said
        page.reload()    # the list, fetched as the lobby opens
        page.wait_for_selector("#tables .error-text")
        separator = ":" if status == 413 else "."
        assert page.locator("#tables .error-text").inner_text() == (
            f"Could not list the tables{separator} {said}")
        page.unroute("**/api/tables")
        page.reload()
        page.wait_for_selector("#seat-choices select[name=player_N]")
        page.wait_for_selector("#tables li:not(:has-text('Loading'))")
    assert not page.errors


def test_lobby_the_server_did_not_answer_goes_once_the_list_comes_again(browser, server):
    # "The server did not answer" under Create table stayed after the server was back and
    # the list had been fetched again, until the form was changed or sent.
    context = browser.new_context(viewport=DESKTOP, base_url=server.url, bypass_csp=True)
    context.clock.install()
    page = context.new_page()
    page.goto("/")
    page.wait_for_selector("#tables li:not(:has-text('Loading'))")
    page.route("**/api/tables", lambda route: route.abort("connectionrefused"))
    page.click("#create-button")
    page.wait_for_function("document.querySelector('#create-error').textContent !== ''")
    page.clock.run_for(11_000)      # a refresh of the list that gets no answer: it stays
    page.wait_for_selector("#tables .error-text")
    assert page.locator("#create-error").inner_text().startswith("The server did not answer")
    page.unroute("**/api/tables")
    page.clock.run_for(10_000)      # the list's next refresh is answered
    page.wait_for_selector("#tables .error-text", state="detached")
    assert page.locator("#create-error").inner_text() == ""
    context.close()


def test_lobby_a_refused_table_does_not_show_the_last_tables_invitations_but_says_where_they_are(
        browser, server):
    # The first table's links went from the screen with no word of where to find them.
    page = open_page(browser, server, "/")
    page.wait_for_selector("#seat-choices select[name=player_N]")
    page.fill("input[name=name]", "First")
    page.click("#create-button")
    page.wait_for_selector("#created:not(.hidden)")
    first = page.locator("#invitations li[data-link=Spectators] input").input_value().rsplit("/", 1)[1]
    page.fill("input[name=name]", "Second")
    page.eval_on_selector("input[name=undertrick_penalty]", "input => { input.removeAttribute('max'); }")
    page.fill("input[name=undertrick_penalty]", "2000000")
    page.click("#create-button")
    page.wait_for_function("document.querySelector('#create-error').textContent !== ''")
    assert "undertrick_penalty" in page.locator("#create-error").inner_text()
    assert page.locator("#created.hidden").count() == 1 and page.locator("#invitations li").count() == 0
    assert page.locator("#earlier-links").inner_text() == (
        "Your invitation links to “First” are under it in the list of open tables.")
    page.locator(f'#tables li[data-table="{first}"] details.kept-links summary').click()
    assert page.locator(f'#tables li[data-table="{first}"] details.kept-links li').count() == 1   # South
    page.fill("input[name=undertrick_penalty]", "0")        # a table made: the pointer goes
    page.click("#create-button")
    page.wait_for_function("document.querySelector('#created-title').textContent.includes('Second')")
    assert page.locator("#earlier-links").inner_text() == ""
    assert not page.errors


# ------------------------------------------------------- the card faces


def test_pages_run_under_the_servers_content_security_policy(browser, server):
    # (only locator waits here: an expression wait is an eval, which the policy refuses)
    lobby = open_page(browser, server, "/", csp=True)
    lobby.locator("#seat-choices select[name=player_N]").wait_for()
    deck = open_page(browser, server, "/static/cards.html", csp=True)
    deck.locator("svg").first.wait_for()
    created = server.create_table({"S": "human", "N": BOT, "E": BOT, "W": BOT})
    page = open_page(browser, server, created["invitations"]["S"]["url"], csp=True)
    page.locator("#bidding button").first.wait_for()
    copy = page.locator("#copies .copy").first
    copy.wait_for(state="attached")
    # the month's colour, set through the style object (a style attribute is refused)
    assert copy.evaluate("e => e.style.borderLeftColor") != ""
    # A bid, not a pass: a pass could end the auction (passed out), and the next
    # hand's auction would show no call of South's.
    bid = page.locator("#bidding button:not(.pass)").first
    call = bid.get_attribute("data-call")
    bid.click()
    page.locator(f'#auction td[aria-label^="South: "]:text-is("{call}")').wait_for(state="attached")
    assert not lobby.errors and not deck.errors and not page.errors


def test_card_faces_drawn_for_every_card_in_three_languages(browser, server):
    page = open_page(browser, server, "/static/cards.html")
    page.wait_for_selector("#gallery .card svg")
    catalogue = server.api("GET", "/api/cards")
    faces = page.locator("#gallery .card[data-code]")
    assert faces.count() == len(catalogue) == 30
    by_code = {card["code"]: card for card in catalogue}
    for face in faces.all():
        card = by_code[face.get_attribute("data-code")]
        marks = {"B": ".mark-bright", "R": ".mark-ribbon", "A": ".animal"}
        if card["kind"] in marks:
            assert face.locator(marks[card["kind"]]).count() == 1, card["code"]
        # November's Plain is its lightning (R1), drawn; no other card has it
        assert face.locator(".lightning").count() == (card["picture"] == "lightning"), card["code"]
        assert face.locator("svg.card-face").get_attribute("aria-label") == f"{card['code']} {card['name']}"
    screenshot(page, "deck-en")
    for language, field in (("ja", "name_ja"), ("ko", "name_ko")):
        page.select_option("#language", language)
        label = page.locator('#gallery .card[data-code="12B"] svg.card-face').get_attribute("aria-label")
        assert label == f"12B {by_code['12B'][field]}"
        screenshot(page, f"deck-{language}")
    assert not page.errors


# ------------------------------------------------------------- the table


def check_scoresheet(page, server, table_id):
    """The page's scoresheet says what the server's session says."""
    sheet = server.api("GET", f"/api/tables/{table_id}/session")["scoresheet"]
    record = sheet["last_hand"]
    scoresheet = page.locator("#scoresheet .scoresheet")
    assert scoresheet.locator(".sheet-title").inner_text() == "FLOWER BRIDGE"
    # the totals as shown (a screen reader hears "Total: 27", tests/test_browser_a11y.py)
    shown = "tds => tds.map((td) => td.lastChild.textContent)"
    above = scoresheet.locator("table.above .totals td").evaluate_all(shown)
    below = scoresheet.locator("table.below .totals td").evaluate_all(shown)
    assert above == [str(sheet["totals"][side]["above"]) for side in ("NS", "EW")]
    assert below == [str(sheet["totals"][side]["below"]) for side in ("NS", "EW")]
    text = scoresheet.locator("dl.record").inner_text()
    assert f"Contract\n{record['contract']}" in text
    assert f"NS {record['tricks']['NS']} · EW {record['tricks']['EW']}" in text
    assert record["tricks"]["NS"] + record["tricks"]["EW"] == 13
    points = scoresheet.locator("table.honors tr.honor-points td").all_inner_texts()
    assert points == [str(record["honor_points"][side]) for side in ("NS", "EW")]
    ticked = scoresheet.locator("table.honors tbody tr").first.locator(".box.ticked").count()
    bright = next(iter(record["honors"]["NS"]))
    assert ticked == min(record["honors"]["NS"][bright], 2) + min(record["honors"]["EW"][bright], 2)
    return sheet


def check_review(page, server, table_id):
    """The review shows hand 1 as the server records it: the four hands as dealt,
    the 8 undealt cards, the auction with its explanations and 13 tricks."""
    data = server.api("GET", f"/api/tables/{table_id}/hands/1")
    # The test server has no analysis: the hand's last card brings the review with
    # its double-dummy values "unavailable"; wait until the page has drawn it.
    page.locator('#review .review[data-dd-status="unavailable"]').wait_for()
    review = page.locator("#review .review")
    for seat in "NESW":
        codes = review.locator(f'.review-hand[data-seat="{seat}"] .card').evaluate_all(
            "cards => cards.map(card => card.dataset.code)")
        assert sorted(codes) == sorted(data["hands"][seat])
    undealt = review.locator(".review-undealt .card").evaluate_all("cards => cards.map(card => card.dataset.code)")
    assert sorted(undealt) == sorted(data["undealt"])
    # as shown ("N: 2P"; a screen reader hears "North: 2 Plains", tests/test_browser_a11y.py)
    calls = review.locator(".review-auction li").evaluate_all(SHOWN_ALL)
    assert calls == [f"{item['seat']}: {item['call']}" + (f" — {item['explanation']}" if item["explanation"] else "")
                     for item in data["auction"]]
    assert review.locator(".tricks-table tbody tr").count() == 13
    assert review.locator(".tricks-table tbody td").count() == 52
    assert review.locator(".dd-status").inner_text() == "Double-dummy values are not available on this server."


def check_copies_seen(page):
    """Copies seen adds up to the cards played: four per trick won, plus the trick on the table."""
    ns, ew = trick_counts(page)
    on_table = page.locator("#trick:not(.done) .slot").count()
    seen = sum(int(n) for n in page.locator("#copies .copy").evaluate_all("els => els.map(e => e.dataset.seen)"))
    assert seen == 4 * (ns + ew) + on_table


def test_the_names_language_chosen_at_a_table_is_remembered_after_a_reload(browser, server):
    # docs/client.md: Names switches the card names between English, Japanese and Korean,
    # remembered in the browser (chosen at a table, it was forgotten at the next page)
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    wait_for_table(south)
    south.select_option("#language", "ja")
    south.reload()
    wait_for_table(south)
    assert south.locator("#language").input_value() == "ja"
    assert south.locator('#felt .card[data-code] [lang="ja"], #felt .card[data-code][lang="ja"], '
                         '#felt .card[data-code] svg[lang="ja"]').count() > 0
    assert not south.errors


def test_whole_hand_as_south_with_three_bots_then_scoresheet(browser, server):
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, length={"hands": 2})
    table_id = created["table"]["id"]
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    spectator = open_page(browser, server, created["spectate_url"])
    wait_for_table(south)
    wait_for_table(spectator)
    assert south.locator('#position-bottom[data-seat="S"] .hand .card[data-code]').count() == 13
    assert spectator.locator("#felt .card[data-code]").count() == 0
    screenshot(south, "table-auction-desktop")
    shots = {"play": False}

    def before_card(page):
        if shots["play"]:
            return
        # South bid 7NT and declares; West led, so South's first card is the dummy's,
        # face up at the top of South's table and clickable there.
        assert page.locator("#contract strong").inner_text() == "7NT"
        assert "by South" in page.locator("#contract").inner_text()
        # Wait for the dummy's cards to become playable: on a loaded machine the page
        # may still be drawing the previous message.
        page.locator('#position-top[data-seat="N"].face-up .card.playable').first.wait_for()
        assert page.locator('#position-bottom[data-seat="S"] .card.playable').count() == 0
        # Screen readers heard the opening lead.
        lead = page.locator('#trick .slot[data-seat="W"] .card').get_attribute("data-code")
        assert page.locator("#announce").inner_text().startswith(f"West: {lead}, ")
        # The spectator, once as far as South, sees the dummy and the trick, and no one's hand.
        seq = page.evaluate("document.body.dataset.seq")
        spectator.wait_for_function(f"document.body.dataset.seq === '{seq}'")
        assert spectator.locator('#felt .seat-box[data-seat="N"] .card[data-code]').count() == 13
        assert spectator.locator('#felt .seat-box:not([data-seat="N"]) .card[data-code]').count() == 0
        check_copies_seen(page)
        screenshot(page, "table-play-desktop")
        screenshot(spectator, "table-play-spectator")
        shots["play"] = True

    play_hand([south], act_by_mouse, before_card)
    assert shots["play"], "South never had a card to play"
    screenshot(south, "review-desktop")
    check_review(south, server, table_id)
    south.locator("#close-review").click()
    sheet = check_scoresheet(south, server, table_id)
    assert sheet["hands_played"] == 1
    screenshot(south, "scoresheet-desktop")
    assert not south.errors and not spectator.errors


def test_phone_bidder_sees_the_last_calls_above_the_bidding_box(browser, server):
    # at 360 px the auction grid is below the fold while one bids
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=PHONE)
    south.wait_for_selector("#bidding button")
    frames = list(map(json.loads, south.frames_in))
    views = [m["view"] for m in frames if "view" in m]
    calls = [f"{c['seat']} {c['call']}" for c in views[-1]["auction"]]   # as the server sent them
    explained: list = []        # each call's explanation, as the snapshot and the calls brought them
    for message in frames:
        if message.get("type") == "snapshot":
            explained = list(message["explanations"])
        elif message.get("type") == "call":
            explained.append(message["explanation"])
    line = south.locator("#recent-calls")
    first, *rest = line.inner_text().split("\n")
    assert first == " · ".join([*calls[-3:], "S ?"])
    # and what the last bid shows, as the grid's hover says it (a bidder no longer scrolls to it)
    bids = [i for i, c in enumerate(views[-1]["auction"]) if c["call"] != "Pass"]
    assert rest == ([f"{calls[bids[-1]]}: {explained[bids[-1]]}"] if bids and explained[bids[-1]] else []), rest
    # (whatever this deal's auction: the last bid is explained, passes after it or not)
    said = south.evaluate("""async () => {
        const { recentCalls } = await import('/static/js/views/auction.js');
        const auction = [["N", "1R"], ["E", "Pass"], ["S", "2R"], ["W", "Pass"], ["N", "Pass"]]
          .map(([seat, call]) => ({ seat, call }));
        return [recentCalls({ phase: "auction", turn: "E", auction }, ["opening", null, "simple raise", null, null]),
                recentCalls({ phase: "auction", turn: "E", auction }, []),
                recentCalls({ phase: "auction", turn: "N", auction: auction.slice(0, 2) }, ["opening", null])];
    }""")
    assert said == ["S 2R · W Pass · N Pass · E ?\nS 2R: simple raise", "S 2R · W Pass · N Pass · E ?",
                    "N 1R · E Pass · N ?\nN 1R: opening"]
    box = line.bounding_box()
    assert box and box["y"] + box["height"] <= PHONE["height"], box
    assert south.locator("#bidding button").first.bounding_box()["y"] > box["y"]
    desktop = open_page(browser, server, created["spectate_url"])       # the grid is in view there
    wait_for_table(desktop)
    assert not desktop.locator("#recent-calls").is_visible()
    # one column goes up to 999 px: there too the grid lies below the bidding box
    tablet = open_page(browser, server, created["invitations"]["S"]["url"],
                       viewport={"width": 900, "height": 800})
    tablet.wait_for_selector("#bidding button")
    grid = tablet.locator("#auction-panel").bounding_box()
    assert grid and grid["y"] > 800, grid
    line = tablet.locator("#recent-calls").bounding_box()
    assert line and line["y"] + line["height"] <= 800, line
    assert not south.errors and not desktop.errors and not tablet.errors


@pytest.mark.parametrize("width", [800, 900, 1100])
def test_the_top_bar_shows_the_tables_name_hand_and_seat_whole(browser, server, width):
    # between 800 and about 1130 px the title shrank to a few letters and "…"
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    south = open_page(browser, server, created["invitations"]["S"]["url"],
                      viewport={"width": width, "height": 800})
    wait_for_table(south)
    title = south.locator("#title")
    assert "South" in title.inner_text()
    assert title.evaluate("e => e.scrollWidth <= e.clientWidth"), title.inner_text()
    assert not south.errors


def test_keyboard_only_hand_at_360px(browser, server):
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=PHONE)
    wait_for_table(south)
    assert south.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(south, "table-auction-360")
    shots = {"play": False, "last trick": False}

    def before_card(page):
        if not shots["play"]:
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
            screenshot(page, "table-play-360")
            shots["play"] = True
        if not shots["last trick"] and sum(trick_counts(page)) >= 1:
            page.keyboard.press("l")
            last = page.locator("#last-trick-panel:not(.hidden) .last-trick figure")
            assert last.count() == 4 and last.locator(".card[data-code]").count() == 4
            assert page.locator("#last-trick-panel .last-trick figure.winner").count() == 1
            screenshot(page, "last-trick-360")
            page.keyboard.press("l")
            assert page.locator("#last-trick-panel.hidden").count() == 1
            shots["last trick"] = True

    play_hand([south], act_by_keyboard, before_card)
    assert shots["last trick"]
    screenshot(south, "review-360")
    check_review(south, server, created["table"]["id"])
    south.keyboard.press("Escape")
    assert not south.locator("#review-dialog[open]").count()
    south.keyboard.press("c")
    assert south.locator("#copies-panel.hidden").count() == 1
    south.keyboard.press("c")
    assert south.locator("#copies-panel.hidden").count() == 0
    screenshot(south, "scoresheet-360")
    assert not south.errors


def test_second_person_joins_the_same_table(browser, server):
    created = server.create_table({"N": "human", "E": BOT, "S": "human", "W": BOT})
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    north = open_page(browser, server, created["invitations"]["N"]["url"])
    for page in (south, north):
        wait_for_table(page)
    # Each sees their own 13 cards at the bottom and nobody else's.
    assert north.locator('#position-bottom[data-seat="N"] .card[data-code]').count() == 13
    assert north.locator('#felt .seat-box:not([data-seat="N"]) .card[data-code]').count() == 0
    assert south.locator('#felt .seat-box:not([data-seat="S"]) .card[data-code]').count() == 0
    # each person at the bottom, the others clockwise: the left-hand opponent on the left
    for page, seats in ((south, "SWNE"), (north, "NESW")):
        assert [page.locator(f"#position-{place}").get_attribute("data-seat")
                for place in ("bottom", "left", "top", "right")] == list(seats)
    table_id = created["table"]["id"]
    seats = server.api("GET", f"/api/tables/{table_id}")["seats"]
    assert seats["N"]["connected"] and seats["S"]["connected"]
    play_hand([south, north], act_by_mouse)
    for page in (south, north):
        check_review(page, server, table_id)
        page.locator("#close-review").click()
        check_scoresheet(page, server, table_id)
    screenshot(north, "second-person-north")
    assert not south.errors and not north.errors


def test_the_one_person_at_a_table_closes_it_and_a_second_person_keeps_it_open(browser, server):
    created = server.create_table({"N": "human", "E": BOT, "S": "human", "W": BOT})
    table_id = created["table"]["id"]
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    north = open_page(browser, server, created["invitations"]["N"]["url"])
    for page in (south, north):
        wait_for_table(page)
    # both connected: neither is the one person at the table, and neither is offered it
    for page in (south, north):
        page.locator("#close-table").wait_for(state="hidden")
    assert all(seat["connected"] for seat in server.api("GET", f"/api/tables/{table_id}")["seats"].values())
    north.context.close()
    south.locator("#close-table").wait_for(state="visible")
    south.locator("#close-table").click()
    assert south.locator("#close-dialog").is_visible()
    south.locator("#close-cancel").click()      # thought better of it: nothing happens
    assert south.locator("#close-dialog").is_hidden()
    assert server.api("GET", f"/api/tables/{table_id}")["closed"] is None
    south.locator("#close-table").click()
    south.locator("#close-confirm").click()
    south.wait_for_function("document.querySelector('#message').textContent.startsWith('The session is over')")
    assert south.locator("#message").inner_text().startswith(
        "The session is over: the table was closed by South, ")
    assert south.locator('#session-end a[href="/"]').is_visible()
    assert south.locator("#close-table").is_hidden()
    assert south.locator("#bidding button, #felt .card.playable").count() == 0
    info = server.api("GET", f"/api/tables/{table_id}")
    assert (info["status"], info["closed"]) == ("over", "closed by South")
    # closed in the auction: nothing on the page still awaits a call (the grid's "?", the
    # recent calls' "N ?", a seat marked to act and "Auction in progress" stayed), nor after a reload
    for _ in range(2):
        south.wait_for_function("document.querySelector('#message').textContent.startsWith('The session is over')")
        assert south.locator("#auction td.pending, .seat-label.to-act").count() == 0
        assert "?" not in south.locator("#recent-calls").inner_text()
        assert "Auction in progress" not in south.locator("#contract").inner_text()
        assert "No contract" in south.locator("#contract").inner_text()
        south.reload()
    assert not south.errors


def test_a_person_is_told_when_their_seat_is_open_in_another_window_too(browser, server):
    # whoever has a seat's link holds the seat (the table's creator has every link):
    # the person sees when someone else opens theirs
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    table_id = created["table"]["id"]
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    wait_for_table(south)
    assert south.locator("#elsewhere").is_hidden()
    other = Client(server.url.replace("http", "ws", 1) + f"/ws/tables/{table_id}")
    other.send({"type": "hello", "token": created["invitations"]["S"]["token"]})
    other.until(lambda m: m["type"] == "snapshot")
    south.locator("#elsewhere").wait_for(state="visible")
    assert south.locator("#elsewhere").inner_text() == \
        "Your seat is open in another window too. If that is not you, someone else has your link."
    assert server.api("GET", f"/api/tables/{table_id}")["seats"]["S"]["windows"] == 2
    other.close()
    south.locator("#elsewhere").wait_for(state="hidden")
    assert not south.errors


# ----------------------------------------------- views of the protocol's data


def finished_review(server):
    """A real review: a one-hand table of four bots, played out by the server
    while a spectator watches (bots play only at a watched table)."""
    created = server.create_table({seat: BOT for seat in "NESW"}, length={"hands": 1})
    table_id = created["table"]["id"]
    path = f"/api/tables/{table_id}/hands/1"
    watcher = Client(server.url.replace("http", "ws", 1) + f"/ws/tables/{table_id}")
    watcher.send({"type": "hello", "token": None})
    try:
        for _ in range(200):
            response = httpx.get(server.url + path, timeout=10)
            if response.status_code == 200 and response.json()["contract"]:
                return response.json()
            if response.status_code == 200:  # passed out: try another table
                return finished_review(server)
            time.sleep(0.05)
    finally:
        watcher.close()
    raise AssertionError("the bots did not finish their hand")


def render_in_page(page, module, function, *args):
    """Call a view module's render function in the page; returns the element's outer HTML.
    (Once the page's own gallery is drawn, if it is still there: drawn after the body
    was replaced, it failed.)"""
    page.wait_for_function("!document.getElementById('gallery') || document.querySelector('#gallery .card')")
    return page.evaluate("""async ([module, fn, args]) => {
        const { loadCatalogue } = await import('/static/js/catalogue.js');
        const view = await import(`/static/js/views/${module}.js`);
        const catalogue = await loadCatalogue();
        const element = view[fn](...args.map((a) => a === '$catalogue' ? catalogue : a));
        document.body.replaceChildren(element);
        return element.outerHTML;
    }""", [module, function, list(args)])


@pytest.mark.parametrize("leader, standing", [(None, " — tied"), ("EW", " — EAST-WEST ahead")])
def test_scoresheet_says_a_tie_in_progress_is_tied(browser, server, leader, standing):
    # A tie during the session read "Totals: NORTH-SOUTH 0, EAST-WEST 0 — level".
    points = {"NS": 40, "EW": 40 if leader is None else 70}
    sheet = {"above": [], "games": [{"number": 1, "below": [], "winner": None}], "is_over": False,
             "leader": leader, "last_hand": None,
             "totals": {side: {"above": total, "below": 0, "games": 0, "total": total}
                        for side, total in points.items()}}
    page = open_page(browser, server, "/static/cards.html")
    render_in_page(page, "scoresheet", "renderScoresheet", sheet, {})
    assert page.locator(".game-winner").inner_text().splitlines()[-1] == (
        f"Totals: NORTH-SOUTH 40, EAST-WEST {points['EW']}{standing}")
    assert not page.errors


def long_sheet(hands, games):
    """A scoresheet of ``hands`` hands, each with an entry above the line for each
    side, and ``games`` games won, each of two entries below the line."""
    above = [{"hand": hand, "side": side, "points": 10 * hand, "label": "honors"}
             for hand in range(1, hands + 1) for side in ("NS", "EW")]
    played = [{"number": n, "below": [{"hand": 2 * n - 1, "side": "NS", "points": 60},
                                      {"hand": 2 * n, "side": "NS", "points": 40}], "winner": "NS"}
              for n in range(1, games + 1)]
    return {"above": above, "games": [*played, {"number": games + 1, "below": [], "winner": None}],
            "is_over": False, "leader": "NS", "last_hand": None,
            "totals": {"NS": {"above": 1, "below": 2, "games": games, "total": 3},
                       "EW": {"above": 4, "below": 0, "games": 0, "total": 4}}}


def test_app_b_the_line_after_a_game_lies_under_its_label_and_above_the_next_games_entries(browser, server):
    # The line was drawn over "game 1 to NORTH-SOUTH", which then read as a heading of
    # the next game's entries; Appendix B draws the line after the game.
    sheet = long_sheet(2, 1)
    sheet["games"][1]["below"] = [{"hand": 3, "side": "EW", "points": 60, "contract": "2R"}]
    page = open_page(browser, server, "/static/cards.html")
    render_in_page(page, "scoresheet", "renderScoresheet", sheet, {})
    cell = page.locator("table.below .game-line td")
    assert cell.inner_text() == "game 1 to NORTH-SOUTH"
    # a dashed line along the cell's foot (its background: a border there gave way to the
    # totals' solid one, right above them), none at its head
    line = cell.evaluate("""td => { const s = getComputedStyle(td), r = td.getBoundingClientRect();
      return [s.borderTopStyle, s.backgroundImage.startsWith("linear-gradient"), s.backgroundPosition,
              s.backgroundRepeat, r.bottom]; }""")
    assert line[:4] == ["none", True, "0% 100%", "repeat-x"], line
    rows = page.locator("table.below tr").all()
    texts = [row.inner_text() for row in rows]
    after = texts.index("game 1 to NORTH-SOUTH") + 1
    assert rows[after].bounding_box()["y"] >= line[4] - 0.5
    # a high-contrast theme drops background images: the line is a border there
    page.emulate_media(forced_colors="active")
    assert cell.evaluate("td => getComputedStyle(td).borderBottomStyle") == "dashed"
    # each entry below the line names the contract that scored it ("(hand 3)" said nothing of it)
    assert "2R (hand 3)" in texts[after]
    assert page.locator("table.below .entry").first.inner_text().endswith("(hand 1)")   # (an older sheet: none)
    assert not page.errors


def test_scoresheet_of_a_long_game_folds_its_earlier_entries_below_the_line(browser, server):
    # games were folded whole, and only once five were won: a long game (random bots at a
    # high game_points) drew all its entries, a table 8,742 pixels tall (a scale review)
    sheet = long_sheet(4, 1)
    sheet["games"][1]["below"] = [{"hand": hand, "side": "EW" if hand % 3 else "NS", "points": 30}
                                  for hand in range(3, 63)]
    page = open_page(browser, server, "/static/cards.html")
    render_in_page(page, "scoresheet", "renderScoresheet", sheet, {})
    fold = page.locator("details.earlier")
    assert fold.count() == 1 and fold.locator("summary").inner_text() == "Hands 1 to 46: 46 earlier entries"
    shown = page.locator("table.below:not(.earlier) .entry").all_inner_texts()
    assert len(shown) == 16 and "(hand 47)" in " ".join(shown) and "(hand 46)" not in " ".join(shown)
    assert page.locator("table.below:not(.earlier)").get_attribute("aria-label") == "Below the line, from hand 47"
    assert page.locator("table.below:not(.earlier) .game-line").count() == 0      # the game goes on
    fold.locator("summary").click()
    assert page.locator("table.below.earlier .entry").count() == 46
    assert page.locator("table.below.earlier .game-line").all_inner_texts() == ["game 1 to NORTH-SOUTH"]
    # won, the game's line stays with its later part, in view
    sheet["games"][1]["winner"] = "EW"
    sheet["games"].append({"number": 3, "below": [], "winner": None})
    render_in_page(page, "scoresheet", "renderScoresheet", sheet, {})
    assert page.locator("table.below:not(.earlier) .game-line").all_inner_texts() == ["game 2 to EAST-WEST"]
    assert page.locator("table.below.earlier .game-line").all_text_contents() == ["game 1 to NORTH-SOUTH"]
    assert not page.errors


def test_scoresheet_of_a_long_session_folds_its_earlier_entries_and_games_away(browser, server):
    # At 419 hands the sheet was 25,000 pixels tall, every entry in one table and the
    # totals at its foot: the latest part stays in view, the rest folded
    page = open_page(browser, server, "/static/cards.html")
    render_in_page(page, "scoresheet", "renderScoresheet", long_sheet(60, 10), {})
    folds = page.locator("details.earlier")
    assert folds.count() == 2 and not any(folds.nth(i).evaluate("d => d.open") for i in range(2))
    assert folds.nth(0).locator("summary").inner_text() == "Hands 1 to 52: 104 earlier entries"
    assert folds.nth(1).locator("summary").inner_text() == "Games 1 to 7"
    shown = page.locator('table.above:not(.earlier) .entry').all_inner_texts()
    assert len(shown) == 16 and shown[0] == "530 honors (hand 53)"      # the last 8 hands'
    assert page.locator('table.below:not(.earlier) .game-line').all_inner_texts() == [
        "game 8 to NORTH-SOUTH", "game 9 to NORTH-SOUTH", "game 10 to NORTH-SOUTH"]
    assert page.locator(".totals").count() == 2 and page.locator(".game-winner").is_visible()
    folds.nth(0).locator("summary").click()     # every entry one click off
    earlier = page.locator("table.above.earlier .entry").all_inner_texts()
    assert len(earlier) == 104 and earlier[0] == "10 honors (hand 1)"
    assert page.locator("table.above.earlier").get_attribute("aria-label") == "Above the line, hands 1 to 52"
    # a short session's sheet folds nothing
    render_in_page(page, "scoresheet", "renderScoresheet", long_sheet(12, 5), {})
    assert page.locator("details.earlier").count() == 0
    assert page.locator("table.above .entry").count() == 24
    assert page.locator("table.above").get_attribute("aria-label") == "Above the line"
    assert not page.errors


def test_review_shows_double_dummy_values_and_what_a_card_cost(browser, server):
    review = finished_review(server)
    declarer_side = "NS" if review["contract"]["declarer"] in "NS" else "EW"
    for trick in review["tricks"]:
        for play in trick["plays"]:
            play["dd"] = play["best"] = 7
    first = review["tricks"][0]["plays"]
    defender = next(p for p in first if (p["seat"] in "NS") != (declarer_side == "NS"))
    declarer = next(p for p in first if (p["seat"] in "NS") == (declarer_side == "NS"))
    defender["dd"] = 8        # the defender's card gave declarer a trick
    declarer["best"] = 9      # declarer's side had a card worth two more
    review["dd_status"] = "ready"
    page = open_page(browser, server, "/static/cards.html")
    render_in_page(page, "review", "renderReview", "$catalogue", review, "en")
    costs = page.locator(".tricks-table .dd.cost")
    assert costs.count() == 2
    assert page.locator(f'.tricks-table td[data-seat="{defender["seat"]}"] .dd.cost').first.inner_text() == "8 (−1)"
    assert page.locator(f'.tricks-table td[data-seat="{declarer["seat"]}"] .dd.cost').first.inner_text() == "7 (−2)"
    assert page.locator(".tricks-table .dd").count() == 52
    assert not page.errors


def test_review_window_goes_back_to_any_earlier_hand_of_the_session(browser, server):
    # only the last hand could be reviewed: at 419 hands nothing on the page reached hand n
    created = server.create_table({seat: BOT for seat in "NESW"}, length={"hands": 3})
    table_id = created["table"]["id"]
    page = open_page(browser, server, f"/t/{table_id}")     # a spectator: the bots play while it watches
    page.wait_for_selector("#review-dialog[open] .review[data-hand='3']", timeout=3 * HAND_TIMEOUT_MS)
    assert page.locator("#review-which").inner_text() == "Hand 3 of 3"
    assert page.locator("#review-later").is_disabled()
    page.locator("#review-earlier").click()
    page.wait_for_selector("#review .review[data-hand='2']")
    assert page.locator("#review-which").inner_text() == "Hand 2 of 3"
    expected = server.api("GET", f"/api/tables/{table_id}/hands/2")      # what the page was given
    shown = page.locator("#review-headline").inner_text()
    assert shown.startswith("Hand 2: ") and page.locator("#review .review").get_attribute("data-dd-status") == \
        expected["dd_status"]
    names = {"N": "North", "E": "East", "S": "South", "W": "West"}
    assert ("passed out" in shown) if expected["contract"] is None else (names[expected["contract"]["declarer"]] in shown)
    page.locator("#review-earlier").click()
    page.wait_for_selector("#review .review[data-hand='1']")
    assert page.locator("#review-earlier").is_disabled()
    assert page.evaluate("document.activeElement.id") == "review-later"    # not lost with the disabled button
    assert page.locator("#review-live").inner_text().startswith("Hand 1: ")
    page.keyboard.press("Enter")                                           # Later hand
    page.wait_for_selector("#review .review[data-hand='2']")
    # closed and opened again, the window shows the latest hand
    page.locator("#close-review").click()
    page.locator("#open-review").click()
    page.wait_for_selector("#review-dialog[open] .review[data-hand='3']")
    assert page.locator("#review-which").inner_text() == "Hand 3 of 3"
    assert not page.errors


# The page's websocket, kept as window.__socket (to hand the page a message as if
# the server had sent it).
WS_TAP = """(() => {
  const Real = window.WebSocket;
  function Tapped(url, protocols) {
    const socket = protocols === undefined ? new Real(url) : new Real(url, protocols);
    window.__socket = socket;
    return socket;
  }
  Tapped.prototype = Real.prototype;
  Object.assign(Tapped, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  window.WebSocket = Tapped;
})();"""


def test_review_window_an_earlier_hands_values_come_in_and_quick_clicks_go_back_as_many_hands(browser, server):
    # an earlier hand asked for while its values were pending stayed "being computed"
    # (its review message was dropped: only the latest hand's was taken), and two
    # quick clicks on Earlier hand went back one hand, both asking for the same
    created = server.create_table({seat: BOT for seat in "NESW"}, length={"hands": 3})
    table_id = created["table"]["id"]
    page = open_page(browser, server, "/")
    page.add_init_script(WS_TAP)
    page.goto(f"/t/{table_id}")
    page.wait_for_selector("#review-dialog[open] .review[data-hand='3']", timeout=3 * HAND_TIMEOUT_MS)
    page.route("**/hands/*", lambda route: (time.sleep(0.4), route.continue_()))
    page.locator("#review-earlier").click()
    page.locator("#review-earlier").click()
    page.wait_for_selector("#review .review[data-hand='1']")
    assert page.locator("#review-which").inner_text() == "Hand 1 of 3"
    page.unroute("**/hands/*")
    page.locator("#review-later").click()
    page.wait_for_selector("#review .review[data-hand='2']")
    review = server.api("GET", f"/api/tables/{table_id}/hands/2")
    send = "message => window.__socket.dispatchEvent(new MessageEvent('message', {data: JSON.stringify(message)}))"
    page.evaluate(send, {"v": 1, "type": "review", "hand": 2, "review": {**review, "dd_status": "pending"}})
    page.wait_for_selector("#review .review[data-hand='2'][data-dd-status='pending']")
    # the latest hand's values say nothing while hand 2 is shown, and leave it shown
    latest = server.api("GET", f"/api/tables/{table_id}/hands/3")
    page.evaluate(send, {"v": 1, "type": "review", "hand": 3, "review": {**latest, "dd_status": "ready"}})
    page.evaluate(send, {"v": 1, "type": "review", "hand": 2, "review": {**review, "dd_status": "ready"}})
    page.wait_for_selector("#review .review[data-hand='2'][data-dd-status='ready']")
    said = page.locator("#review-live").inner_text()
    assert said.count("Double-dummy values are ready.") == (1 if review["contract"] else 0), said
    assert not page.errors


def test_review_windows_close_button_stays_in_view_while_it_scrolls(browser, server):
    created = server.create_table({seat: BOT for seat in "NESW"}, length={"hands": 1})
    page = open_page(browser, server, created["spectate_url"], viewport=PHONE)   # the bots play
    page.wait_for_selector("#review-dialog[open]", timeout=HAND_TIMEOUT_MS)
    dialog = page.locator("#review-dialog")
    assert dialog.evaluate("d => d.scrollHeight > d.clientHeight + 200")      # the review scrolls
    for where in ("d.scrollHeight / 2", "d.scrollHeight"):
        dialog.evaluate(f"d => {{ d.scrollTop = {where}; }}")
        for button in ("#close-review", "#review-earlier", "#review-later"):   # Close, and the hands' way
            hit = page.locator(button).evaluate("""button => {
                const r = button.getBoundingClientRect();
                const d = button.closest('dialog').getBoundingClientRect();
                const inside = r.top >= d.top && r.bottom <= d.bottom && r.bottom > 0 && r.top < innerHeight;
                return inside && document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2) === button;
            }""")
            assert hit, (where, button)
        # a bar across the whole window, which the review scrolls under: beside Close, no
        # cell of a table shows through (Close floating alone hid the last column's cells)
        across = dialog.evaluate("""d => {
            const bar = d.querySelector('.dialog-bar').getBoundingClientRect();
            const box = d.getBoundingClientRect();
            const y = bar.top + 4;
            const xs = [];
            for (let x = box.left + 2; x < box.right - 2; x += 8) xs.push(x);
            return xs.every((x) => document.elementFromPoint(x, y)?.closest('.dialog-bar'));
        }""")
        assert across, where
    screenshot(page, "review-scrolled-360")
    page.locator("#close-review").click()
    assert page.locator("#review-dialog[open]").count() == 0
    assert not page.errors


WS_GATE = """(() => {
  // the page's websocket, closed at the first hand's end and kept from
  // reconnecting (its retries fail) until the test opens the gate
  const Real = window.WebSocket;
  window.__gate = { closeAtHandOver: true, shut: false };
  function Gated(url, protocols) {
    const where = window.__gate.shut ? url.replace('/ws/', '/shut/') : url;
    const socket = protocols === undefined ? new Real(where) : new Real(where, protocols);
    socket.addEventListener('message', (event) => {
      if (window.__gate.closeAtHandOver && JSON.parse(event.data).hand_over) {
        window.__gate.closeAtHandOver = false;
        window.__gate.shut = true;
        socket.close();
      }
    });
    return socket;
  }
  Gated.prototype = Real.prototype;
  Object.assign(Gated, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  window.WebSocket = Gated;
})();"""


def spectate_bots_through_a_gate(browser, server, gate):
    """A spectator page (its websocket behind ``gate``) on a table of four bots
    playing three hands; the table's id and the page."""
    created = server.create_table({seat: BOT for seat in "NESW"}, length={"hands": 3})
    table_id = created["table"]["id"]
    page = open_page(browser, server, "/")
    page.add_init_script(gate)
    page.goto(f"/t/{table_id}")     # the bots play while it watches
    return table_id, page


def watch_to_the_sessions_end(server, table_id, timeout_ms):
    """While a page is away, a watcher keeps the table attended to the session's end."""
    watcher = Client(server.url.replace("http", "ws", 1) + f"/ws/tables/{table_id}")
    watcher.send({"type": "hello", "token": None})
    try:
        watcher.until(lambda m: watcher.session_over, timeout=timeout_ms / 1000)
    finally:
        watcher.close()


def test_an_open_review_window_shows_the_snapshots_last_hand_after_a_long_disconnect(browser, server):
    # docs/client.md: the review is of the last finished hand. A page away across
    # a hand's end comes back to a snapshot; its open window showed hand 1 for
    # good (its values, if pending, sent while the page was away)
    table_id, page = spectate_bots_through_a_gate(browser, server, WS_GATE)
    page.wait_for_function("window.__gate.shut", timeout=HAND_TIMEOUT_MS)    # at hand 1's end
    page.locator("#open-review").click()
    page.wait_for_selector("#review-dialog[open] .review[data-hand='1']")
    # the page is away for two hands (one would come back as the events missed)
    watch_to_the_sessions_end(server, table_id, HAND_TIMEOUT_MS)
    page.evaluate("window.__gate.shut = false")
    page.wait_for_selector("#review-dialog[open] .review[data-hand='3']", timeout=15_000)
    assert page.locator("#review .review").count() == 1
    assert not page.errors


# WS_GATE, closed instead as the second hand is dealt (the page then shows that
# hand's auction, a hand still going)
WS_GATE_AT_DEAL = WS_GATE.replace("JSON.parse(event.data).hand_over",
                                  "JSON.parse(event.data).type === 'deal' && JSON.parse(event.data).hand === 2")


def test_a_page_away_for_several_hands_says_how_many_ended_and_opens_the_last_ones_review(browser, server):
    # Away from the start of hand 2 to the session's end (hand 3), the page came
    # back to a finished table with no word of either hand and no review opened
    table_id, page = spectate_bots_through_a_gate(browser, server, WS_GATE_AT_DEAL)
    page.wait_for_function("window.__gate.shut", timeout=HAND_TIMEOUT_MS)
    assert page.evaluate("document.body.dataset.phase") == "auction"
    if page.locator("#review-dialog[open]").count():
        # hand 1's review, opened at its end (its closing says the turn: not into the next one)
        closing_settled(page, "#review-dialog", page.locator("#close-review").click)
    watch_to_the_sessions_end(server, table_id, 2 * HAND_TIMEOUT_MS)
    assert page.locator("#review-dialog[open]").count() == 0
    page.evaluate("window.__gate.shut = false")
    page.wait_for_selector("#review-dialog[open] .review[data-hand='3']", timeout=15_000)
    assert page.evaluate("document.body.dataset.phase") in ("finished", "passed out")
    said = page.locator("#review-live").inner_text()
    assert said.startswith("2 hands ended while this page was away, hands 2 to 3; the scoresheet has them all.")
    assert "Hand 3: " in said
    assert not page.errors


# The page's websocket hears nothing while window.__deaf is true: its messages are
# dropped before the page's own listener, as if they were lost with the connection.
WS_DEAF = """(() => {
  const Real = window.WebSocket;
  window.__deaf = false;
  function Deaf(url, protocols) {
    const socket = protocols === undefined ? new Real(url) : new Real(url, protocols);
    socket.addEventListener('message', (event) => { if (window.__deaf) event.stopImmediatePropagation(); });
    return socket;
  }
  Deaf.prototype = Real.prototype;
  Object.assign(Deaf, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  window.WebSocket = Deaf;
})();"""


def deaf_page(browser, server, path):
    """A page whose websocket can be made deaf (WS_DEAF), once it shows its table."""
    page = open_page(browser, server, "/")
    page.add_init_script(WS_DEAF)
    page.goto(path)
    wait_for_table(page)
    return page


def seen_by_all(clients, seq):
    for client in clients.values():
        client.until(lambda m, client=client: client.seq >= seq)


def test_the_scoresheet_is_drawn_again_only_when_it_changes(browser, server):
    # it was drawn anew at every call and card: 12-15 ms each at 419 hands
    created, clients = four_people(server, hands=2)
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    wait_for_table(south)
    seen = "document.body.dataset.seq === '{}'"
    move_until(clients, list(SOUTH_DECLARES), lambda view: len(view["plays"]) == 4)
    south.wait_for_function(seen.format(clients["S"].seq))
    south.evaluate("window.__sheet = document.querySelector('#scoresheet').firstElementChild")
    move_until(clients, [], lambda view: len(view["plays"]) == 12)
    south.wait_for_function(seen.format(clients["S"].seq))
    assert south.evaluate("document.querySelector('#scoresheet').firstElementChild === window.__sheet")
    move_until(clients, [], lambda view: view["phase"] == "finished")       # the 52nd card
    seen_by_all(clients, clients["S"].seq + 1)                              # and hand 2's deal
    south.wait_for_function(seen.format(clients["S"].seq))
    assert south.evaluate("document.querySelector('#scoresheet').firstElementChild !== window.__sheet")
    assert "Hand1" in south.locator("#scoresheet .record").inner_text().replace("\n", "").replace(" ", "")
    assert not south.errors


def test_review_window_looking_back_stays_on_its_hand_when_another_hand_ends(browser, server):
    # a person looking at hand 1 while hand 3 was played was taken to hand 3 at its end
    created, clients = four_people(server, hands=3)
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    wait_for_table(south)
    for _ in range(2):      # hands 1 and 2, each followed by the next deal
        move_until(clients, list(SOUTH_DECLARES), lambda view: view["phase"] == "finished")
        seen_by_all(clients, clients["S"].seq + 1)
    south.wait_for_function(f"document.body.dataset.seq === '{clients['S'].seq}'")
    south.wait_for_selector("#review-dialog[open] .review[data-hand='2']")
    south.locator("#review-earlier").click()
    south.wait_for_selector("#review .review[data-hand='1']")
    move_until(clients, list(SOUTH_DECLARES), lambda view: view["phase"] == "finished")     # hand 3
    south.wait_for_function(f"document.body.dataset.seq === '{clients['S'].seq}'")
    south.wait_for_function("document.querySelector('#review-which').textContent === 'Hand 1 of 3'")
    assert south.locator("#review .review").get_attribute("data-hand") == "1"
    assert "Hand 3: 7 No Trump by " in south.locator("#review-live").inner_text()     # told all the same
    south.locator("#review-later").click()
    south.wait_for_selector("#review .review[data-hand='2']")
    south.locator("#review-later").click()
    south.wait_for_selector("#review .review[data-hand='3']")
    assert south.locator("#review-later").is_disabled()
    assert not south.errors


def test_a_page_that_missed_a_hands_last_card_opens_its_review_when_it_comes_back(browser, tmp_path):
    # The connection dropped as the hand's last card was played; the page came
    # back to a snapshot of the next hand's auction, and a snapshot opened no
    # review: the person had no word of how the hand ended.
    with Server(tmp_path) as own:
        created, clients = four_people(own, hands=2)
        south = deaf_page(browser, own, created["invitations"]["S"]["url"])
        move_until(clients, list(SOUTH_DECLARES), lambda view: len(view["plays"]) == 51)
        south.wait_for_function(f"document.body.dataset.seq === '{clients['S'].seq}'")
        south.evaluate("window.__deaf = true")
        move_until(clients, [], lambda view: view["phase"] == "finished")     # the 52nd card
        seen_by_all(clients, clients["S"].seq + 1)                            # and hand 2's deal
        own.stop(kill=True)
        for client in clients.values():
            client.close()
        south.wait_for_function("document.querySelector('#status').textContent === 'reconnecting…'")
        south.evaluate("window.__deaf = false")
        assert south.locator("#review-dialog[open]").count() == 0
        own.start()
        south.wait_for_selector("#review-dialog[open] .review[data-hand='1']", timeout=30_000)
        assert south.evaluate("document.body.dataset.phase") == "auction"       # hand 2 behind it
        assert south.locator("#contract").inner_text().startswith("Hand 2")
        assert south.locator("#review-live").inner_text().startswith("Hand 1: 7 No Trump by South")
        assert not south.errors


def test_a_page_that_missed_the_sessions_last_card_opens_its_review_but_a_fresh_page_does_not(
        browser, tmp_path):
    # The same at the session's last hand: the snapshot (more than 8 events
    # missed) shows that hand finished, and opened no review. A page opened on
    # a finished session does not open the review by itself (R reopens it).
    with Server(tmp_path) as own:
        created, clients = four_people(own, hands=1)
        south = deaf_page(browser, own, created["invitations"]["S"]["url"])
        move_until(clients, list(SOUTH_DECLARES), lambda view: len(view["plays"]) == 40)
        south.wait_for_function(f"document.body.dataset.seq === '{clients['S'].seq}'")
        south.evaluate("window.__deaf = true")
        move_until(clients, [], lambda view: view["phase"] == "finished")     # 12 cards missed
        own.stop(kill=True)
        for client in clients.values():
            client.close()
        south.wait_for_function("document.querySelector('#status').textContent === 'reconnecting…'")
        south.evaluate("window.__deaf = false")
        own.start()
        south.wait_for_selector("#review-dialog[open] .review[data-hand='1']", timeout=30_000)
        assert south.evaluate("document.body.dataset.phase") == "finished"
        assert south.locator("#review-live").inner_text().startswith("Hand 1: 7 No Trump by South")
        assert not south.errors

        fresh = open_page(browser, own, created["invitations"]["S"]["url"])
        wait_for_table(fresh)
        assert fresh.evaluate("document.body.dataset.phase") == "finished"
        fresh.wait_for_timeout(300)
        assert fresh.locator("#review-dialog[open]").count() == 0
        assert not fresh.locator("#open-review").is_disabled()
        assert not fresh.errors


def test_bots_explanations_show_on_hover_in_the_auction_grid(browser, server):
    view = {"dealer": "E", "phase": "auction", "turn": "W",
            "auction": [{"seat": "E", "call": "1R"}, {"seat": "S", "call": "Pass"}]}
    page = open_page(browser, server, "/static/cards.html")
    render_in_page(page, "auction", "renderAuction", view, ["5+ Ribbons, 11-16 points", None])
    first_row = page.locator("table.auction tbody tr").first.locator("td").all_inner_texts()
    assert first_row == ["", "1R", "Pass", "?"]  # N is empty: East dealt
    explained = page.locator("table.auction td.explained")
    assert explained.count() == 1
    tooltip = "el => getComputedStyle(el, '::after').content"
    assert explained.evaluate(tooltip) == "none"
    explained.hover()
    assert explained.evaluate(tooltip) == '"5+ Ribbons, 11-16 points"'
    page.mouse.move(0, 0)
    explained.focus()  # keyboards and touch screens
    assert explained.evaluate(tooltip) == '"5+ Ribbons, 11-16 points"'
    assert not page.errors


TOOLTIP_BOX = """el => {
  const after = getComputedStyle(el, '::after');
  const cell = el.getBoundingClientRect();
  const width = parseFloat(after.width) + parseFloat(after.paddingLeft) + parseFloat(after.paddingRight);
  const left = after.transform !== 'none' ? cell.left + cell.width / 2 - width / 2
             : after.left === '0px' ? cell.left : cell.right - width;
  return [left, left + width, innerWidth];
}"""


def test_bots_explanations_stay_on_a_phones_screen_in_every_column(browser, server):
    view = {"dealer": "N", "phase": "auction", "turn": "N",
            "auction": [{"seat": s, "call": c} for s, c in zip("NESW", ["Pass", "1R", "Pass", "2R"])]}
    reasons = ["no opening: at most 14 points", "5+ Ribbons, 11-16 points", "no opening: at most 14 points",
               "raise: 3+ Ribbons, 6-10 points, partnership 17+"]
    page = open_page(browser, server, "/static/cards.html", viewport=PHONE)
    render_in_page(page, "auction", "renderAuction", view, reasons)
    cells = page.locator("table.auction td.explained")
    assert cells.count() == 4
    for i in range(4):
        cells.nth(i).focus()  # a tap
        left, right, width = cells.nth(i).evaluate(TOOLTIP_BOX)
        assert 0 <= left and right <= width, (i, left, right, width)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert not page.errors


def test_bidding_box_offers_exactly_the_legal_calls(browser, server):
    legal = ["Pass", "2A", "2NT", "3P", "3R", "3A", "3NT"]
    page = open_page(browser, server, "/static/cards.html")
    page.wait_for_selector("#gallery .card")        # the gallery drawn: it draws nothing later
    page.evaluate("""async (legal) => {
        const { renderBiddingBox } = await import('/static/js/views/auction.js');
        window.chosen = [];
        document.body.replaceChildren(renderBiddingBox(legal, (call) => window.chosen.push(call)));
    }""", legal)
    offered = page.locator(".bidding-box button").evaluate_all("bs => bs.map(b => b.dataset.call)")
    assert sorted(offered) == sorted(legal)
    page.locator('.bidding-box button[data-call="3NT"]').click()
    assert page.evaluate("window.chosen") == ["3NT"]


def test_page_reconnects_and_resumes_after_the_server_is_killed(browser, tmp_path):
    with Server(tmp_path) as own:
        created = own.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, length={"hands": 1})
        south = open_page(browser, own, created["invitations"]["S"]["url"])
        wait_for_table(south)
        south.wait_for_selector("#bidding button")  # the bots have called up to South
        seq = south.evaluate("document.body.dataset.seq")
        own.stop(kill=True)
        south.wait_for_function("document.querySelector('#status').textContent === 'reconnecting…'")
        # a click while the socket is down is not lost in silence (the call is
        # aria-disabled, which Playwright will not click unforced: a person can)
        south.locator('#bidding button[data-call="Pass"]').click(force=True)
        assert south.locator("#refusal").inner_text().startswith("Not connected: that was not sent")
        own.start()
        south.wait_for_function("document.querySelector('#status').textContent === 'connected'",
                                timeout=30_000)
        assert south.locator("#refusal").inner_text() == ""   # connected again: no longer true
        assert south.evaluate("document.body.dataset.seq") == seq
        assert south.locator('#position-bottom[data-seat="S"] .card[data-code]').count() == 13
        play_hand([south], act_by_mouse)
        south.locator("#close-review").click()
        assert south.locator("#scoresheet .session-over").count() == 1
        assert not south.errors


def test_a_page_whose_websocket_is_refused_while_the_server_answers_says_so_and_keeps_trying(browser, server):
    # A proxy in front of the server that does not pass websockets on (or the server
    # refusing a page of another site) closed every socket before it opened: the page
    # said "reconnecting…" for ever, with nothing to tell anyone what to look at.
    # Here the page's site, bridge.test, is served by routing every plain request to
    # the server; its websocket reaches nothing.
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, length={"hands": 1})

    def forward_to(url):
        def forward(route):
            route.fulfill(response=route.fetch(url=route.request.url.replace("http://bridge.test", url)))
        return forward

    context = browser.new_context(viewport=DESKTOP, bypass_csp=True)
    context.route("http://bridge.test/**", forward_to(server.url))
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    invitation = created["invitations"]["S"]["url"]
    page.goto("http://bridge.test" + invitation[invitation.index("/t/"):])
    page.wait_for_function("document.querySelector('#refusal').textContent !== ''", timeout=15_000)
    refusal = page.locator("#refusal").inner_text()
    assert refusal.startswith("The server answers, but refuses this page's connection to the table. Still trying")
    assert "a proxy in front of it may not pass websockets on" in refusal
    assert page.locator("#status").inner_text() == "reconnecting…"
    with page.expect_websocket(timeout=10_000):                          # and it goes on trying
        pass
    assert page.locator("#refusal").inner_text() == refusal
    assert not page.errors
    context.close()


def test_a_wrong_token_or_table_is_refused_with_a_message(browser, server):
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, length={"hands": 1})
    for path, reason in ((f"/t/{created['table']['id']}#token=not-the-token", "this token holds no seat"),
                         ("/t/no-such-table", "there is no table 'no-such-table'")):
        page = open_page(browser, server, path)
        page.wait_for_function("document.querySelector('#status').textContent === 'refused'")
        refusal = page.locator("#refusal").inner_text()
        # the server's words, a sentence of their own (they ran on into the link, lower case, no stop)
        assert refusal.startswith(f"The server refused this link. {reason[0].upper()}{reason[1:]}")
        assert refusal.endswith(". Back to the lobby")
        assert page.locator('#refusal a[href="/"]').inner_text() == "Back to the lobby"
        assert page.locator("#felt .card").count() == 0
        # only the refusal: no empty felt, auction, copies seen or scoresheet, no live buttons
        for hidden in ("#felt", "#auction-panel", "#copies-panel", "#scoresheet-panel", "#bidding",
                       "#toggle-copies", "#toggle-last", "#open-review", "#open-keys", "#language"):
            assert not page.locator(hidden).is_visible(), hidden
        assert page.locator("#refusal").is_visible()
        page.keyboard.press("?")                        # and the keys open nothing
        assert page.locator("dialog[open]").count() == 0
        screenshot(page, "link-refused")
        assert not page.errors


def test_a_link_with_a_broken_escape_says_it_is_damaged_and_shows_nothing_else(browser, server):
    # decodeURIComponent threw before the page's buttons were wired: a dead half-drawn page
    page = open_page(browser, server, "/t/%E0%A4%A")
    page.wait_for_function("document.querySelector('#refusal').textContent.startsWith('This link is damaged')")
    assert "broken %-escape" in page.locator("#refusal").inner_text()
    assert page.locator('#refusal a[href="/"]').inner_text() == "Back to the lobby"
    for hidden in ("#felt", "#auction-panel", "#bidding", "#open-review", "#open-keys", "#language", "#status"):
        assert not page.locator(hidden).is_visible(), hidden
    assert page.title() == "Link refused — Flower Bridge"
    assert not page.errors


def test_a_window_over_the_seats_most_connections_is_told_why_and_not_retried(browser, server):
    # docs/protocol.md: a seat takes 8 connections at most; the ninth is closed
    # with 4429 after its error, which the page shows (it drew nothing, saying
    # "reconnecting..." for ever).
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, length={"hands": 1})
    table_id, token = created["table"]["id"], created["invitations"]["S"]["token"]
    tabs = []
    for _ in range(8):
        tab = Client(server.url.replace("http", "ws", 1) + f"/ws/tables/{table_id}")
        tab.send({"type": "hello", "token": token})
        tab.until(lambda m: m["type"] == "snapshot")
        tabs.append(tab)
    page = open_page(browser, server, created["invitations"]["S"]["url"])
    page.wait_for_function("document.querySelector('#status').textContent === 'refused'")
    refusal = page.locator("#refusal").inner_text()
    assert refusal.startswith("The server refused this window. ") and "8 connections for seat S" in refusal
    assert "reload this page" in refusal
    assert page.get_by_role("heading", name="Too many windows on this table").is_visible()
    assert page.title() == "Connection refused — Flower Bridge"
    frames = len(page.frames_in)
    page.wait_for_timeout(2500)             # not retried: no new hello, no new answer
    assert len(page.frames_in) == frames
    tabs.pop().close()                      # one closed: a reload takes the seat
    page.reload()
    wait_for_table(page)
    assert not page.errors
    for tab in tabs:
        tab.close()


def test_a_double_click_takes_the_first_click_and_says_nothing_of_the_second(browser, server):
    # North is a person too: after South's bid and West's call the table waits for North.
    created = server.create_table({"N": "human", "E": BOT, "S": "human", "W": BOT}, length={"hands": 1})
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    north = open_page(browser, server, created["invitations"]["N"]["url"])
    wait_for_table(south)
    # North deals; North passes, East (a bot) calls, then it is South's turn.
    north.wait_for_selector('#bidding button[data-call="Pass"]')
    north.locator('#bidding button[data-call="Pass"]').click()
    south.wait_for_selector('#bidding button[data-call="Pass"]')
    bid = south.locator("#bidding button:not(.pass)").first
    call = bid.get_attribute("data-call")
    # Two clicks in one go: both are sent on the same view, before any answer.
    bid.evaluate("""button => { for (const _ of [1, 2]) {
      button.dispatchEvent(new MouseEvent("click", { bubbles: true, detail: 1 })); } }""")
    # The server took the first click and refused the second as stale.
    deadline = time.monotonic() + 15
    while not any('"stale"' in str(frame) for frame in south.frames_in) and time.monotonic() < deadline:
        south.wait_for_timeout(50)
    assert any('"stale"' in str(frame) for frame in south.frames_in)
    # South's page handles its messages in order: North's pass, sent only now, reaches
    # it after the refusal, so once it shows North's pass it has handled the refusal.
    # (Seq 1 is the deal, then North, East, South and West (a bot) called: North's turn.)
    north.wait_for_function("document.body.dataset.seq === '5'")
    north.locator('#bidding button[data-call="Pass"]').click()
    south.wait_for_function("Number(document.body.dataset.seq) >= 6")   # (East, a bot, calls next)
    south_calls = [row[2] for row in south.locator("table.auction tbody tr").evaluate_all(
        "rows => rows.map(row => [...row.cells].map(cell => cell.textContent))")]
    assert south_calls.count(call) == 1  # the second click changed nothing
    assert south.locator("#refusal").inner_text() == ""  # and nothing went wrong for the person
    assert not south.errors and not north.errors



# performance.now() stands still once the test calls stopClock(): the page's window for a
# double click's second click (a second from the card played) holds however slowly the
# machine answers the first
STOPPED_CLOCK = """(() => {
  const now = performance.now.bind(performance);
  let stopped = null;
  performance.now = () => stopped ?? now();
  window.stopClock = () => { stopped = now(); };
  window.startClock = () => { stopped = null; };
})();"""


def _fourth_hand_winner(views):
    """After South's 7NT (North dummy): West's lead, North's and East's cards, and
    South's card that wins the trick; None when this deal has none."""
    from flowerbridge.cards import parse_card

    hands = {seat: [parse_card(code) for code in views[seat]["hand"]] for seat in "NESW"}
    for lead in sorted(hands["W"], key=lambda card: card.rank):
        played = [lead]
        for seat in "NE":
            follow = [c for c in hands[seat] if c.suit is lead.suit] or hands[seat]
            played.append(min(follow, key=lambda card: card.rank))
        top = max(c.rank for c in played if c.suit is lead.suit)
        suit = [c for c in hands["S"] if c.suit is lead.suit]
        winners = [c for c in suit if c.rank > top]
        if winners:
            return [card.code for card in played], winners[0].code
    return None


def _south_fourth_with_a_winner(browser, server):
    """A table of four people where South declares 7NT and, fourth to the first trick,
    holds a card that wins it (West, North and East have played): the other seats'
    clients, South's page (its clock stoppable: STOPPED_CLOCK) and that card's code."""
    for _ in range(20):
        created, clients = four_people(server)
        move_until(clients, list(SOUTH_DECLARES), lambda view: view["phase"] == "play")
        chosen = _fourth_hand_winner({seat: client.view for seat, client in clients.items()})
        if chosen:
            break
        for client in clients.values():
            client.close()
    assert chosen, "no deal in 20 gave South a winner fourth"
    (lead, dummy, east), winner = chosen
    for seat, card in (("W", lead), ("S", dummy), ("E", east)):    # (South plays the dummy's)
        actor = clients[seat]
        actor.send({"type": "play", "card": card, "seq": actor.seq})
        seq = actor.seq + 1
        for client in clients.values():
            client.until(lambda m, client=client, seq=seq: client.seq >= seq)
    clients.pop("S").close()
    south = open_page(browser, server, created["invitations"]["S"]["url"], init_script=STOPPED_CLOCK)
    return clients, south, winner


def _west_sees_the_lead(clients, south, seq, meant):
    """West sees ``meant`` led to the trick after the one won at ``seq`` (no other card),
    South's page refused nothing and raised nothing; the clients are closed."""
    west = clients["W"]
    west.until(lambda m: west.seq >= seq + 2)
    assert west.view["current_trick"][0]["card"] == meant
    assert south.locator("#refusal").inner_text() == ""
    for client in clients.values():
        client.close()
    assert not south.errors


def test_a_double_click_on_a_card_that_wins_the_trick_leads_nothing_with_its_second_click(
        browser, server):
    # South, fourth, wins the trick and leads at once. The two clicks of a double click
    # on its card, the second after the page has its next view: the hand had closed up
    # under the pointer, and the second click led the card that lay there now.
    clients, south, winner = _south_fourth_with_a_winner(browser, server)
    card = south.locator(f'#position-bottom .card.playable[data-code="{winner}"]').first
    box = card.bounding_box()
    x, y = box["x"] + 12, box["y"] + box["height"] / 2    # (its strip left of the next card)
    seq = int(south.evaluate("document.body.dataset.seq"))
    south.mouse.move(x, y)
    south.evaluate("stopClock()")
    south.mouse.down(click_count=1)
    south.mouse.up(click_count=1)
    south.wait_for_function(f"Number(document.body.dataset.seq) > {seq}")     # the trick, won
    # the hand closed up (its rows centred again): a card to lead lies at the pointer, or
    # near it — the second click is made on the nearest
    under, x, y = south.evaluate("""([x, y]) => {
      const near = [...document.querySelectorAll('#position-bottom .card.playable')].map((card) => {
        const r = card.getBoundingClientRect();
        return [card.dataset.code, r.left + 12, r.top + r.height / 2];
      }).sort((a, b) => Math.abs(a[1] - x) - Math.abs(b[1] - x));
      return near[0];
    }""", [x, y])
    meant = south.locator(f'#position-bottom .card.playable:not([data-code="{under}"])').first \
        .get_attribute("data-code")
    south.mouse.move(x, y)
    south.mouse.down(click_count=2)
    south.mouse.up(click_count=2)
    # South's next click leads; West sees that lead, not the card the second click was on
    south.locator(f'#position-bottom .card[data-code="{meant}"]').first \
        .click(position={"x": 6, "y": 12})     # (its strip that shows)
    _west_sees_the_lead(clients, south, seq, meant)


def test_enter_pressed_twice_on_a_card_that_wins_the_trick_leads_nothing_with_the_second_press(
        browser, server):
    # South, fourth, wins the trick by Enter and leads at once: the page moves focus to a
    # card of the new lead, and a second Enter pressed straight after the first led it.
    clients, south, winner = _south_fourth_with_a_winner(browser, server)
    south.locator(f'#position-bottom .card.playable[data-code="{winner}"]').first.focus()
    south.keyboard.press("Shift")       # (a key: the page takes the person to use keys)
    seq = int(south.evaluate("document.body.dataset.seq"))
    south.evaluate("stopClock()")
    south.keyboard.press("Enter")
    south.wait_for_function(f"Number(document.body.dataset.seq) > {seq}")     # the trick, won
    # the page moves focus to a card to lead (the card played is gone: its twin, if South
    # holds it, may be the one)
    south.wait_for_function("document.activeElement?.matches('#position-bottom .card.playable')")
    focused = south.evaluate("document.activeElement.dataset.code")
    south.keyboard.press("Enter")
    south.wait_for_timeout(600)         # (a card led would be back by now)
    south.evaluate("startClock()")
    # South's next card by keys leads; West sees that lead, not the card the second press was on
    for _ in range(3):      # to another card (the next may be its twin)
        south.keyboard.press("ArrowRight")
        if south.evaluate("document.activeElement.dataset.code") != focused:
            break
    meant = south.evaluate("document.activeElement.dataset.code")
    assert meant and meant != focused
    south.keyboard.press("Enter")
    _west_sees_the_lead(clients, south, seq, meant)


def test_a_double_clicks_second_click_after_the_turn_has_passed_says_nothing(browser, server):
    # South plays the dummy's card by a double click: the second click, once the turn is
    # East's, lands on a card that cannot be played, and the page said "Not your turn".
    created, clients = people_table_at(server, SOUTH_DECLARES,
                                       lambda view: view["phase"] == "play" and view["turn"] == "N")
    south = open_page(browser, server, created["invitations"]["S"]["url"], init_script=STOPPED_CLOCK)
    card = south.locator("#position-top .card.playable").first
    box = card.bounding_box()
    south.mouse.move(box["x"] + 6, box["y"] + 12)
    seq = int(south.evaluate("document.body.dataset.seq"))
    south.evaluate("stopClock()")
    south.mouse.down(click_count=1)
    south.mouse.up(click_count=1)
    south.wait_for_function(f"Number(document.body.dataset.seq) > {seq}")     # East to play
    south.wait_for_selector("#position-top .card.playable", state="detached")
    # (the dummy closed up under the pointer: the second click is made on one of its cards)
    left = south.locator("#position-top .card").first.bounding_box()
    south.mouse.move(left["x"] + 6, left["y"] + 12)
    south.mouse.down(click_count=2)
    south.mouse.up(click_count=2)
    assert south.locator("#refusal").inner_text() == ""
    for client in clients.values():
        client.close()
    assert not south.errors


def test_a_slow_second_click_on_a_card_played_is_not_taken_on_its_twin_slid_under_it(browser, server):
    # A slower second click (no double click to the browser) on the place of a card played
    # is dropped, but a control the same as the one pressed was let through (a Pass, then a
    # Pass at the next turn): a card's twin has its code, and it was taken as the same.
    for _ in range(10):
        created, clients = people_table_at(server, SOUTH_DECLARES,
                                           lambda view: view["phase"] == "play" and view["turn"] == "N")
        from flowerbridge.cards import parse_card
        dummy = clients["N"].view["hand"]
        led = parse_card(clients["N"].view["current_trick"][0]["card"]).suit
        follows = [code for code in dummy if parse_card(code).suit is led] or dummy
        twins = [code for code in follows if dummy.count(code) == 2]
        if twins:
            break
        for client in clients.values():
            client.close()
    assert twins, "no deal in ten gave the dummy two copies of a card it could play"
    south = open_page(browser, server, created["invitations"]["S"]["url"], init_script=STOPPED_CLOCK)
    wait_for_table(south)
    code = twins[0]
    first = south.locator(f'#position-top .card.playable[data-code="{code}"]').first
    box = first.bounding_box()
    x, y = box["x"] + 6, box["y"] + 12
    seq = int(south.evaluate("document.body.dataset.seq"))
    south.evaluate("stopClock()")      # (the second's window held however slowly the machine answers)
    first.evaluate(CLICK_AT, [x, y])
    south.wait_for_function(f"Number(document.body.dataset.seq) > {seq}")     # East to play
    south.locator(f'#position-top .card[data-code="{code}"]').first.evaluate(CLICK_AT, [x, y])
    south.wait_for_timeout(300)
    assert south.locator("#refusal").inner_text() == ""        # (it said "Not your turn")
    for client in clients.values():
        client.close()
    assert not south.errors


def test_a_bid_typed_while_another_seat_calls_is_answered_not_ignored(browser, server):
    # Typing 1 then P while North was to call did nothing and said nothing (a card clicked
    # out of turn says "Not your turn").
    created, clients = people_table_at(server, [], lambda view: view["turn"] == "N")
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    south.wait_for_selector("#position-bottom .card")
    seq = south.evaluate("document.body.dataset.seq")
    for key in ("1", "p"):
        south.keyboard.press(key)
        assert south.locator("#refusal").inner_text() == "Not your turn: North to call."
    clients["N"].send({"type": "call", "call": "Pass", "seq": clients["N"].seq})
    south.wait_for_function(f"document.body.dataset.seq !== '{seq}'")
    assert south.locator("#refusal").inner_text() == ""                 # the table moved on
    for client in clients.values():
        client.close()
    assert not south.errors


# ------------------------------------------------------------ layout by width

FELT_CARDS = """() => {
  const felt = document.querySelector('#felt').getBoundingClientRect();
  const trick = [...document.querySelectorAll('#trick .card')].map((c) => c.getBoundingClientRect());
  const wrong = [];
  for (const card of document.querySelectorAll('#felt .seat-box .card[data-code]')) {
    const r = card.getBoundingClientRect();
    const where = card.closest('.seat-box').dataset.seat + ' ' + card.dataset.code;
    if (r.left < felt.left - 1 || r.right > felt.right + 1) wrong.push(where + ': outside the felt');
    if (r.left < 0 || r.right > innerWidth) wrong.push(where + ': off the screen');
    for (const t of trick) {
      if (r.left < t.right - 2 && r.right > t.left + 2 && r.top < t.bottom - 2 && r.bottom > t.top + 2)
        wrong.push(where + ': over the trick');
    }
  }
  return wrong;
}"""


def four_people(server, hands=1):
    """A table of four people (one hand, or ``hands``), each a protocol client that
    has its snapshot: (the table as created, the clients by seat letter)."""
    from flowerbridge.server.testing import Client

    created = server.create_table({s: "human" for s in "NESW"}, length={"hands": hands})
    table_id = created["table"]["id"]
    clients = {}
    for seat in "NESW":
        client = Client(server.url.replace("http", "ws", 1) + f"/ws/tables/{table_id}")
        client.send({"type": "hello", "token": created["invitations"][seat]["token"]})
        client.until(lambda m: m["type"] == "snapshot")
        clients[seat] = client
    return created, clients


def mid_trick_table(server):
    """Four people; East declares 7NT, West is dummy; South has led and dummy
    followed: North, with 13 cards, is to play."""
    created, clients = four_people(server)

    def at(seat, seq):
        """The seat's client once it has seen the table at ``seq``."""
        client = clients[seat]
        if client.seq < seq:
            client.until(lambda m: client.seq >= seq)
        return client

    # the deal is seq 1; N deals and passes, E bids 7NT, the others pass
    for seq, (seat, call) in enumerate(zip("NESWN", ["Pass", "7NT", "Pass", "Pass", "Pass"]), 1):
        at(seat, seq).send({"type": "call", "call": call, "seq": seq})
    south = at("S", 6)
    south.send({"type": "play", "card": south.view["legal"][0], "seq": 6})
    east = at("E", 7)      # declarer plays the dummy's card
    east.send({"type": "play", "card": east.view["legal"][0], "seq": 7})
    at("N", 8)
    for client in clients.values():
        client.close()
    return created


@pytest.mark.parametrize("width", [1000, 1024, 1100, 1180, 1280, 768, 600, 1600, 1920])
def test_every_card_of_the_felt_is_on_screen_at_any_width(browser, server, width):
    # From 1000 px the side panel takes 340 px; a full-size hand in one line, or a
    # dummy beside the trick, once ran off the felt and off the screen there.
    created = mid_trick_table(server)
    for seat in "NES":      # the dummy at the side for North and South, at the top for East
        page = open_page(browser, server, created["invitations"][seat]["url"],
                         viewport={"width": width, "height": 900})
        wait_for_table(page)
        assert page.locator("#trick .card").count() == 2
        assert page.evaluate(FELT_CARDS) == [], (seat, width)
        if seat == "N":     # North's own cards can be clicked
            assert page.locator("#felt .card.playable").count() >= 1
        assert not page.errors
        page.context.close()


# Every seat's label beside the trick, at its longest: a person away with the
# stand-in bot playing for them, dealer and declarer too, and the one to act
# (bold). The labels are drawn, lengthened and measured in one go, so that no
# redraw (someone's socket closing) comes in between.
LABELS_BESIDE_THE_TRICK = """() => {
  const longest = 'away \u2014 random bot plays \u00b7 dealer \u00b7 declarer';
  const box = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round).join(',');
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const felt = document.querySelector('#felt').getBoundingClientRect();
  const drawn = [...document.querySelectorAll('#felt .seat-label')].map((l) => [l, l.innerHTML, l.className]);
  const wrong = [];
  for (const longer of [false, true]) {
    for (const label of document.querySelectorAll('#felt .seat-label')) {
      if (!longer) continue;
      label.querySelector('.role').textContent = longest;
      label.classList.add('to-act');
    }
    const trick = [document.querySelector('#trick'), ...document.querySelectorAll('#trick .card')]
      .map((e) => e.getBoundingClientRect());
    for (const label of document.querySelectorAll('#felt .seat-label')) {
      const r = label.getBoundingClientRect();
      const where = `${longer ? 'longest' : 'as drawn'} ${label.textContent} ${box(r)}`;
      if (trick.some((t) => hit(r, t))) wrong.push(where + ': over the trick');
      if (r.left < felt.left - 1 || r.right > felt.right + 1) wrong.push(where + ': outside the felt');
      if (r.left < 0 || r.right > innerWidth) wrong.push(where + ': off the screen');
    }
  }
  for (const [label, html, className] of drawn) { label.innerHTML = html; label.className = className; }
  return wrong;
}"""


def test_seat_labels_wrap_in_their_column_and_never_cover_the_trick(browser, server):
    # From 600 px the side seats' labels kept to one line: "North person, not here ·
    # declarer" ran out of its column, over the trick's cards and the winner's outline.
    created = mid_trick_table(server)
    for seat in "NES":      # the dummy at the side for North and South, at the top for East
        page = open_page(browser, server, created["invitations"][seat]["url"], viewport=PHONE)
        wait_for_table(page)
        for width in (360, 600, 720, 1024, 1080, 1280, 1920):
            page.set_viewport_size({"width": width, "height": 900})
            wrong = page.evaluate(LABELS_BESIDE_THE_TRICK)
            assert wrong == [], (seat, width, wrong)
            if seat == "E" and width == 1024:
                screenshot(page, "seat-labels-1024-east")
        assert not page.errors
        page.context.close()


def people_table_at(server, calls, until):
    """Four people at a one-hand table, each a protocol client: North deals, the
    seats call ``calls`` in turn, then each plays its first legal card (declarer
    the dummy's too) until ``until(view)`` holds for South's view. South's
    client is closed (a page takes the seat); the others' are returned."""
    created, clients = four_people(server)
    move_until(clients, list(calls), until)
    clients.pop("S").close()
    return created, clients


def left_table_at(server, calls, until):
    """:func:`people_table_at`, the other three people gone (their clients closed):
    the table as a page finds it, nobody else connected. Returns what creating it returned."""
    created, clients = people_table_at(server, calls, until)
    for client in clients.values():
        client.close()
    return created


@pytest.mark.parametrize("key, call", [("r", "2R"), ("a", "2A"), ("n", "2NT")])
def test_a_level_then_a_denomination_key_bids_that_denomination(browser, server, key, call):
    # docs/client.md, Keys: 1-7, then P R A N, bids that level in Plains, Ribbons, Bright
    # Animals or No Trump
    created, clients = people_table_at(server, ["1P", "Pass"], lambda view: view["turn"] == "S")
    page = open_page(browser, server, created["invitations"]["S"]["url"])
    page.locator("#bidding button").first.wait_for()
    page.locator("#message").focus()
    for pressed in ("2", key):
        page.keyboard.press(pressed)
    page.locator(f'#auction td[aria-label^="South: "]:text-is("{call}")').wait_for(state="attached")
    for client in clients.values():
        client.close()
    assert not page.errors


def test_a_level_typed_in_one_window_is_forgotten_once_the_seat_calls_from_another(browser, server):
    # South typed 1 P (refused: too low), then 3, in one window and called 1R in
    # another: at South's next turn the first window still said "Your call: 3…" and
    # the old refusal, and N alone bid 3NT.
    created, clients = people_table_at(server, ["1P", "Pass"], lambda view: view["turn"] == "S")
    url = created["invitations"]["S"]["url"]
    first, second = open_page(browser, server, url), open_page(browser, server, url)
    for page in (first, second):
        page.locator("#bidding button").first.wait_for()
    first.locator("#message").focus()
    for key in ("1", "p", "3"):
        first.keyboard.press(key)
    assert first.locator("#refusal").inner_text() != ""
    assert first.locator("#message").inner_text().startswith("Your call: 3")
    second.locator('#bidding button[data-call="1R"]').click()
    first.wait_for_function("document.body.dataset.seq === '4'", timeout=5_000)
    assert first.locator("#refusal").inner_text() == ""
    assert first.locator("#bidding .pending-level").count() == 0
    for seat, call in (("W", "2P"), ("N", "Pass"), ("E", "Pass")):
        clients[seat].until(lambda m, c=clients[seat]: c.my_turn)
        clients[seat].send({"type": "call", "call": call, "seq": clients[seat].seq})
    first.wait_for_function("document.body.dataset.seq === '7'", timeout=5_000)
    assert not first.locator("#message").inner_text().startswith("Your call: 3")
    first.keyboard.press("n")                       # alone: no call (it was 3NT)
    first.wait_for_timeout(300)
    assert first.evaluate("document.body.dataset.seq") == "7"
    for client in clients.values():
        client.close()
    for page in (first, second):
        assert not page.errors
        page.context.close()


def test_the_review_at_a_hands_end_does_not_open_over_the_keys_window(browser, server):
    # It opened on top of Keys and took its place as the window to give focus back
    # from: once both were closed, focus was on the bidding box, and the Enter
    # meant to open Keys again made a call.
    created, clients = four_people(server, hands=2)
    move_until(clients, ["Pass", "Pass"], lambda view: view["turn"] == "S")
    clients.pop("S").close()
    page = open_page(browser, server, created["invitations"]["S"]["url"])
    page.locator("#bidding button").first.wait_for()
    page.locator("#message").focus()
    page.keyboard.press("p")                        # South passes: West's pass ends the hand
    page.wait_for_function("document.body.dataset.seq === '4'", timeout=5_000)
    page.locator("#open-keys").focus()
    page.keyboard.press("Enter")
    page.locator("#keys-dialog[open]").wait_for()
    clients["W"].until(lambda m: clients["W"].my_turn)
    clients["W"].send({"type": "call", "call": "Pass", "seq": clients["W"].seq})     # passed out
    page.wait_for_function("document.body.dataset.seq === '6'", timeout=5_000)      # and hand 2 dealt
    page.wait_for_timeout(300)
    assert page.evaluate("[...document.querySelectorAll('dialog[open]')].map((d) => d.id)") == ["keys-dialog"]
    closing_settled(page, "#keys-dialog", lambda: page.keyboard.press("Escape"))
    assert page.evaluate("document.activeElement.id") == "open-keys"
    page.keyboard.press("Enter")                    # Keys again, not a call
    page.locator("#keys-dialog[open]").wait_for()
    assert page.evaluate("document.body.dataset.seq") == "6"
    for client in clients.values():
        client.close()
    assert not page.errors
    page.context.close()


def test_enter_pressed_twice_on_the_call_that_ends_a_hand_does_not_close_the_review_it_opens(
        browser, server):
    # The review opens by itself at a hand's end with focus on its Close: a second
    # Enter pressed straight after the first closed it as it opened.
    created, clients = four_people(server, hands=5)
    # three hands passed out (a deal and four passes each); in the fourth West deals, and
    # after West's, North's and East's passes South's ends it
    move_until(clients, ["Pass"] * 15, lambda view: clients["S"].seq >= 3 * 5 + 4)
    assert clients["S"].view["turn"] == "S" and clients["S"].view["dealer"] == "W"
    clients.pop("S").close()
    page = open_page(browser, server, created["invitations"]["S"]["url"], init_script=STOPPED_CLOCK)
    page.locator('#bidding button[data-call="Pass"]').focus()
    page.evaluate("stopClock()")
    page.keyboard.press("Enter")
    page.locator("#review-dialog[open]").wait_for()
    page.wait_for_function("document.activeElement?.id === 'close-review'")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert page.locator("#review-dialog[open]").count() == 1
    page.evaluate("startClock()")
    page.wait_for_timeout(600)
    page.keyboard.press("Enter")        # later, it closes
    page.locator("#review-dialog:not([open])").wait_for(state="attached")
    assert page.locator("#review-dialog[open]").count() == 0
    for client in clients.values():
        client.close()
    assert not page.errors
    page.context.close()


def move_until(clients, calls, until, pick=lambda legal: legal[0]):
    """The seats' protocol clients call ``calls`` in turn (the list is used up),
    then each plays its first legal card, or the one ``pick`` picks (declarer the
    dummy's too), until ``until(view)`` holds for South's view; every client has
    seen each action."""
    while not until(clients["S"].view):
        actor = next((client for client in clients.values() if client.my_turn), None)
        if actor is None:   # the hand's last card: the next hand's deal, an event of its own, is on its way
            seq = clients["S"].seq + 1      # (it raised StopIteration where the deal came late)
            for client in clients.values():
                client.until(lambda m, client=client, seq=seq: client.seq >= seq)
            continue
        view = actor.view
        if view["phase"] == "auction":
            actor.send({"type": "call", "call": calls.pop(0), "seq": actor.seq})
        else:
            actor.send({"type": "play", "card": pick(view["legal"]), "seq": actor.seq})
        seq = actor.seq + 1
        for client in clients.values():    # every seat has seen the action
            client.until(lambda m, client=client, seq=seq: client.seq >= seq)


# On a phone, at the person's turn: the cards they may play (and the whole
# holding they play from) and the trick lie inside the screen as it first
# shows, not scrolled; nothing covers a playable card's corner (where a finger
# or act_by_mouse clicks) or the middle of a card of the trick.
ON_SCREEN = """() => {
  const wrong = [];
  if (scrollY !== 0) wrong.push('scrolled by ' + scrollY);
  const inside = (r) => r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  const box = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round).join(',');
  const playing = document.querySelector('#felt .hand.my-turn');
  if (playing && !inside(playing.getBoundingClientRect()))
    wrong.push('the holding played from: below or beside the screen ' + box(playing.getBoundingClientRect()));
  for (const card of document.querySelectorAll('#felt .card.playable')) {
    const r = card.getBoundingClientRect();
    const where = card.closest('.seat-box').dataset.seat + ' ' + card.dataset.code;
    if (!inside(r)) wrong.push(where + ': off the screen ' + box(r));
    else if (document.elementFromPoint(r.left + 6, r.top + 12)?.closest('.card') !== card) wrong.push(where + ': covered');
  }
  for (const card of document.querySelectorAll('#trick .card')) {
    const r = card.getBoundingClientRect();
    const where = 'trick ' + card.dataset.code;
    if (!inside(r)) wrong.push(where + ': off the screen ' + box(r));
    else if (document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2)?.closest('.card') !== card)
      wrong.push(where + ': covered');
  }
  return wrong;
}"""

SOUTH_DECLARES = ["Pass", "Pass", "7NT", "Pass", "Pass", "Pass"]   # North deals


@pytest.mark.parametrize("viewport", [PHONE, {"width": 360, "height": 640}, {"width": 390, "height": 664}],
                         ids=["360x740", "360x640", "390x664"])
def test_phone_declarer_plays_both_hands_without_scrolling(browser, server, viewport):
    # South declares 7NT, North is dummy at the top: once the dummy's cards,
    # then South's own, each with the trick, on a 360 x 740 screen as it opens
    # (and on a phone with its browser's bars, where South's cards began at the
    # screen's foot: 360 x 640, 390 x 664).
    created, clients = people_table_at(server, SOUTH_DECLARES,
                                       lambda view: view["phase"] == "play" and view["turn"] == "N")
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=viewport)
    dummy_cards = south.locator('#position-top[data-seat="N"] .card.playable')
    dummy_cards.first.wait_for()
    assert south.locator("#trick .card").count() == 1          # West's lead
    assert south.evaluate(ON_SCREEN) == []
    assert south.evaluate(FELT_CARDS) == []
    screenshot(south, f"phone-declarer-dummy-turn-{viewport['height']}")
    dummy_cards.first.click(position={"x": 6, "y": 12})        # no scrolling: it is on screen
    east = clients["E"]
    east.until(lambda m: east.my_turn)
    east.send({"type": "play", "card": east.view["legal"][0], "seq": east.seq})
    south.locator('#position-bottom[data-seat="S"] .card.playable').first.wait_for()
    assert south.locator("#trick .card").count() == 3
    assert south.evaluate(ON_SCREEN) == []
    assert south.evaluate(FELT_CARDS) == []
    screenshot(south, f"phone-declarer-own-turn-{viewport['height']}")
    for client in clients.values():
        client.close()
    assert not south.errors


def test_a_person_back_is_told_what_the_stand_in_played_for_them(browser, tmp_path):
    with Server(tmp_path, options=["--replace-after", "0.2"]) as own:
        created = own.create_table({"N": "human", "E": BOT, "S": "human", "W": BOT})
        table_id = created["table"]["id"]
        north = Client(own.url.replace("http", "ws", 1) + f"/ws/tables/{table_id}")
        north.send({"type": "hello", "token": created["invitations"]["N"]["token"]})
        north.until(lambda m: m["type"] == "snapshot")      # North stays: the table moves on
        south = open_page(browser, own, created["invitations"]["S"]["url"])
        wait_for_table(south)
        south.context.close()                              # South leaves; a stand-in comes
        deadline = time.monotonic() + 20
        bid = False
        while not any(m["type"] == "call" and m["seat"] == "S" for m in north.messages):
            assert time.monotonic() < deadline, "the stand-in never called for South"
            if north.my_turn:
                # North's first call a bid: hand 1 is not passed out (random bots pass
                # a third of their hands out), so the stand-in's calls are all hand 1's
                call = "Pass" if bid else north.view["legal"][1]
                north.send({"type": "call", "call": call, "seq": north.seq})
                bid = True
            north.recv(timeout=0.2)
        back = open_page(browser, own, created["invitations"]["S"]["url"])
        back.wait_for_selector("#stood-in:not(:empty)")
        assert back.locator("#stood-in").inner_text().startswith(
            "While you were away, a bot played for you: in hand 1, calls ")
        north.close()
        assert not back.errors


def test_a_person_back_after_whole_hands_away_is_told_in_a_line_with_the_hands_folded_under_it(
        browser, server):
    # After whole hands away the news was one line of every call and card, a screenful on a phone.
    cards = ["9R", "3P", "1B", "11P", "8A", "2R", "7R", "5P", "6A", "10R", "12B", "4P", "1Pa"]
    stood_in = [{"hand": hand, "kind": kind, "action": action}
                for hand, plays in ((1, cards), (2, cards), (3, cards[:4]))
                for kind, action in [("call", call) for call in ("1R", "Pass", "Pass")] + [("play", c) for c in plays]]
    for entry in stood_in[-3::2]:       # the dummy's cards, played by a declarer's stand-in
        entry["from"] = "N"
    created = server.create_table({s: "human" for s in "NESW"}, length={"hands": 1})

    def route(page_side):
        server_side = page_side.connect_to_server()

        def to_page(message):
            data = json.loads(message)
            if data.get("type") == "welcome":
                message = json.dumps({**data, "stood_in": stood_in})
            page_side.send(message)

        server_side.on_message(to_page)

    page = open_page(browser, server, "/", viewport=PHONE)
    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    page.goto(created["invitations"]["S"]["url"])
    wait_for_table(page)
    line = page.locator("#stood-in")
    summary = "While you were away, a bot played for you in hands 1 to 3: 9 calls, 30 cards."
    assert line.locator("summary").inner_text() == summary + " What it played"
    assert summary in page.locator("#announce").inner_text()
    assert line.bounding_box()["height"] <= 70, line.bounding_box()     # three lines at most
    assert not line.locator("li").first.is_visible()
    line.locator("summary").click()
    hands = line.locator("li")
    assert hands.all_inner_texts() == [
        f"in hand 1, calls 1R, Pass, Pass, cards {', '.join(cards)}",
        f"in hand 2, calls 1R, Pass, Pass, cards {', '.join(cards)}",
        "in hand 3, calls 1R, Pass, Pass, cards 9R, 3P (dummy), 1B, 11P (dummy)"]
    page.keyboard.press("c")            # a redraw: the hands stay unfolded
    assert hands.first.is_visible()
    screenshot(page, "stood-in-folded-360")
    assert not page.errors
    page.context.close()


def test_cards_do_not_look_playable_while_the_connection_is_down(browser, tmp_path):
    with Server(tmp_path) as own:
        created = left_table_at(own, SOUTH_DECLARES,
                                lambda view: view["phase"] == "play" and view["turn"] == "N")
        south = open_page(browser, own, created["invitations"]["S"]["url"])
        cards = south.locator("#felt .card.playable")
        cards.first.wait_for()
        looks = """() => [...document.querySelectorAll('#felt .card.playable')].map((c) => {
            const style = getComputedStyle(c);
            return style.filter === 'none' && style.cursor === 'pointer' ? 'playable' : 'not playable';
        })"""
        assert set(south.evaluate(looks)) == {"playable"}
        own.stop(kill=True)
        south.wait_for_function("document.querySelector('#status').textContent === 'reconnecting…'")
        assert set(south.evaluate(looks)) == {"not playable"}
        screenshot(south, "disconnected-cards")
        # and a click still says why nothing happens (aria-disabled: forced, see above)
        cards.first.click(position={"x": 6, "y": 12}, force=True)
        assert south.locator("#refusal").inner_text().startswith("Not connected: that was not sent")
        # a card of South's own hand, the dummy to play: why it cannot be played is
        # told -- and forgotten when the page is connected again
        south.locator('#felt .seat-box[data-seat="S"] .card').first.click(position={"x": 6, "y": 12})
        own.start()
        south.wait_for_function("document.querySelector('#status').textContent === 'connected'",
                                timeout=30_000)
        assert set(south.evaluate(looks)) == {"playable"}
        assert south.locator("#refusal").inner_text() == ""
        assert not south.errors


def clocked_page(browser, server, path, *, notice_offline=True):
    """A page on Playwright's clock (installed before the table loads: its timers
    run as time flows, and ``page.clock.fast_forward`` jumps them ahead), its
    websockets listed in ``page.sockets`` and the messages each sent in
    ``page.sent[i]``. With ``notice_offline`` false, the window's offline event is
    kept from the page: a network that drops without the browser knowing."""
    page = open_page(browser, server, "/")
    page.sockets, page.sent = [], []

    def opened(ws):
        sent = []
        page.sockets.append(ws)
        page.sent.append(sent)
        ws.on("framesent", lambda payload: sent.append(json.loads(payload)))
    page.on("websocket", opened)
    if not notice_offline:
        page.add_init_script("window.addEventListener('offline', (e) => e.stopImmediatePropagation(), true);")
    page.clock.install()
    page.goto(path)
    wait_for_table(page)
    return page


def status_is(page, words, timeout):
    page.wait_for_function(f"document.querySelector('#status').textContent === '{words}'", timeout=timeout)


def plays_and_seq_agree(page, clients):
    """The page has caught up: it shows the table at the seq every client has seen
    last (an action the page wrote into the stalled socket may arrive late, and count)."""
    page.wait_for_function(f"Number(document.body.dataset.seq) >= {clients['N'].seq}", timeout=5_000)
    page.wait_for_timeout(1_000)
    seq = int(page.evaluate("document.body.dataset.seq"))
    seen_by_all(clients, seq)
    for client in clients.values():
        client.drain()
    assert {client.seq for client in clients.values()} == {seq}
    assert page.evaluate("document.body.dataset.seq") == str(seq)


def play_once(page, clients, cards):
    """The page plays the first of ``cards``: one event, that card, and no other."""
    seq = clients["N"].seq
    code = cards.first.get_attribute("data-code")
    cards.first.click(position={"x": 6, "y": 12})
    seen_by_all(clients, seq + 1)
    event = next(m for m in clients["N"].messages if m.get("seq") == seq + 1)
    assert (event["type"], event["card"], event["by"]) == ("play", code, "S")
    page.wait_for_function(f"document.body.dataset.seq === '{seq + 1}'", timeout=5_000)
    assert page.locator("#refusal").inner_text() == ""
    page.wait_for_timeout(300)
    assert [m for m in clients["N"].drain() if m.get("seq")] == []      # nothing played twice
    assert page.evaluate("document.body.dataset.seq") == str(seq + 1)


def the_dead_socket_stays_dead(page):
    """The first socket, given up for dead, closes late (once the network is back):
    its close schedules no second reconnection."""
    first = page.sockets[0]
    deadline = time.monotonic() + 10
    while not first.is_closed() and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert first.is_closed()
    count = len(page.sockets)
    page.clock.fast_forward(6_000)                      # past any retry it could have scheduled
    page.wait_for_timeout(300)
    assert len(page.sockets) == count
    assert not page.sockets[-1].is_closed()
    status_is(page, "connected", 1_000)


DEFENDER_SCREENS = [(960, 540), (1279, 720), (800, 600), (1000, 560), (1280, 560), (800, 561), (700, 600)]


@pytest.mark.parametrize("viewport", [{"width": w, "height": h} for w, h in DEFENDER_SCREENS],
                         ids=[f"{w}x{h}" for w, h in DEFENDER_SCREENS])
def test_a_defender_sees_the_dummy_and_their_own_hand_at_once_on_a_short_screen(browser, server, viewport):
    # At 960 x 540 (1920 x 1080 at 200 %) a defender's hand lay 200 to 350 px below the
    # screen, at 1279 x 720 its foot: the dummy at the side took a row per suit (and at
    # 960 x 540 the trick its full height). At 800 x 600, 1000 x 560 and 1280 x 560 the
    # trick's full height (and at 800 x 600 the turn's two lines) put the hand's foot
    # 139, 38 and 27 px below the screen.
    created, clients = people_table_at(server, EAST_DECLARES,      # West is the dummy, at South's left
                                       lambda view: view["turn"] == "S" and len(view["plays"]) >= 4)
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=viewport)
    south.wait_for_selector("#position-bottom .card.playable")
    south.wait_for_selector("#felt .face-up .hand.small .card")
    rects = south.evaluate("""() => ['#position-bottom .hand', '#felt .face-up .hand.small'].map((s) => {
      const r = document.querySelector(s).getBoundingClientRect(); return [r.top, r.bottom]; })""")
    assert all(0 <= top and bottom <= viewport["height"] for top, bottom in rects), (rects, viewport)
    for client in clients.values():
        client.close()
    assert not south.errors


@pytest.mark.parametrize("viewport, page_width, card_width", [
    ({"width": 1920, "height": 1080}, 1600, 100), ({"width": 2560, "height": 1440}, 1600, 100),
    ({"width": 1440, "height": 900}, 1280, 84), ({"width": 1920, "height": 800}, 1280, 84)],
    ids=["1920x1080", "2560x1440", "1440x900", "1920x800"])
def test_a_large_screen_draws_the_table_wider_and_its_cards_larger(browser, server, viewport, page_width,
                                                                     card_width):
    # Held to 1280 px with a laptop's 84 px cards, the table took the middle of a 1920 x 1080
    # screen, its hands 44 % of the height; a short wide one keeps the laptop's layout.
    created, clients = people_table_at(server, EAST_DECLARES,
                                       lambda view: view["turn"] == "S" and len(view["plays"]) >= 4)
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=viewport)
    south.wait_for_selector("#position-bottom .card.playable")
    sizes = south.evaluate("""() => ({ main: document.querySelector('main').getBoundingClientRect().width,
      card: document.querySelector('#position-bottom .hand .card').getBoundingClientRect().width,
      trick: document.querySelector('#trick').getBoundingClientRect().height,
      bottom: Math.max(...[...document.querySelectorAll('#felt .card')].map((c) => c.getBoundingClientRect().bottom)) })""")
    assert (round(sizes["main"]), round(sizes["card"])) == (page_width, card_width), sizes
    assert sizes["bottom"] <= viewport["height"], sizes        # the whole felt on the first screen
    for client in clients.values():
        client.close()
    assert not south.errors


def test_a_hidden_hands_count_stays_in_one_piece_beside_a_long_seat_label(browser, server):
    # On a phone on its side "× 13" beside "North bot (basic) · dealer · declarer" broke in two
    created, clients = people_table_at(server, EAST_DECLARES,
                                       lambda view: view["turn"] == "S" and len(view["plays"]) >= 4)
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport={"width": 740, "height": 360})
    south.wait_for_selector("#position-bottom .card.playable")
    south.evaluate("""() => document.querySelectorAll('#felt .seat-label').forEach((label) => {
      label.textContent += ' · a long name of a player'; })""")
    lines = south.evaluate("""() => [...document.querySelectorAll('#felt .hidden-hand')].map((hand) => {
      const range = document.createRange(); range.selectNodeContents(hand.lastChild);
      return [hand.textContent, new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size]; })""")
    assert len(lines) == 2 and all(count == 1 for _, count in lines), lines
    for client in clients.values():
        client.close()
    assert not south.errors


def test_the_page_knows_at_once_when_the_browser_goes_offline_and_is_back_when_it_is_online(browser, server):
    # Offline (the open websocket stalls: no close event) the page went on saying
    # "connected" for over a minute, and a card clicked meanwhile was written into
    # the stalled socket, with no "not sent" notice. The browser's offline event
    # now gives the socket up at once; its online event brings the page back at
    # once, not after the retries' backoff (5 s by then).
    created, clients = people_table_at(server, EAST_DECLARES,
                                       lambda view: view["phase"] == "play" and view["turn"] == "S")
    south = clocked_page(browser, server, created["invitations"]["S"]["url"])
    cards = south.locator("#felt .card.playable")
    assert cards.count() == 13
    south.context.set_offline(True)
    status_is(south, "reconnecting…", 2_000)
    cards.first.click(position={"x": 6, "y": 12}, force=True)     # aria-disabled: forced, as a person can
    assert south.locator("#refusal").inner_text().startswith("Not connected: that was not sent")
    assert not any(m["type"] == "play" for sent in south.sent for m in sent)
    # the retries fail while offline, each waiting longer: 0.5, 1, 2 s, then 5 s
    while len(south.sockets) < 4 or not south.sockets[-1].is_closed():
        south.clock.fast_forward(2_000)
        south.wait_for_timeout(100)
    south.wait_for_timeout(300)         # the server is not reached either: down, not refusing websockets
    assert south.locator("#refusal").inner_text().startswith("Not connected: that was not sent")
    south.context.set_offline(False)
    status_is(south, "connected", 2_000)
    assert south.locator("#refusal").inner_text() == ""
    assert south.sent[-1][0]["since"] == clients["N"].seq
    plays_and_seq_agree(south, clients)
    play_once(south, clients, cards)
    the_dead_socket_stays_dead(south)
    for client in clients.values():
        client.close()
    assert not south.errors


def test_a_silent_connection_is_found_dead_by_the_heartbeat_and_the_page_catches_up(browser, server):
    # A network that drops without the browser knowing (no offline event; the
    # socket stalls, no close): the page had no heartbeat of its own and said
    # "connected" while the table moved on without it. After 15 s of silence it
    # now pings, and 10 s more without a word it gives the socket up, reconnects
    # with `since` and catches up.
    created, clients = people_table_at(server, SOUTH_DECLARES,
                                       lambda view: view["phase"] == "play" and view["turn"] == "W")
    south = clocked_page(browser, server, created["invitations"]["S"]["url"], notice_offline=False)
    seq = south.evaluate("document.body.dataset.seq")
    south.context.set_offline(True)
    west = clients["W"]
    west.send({"type": "play", "card": west.view["legal"][0], "seq": west.seq})     # West leads
    seen_by_all(clients, west.seq + 1)
    pings = lambda: [m for m in south.sent[0] if m["type"] == "ping"]   # noqa: E731
    south.clock.fast_forward(12_000)
    south.wait_for_timeout(200)
    assert pings() == []
    south.clock.fast_forward(4_000)                     # 16 s of silence: a ping
    deadline = time.monotonic() + 10                    # (a frame sent reaches the test late)
    while not pings() and time.monotonic() < deadline:
        south.wait_for_timeout(50)
    south.wait_for_timeout(200)                         # and no second one behind it
    assert len(pings()) == 1 and pings()[0]["id"]
    assert south.evaluate("document.querySelector('#status').textContent") == "connected"
    assert south.evaluate("document.body.dataset.seq") == seq           # the lead never came
    assert south.locator("#message").inner_text() == "West to play."   # stale
    south.clock.fast_forward(8_000)
    south.wait_for_timeout(200)
    assert south.evaluate("document.querySelector('#status').textContent") == "connected"
    south.clock.fast_forward(3_000)                     # 11 s after the ping: dead
    status_is(south, "reconnecting…", 2_000)
    south.context.set_offline(False)
    status_is(south, "connected", 5_000)
    assert south.sent[-1][0]["since"] == int(seq)
    plays_and_seq_agree(south, clients)
    assert south.locator("#message").inner_text() == "Your card from dummy (North)."
    play_once(south, clients, south.locator('#position-top[data-seat="N"] .card.playable'))
    the_dead_socket_stays_dead(south)
    for client in clients.values():
        client.close()
    assert not south.errors


def test_an_action_unanswered_on_a_silent_connection_is_found_dead_without_waiting_for_the_heartbeat(
        browser, server):
    # A card played into a socket that has silently died was lost without a word
    # (no heartbeat). The server answers every action: 10 s without an answer,
    # the socket is given up and the page catches up; the card is played once at most.
    created, clients = people_table_at(server, EAST_DECLARES,
                                       lambda view: view["phase"] == "play" and view["turn"] == "S")
    south = clocked_page(browser, server, created["invitations"]["S"]["url"], notice_offline=False)
    cards = south.locator("#felt .card.playable")
    south.context.set_offline(True)
    cards.first.click(position={"x": 6, "y": 12})
    assert south.locator("#refusal").inner_text() == ""         # sent, as far as the page knows
    south.clock.fast_forward(8_000)
    south.wait_for_timeout(200)
    assert south.evaluate("document.querySelector('#status').textContent") == "connected"
    south.clock.fast_forward(3_000)
    status_is(south, "reconnecting…", 2_000)
    assert not [m for m in south.sent[0] if m["type"] == "ping"]
    south.context.set_offline(False)
    status_is(south, "connected", 5_000)
    plays_and_seq_agree(south, clients)
    played = [m for m in clients["N"].messages if m.get("type") == "play" and m["by"] == "S"]
    assert len(played) <= 1
    if not played:                                          # the lost card: played now, once
        play_once(south, clients, cards)
    the_dead_socket_stays_dead(south)
    for client in clients.values():
        client.close()
    assert not south.errors


def _suit_of(code: str) -> str:
    return {"P": "Plains", "R": "Ribbons"}.get(code.rstrip("ab")[-1], "Bright Animals")


def test_a_card_off_the_suit_led_says_the_suit_led_must_be_followed(browser, server):
    # docs/client.md: a click on a card that cannot be played now says why ("You must
    # follow Ribbons."): the suit led, where the hand's first suit is another (the one test
    # before had the two alike, and a message naming the hand's first suit passed it)
    def off_suit_card_at_souths_turn(view):
        trick = view["current_trick"] if view["phase"] == "play" else []
        return (view["turn"] == "S" and bool(trick) and bool(set(view["hand"]) - set(view["legal"]))
                and _suit_of(view["hand"][0]) != _suit_of(trick[0]["card"]))

    # the clients play their last legal card (the low suits led first); three hands, as
    # about 1 deal in 30 played so never comes to such a turn
    created, clients = four_people(server, hands=3)
    move_until(clients, ["Pass", "1P", "Pass", "Pass", "Pass"] * 3, off_suit_card_at_souths_turn,
               pick=lambda legal: legal[-1])
    clients.pop("S").close()
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    south.locator("#felt .card.playable").first.wait_for()
    lead = south.locator("#trick .card").first.get_attribute("data-code")
    south.locator("#position-bottom .card:not(.playable)").first.click(position={"x": 6, "y": 12})
    assert south.locator("#refusal").inner_text() == f"You must follow {_suit_of(lead)}."
    for client in clients.values():
        client.close()
    assert not south.errors


def test_a_finished_trick_outlines_its_winners_card_where_the_leader_lost_it(browser, server):
    # docs/client.md, The trick: a finished trick stays there, its winner outlined and named
    def lost_by_its_leader(view):
        done = view["phase"] == "play" and not view["current_trick"] and view["tricks"]
        return bool(done) and view["tricks"][-1]["winner"] != view["tricks"][-1]["leader"]

    # (two hands: in about 1 of 3,000 deals played so, every trick goes to its leader)
    created, clients = four_people(server, hands=2)
    move_until(clients, ["Pass", "1P", "Pass", "Pass", "Pass"] * 2, lost_by_its_leader)
    clients.pop("S").close()
    winner = clients["N"].view["tricks"][-1]["winner"]
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    south.locator("#trick.done .slot").first.wait_for()
    assert [s.get_attribute("data-seat") for s in south.locator("#trick .slot.winner").all()] == [winner]
    assert south.locator("#trick .trick-caption").inner_text().endswith(
        f"won by {dict(N='North', E='East', S='South', W='West')[winner]}")
    for client in clients.values():
        client.close()
    assert not south.errors


def test_arrows_move_along_the_playable_cards_right_to_the_next_left_to_the_one_before(browser, server):
    # docs/client.md, Keys: the arrows move between the cards you may play (right: on)
    created, clients = people_table_at(server, ["Pass", "1P", "Pass", "Pass", "Pass"],
                                       lambda view: view["phase"] == "play" and view["turn"] == "S")
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    south.locator("#felt .card.playable").first.wait_for()
    at = "() => [...document.querySelectorAll('#felt .card.playable')].indexOf(document.activeElement)"
    assert south.locator("#felt .card.playable").count() >= 3
    reached = []
    for key in ("ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft"):
        south.keyboard.press(key)
        reached.append(south.evaluate(at))
    assert reached == [0, 1, 2, 1]
    for client in clients.values():
        client.close()
    assert not south.errors


def test_declarer_sees_which_hand_plays_and_a_card_that_cannot_be_played_says_why(browser, server):
    # South declares, North is dummy. Once the hand to play (either) holds a card
    # South may not play: the other hand is dimmed, and clicks on it, or on that
    # card, are answered in words rather than by nothing.
    def greyed_card_to_play(view):
        if view["phase"] != "play" or view["actor"] != "S":
            return False
        to_play, other = (view["dummy"], view["hand"]) if view["turn"] == "N" else (view["hand"], view["dummy"])
        return bool(set(to_play) - set(view["legal"])) and bool(other)

    created, clients = people_table_at(server, SOUTH_DECLARES, greyed_card_to_play)
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    south.locator("#felt .card.playable").first.wait_for()
    turn = south.locator("#felt .hand.my-turn").evaluate("h => h.closest('.seat-box').dataset.seat")
    other = "S" if turn == "N" else "N"
    waiting = south.locator(f'#felt .seat-box[data-seat="{other}"] .hand')
    assert "not-to-play" in waiting.get_attribute("class")
    assert waiting.locator(".card").first.evaluate("c => getComputedStyle(c).filter") != "none"
    assert "not-to-play" not in south.locator("#felt .hand.my-turn").get_attribute("class")
    screenshot(south, "declarer-hand-not-to-play")
    seq = south.evaluate("document.body.dataset.seq")
    waiting.locator(".card").first.click(position={"x": 6, "y": 12})
    expected = ("North (dummy) plays now: play from North's hand." if turn == "N"
                else "You play now from your own hand (South), not the dummy's.")
    assert south.locator("#refusal").inner_text() == expected
    # a greyed card of the hand to play: the suit led must be followed
    lead = south.locator("#trick .card").first.get_attribute("data-code")
    suit = {"A": "Bright Animals", "R": "Ribbons", "P": "Plains"}[
        next(card["suit"] for card in server.api("GET", "/api/cards") if card["code"] == lead)]
    south.locator("#felt .hand.my-turn .card:not(.playable)").first.click(position={"x": 6, "y": 12})
    who = "North (dummy)" if turn == "N" else "You"
    assert south.locator("#refusal").inner_text() == f"{who} must follow {suit}."
    assert south.evaluate("document.body.dataset.seq") == seq            # nothing was sent
    south.locator("#felt .card.playable").last.click()                    # a card that may be played
    south.wait_for_function(f"document.body.dataset.seq !== '{seq}'")
    assert south.locator("#refusal").inner_text() == ""
    for client in clients.values():
        client.close()
    assert not south.errors


@pytest.mark.parametrize("calls, over", [(["Pass"] * 4, "passed out"), (SOUTH_DECLARES, "finished")])
def test_the_end_of_the_session_says_who_won_and_leads_back_to_the_lobby(browser, server, calls, over):
    created = left_table_at(server, calls, lambda view: view["phase"] == over)
    sheet = server.api("GET", f"/api/tables/{created['table']['id']}/session")["scoresheet"]
    assert sheet["is_over"]
    totals = {side: sheet["totals"][side]["total"] for side in ("NS", "EW")}
    names = {"NS": "North-South", "EW": "East-West"}
    if sheet["leader"]:
        loser = "EW" if sheet["leader"] == "NS" else "NS"
        result = f"{names[sheet['leader']]} won, {totals[sheet['leader']]} points to {totals[loser]}"
        # (the sheet's last line with the points too, as the turn line says it)
        on_sheet = (f"The session is over: {names[sheet['leader']].upper()} won, {totals[sheet['leader']]} "
                    f"points to {totals[loser]}.")
    else:
        result = f"a tie, {totals['NS']} points each"
        on_sheet = f"The session is over: a tie, {totals['NS']} points each."
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    south.wait_for_function("document.querySelector('#message').textContent.startsWith('The session is over')")
    assert south.locator("#message").inner_text() == f"The session is over: {result}."
    assert south.locator('#session-end a[href="/"]').inner_text() == "Back to the lobby"
    assert south.locator('#session-end a[href="/"]').is_visible()
    assert south.locator("#scoresheet .session-over").inner_text() == on_sheet
    assert "ahead" not in south.locator("#scoresheet").inner_text()
    assert not south.errors


def test_a_table_closed_to_make_room_says_why_and_who_was_ahead_and_leads_back_to_the_lobby(
        browser, tmp_path):
    import random
    from datetime import timedelta

    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.models import utcnow
    from flowerbridge.server.testing import ServerThread, play_session

    # made in a server of this process, whose clock runs two hours ahead for the
    # last creation: the full server closes South's table to make room
    config = ServerConfig(database=str(tmp_path / "tables.sqlite"), bot_delay=0,
                          replace_after=None, analysis=False, max_tables=1)
    with ServerThread(config) as making:
        created = making.create_table({"S": "human", "N": BOT, "E": BOT, "W": BOT}, hands=4)
        table_id = created["table"]["id"]
        south = making.client(table_id, created["invitations"]["S"]["token"])
        play_session([south], random.Random(5), until=lambda: any("hand_over" in m for m in south.messages))
        south.close()
        deadline = time.monotonic() + 20
        while making.api("GET", f"/api/tables/{table_id}").json()["seats"]["S"]["connected"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        making.app.state.manager.clock = lambda: utcnow() + timedelta(hours=2)
        making.create_table({s: "human" for s in "NESW"})
        closed = making.api("GET", f"/api/tables/{table_id}").json()["closed"]
        sheet = making.api("GET", f"/api/tables/{table_id}/session").json()["scoresheet"]
    assert closed and not sheet["is_over"] and sheet["hands_played"] >= 1
    totals = {side: sheet["totals"][side]["total"] for side in ("NS", "EW")}
    names = {"NS": "North-South", "EW": "East-West"}
    if sheet["leader"]:
        behind = "EW" if sheet["leader"] == "NS" else "NS"
        standing = f"with {names[sheet['leader']]} ahead, {totals[sheet['leader']]} points to {totals[behind]}"
    else:
        standing = f"the sides tied at {totals['NS']} points each"
    with Server(tmp_path) as server:
        page = open_page(browser, server, created["invitations"]["S"]["url"])
        page.wait_for_function("document.querySelector('#message').textContent.startsWith('The session is over')")
        assert page.locator("#message").inner_text() == \
            f"The session is over: the table was {closed}, {standing}."
        assert page.locator('#session-end a[href="/"]').is_visible()
        assert page.locator("#bidding button, #felt .card.playable").count() == 0
        assert not page.errors


@pytest.mark.parametrize("role, calls, until", [
    # East declares: West's dummy on South's left, the trick beside East
    ("defender, dummy on the left", ["Pass", "7NT", "Pass", "Pass", "Pass"],
     lambda view: view["phase"] == "play" and view["turn"] == "S" and view["dummy"]),
    # West declares: East's dummy on South's right; North led, dummy followed
    ("defender, dummy on the right", ["Pass", "Pass", "Pass", "7NT", "Pass", "Pass", "Pass"],
     lambda view: view["phase"] == "play" and view["turn"] == "S"),
    # North declares, South is the dummy: East led, North played South's card
    ("dummy", ["7NT", "Pass", "Pass", "Pass"],
     lambda view: view["phase"] == "play" and len(view["current_trick"]) == 2),
])
def test_phone_defender_and_dummy_see_their_cards_and_the_trick_without_scrolling(
        browser, server, role, calls, until):
    created = left_table_at(server, calls, until)
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=PHONE)
    south.locator("#trick .card").first.wait_for()
    if role != "dummy":
        south.locator('#position-bottom[data-seat="S"] .card.playable').first.wait_for()
    assert south.evaluate(ON_SCREEN) == [], role
    assert south.evaluate(FELT_CARDS) == [], role
    assert south.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(south, "phone-" + role.replace(",", "").replace(" ", "-"))
    assert not south.errors


@pytest.mark.parametrize("how", ["button", "key"])
def test_phone_last_trick_opens_in_view(browser, server, how):
    # At 360 px the panel opens under the table and the auction, below the fold:
    # the tap seemed to do nothing.
    created = mid_trick_table(server)
    north = open_page(browser, server, created["invitations"]["N"]["url"], viewport=PHONE)
    north.locator("#felt .card.playable").first.wait_for()
    if how == "button":
        north.locator("#toggle-last").click()
    else:
        north.keyboard.press("l")
    panel = north.locator("#last-trick-panel")
    panel.wait_for()
    seen = panel.evaluate("""p => {
        const r = p.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= innerHeight + 1;
    }""")
    assert seen, panel.bounding_box()
    screenshot(north, f"phone-last-trick-{how}")
    assert not north.errors


LAST_TRICK_ROW = """() => {
  const panel = document.querySelector('#last-trick-panel').getBoundingClientRect();
  const cards = [...document.querySelectorAll('#last-trick figure')].map((f) => f.getBoundingClientRect());
  const wrong = [];
  if (cards.length !== 4) wrong.push(cards.length + ' cards');
  cards.forEach((r, i) => {
    if (Math.abs(r.top - cards[0].top) > 1) wrong.push('card ' + (i + 1) + ' on another row');
    if (r.left < panel.left || r.right > panel.right || r.right > innerWidth) wrong.push('card ' + (i + 1) + ' outside the panel');
    if (i && r.left < cards[i - 1].right) wrong.push('card ' + (i + 1) + ' over the one before');
  });
  return wrong;
}"""


def test_the_last_tricks_four_cards_lie_in_one_row_at_any_width(browser, server):
    # At 1280 px the panel beside the table held three faces: the fourth wrapped onto a second row.
    created, clients = people_table_at(server, SOUTH_DECLARES, lambda view: len(view["tricks"]) >= 1)
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=PHONE)
    wait_for_table(south)
    south.locator("#toggle-last").click()
    south.locator("#last-trick figure").first.wait_for()
    for width in (360, 600, 1000, 1280, 1920):
        south.set_viewport_size({"width": width, "height": 900})
        assert south.evaluate(LAST_TRICK_ROW) == [], width
        if width == 1280:
            screenshot(south, "last-trick-1280")
    assert not south.errors
    for client in clients.values():
        client.close()


@pytest.mark.parametrize("clipboard", ["granted", "none"])
def test_lobby_invitation_copy_says_what_it_did_and_open_keeps_the_lobby(browser, server, clipboard):
    # Over plain http on a network address there is no clipboard at all: the link
    # is then selected for the person to copy, never reported "Copied".
    context = browser.new_context(viewport=DESKTOP, base_url=server.url)
    if clipboard == "granted":
        context.grant_permissions(["clipboard-read", "clipboard-write"])
    else:
        context.add_init_script("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
    page = lobby_created_north_and_south(context)
    north = page.locator('#invitations li[data-link="North"]')
    url = north.locator("input").input_value()
    north.locator("button").click()
    if clipboard == "granted":
        # A selector, not a wait_for_function: a function-like string is compiled with
        # eval in the page, which the page's content-security-policy refuses.
        page.wait_for_selector("#invitations button:text-is('Copied')")
        assert page.evaluate("navigator.clipboard.readText()") == url
    else:
        assert north.locator("button").inner_text().startswith("Selected")
        assert page.evaluate("document.activeElement.value") == url
        assert page.evaluate("getSelection().toString() || (document.activeElement.selectionEnd - "
                             "document.activeElement.selectionStart)") in (url, len(url))
    # "open" leaves the lobby (and the links shown only once) where it is
    assert north.locator("a").get_attribute("target") == "_blank"
    context.close()


def test_a_playable_card_is_not_rebuilt_when_the_page_redraws_for_someone_else(browser, server):
    # a rebuild between the press and the release of a mouse button loses the click
    created = mid_trick_table(server)       # North is to play
    north = open_page(browser, server, created["invitations"]["N"]["url"])
    north.wait_for_selector("#felt .card.playable")
    north.evaluate("document.querySelectorAll('#felt .card.playable').forEach((c) => { c.dataset.kept = 'yes'; })")
    seq = north.evaluate("document.body.dataset.seq")
    # East (declarer) arrives: a presence message, drawn once North's page shows East here
    east = open_page(browser, server, created["invitations"]["E"]["url"])
    wait_for_table(east)
    north.locator('#felt .seat-box[data-seat="E"] .role:text-is("person · declarer")').wait_for()
    assert north.evaluate("document.body.dataset.seq") == seq
    assert north.evaluate("[...document.querySelectorAll('#felt .card.playable')]"
                          ".every((c) => c.dataset.kept === 'yes')")
    north.locator("#felt .card.playable").last.click()     # (the last is not overlapped)
    north.wait_for_function(f"document.body.dataset.seq !== '{seq}'")
    assert not north.errors and not east.errors


EAST_DECLARES = ["Pass", "7NT", "Pass", "Pass", "Pass"]     # North deals; South leads

# Each card of South's hand (in the order drawn, left to right) with the middle of
# the strip of it that shows: from its left edge to the next card of its suit
# (which lies over the rest), or the whole card for a suit's last. Measured with
# no card raised.
VISIBLE_STRIPS = """() => [...document.querySelectorAll('#position-bottom .hand .card')].map((card) => {
  const r = card.getBoundingClientRect();
  const next = card.nextElementSibling?.classList.contains('card') ? card.nextElementSibling : null;
  const right = next ? next.getBoundingClientRect().left : r.right;
  return { code: card.dataset.code, x: (r.left + right) / 2, y: (r.top + r.bottom) / 2, width: right - r.left };
})"""

# The card at a point, and the card under the pointer (the last one :hover matches).
CARD_AT = """([x, y]) => {
  const cards = [...document.querySelectorAll('#position-bottom .hand .card')];
  const hovered = cards.filter((c) => c.matches(':hover'));
  return [cards.indexOf(document.elementFromPoint(x, y)?.closest('.card')), cards.indexOf(hovered[hovered.length - 1])];
}"""


def test_ch8_the_opening_leader_is_told_it_is_the_opening_lead_before_the_dummy_is_shown(browser, server):
    # "Your card." at the opening lead left a new player asking where the dummy was
    created, clients = people_table_at(server, EAST_DECLARES,
                                       lambda view: view["phase"] == "play" and view["turn"] == "S")
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    south.locator("#position-bottom .hand .card.playable").first.wait_for()
    assert south.locator("#message").inner_text() == "Your opening lead."
    south.locator("#felt .card.playable").first.click(position={"x": 6, "y": 12})    # (the strip that shows)
    south.wait_for_function("document.querySelector('#message').textContent !== 'Your opening lead.'")
    assert south.locator("#message").inner_text() == "East to play from dummy."     # (West is the dummy)
    for client in clients.values():
        client.close()
    assert not south.errors


def test_the_card_under_the_pointer_is_the_one_shown_there_across_the_hand(browser, server):
    # At 1280 px cards are 84 px wide and 40 px apart. The card under the pointer
    # was raised in front (z-index) and covered the strip of the next card that
    # shows: sweeping the pointer across the hand went over every other card, and
    # a click where the next card was drawn played the card under the pointer.
    created, clients = people_table_at(server, EAST_DECLARES,
                                       lambda view: view["phase"] == "play" and view["turn"] == "S")
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    cards = south.locator("#position-bottom .hand .card.playable")
    cards.first.wait_for()
    assert cards.count() == 13                                  # the opening lead: every card
    south.mouse.move(0, 0)
    strips = south.evaluate(VISIBLE_STRIPS)
    assert min(strip["width"] for strip in strips) == pytest.approx(40, abs=1)
    for i, strip in enumerate(strips):                          # left to right, middle of each strip
        south.mouse.move(strip["x"], strip["y"])
        south.wait_for_timeout(120)                             # the lift's transition
        assert south.evaluate(CARD_AT, [strip["x"], strip["y"]]) == [i, i], (i, strip["code"])
    # A card pressed by the mouse has focus but no focus ring (:focus-visible) and
    # is not brought in front either: the strip of the card to its right is still
    # that card's, and a click there plays it, not the one pressed or hovered before.
    b = next(i for i in range(1, 13) if strips[i]["code"] != strips[i - 1]["code"]
             and strips[i - 1]["width"] < 50)
    a = b - 1
    south.mouse.move(strips[a]["x"], strips[a]["y"])
    south.mouse.down()
    assert south.evaluate("""() => [document.activeElement.dataset.code, document.activeElement.matches(':focus-visible'),
        getComputedStyle(document.activeElement).zIndex]""") == [strips[a]["code"], False, "auto"]
    south.mouse.move(strips[b]["x"], strips[b]["y"])
    south.wait_for_timeout(120)
    assert south.evaluate(CARD_AT, [strips[b]["x"], strips[b]["y"]]) == [b, b]
    south.mouse.up()                                            # pressed on one card, released on another: no click
    south.wait_for_timeout(120)
    assert south.locator('#trick .slot[data-seat="S"]').count() == 0
    south.mouse.click(strips[b]["x"], strips[b]["y"])
    south.locator('#trick .slot[data-seat="S"] .card').wait_for()
    assert south.locator('#trick .slot[data-seat="S"] .card').get_attribute("data-code") == strips[b]["code"]
    for client in clients.values():
        client.close()
    assert not south.errors


def test_focus_stays_on_the_bidding_box_and_the_box_is_not_rebuilt_when_the_page_redraws(browser, server):
    created = server.create_table({s: "human" for s in "NESW"}, length={"hands": 1})
    north = open_page(browser, server, created["invitations"]["N"]["url"])   # North deals
    wait_for_table(north)
    north.wait_for_selector('#bidding button[data-call="1NT"]')
    north.focus('#bidding button[data-call="1NT"]')
    north.evaluate("document.activeElement.dataset.kept = 'yes'")
    # someone else arriving redraws every page (a presence message): East, whom
    # North's page shows as here once it has drawn that message
    east = open_page(browser, server, created["invitations"]["E"]["url"])
    wait_for_table(east)
    north.locator('#felt .seat-box[data-seat="E"] .role:text-is("person")').wait_for()
    assert north.evaluate("document.activeElement.dataset.call") == "1NT"
    # and the bidding box was not rebuilt: a rebuild between the press and the release
    # of a mouse button loses the click
    assert north.evaluate("document.activeElement.dataset.kept") == "yes"
    north.keyboard.press("Enter")
    north.wait_for_function("document.querySelector('table.auction').textContent.includes('1NT')")
    assert not north.errors and not east.errors


# Where the bidding box and its calls lie on the page, rounded to the pixel.
BIDDING_PLACES = """() => {
  const place = (node) => {
    const r = node?.getBoundingClientRect();
    return r ? [r.left, r.top, r.width].map(Math.round) : null;
  };
  const call = (c) => place(document.querySelector(`#bidding button[data-call="${c}"]`));
  return { box: place(document.querySelector('#bidding .bidding-box')), pass: call('Pass'), '3NT': call('3NT') };
}"""

# A call clicked, and the places right after the page's own answer to the click
# (before the server's, which takes the box away): synchronously, in the page.
CLICK_THEN_PLACES = ("(call) => { document.querySelector(`#bidding button[data-call=\"${call}\"]`).click(); "
                     f"return ({BIDDING_PLACES})(); }}")


def south_bids_1a_after_a_refusal(browser, server, viewport):
    """A table of people, South's page at ``viewport`` and protocol clients for
    the others: North deals and passes, East bids 1R, South types 1P (too low:
    refused, in the line below the bidding box), then clicks 1A. Returns the page,
    the clients, the box's places before the click and right after it (the
    page's own answer, before the server's), and the point clicked."""
    created, clients = four_people(server)
    clients.pop("S").close()                   # the page takes South
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=viewport)
    call_at(clients["N"], 1, "Pass")
    call_at(clients["E"], 2, "1R")
    south.wait_for_selector('#bidding button[data-call="1A"]')
    south.keyboard.press("1")
    south.keyboard.press("p")
    assert south.locator("#refusal").inner_text().startswith("1 Plain is not a call you can make now")
    before = south.evaluate(BIDDING_PLACES)
    clicked = south.locator('#bidding button[data-call="1A"]').bounding_box()
    at_click = south.evaluate(CLICK_THEN_PLACES, "1A")
    assert south.locator("#refusal").inner_text() == ""     # answered by the call
    point = [clicked["x"] + clicked["width"] / 2, clicked["y"] + clicked["height"] / 2]
    return south, clients, before, at_click, point


def call_at(client, seq, call):
    """A protocol client's call, once it has seen the table at ``seq``."""
    client.until(lambda m: client.seq >= seq)
    client.send({"type": "call", "call": call, "seq": seq})


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_bidding_box_stays_put_when_a_refusal_is_answered_by_a_call(browser, server, viewport):
    # The refusal line, above the box, went as the person clicked: the box moved up
    # under the pointer (62 px at desktop width), onto a higher bid. It is below now.
    south, clients, before, at_click, _ = south_bids_1a_after_a_refusal(browser, server, viewport)
    assert at_click == before
    for client in clients.values():
        client.close()
    assert not south.errors


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_bidding_box_stays_put_when_a_refusal_appears(browser, server, viewport):
    # A refusal that a click brings (a call the table no longer takes, or one sent
    # while disconnected) pushed the box down under the pointer, by a line or two
    # (28 px at desktop width): the refusal line is below the box now.
    created, clients = four_people(server)
    clients.pop("S").close()
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=viewport)
    call_at(clients["N"], 1, "Pass")
    call_at(clients["E"], 2, "1R")
    south.wait_for_selector('#bidding button[data-call="1A"]')
    before = south.evaluate(BIDDING_PLACES)
    south.keyboard.press("1")
    south.keyboard.press("p")
    assert south.locator("#refusal").inner_text().startswith("1 Plain is not a call you can make now")
    assert south.evaluate(BIDDING_PLACES) == before
    for client in clients.values():
        client.close()
    assert not south.errors


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_bid_made_leaves_no_other_call_under_the_pointer_at_the_persons_next_turn(browser, server, viewport):
    # The box dropped the rows of the levels no longer on offer: at the next turn
    # the calls moved up a row, and where 1A had been clicked lay 2A.
    south, clients, before, _, point = south_bids_1a_after_a_refusal(browser, server, viewport)
    call_at(clients["W"], 4, "Pass")
    call_at(clients["N"], 5, "2P")
    call_at(clients["E"], 6, "Pass")
    # South's next turn (2R was on offer at the first one too: the page must be past it)
    south.wait_for_function("Number(document.body.dataset.seq) >= 7")
    south.wait_for_selector('#bidding button[data-call="2R"]')
    assert south.evaluate(BIDDING_PLACES) == before
    under = south.evaluate("([x, y]) => document.elementFromPoint(x, y)?.closest('button')?.dataset.call ?? null",
                           point)
    assert under is None, f"{under} lies where 1A was clicked"
    # what is on offer is still exactly the legal calls: 1A and below are placeholders
    assert south.locator('#bidding button[data-call="1A"]').count() == 0
    assert south.locator('#bidding .spent[aria-hidden="true"]').count() == 5      # 1P to 2P
    screenshot(south, f"bidding-box-next-turn-{viewport['width']}")
    for client in clients.values():
        client.close()
    assert not south.errors


# ------------------------------------------------- phones and tablets by touch

IPHONE = {"width": 390, "height": 664}           # iPhone 13, its browser's bars shown
IPHONE_LANDSCAPE = {"width": 750, "height": 340}
PIXEL_LANDSCAPE = {"width": 839, "height": 412}
IPAD = {"width": 768, "height": 1024}


def open_touch_page(browser, server, path, viewport):
    """``open_page`` on an emulated phone or tablet: a touch screen, no mouse to hover with."""
    context = browser.new_context(viewport=viewport, base_url=server.url, bypass_csp=True,
                                  has_touch=True, is_mobile=True)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(path)
    return page



@pytest.mark.parametrize("viewport", [{"width": 600, "height": 480}, {"width": 640, "height": 360},
                                      IPHONE_LANDSCAPE], ids=["600x480", "640x360", "750x340"])
def test_a_phone_on_its_side_has_the_top_bars_controls_in_one_line(browser, server, viewport):
    # At 640 x 360 (a small Android phone on its side) Keys wrapped to a line of its own:
    # the top bar took 78 px of the 360, and eight bids and the foot of the hand fell
    # below the screen.
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    page = open_touch_page(browser, server, created["invitations"]["S"]["url"], viewport)
    page.wait_for_function("document.body?.dataset.seq > 0", timeout=15_000)
    page.wait_for_selector("#status:has-text('connected')")
    controls = """() => [...document.querySelectorAll(
        '.topbar > .brand, .topbar > .status, .topbar > label, .topbar > button')]
        .map((e) => [e.textContent.trim().slice(0, 14), e.getBoundingClientRect().top,
                     e.getBoundingClientRect().bottom])"""
    for status in ("connected", "reconnecting…"):     # (the badge's longest words)
        page.evaluate("(words) => { document.querySelector('#status').textContent = words; }", status)
        tops = page.evaluate(controls)
        # one line: each lies beside all the others (none starts below another's foot)
        assert max(top for _, top, _ in tops) < min(bottom for _, _, bottom in tops), tops
    assert not page.errors

def test_scrolling_a_window_past_its_end_leaves_the_page_behind_it_where_it_was(browser, server):
    # No overscroll-behavior: swiping (or wheeling) past the end of the review
    # scrolled the table page under it, and after Close the person was at the
    # scoresheet, their turn off the screen.
    created = left_table_at(server, ["Pass"] * 4, lambda view: view["phase"] == "passed out")
    page = open_page(browser, server, created["invitations"]["S"]["url"], viewport=IPHONE)
    wait_for_table(page)
    page.keyboard.press("?")                                  # the list of keys: longer than the screen
    page.locator("#keys-dialog[open]").wait_for()
    assert page.evaluate("document.documentElement.scrollHeight") > IPHONE["height"]
    assert page.locator("#keys-dialog").evaluate("d => d.scrollHeight > d.clientHeight")
    box = page.locator("#keys-dialog").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(8):                                        # down to the window's end, and on
        page.mouse.wheel(0, 400)
        page.wait_for_timeout(80)
    assert page.locator("#keys-dialog").evaluate("d => d.scrollTop + d.clientHeight >= d.scrollHeight - 1")
    assert page.evaluate("scrollY") == 0
    page.mouse.move(4, IPHONE["height"] - 4)                  # over the backdrop
    page.mouse.wheel(0, 400)
    page.wait_for_timeout(150)
    assert page.evaluate("scrollY") == 0
    page.keyboard.press("Escape")
    assert not page.errors


def test_opening_a_window_on_a_desktop_moves_nothing_sideways(browser, server):
    # The page stops scrolling while a window is open (overflow: hidden): its
    # scrollbar went away and the whole table shifted right by its width, and
    # back at Close.
    created = left_table_at(server, ["Pass"] * 4, lambda view: view["phase"] == "passed out")
    short = {"width": 1280, "height": 520}
    # a desktop's scrollbar, which takes room (Playwright's headless Chromium hides scrollbars)
    with_scrollbars = browser.browser_type.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                                                  ignore_default_args=["--hide-scrollbars"])
    try:
        page = open_page(with_scrollbars, server, created["invitations"]["S"]["url"], viewport=short)
        assert_a_window_moves_nothing(page, short)
    finally:
        with_scrollbars.close()


def assert_a_window_moves_nothing(page, short):
    wait_for_table(page)
    assert page.evaluate("document.documentElement.scrollHeight") > short["height"]
    where = "() => [...document.querySelectorAll('.topbar button, #felt')].map((e) => " \
            "[Math.round(e.getBoundingClientRect().left), Math.round(e.getBoundingClientRect().right)])"
    before = page.evaluate(where)
    page.keyboard.press("?")
    page.locator("#keys-dialog[open]").wait_for()
    assert page.evaluate(where) == before
    page.keyboard.press("Escape")
    assert page.evaluate(where) == before
    assert not page.errors


# The box of each card of the person's hand (and the dummy's), to the pixel.
HAND_BOXES = """() => [...document.querySelectorAll('#felt .hand .card')].map((c) => {
  const r = c.getBoundingClientRect(); return [c.dataset.code, Math.round(r.left), Math.round(r.top)]; })"""


@pytest.mark.parametrize("viewport", [{"width": 412, "height": 839}, PHONE], ids=["pixel-7", "360"])
def test_a_card_refused_by_a_tap_moves_no_card(browser, server, viewport):
    # The refusal ("You must follow Ribbons.") appeared in the panel above the
    # felt and pushed the felt, both hands with it, down 36 px just as the
    # person tapped again; it went back at the next card.
    def greyed_card_to_play(view):
        return (view["phase"] == "play" and view["actor"] == "S" and view["turn"] == "S"
                and bool(set(view["hand"]) - set(view["legal"])))

    created, clients = people_table_at(server, SOUTH_DECLARES, greyed_card_to_play)
    south = open_touch_page(browser, server, created["invitations"]["S"]["url"], viewport)
    south.locator("#felt .card.playable").first.wait_for()
    before = south.evaluate(HAND_BOXES)
    south.locator("#felt .hand.my-turn .card:not(.playable)").first.tap(position={"x": 6, "y": 12})
    assert "must follow" in south.locator("#refusal").inner_text()
    assert south.evaluate(HAND_BOXES) == before
    for client in clients.values():
        client.close()
    assert not south.errors


FELT_TOP = "() => Math.round(document.querySelector('#felt').getBoundingClientRect().top)"


def test_a_hint_or_a_refused_claim_that_goes_moves_no_card_back_on_a_phone(browser, server):
    # Below 1000 px the panel lies above the felt: a hint's answer, or a refused claim of
    # three lines, pushed the felt down, and back up once it went, at the person's next tap.
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    south = open_touch_page(browser, server, created["invitations"]["S"]["url"], PHONE)
    south.locator("#bidding button").first.wait_for()
    south.locator('#bidding button[data-call="7NT"]').tap()
    south.locator("#felt .card.playable").first.wait_for()
    south.locator("#claim-rest").tap()       # too early for a claim: refused, in three lines at 360 px
    south.wait_for_function("document.querySelector('#refusal').textContent.startsWith('Claim not accepted')")
    said = south.evaluate(FELT_TOP)
    south.locator("#ask-hint").tap()
    south.wait_for_function("document.querySelector('#advice').textContent.length > 20")
    assert south.evaluate(FELT_TOP) >= said
    held = south.evaluate(FELT_TOP)
    south.locator("#felt .card.playable").first.tap(position={"x": 6, "y": 12})     # the refusal and hint go
    south.wait_for_function("document.querySelector('#refusal').textContent === ''")
    south.wait_for_function("document.querySelector('#advice').textContent === ''")
    assert south.evaluate(FELT_TOP) == held
    assert not south.errors


TRICK_OVERLAPS = """() => {
  const boxes = [...document.querySelectorAll('#trick .slot .card')].map((c) => c.getBoundingClientRect());
  const met = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (x > 0.5 && y > 0.5) met.push([i, j, Math.round(x), Math.round(y)]);
  }
  return [boxes.length, met];
}"""


def test_a_finished_tricks_four_cards_lie_apart_at_every_size(browser, server):
    # At 360 px (and every layout with the phone's 44 px trick cards) the bottom card
    # rose 4 px over the top card's foot: an inline card left room for a descender.
    created = left_table_at(server, SOUTH_DECLARES,
                            lambda view: view["phase"] == "play" and len(view["tricks"]) == 1
                            and not view["current_trick"])
    for viewport in (PHONE, {"width": 360, "height": 640}, IPHONE_LANDSCAPE,
                     {"width": 800, "height": 600}, {"width": 1000, "height": 560}, DESKTOP):
        page = open_page(browser, server, created["invitations"]["S"]["url"], viewport=viewport)
        page.locator("#trick.done .trick-caption").wait_for()
        assert page.evaluate(TRICK_OVERLAPS) == [4, []], viewport
        assert not page.errors
        page.context.close()


def test_the_trick_keeps_its_room_on_a_phone_from_the_end_of_the_auction(browser, server):
    # The trick's room was kept only once a card lay in it: at the opening lead the
    # hand jumped down by its height (132 px at 360 px wide) besides the dummy's.
    created, clients = people_table_at(server, SOUTH_DECLARES,
                                       lambda view: view["phase"] == "play" and view["turn"] == "W")
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport=PHONE)
    wait_for_table(south)
    height = "() => Math.round(document.querySelector('#trick').getBoundingClientRect().height)"
    before = south.evaluate(height)
    west = clients["W"]
    west.send({"type": "play", "card": west.view["legal"][0], "seq": west.seq})
    south.locator(TRICK_CARDS).first.wait_for()
    assert before > 100 and south.evaluate(height) == before
    for client in clients.values():
        client.close()
    assert not south.errors


def test_a_landscape_phone_shows_the_dummy_the_trick_and_the_declarers_hand_together(browser, server):
    # Below 600 px wide only was the phone's layout used: on a phone on its side
    # (750 x 340, 839 x 412) each hand took a row per suit, the felt was 937 px
    # high, and on dummy's turn the declarer saw the dummy and nothing else.
    created = left_table_at(server, SOUTH_DECLARES,
                            lambda view: view["phase"] == "play" and view["turn"] == "N")
    south = open_touch_page(browser, server, created["invitations"]["S"]["url"], IPHONE_LANDSCAPE)
    south.locator('#position-top[data-seat="N"] .card.playable').first.wait_for()
    for viewport in (IPHONE_LANDSCAPE, PIXEL_LANDSCAPE):
        south.set_viewport_size(viewport)
        south.wait_for_timeout(100)
        boxes = south.evaluate("""() => Object.fromEntries(['#position-top .hand', '#position-bottom .hand', '#trick .card',
            '#felt'].map((s) => { const r = document.querySelector(s).getBoundingClientRect();
            return [s, [Math.round(r.top), Math.round(r.bottom)]]; }))""")
        screenshot(south, f"landscape-{viewport['width']}-declarer-dummy-turn")
        assert south.evaluate("scrollY") == 0
        assert south.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        felt_top, felt_bottom = boxes["#felt"]
        assert felt_bottom - felt_top <= 300, boxes              # the dummy, a row of seats, the hand
        for part in ("#position-top .hand", "#trick .card", "#position-bottom .hand"):
            top, bottom = boxes[part]
            assert top < viewport["height"] and bottom > 0, (viewport, part, boxes)
        if viewport == PIXEL_LANDSCAPE:                           # 412 px high: all of them whole
            assert boxes["#position-bottom .hand"][1] <= viewport["height"], boxes
    assert not south.errors


def test_the_auction_shows_the_hand_under_the_bidding_box_on_a_short_phone_and_the_box_fits_a_tablet(browser, server):
    # 390 x 664 (an iPhone with its browser's bars): only the top of the first row
    # of cards showed under the bidding box. At 768 px (an iPad) the box was 920 px
    # wide, wider than the screen, and the empty trick area still took 200 px.
    created, clients = people_table_at(server, ["Pass", "Pass"], lambda view: view["turn"] == "S")
    south = open_touch_page(browser, server, created["invitations"]["S"]["url"], IPHONE)
    south.locator("#bidding button").first.wait_for()
    screenshot(south, "iphone-auction")
    rows = south.evaluate("""() => { const tops = new Map();
      for (const c of document.querySelectorAll('#position-bottom .hand .card')) {
        const r = c.getBoundingClientRect(); const t = Math.round(r.top);
        tops.set(t, Math.max(tops.get(t) ?? 0, r.bottom)); }
      return [...tops].sort((a, b) => a[0] - b[0]); }""")
    assert south.evaluate("scrollY") == 0
    assert rows[0][1] <= IPHONE["height"], rows                 # the whole first row of cards
    south.set_viewport_size(IPAD)
    south.wait_for_timeout(100)
    screenshot(south, "ipad-auction")
    width = south.evaluate("document.querySelector('.bidding-box').getBoundingClientRect().right")
    assert width <= IPAD["width"]
    assert south.evaluate("document.documentElement.scrollWidth") <= IPAD["width"]
    assert south.locator("#trick").evaluate("t => t.getBoundingClientRect().height") == 0
    for client in clients.values():
        client.close()
    assert not south.errors


IN_VIEW = """s => { const r = document.querySelector(s).getBoundingClientRect();
  return r.bottom > 0 && r.top < innerHeight; }"""


def test_the_persons_turn_is_brought_into_view_when_it_is_off_the_screen(browser, server):
    # Only a keyboard user's focus went to the turn: on a phone, a person who had
    # scrolled down to the scoresheet (or closed the review there) was left with
    # "Your call" and the bidding box above the screen.
    created, clients = four_people(server, hands=2)
    clients.pop("S").close()                                     # the page holds South

    class PublicTurn:                                            # move_until reads South's turn from North's view
        my_turn = False
        view = property(lambda self: clients["N"].view)

        def until(self, predicate):
            pass

    others = {**clients, "S": PublicTurn()}

    def seen_south_call():
        for client in clients.values():
            client.until(lambda m: m.get("type") == "call" and m.get("seat") == "S")
    south = open_touch_page(browser, server, created["invitations"]["S"]["url"], IPHONE)
    wait_for_table(south)
    to_the_foot = "scrollTo(0, document.documentElement.scrollHeight)"
    south.evaluate(to_the_foot)                                  # down at the scoresheet
    assert south.evaluate("scrollY") > 0 and not south.evaluate(IN_VIEW, "#play-panel")
    move_until(others, ["Pass", "Pass"], lambda view: view["turn"] == "S")   # North, East pass: South's call
    south.locator("#bidding button").first.wait_for()
    south.wait_for_function(f"({IN_VIEW})('.bidding-box')", timeout=5000)
    # The review open at a hand's end: nothing moves under it; closed, the turn comes into view.
    south.locator('#bidding button[data-call="Pass"]').tap()
    seen_south_call()
    south.evaluate(to_the_foot)
    # West passes, the hand is passed out; hand 2, East deals and passes
    move_until(others, ["Pass"], lambda view: view["phase"] == "passed out")
    clients["E"].until(lambda m: clients["E"].my_turn)
    move_until(others, ["Pass"], lambda view: view["phase"] == "auction" and view["turn"] == "S")
    south.locator("#review-dialog[open]").wait_for()
    south.locator("#bidding button").first.wait_for(state="attached")
    south.wait_for_timeout(400)
    assert not south.evaluate(IN_VIEW, ".bidding-box")
    south.locator("#close-review").tap()
    south.wait_for_function(f"({IN_VIEW})('.bidding-box')", timeout=5000)
    # A person who scrolled down to the table, the place of the box at the screen's
    # top, is left there: the box comes above what they look at (the browser keeps
    # that in place), partly in view, and the page is not scrolled up to it.
    south.locator('#bidding button[data-call="Pass"]').tap()
    south.wait_for_function("!document.querySelector('#bidding button')")
    south.evaluate("scrollTo(0, document.querySelector('#bidding').getBoundingClientRect().top + scrollY - 60)")
    south.wait_for_timeout(100)
    felt = "Math.round(document.querySelector('#felt').getBoundingClientRect().top)"
    looked_at = south.evaluate(felt)
    seen_south_call()
    move_until(others, ["1R", "Pass", "Pass"], lambda view: view["turn"] == "S")  # W 1R, N, E pass
    south.locator("#bidding button").first.wait_for()
    south.wait_for_timeout(400)
    assert south.evaluate(felt) == looked_at
    assert south.evaluate(IN_VIEW, ".bidding-box")
    for client in clients.values():
        client.close()
    assert not south.errors


def test_touch_targets_in_the_auction_the_buttons_and_the_lobby_form_are_24_px_high_at_least(browser, server):
    # On a touch screen the auction's explained calls were 21 px high, stacked
    # without a gap, the top bar's buttons 21 px, the review's Earlier and Later 22 and
    # the lobby's fields 20 to 23 (WCAG 2.5.8 asks 24).
    view = {"dealer": "N", "phase": "auction", "turn": "N",
            "auction": [{"seat": s, "call": c} for s, c in zip("NESWNESW", ["1R", "Pass", "2P", "Pass",
                                                                             "2R", "Pass", "3R", "Pass"])]}
    created = server.create_table({seat: BOT for seat in "NESW"}, length={"hands": 1})
    page = open_touch_page(browser, server, created["spectate_url"], IPHONE)
    page.wait_for_selector("#review-dialog[open] .review[data-hand='1']", timeout=HAND_TIMEOUT_MS)
    # (Hint, Claim the rest and Take back, a seat's on its turn, were 22 px: shown here as they are drawn)
    page.evaluate("document.querySelectorAll('.hint-line button').forEach((b) => b.classList.remove('hidden'))")
    buttons = page.evaluate("""() => [...document.querySelectorAll(
      '.topbar button, .topbar select, .review-nav button, .hint-line button, #close-review')]
      .map((b) => [b.id, b.getBoundingClientRect().height])""")
    assert len(buttons) >= 10 and all(height >= 24 for _, height in buttons), buttons
    # and the new-table form's fields (20 to 23 px high)
    lobby = open_touch_page(browser, server, "/", IPHONE)
    lobby.wait_for_selector("#seat-choices select[name=level_W]")
    fields = lobby.evaluate("""() => [...document.querySelectorAll(
      '#create-form input, #create-form select, #create-button, .more-options summary')]
      .map((b) => [b.name || b.id || b.tagName, b.getBoundingClientRect().height])""")
    assert len(fields) >= 14 and all(height >= 24 for _, height in fields), fields
    lobby.context.close()
    page.goto("/static/cards.html")
    render_in_page(page, "auction", "renderAuction", view, ["explained"] * 8)
    cells = page.evaluate("""() => [...document.querySelectorAll('table.auction td.explained')]
      .map((c) => c.getBoundingClientRect().height)""")
    assert len(cells) == 8 and min(cells) >= 24, cells
    # the desktop keeps its layout: no pointer to aim coarsely
    desktop = open_page(browser, server, "/static/cards.html")
    render_in_page(desktop, "auction", "renderAuction", view, ["explained"] * 8)
    assert desktop.evaluate("document.querySelector('table.auction td.explained').getBoundingClientRect().height") < 24
    assert not page.errors


def test_a_card_hovered_near_its_foot_stays_raised_under_the_pointer(browser, server):
    # A playable card under the pointer rises 8 px: with the pointer in the
    # bottom 8 px of its strip, the raised card left the pointer, lost :hover,
    # dropped back under it, rose again: it flickered.
    created, clients = people_table_at(server, EAST_DECLARES,
                                       lambda view: view["phase"] == "play" and view["turn"] == "S")
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    south.locator("#position-bottom .hand .card.playable").first.wait_for()
    south.mouse.move(0, 0)
    strips = south.evaluate(VISIBLE_STRIPS)
    bottoms = south.evaluate("""() => [...document.querySelectorAll('#position-bottom .hand .card')]
      .map((c) => c.getBoundingClientRect().bottom)""")
    for i in (0, 5, 12):
        x, y = strips[i]["x"], bottoms[i] - 3
        south.mouse.move(x, y)
        seen = []
        for _ in range(6):                                      # through and after the lift
            south.wait_for_timeout(50)
            seen.append(south.evaluate(CARD_AT, [x, y]))
        assert seen == [[i, i]] * 6, (i, seen)
    for client in clients.values():
        client.close()
    assert not south.errors



IPAD_LANDSCAPE = {"width": 1024, "height": 768}


@pytest.mark.parametrize("viewport", [IPAD_LANDSCAPE, IPAD], ids=["landscape", "portrait"])
def test_a_tablet_shows_the_declarers_hand_and_the_dummy_whole_on_its_screen(browser, server, viewport):
    # Below 1280 px a face-up hand took a line per suit: on an iPad on its side the
    # declarer's hand ran from 691 to 1014 px of a 768 px screen, and in portrait its
    # last suit was below the screen.
    created = left_table_at(server, SOUTH_DECLARES,
                            lambda view: view["phase"] == "play" and view["turn"] == "N")
    south = open_touch_page(browser, server, created["invitations"]["S"]["url"], viewport)
    south.locator('#position-top[data-seat="N"] .card.playable').first.wait_for()
    boxes = south.evaluate("""() => Object.fromEntries(['#position-top .hand', '#position-bottom .hand', '#trick .card']
        .map((s) => { const r = document.querySelector(s).getBoundingClientRect();
        return [s, [Math.round(r.top), Math.round(r.bottom), Math.round(r.left), Math.round(r.right)]]; }))""")
    screenshot(south, f"tablet-{viewport['width']}x{viewport['height']}-declarer-dummy-turn")
    assert south.evaluate("scrollY") == 0
    assert south.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    for part, (top, bottom, left, right) in boxes.items():
        assert 0 <= top and bottom <= viewport["height"] and 0 <= left and right <= viewport["width"], \
            (part, boxes)
    assert not south.errors


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_hint_at_a_table_of_bots_says_what_a_bot_would_do_and_goes_with_the_turn(browser, server, viewport):
    created = server.create_table({"N": "basic", "E": BOT, "S": "human", "W": BOT})
    south = open_page(browser, server, created["invitations"]["S"]["url"], viewport)
    wait_for_table(south)
    south.locator("#bidding button").first.wait_for()
    if viewport is PHONE:   # the key H asks as the button does
        south.keyboard.press("h")
    else:
        south.locator("#ask-hint").click()
    south.wait_for_function("document.querySelector('#advice').textContent.startsWith('Hint from a basic bot: ')")
    advice = south.locator("#advice").inner_text()
    # the button and its answer are in the panel, on screen, and widen nothing
    assert south.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(south, f"table-hint-{'phone' if viewport is PHONE else 'desktop'}")
    # what a websocket client asking at the same turn is told (the same bot, the same view)
    other = Client(server.url.replace("http", "ws", 1) + f"/ws/tables/{created['table']['id']}")
    other.send({"type": "hello", "token": created["invitations"]["S"]["token"]})
    other.until(lambda m: m["type"] == "snapshot")
    other.send({"type": "hint", "id": "x"})
    hint = other.until(lambda m: m["type"] == "hint")
    other.close()
    assert hint["kind"] == "call" and advice.startswith("Hint from a basic bot: ")
    assert advice.endswith(f" ({hint['explanation']}).") if hint["explanation"] else advice.endswith(".")
    called = south.locator(f'#bidding button[data-call="{hint["action"]}"]')
    assert called.count() == 1     # a call the bidding box offers
    called.click()
    # the turn is over: the hint goes with it, and comes back only when asked for
    south.wait_for_function("document.querySelector('#advice').textContent === ''")
    assert south.locator("#refusal").inner_text() == ""
    assert not south.errors


def test_the_hint_button_is_offered_only_at_a_table_where_every_other_seat_is_a_bot(browser, server):
    created = server.create_table({"N": "human", "E": BOT, "S": "human", "W": BOT})
    north = open_page(browser, server, created["invitations"]["N"]["url"])
    wait_for_table(north)
    north.locator("#bidding button").first.wait_for()     # (dealer North: North's turn)
    assert north.locator("#ask-hint").is_hidden() and north.locator(".hint-line").is_hidden()
    # nor Take back, whose key says why (before any call of North's, the people come first),
    # on the refusal line, seen and read out (the hidden announcement alone was heard, not seen)
    north.keyboard.press("u")
    north.wait_for_function("document.querySelector('#refusal').textContent.startsWith('Calls and cards')")
    assert north.locator("#refusal").inner_text() == (
        "Calls and cards are taken back only at a table of one person and three bots.")
    assert north.locator("#refusal").is_visible() and north.locator("#refusal").get_attribute("role") == "alert"
    north.keyboard.press("h")
    north.wait_for_function("document.querySelector('#refusal').textContent.startsWith('Hints')")
    assert north.locator("#refusal").inner_text() == "Hints are given only at a table of one person and three bots."
    assert not north.errors


CALLS_SHOWN = "[...document.querySelectorAll('#auction td')].filter((td) => td.textContent && !td.classList.contains('pending')).length"
TRICK_CARDS = "#trick .slot [data-code]"


def south_alone_with_bots(browser, server):
    """The page of South, a person alone with three bots at a new table, once it shows the table."""
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    wait_for_table(south)
    return south


def test_take_back_returns_the_turn_and_says_what_was_taken_back(browser, server):
    south = south_alone_with_bots(browser, server)
    south.locator("#bidding button").first.wait_for()
    assert south.locator("#take-back").is_hidden()     # nothing of South's in this hand yet
    before = south.evaluate(CALLS_SHOWN)
    # 7NT: South declares, the bots pass, West leads, and the dummy's card is South's to play
    south.locator('#bidding button[data-call="7NT"]').click()
    south.locator("#felt .card.playable").first.wait_for()
    lead = south.locator(TRICK_CARDS).first.get_attribute("data-code")
    seq = int(south.evaluate("document.body.dataset.seq"))
    south.locator("#take-back").dblclick()      # once: the second press is not sent
    south.locator("#bidding button").first.wait_for()
    said = south.locator("#advice").inner_text()      # shown beside the button, and said from there
    assert south.locator("#advice").is_visible()
    time.sleep(0.3)
    assert int(south.evaluate("document.body.dataset.seq")) == seq + 1 and south.locator("#refusal").inner_text() == ""
    assert said.startswith("Taken back: your 7 No Trump, then West Pass, North Pass, East Pass, West "
                           f"{lead}, "), said
    assert south.evaluate(CALLS_SHOWN) == before and south.locator(TRICK_CARDS).count() == 0
    assert south.locator("#take-back").is_hidden()
    # and by its key, in the play: the dummy's card and East's after it taken back
    south.locator('#bidding button[data-call="7NT"]').click()
    south.locator("#felt .card.playable").first.wait_for()
    played = south.locator("#felt .card.playable").first.get_attribute("data-code")
    south.locator("#felt .card.playable").first.click(position={"x": 6, "y": 12})
    south.wait_for_function(f"document.querySelectorAll('{TRICK_CARDS}').length === 3")
    south.keyboard.press("u")
    south.wait_for_function("document.querySelector('#advice').textContent.startsWith('Taken back: the')")
    said = south.locator("#advice").inner_text()
    assert said.startswith(f"Taken back: the dummy's (North) {played}, "), said
    assert ", then East " in said
    south.wait_for_function(f"document.querySelectorAll('{TRICK_CARDS}').length === 1")   # West's lead stands
    assert south.locator(f'#felt .card.playable[data-code="{played}"]').count() >= 1
    assert not south.errors


def test_the_second_click_of_a_double_click_on_a_call_does_not_press_the_button_moved_under_it(browser, server):
    # The Pass that ended the auction took the bidding box away, and the line of Take
    # back, Hint and Claim the rest moved up into its place: the second click of a double
    # click pressed what lay there now (Take back took the Pass back). The browser counts
    # that click (event.detail 2); it comes at once, so it is sent here as the page gets it.
    south = south_alone_with_bots(browser, server)
    south.locator("#bidding button").first.wait_for()
    south.locator('#bidding button[data-call="7NT"]').click()
    south.locator("#take-back").wait_for(state="visible")
    second = "(id) => document.getElementById(id).dispatchEvent(new MouseEvent('click', {detail: 2, bubbles: true}))"
    south.evaluate(second, "take-back")
    south.evaluate(second, "ask-hint")
    time.sleep(0.5)
    assert not south.locator("#advice").inner_text().startswith("Taken back")
    assert south.locator("#bidding button").count() == 0        # the call stands: no turn back
    assert south.locator("#advice").inner_text() == ""          # no hint asked for either
    # a click of its own (the first of a double click, or one later) is taken
    south.locator("#take-back").click()
    south.locator("#bidding button").first.wait_for()
    assert south.locator("#advice").inner_text().startswith("Taken back: your 7 No Trump")
    assert not south.errors


# A click as the browser gives a person's, one at a time (event.detail 1), at a place: sent as
# the page gets it, whatever lies there by then (what moves under the pointer depends on the width)
CLICK_AT = """(element, [x, y]) => {
  element.dispatchEvent(new PointerEvent('pointerdown', { clientX: x, clientY: y, bubbles: true }));
  element.dispatchEvent(new MouseEvent('click', { detail: 1, clientX: x, clientY: y, bubbles: true }));
}"""


def test_a_slow_second_click_on_a_call_does_not_press_the_take_back_moved_under_it(browser, server):
    # A second click 0.65 s after the first (a tap repeated by a person unsure the first
    # registered) is no double click to the browser (event.detail 1): it pressed the Take
    # back that had moved up into the bidding box's place, and the call was taken back
    # (a Pass, found by a review).
    south = south_alone_with_bots(browser, server)

    def bid_at_its_place():
        south.locator("#bidding button").first.wait_for()
        # a bid (a Pass after two may end the auction, and the hand: no Take back then)
        button = south.locator("#bidding button:not(.pass)").first
        box = button.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        seq = int(south.evaluate("document.body.dataset.seq"))
        button.evaluate(CLICK_AT, [x, y])
        south.wait_for_function(f"Number(document.body.dataset.seq) > {seq}")
        south.locator("#take-back").wait_for(state="visible")
        return x, y

    x, y = bid_at_its_place()
    south.wait_for_timeout(650 - 100)
    shown = south.evaluate(CALLS_SHOWN)
    south.locator("#take-back").evaluate(CLICK_AT, [x, y])
    south.wait_for_timeout(400)
    assert not south.locator("#advice").inner_text().startswith("Taken back")
    assert south.evaluate(CALLS_SHOWN) >= shown                 # the bid stands (the bots call at once)
    # once the second has passed, a click there is the person's own: taken
    south.wait_for_timeout(200)
    south.locator("#take-back").evaluate(CLICK_AT, [x, y])
    south.wait_for_function("document.querySelector('#advice').textContent.startsWith('Taken back')")
    # and a slow second tap on Take back itself, which stays where it is, is dropped too (it was
    # sent, a second take back: where the person had called before, that call went too)
    taken = south.locator("#advice").inner_text()
    shown = south.evaluate(CALLS_SHOWN)
    south.wait_for_timeout(450)
    south.locator("#take-back").evaluate(CLICK_AT, [x, y])
    south.wait_for_timeout(400)
    assert south.locator("#advice").inner_text() == taken and south.evaluate(CALLS_SHOWN) >= shown
    assert not south.errors


def test_the_second_click_of_a_double_click_on_take_back_does_not_make_the_call_brought_back_under_it(
        browser, server):
    # Found by the take-back test failing under load: Take back brought the bidding box
    # back before the double click's second click came, and that click made the call that
    # lay under the pointer now (a 7NT taken back, then bid again, and the bots' passes)
    south = south_alone_with_bots(browser, server)
    south.locator("#bidding button").first.wait_for()
    south.locator('#bidding button[data-call="7NT"]').click()
    # the bots' passes and West's lead made, the dummy's card is South's to play: nothing
    # moves on before the take back arrives (under load a bot's pass came first once, and
    # the take back was refused as "moved on")
    south.locator("#felt .card.playable").first.wait_for()
    south.locator("#take-back").click()
    # the second click, sent as soon as the call lies under the pointer
    # (waited for 20 s at most: a CI run under load once waited here until pytest's timeout)
    assert south.evaluate("""async () => {
      const under = () => document.querySelector("#bidding button[data-call='7NT']");
      const until = Date.now() + 20000;
      while (!under() && Date.now() < until) await new Promise((frame) => requestAnimationFrame(frame));
      if (!under()) return document.querySelector("#refusal").textContent || document.body.dataset.seq || "no call";
      under().dispatchEvent(new MouseEvent('click', { detail: 2, bubbles: true }));
      return true;
    }""") is True
    seq = int(south.evaluate("document.body.dataset.seq"))
    time.sleep(0.5)
    assert int(south.evaluate("document.body.dataset.seq")) == seq      # no call made
    assert south.locator("#bidding button").count() > 0 and south.locator("#take-back").is_hidden()
    # a click of its own is taken
    south.locator('#bidding button[data-call="7NT"]').click()
    south.locator("#take-back").wait_for(state="visible")
    assert int(south.evaluate("document.body.dataset.seq")) > seq
    assert not south.errors


def test_review_before_any_hand_is_over_looks_unavailable(browser, server):
    # it was drawn as Keys is, and a click on it did nothing
    south = south_alone_with_bots(browser, server)
    review, keys = south.locator("#open-review"), south.locator("#open-keys")
    assert review.is_disabled()
    assert review.evaluate("(e) => getComputedStyle(e).opacity") == "0.5"
    assert review.evaluate("(e) => getComputedStyle(e).cursor") == "not-allowed"
    assert keys.evaluate("(e) => getComputedStyle(e).opacity") == "1"
    assert not south.errors


def test_take_back_not_sent_while_offline_is_taken_back_once_connected_again(browser, server):
    # the press while offline was kept as sent, so every later press (and U) was taken for
    # its double and dropped, until the table moved on
    south = south_alone_with_bots(browser, server)
    south.locator("#bidding button").first.wait_for()
    south.locator('#bidding button[data-call="7NT"]').click()
    south.locator("#felt .card.playable").first.wait_for()      # the bots wait for South's card
    south.context.set_offline(True)
    status_is(south, "reconnecting…", 5_000)
    south.locator("#take-back").click()
    assert south.locator("#refusal").inner_text().startswith("Not connected: that was not sent")
    south.context.set_offline(False)
    status_is(south, "connected", 10_000)
    south.keyboard.press("u")
    south.locator("#bidding button").first.wait_for()       # South's 7NT and all after it went
    assert south.locator("#take-back").is_hidden()         # nothing of South's left in the hand
    assert south.locator("#advice").inner_text().startswith("Taken back: your 7 No Trump")
    assert not south.errors


def test_take_back_is_offered_while_the_bots_think_and_by_the_keyboard_hands_focus_to_the_turn(browser, tmp_path):
    # (the line it sits in was hidden whenever Hint and Claim were: between the person's turns)
    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.testing import ServerThread

    config = ServerConfig(database=str(tmp_path / "t.db"), bot_delay=1, replace_after=None, analysis=False)
    with ServerThread(config) as server:
        created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
        south = open_page(browser, server, created["invitations"]["S"]["url"])
        wait_for_table(south)
        south.locator("#bidding button").first.wait_for()
        south.keyboard.press("7")
        south.keyboard.press("n")           # 7NT; West thinks for a second
        south.locator("#take-back").wait_for(state="visible", timeout=900)
        assert south.locator("#bidding button").count() == 0 and south.locator(".hint-line").is_visible()
        south.locator("#take-back").focus()
        south.keyboard.press("Enter")
        south.locator("#bidding button").first.wait_for()
        assert south.locator("#take-back").is_hidden()      # South's only call went
        # at once, as the box comes back (not left on the page, for a later turn to pick up)
        assert south.evaluate("document.activeElement.closest('#bidding') !== null")
        assert south.evaluate("document.activeElement.dataset.call") == "Pass"     # the box's tab stop
        assert not south.errors


@contextlib.contextmanager
def _claims_at_a_table_of_bots(browser, tmp_path, monkeypatch, hands: int):
    """South's page at a table of three random bots, and the table as the server
    holds it: a server in this process, where the test can judge each claim with the
    table's own state; the table's seed fixed, so that the bots play the same every run."""
    from flowerbridge.server.config import ServerConfig
    from flowerbridge.server.testing import ServerThread

    config = ServerConfig(database=str(tmp_path / "t.db"), bot_delay=0, replace_after=None, analysis=False)
    with ServerThread(config) as server:
        # (a seed whose first hand has what both tests look for: a claim refused, one
        # accepted, and a sound claim of the last trick; "1" * 32 had them by the third)
        monkeypatch.setattr("flowerbridge.server.table.secrets.token_hex", lambda n: "8" * 32)
        created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT}, length={"hands": hands})
        monkeypatch.undo()
        # (each answer's floor, tested in test_server.py, took half a minute over the claims here)
        monkeypatch.setattr("flowerbridge.server.manager.CLAIM_ANSWER_SECONDS", 0.0)
        south = open_page(browser, server, created["invitations"]["S"]["url"])
        wait_for_table(south)
        yield server.app.state.manager.tables[created["table"]["id"]], south


def test_a_claim_of_the_last_trick_says_it_goes_to_your_side(browser, tmp_path, monkeypatch):
    # one trick claimed read "the last trick of hand 4 go to your side" (a browser review)
    from flowerbridge.claims import judge_claim

    with _claims_at_a_table_of_bots(browser, tmp_path, monkeypatch, hands=6) as (live, south):
        said = []

        def claim_the_last_trick(page, bid_once, before_card):
            turn = page.evaluate(TURN)
            state = live.table.state
            if not (turn and turn["card"]) or said or len(state.tricks) < 12 or judge_claim(state) is None:
                return act_by_mouse(page, bid_once, before_card)
            page.locator("#claim-rest").click()
            page.wait_for_function("document.querySelector('#advice').textContent.startsWith('Claim accepted')")
            said.append(page.locator("#advice").inner_text())
            return turn["seq"]

        for _ in range(6):
            play_hand([south], claim_the_last_trick)
            if said:
                break
            south.locator("#close-review").click()
        assert said and re.fullmatch(r"Claim accepted: the last trick of hand \d goes to your side; "
                                     r"the cards are played out\.", said[0])
        assert not south.errors


def test_a_claim_at_a_table_of_bots_is_refused_or_accepted_and_played_out(browser, tmp_path, monkeypatch):
    from flowerbridge.claims import judge_claim

    with _claims_at_a_table_of_bots(browser, tmp_path, monkeypatch, hands=3) as (live, south):
        told = {"refused": 0, "accepted": 0}

        def claim_then_play(page, bid_once, before_card):
            turn = page.evaluate(TURN)
            if turn and turn["call"]:   # in the auction a hint is offered, a claim is not
                assert page.locator("#ask-hint").is_visible() and page.locator("#claim-rest").is_hidden()
            if not (turn and turn["card"]) or told["accepted"]:
                return act_by_mouse(page, bid_once, before_card)
            assert page.locator("#claim-rest").is_visible() and page.locator("#ask-hint").is_visible()
            good = judge_claim(live.table.state) is not None
            if not good and told["refused"]:    # (one refusal seen: the rest of the hand played)
                return act_by_mouse(page, bid_once, before_card)
            if good:
                page.evaluate(LIVE_RECORDER)
            page.locator("#claim-rest").click()
            if good:
                page.wait_for_function("document.querySelector('#advice').textContent.startsWith('Claim accepted')")
                # (one trick "goes", as a helper's review found it said "go")
                assert re.fullmatch(r"Claim accepted: the last (\d+ tricks of hand \d go|trick of hand \d goes) "
                                    r"to your side; the cards are played out\.", page.locator("#advice").inner_text())
                # the cards played out for the person are said, but no turn of theirs: they have
                # nothing to do (it said "Your card." at each of their cards the server played)
                page.wait_for_function("window.__live.some(([, text]) => /Trick 13 to/.test(text))")
                said = " ".join(text for _, text in page.evaluate("window.__live"))
                assert "Trick 13 to" in said and "Your card" not in said, said
                told["accepted"] += 1
                return turn["seq"]
            page.wait_for_function("document.querySelector('#refusal').textContent")
            assert page.locator("#refusal").inner_text() == (
                "Claim not accepted: a defence, or a lie of the cards you cannot see, could still take a "
                "trick from your side; play on.")      # (the server's words, as a sentence)
            assert page.evaluate("document.body.dataset.seq") == turn["seq"]     # nothing changed
            if not told["refused"]:
                screenshot(page, "table-claim-refused")
            told["refused"] += 1
            return act_by_mouse(page, bid_once, before_card)

        for _ in range(3):
            play_hand([south], claim_then_play)
            if told["accepted"]:
                break
            south.locator("#close-review").click()
        assert told["accepted"] == 1 and told["refused"] >= 1
        assert not south.errors


def test_how_to_play_gives_the_engines_figures_and_is_linked_from_the_lobby_and_the_table(browser, server):
    # a person new to the game had the deck's page and nothing of its rules in the browser
    from flowerbridge.calls import Denomination
    from flowerbridge.options import RuleOptions
    from flowerbridge.scoring import contract_points

    options = RuleOptions()
    lobby = open_page(browser, server, "/")
    lobby.get_by_role("link", name="Rules").click()     # (a short word: the bar is one line at 360 px)
    lobby.wait_for_url("**/static/rules.html")
    page = lobby
    assert page.locator("h1").inner_text() == "How to play" and page.title() == "How to play — Flower Bridge"

    def table(name):
        rows = page.locator(f"#{name} tbody tr")
        return {rows.nth(i).locator("th").inner_text(): [int(td) for td in rows.nth(i).locator("td").all_inner_texts()]
                for i in range(rows.count())}

    # Ch. 11 (R13, R14): first level, each further level, each overtrick, by denomination
    assert table("contract-points") == {
        name: [*options.contract_points[d], options.overtrick_points[d]]
        for name, d in (("Plains", Denomination.P), ("Ribbons", Denomination.R),
                        ("Bright Animals", Denomination.A), ("No Trump", Denomination.NT))}
    # Ch. 13 (R16): one copy, both copies
    assert table("honors") == {name: [first, first + second] for name, (first, second) in
                               zip(("Plain", "Ribbon", "Animal", "Bright"), options.honor_values)}
    figures = {name: int(page.locator(f"#{name}").inner_text())
               for name in ("undertrick", "five-bright", "ten-bright", "game")}
    assert figures == {"undertrick": options.undertrick_penalty, "five-bright": options.five_bright_bonus,
                       "ten-bright": options.ten_bright_bonus, "game": options.game_points}
    # "3NT, 4R, 4A or 5P is a game in one hand": the lowest game of each denomination
    games = page.locator("#game-in-one code").all_inner_texts()
    assert sorted(games) == sorted(
        next(f"{level}{d.name}" for level in range(1, 8) if contract_points(level, d) >= options.game_points)
        for d in Denomination)
    assert not page.errors
    # on a phone, nothing runs off the screen (the scoring table's overtricks were 50 px off it)
    phone = open_page(browser, server, "/static/rules.html", viewport=PHONE)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    phone.context.close()
    # and from the deck's page
    deck = open_page(browser, server, "/static/cards.html")
    assert deck.get_by_role("link", name="Rules").get_attribute("href") == "/static/rules.html"
    # at the table, from the keys' list, in a new tab (the table stays)
    created = server.create_table({"N": BOT, "E": BOT, "S": "human", "W": BOT})
    south = open_page(browser, server, created["invitations"]["S"]["url"])
    wait_for_table(south)
    south.locator("#open-keys").click()
    link = south.locator("#keys-dialog").get_by_role("link", name="How to play")
    assert link.get_attribute("href") == "/static/rules.html" and link.get_attribute("target") == "_blank"
    assert not south.errors
