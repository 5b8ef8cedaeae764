// The table page: draws what the server sends (docs/protocol.md) and sends
// the seat's calls and cards. Legality is the server's: the page offers the
// `legal` list of its view, and shows the server's error when it refuses.

import { el, asSentence, bindLanguageSelect, describeLength, failed, openedByKeyboard, shownAndSaid, store, stored }
  from "./ui.js";
import { loadCatalogue, cardElement, getLanguage, setLanguage } from "./catalogue.js";
import { cardName } from "./cards.js";
import { TableConnection, TOO_MANY } from "./connection.js";
import { HAND_SIZE, SEATS, SEAT_NAMES, positions } from "./seats.js";
import { holding } from "./views/hands.js";
import { recentCalls, renderAuction, renderBiddingBox, moveInBiddingBox, spokenCall, splitCall } from "./views/auction.js";
import { renderCopiesSeen } from "./views/copies.js";
import { renderScoresheet } from "./views/scoresheet.js";
import { renderReview, headline } from "./views/review.js";
import { takenBackText } from "./views/takeback.js";

const SIDE_NAMES = { NS: "North-South", EW: "East-West" };
const COPIES_KEY = "flowerbridge.copies-seen";
const SINGLE_KEYS_KEY = "flowerbridge.single-key-shortcuts";
const BROKEN_LINK = "broken-link";  // showRefusedLink's reason for an address that cannot be decoded
const DENOMINATION_KEYS = { p: "P", r: "R", a: "A", n: "NT" };

const state = {
  catalogue: null,
  standInDue: {},        // seat: when its stand-in comes at the latest (ms), while its person is away
  language: getLanguage(),
  role: null,            // "seat" or "spectator"
  seat: null,            // this page's seat, null for a spectator
  table: null,
  hand: null,
  view: null,
  seen: {},
  explanations: [],
  scoresheet: null,
  review: null,          // the review of the latest finished hand
  reviewing: null,       // an earlier hand's review shown in the window instead (null: the latest)
  reviewAsked: 0,        // counts the looks at an earlier hand and the hands' ends (reviewHand)
  reviewTarget: null,    // the hand whose review is on its way
  tableId: null,
  pendingLevel: null,    // a level typed at the keyboard, waiting for its denomination
  refusal: null,         // why the last action was refused, until this page acts again or a new deal
  turnShown: null,       // the turn last brought into view (showTurn), as turnKey gives it
  hint: null,            // why a card clicked cannot be played, until the next event or action
  advice: null,          // a bot's hint for this seat's turn, {seq, text}: shown while seq is the latest
  claimed: null,         // {hand, text}: "Claim accepted: …", until this seat acts again
  takingBack: null,      // the seq a take-back was sent at: a second press on that view is not sent
  stoodIn: null,         // what a stand-in did for this seat while the person was away, until they act
  watchedResult: null,   // a spectator's last hand's result, {hand, text}: shown until the next hand's lead
  linkRefused: false,    // the server refused this link for good (showRefusedLink)
  showCopies: stored(COPIES_KEY) !== "off",
  showLastTrick: false,
  singleKeys: stored(SINGLE_KEYS_KEY) !== "off",  // P, R, A, N, 1-7, L, C, R, ?
  keyboard: false,       // the person's last input was a key, not a pointer: focus follows the turn
  currentCall: null,     // the call of the bidding box that holds its tab stop
  currentCard: null,     // the playable card that holds the hand's tab stop (none: the first)
  spoken: [],            // what the message being applied has to say to screen readers
  openers: new Map(),    // each open window: the control that opened it (null: the page opened it)
};

let connection = null;
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ actions

const NOT_SENT = "Not connected: that was not sent. Reconnecting… try again once connected.";
const BLOCKED = "The server answers, but refuses this page's connection to the table. Still trying; " +
  "if this goes on, tell whoever runs the server: its log may say why (a proxy in front of it " +
  "may not pass websockets on).";

function act(action) {
  const blocked = state.refusal?.endsWith(BLOCKED);
  state.refusal = null;
  state.hint = null;
  state.claimed = null;
  state.stoodIn = null;
  if (!connection.act(action)) {
    // the socket is down: say so rather than let the click vanish (nor why it is down)
    state.refusal = blocked ? `That was not sent. ${BLOCKED}` : NOT_SENT;
    draw();
    return false;
  }
  $("refusal").textContent = "";  // an earlier refusal is answered by this action
  return true;
}

// This seat called or played (from this window, or another of the same seat): what
// this window was told or had begun for its turn is over — a level typed here, a
// refusal of an earlier try, a hint, what a stand-in did while the person was away.
function actedElsewhere() {
  state.pendingLevel = null;
  state.currentCall = null;
  state.refusal = null;
  state.hint = null;
  state.claimed = null;
  state.stoodIn = null;
}

function sendCall(call) {
  state.pendingLevel = null;
  state.currentCall = null;  // the next turn's tab stop is Pass again
  acted();
  act({ type: "call", call });
}

// The second click of a double click (the browser counts it: event.detail 2) soon after
// this page called or played a card is dropped, on a card and on the buttons below the
// bidding box. Sent before the first was answered, the server refuses it (stale); but
// where the first card won the trick and the lead came back at once, the hand closed up
// under the pointer and the second click led the card that lay there now; where the turn
// had passed, it said "Not your turn"; where the Pass that ended the auction took the
// bidding box away, the second click landed on the Take back, Hint or Claim the rest that
// moved up into its place (and took the Pass back); and where Take back brought the
// bidding box back, on the call that lay there now (and made it). So a Take back counts as
// acting, and the calls' buttons drop it too.
// A click the browser does not count as a double one (a slower second tap, 0.45 to 0.65 s
// after the first, which a person unsure the first registered makes) landed there too, on
// the Take back that had moved under it, and took the call back: a click soon after acting,
// at the place the acting click was made, on another control than it pressed, is dropped
// as well. (The same control there is a turn come round again: Pass, Pass, where the
// others call at once.)
// A key's press (Enter or Space: no click count) is no double click, but pressed twice in
// quick succession it acted twice all the same: where the card won the trick and the lead
// came back, the page had moved focus to a card of the new lead, and the second press led
// it; where the card ended the hand, to the review's Close, and the second press shut the
// review as it opened. A key's press soon after acting, on the control the page has moved
// focus to since (not one the person moved to), is dropped.
const DOUBLE_CLICK_MS = 1000;
const KEY_AGAIN_MS = 500;
const SAME_PLACE_PX = 16;
let actedAt = -Infinity;
let pageFocus = { element: null, at: -Infinity };   // what the page itself last focused, and when

function focusByPage(element) {
  element.focus();
  pageFocus = { element: document.activeElement, at: performance.now() };
}
let actedPoint = null;      // where the pointer went down for the action, and on what
let pointerAt = null;
document.addEventListener("pointerdown", (event) => {
  pointerAt = { x: event.clientX, y: event.clientY, at: performance.now(), control: controlOf(event.target) };
}, true);

// What a control does, the same across redraws: a call, a card, a button by its id.
function controlOf(target) {
  const control = target?.closest?.("button, .card");
  if (!control) return null;
  if (control.dataset.call) return `call ${control.dataset.call}`;
  if (control.dataset.code) return `card ${control.dataset.code}`;
  return control.id ? `#${control.id}` : null;
}

function acted() {
  actedAt = performance.now();
  actedPoint = pointerAt && actedAt - pointerAt.at < DOUBLE_CLICK_MS ? pointerAt : null;
}

function secondClick(event) {
  const since = performance.now() - actedAt;
  if (event.detail < 1) {     // (a key's)
    return since < KEY_AGAIN_MS && pageFocus.at >= actedAt && event.currentTarget === pageFocus.element;
  }
  if (since >= DOUBLE_CLICK_MS) return false;
  if (event.detail >= 2) return true;
  if (actedPoint === null
    || Math.hypot(event.clientX - actedPoint.x, event.clientY - actedPoint.y) > SAME_PLACE_PX) return false;
  // the same call there is a turn come round again; a card played is gone (the same code
  // there now is its twin, slid under the pointer), and Take back stays where it was (a
  // second tap took back a second call)
  return controlOf(event.target) !== actedPoint.control || !actedPoint.control?.startsWith("call ");
}

// a call by its button (a key's call is sent by sendCall itself)
function clickedCall(call, event) {
  if (!secondClick(event)) sendCall(call);
}

function sendPlay(code) {
  acted();
  act({ type: "play", card: code });
}

// The one person at the table may close it for good: every other seat a bot,
// or its person away (the server checks it again).
function mayClose() {
  if (state.role !== "seat" || !state.table || state.table.closed || sessionOver()) return false;
  return Object.entries(state.table.seats || {}).every(([seat, info]) =>
    seat === state.seat || info.player !== "human" || !info.connected);
}

// A hint, at a table where every other seat is a bot (the server checks it again):
// what a bot would call or play here, from this seat's own view.
function mayAskHint() {
  return state.role === "seat" && isMyTurn() && !sessionOver() && aloneWithBots();
}

function aloneWithBots() {
  return Object.entries(state.table?.seats || {}).every(([seat, info]) => seat === state.seat || info.player !== "human");
}

function askHint() {
  // sent as it is, not as an action: the answer may take a thinking bot a few seconds
  if (!connection.send({ type: "hint", seq: connection.seq, id: `h${connection.seq}` })) {
    state.refusal = NOT_SENT;
  } else {
    state.advice = { seq: connection.seq, text: "Asking a bot…" };
  }
  draw();
}

// A claim of every trick left, in the play at this seat's turn (the server judges it:
// no defence may take a trick, nor may it need a guess; accepted, it plays the cards out).
function mayClaim() {
  return mayAskHint() && state.view.phase === "play";
}

function claimRest() {
  state.refusal = null;
  state.claimed = null;
  if (!connection.send({ type: "claim", seq: connection.seq, id: `k${connection.seq}` })) state.refusal = NOT_SENT;
  draw();
}

// Taking back this seat's last call or card of the hand, and what the bots made after
// it, at a table where every other seat is a bot (the server checks it again): from its
// first call of the hand until the hand is over.
function mayTakeBack() {
  return !whyNoTakeBack();
}

// Why this page may not take back now (null: it may), as the key U says it.
function whyNoTakeBack() {
  if (state.role !== "seat") return "Only a person seated at the table can take back.";
  if (!aloneWithBots()) return "Calls and cards are taken back only at a table of one person and three bots.";
  if (state.table?.closed || sessionOver()) return "The session is over: nothing to take back.";
  if ((state.view?.phase !== "auction" && state.view?.phase !== "play") ||
      !state.view.auction.some((call) => call.seat === state.seat)) return "Nothing of yours to take back in this hand.";
  return null;
}

function takeBack() {
  // a double press sent two: the second, on the view the first had left, was refused
  // (stale) and the page said "The table moved on before that arrived"
  if (state.takingBack === connection.seq) return;
  state.takingBack = connection.seq;
  acted();
  state.advice = null;
  // not sent (offline): a press once connected again is a first press, not a double one
  // (it did nothing until the table moved on)
  if (!act({ type: "undo" })) state.takingBack = null;
  draw();
}

function adviceText(message) {
  const what = message.kind === "play"
    ? `${message.action}, ${cardName(state.catalogue.get(message.action), state.language)}`
    : spokenCall(message.action);
  return `Hint from a ${message.level} bot: ${what}` + (message.explanation ? ` (${message.explanation})` : "") + ".";
}

function closeTable() {
  // the button that opened the window goes with the table: focus waits on the
  // turn line, which says the session is over
  state.openers.set($("close-dialog"), $("message"));
  state.closing = true;     // the close's own news says the session is over: said once
  $("close-dialog").close();
  act({ type: "close" });
}

// ------------------------------------------------------------- what is whose

const SUIT_NAMES = { A: "Bright Animals", R: "Ribbons", P: "Plains" };

// The view as the page draws whose turn it is: nobody's once the table is closed (closed in
// the auction, its grid, its recent calls and South's seat still awaited a call)
function turnView() {
  return state.table?.closed ? { ...state.view, turn: null, actor: null } : state.view;
}

function isMyTurn() {
  return Boolean(state.view && state.seat && state.view.actor === state.seat && !state.table?.closed);
}

function legalCards() {
  return isMyTurn() && state.view.phase === "play" ? state.view.legal : [];
}

function legalCalls() {
  return isMyTurn() && state.view.phase === "auction" ? state.view.legal : [];
}

function cardsPlayedBy(seat) {
  return state.view.plays.filter((play) => play.seat === seat).length;
}

function seatDescription(seat) {
  const info = state.table?.seats?.[seat];
  if (seat === state.seat) return "you";
  if (!info) return "";
  if (info.player === "bot") return `bot (${info.level})`;
  if (info.stand_in) return `away — ${info.stand_in} bot plays`;
  return info.connected ? "person" : "person, not here";
}

// ---------------------------------------------------------------- the felt

// A card of the hand this seat is choosing from: a button when it may be played.
function activeCard(code, playable) {
  if (!playable.includes(code)) return cardElement(state.catalogue, code, state.language);
  const button = cardElement(state.catalogue, code, state.language, "button");
  button.type = "button";
  button.classList.add("playable");
  // Named "Play " and the face's own name, which carries its language (lang=ja
  // or ko): an aria-label would read a Japanese or Korean name in English.
  button.prepend(el("span", { class: "visually-hidden" }, "Play "));
  button.addEventListener("click", (event) => { if (!secondClick(event)) sendPlay(code); });
  return button;
}

// The cards you may play are one stop in the `Tab` order, as the bidding box
// is: the card you last moved to (else the first); the arrow keys move between
// them (`moveFocus`). Thirteen stops made the controls after the hand far away.
function holdCardStop(cards, stop = null) {
  const list = [...cards];
  const target = stop || list.find((card) => card.dataset.code === state.currentCard) || list[0];
  for (const card of list) card.tabIndex = card === target ? 0 : -1;
}

function seatBox(seat, place) {
  const view = state.view;
  const contract = view.contract;
  const roles = [];
  if (seat === view.dealer) roles.push("dealer");
  if (contract?.declarer === seat) roles.push("declarer");
  if (contract?.dummy === seat) roles.push("dummy");
  const label = el("span", { class: `seat-label${turnView().turn === seat ? " to-act" : ""}` },
    `${SEAT_NAMES[seat]} `, el("span", { class: "role" }, [seatDescription(seat), ...roles].filter(Boolean).join(" · ")));

  const playable = legalCards();
  const choosing = playable.length && view.turn === seat;
  // As declarer, the hand that is not to play now (your own on dummy's turn,
  // the dummy's on yours) is dimmed: its cards cannot be played.
  const waiting = Boolean(playable.length && contract?.declarer === state.seat && view.turn !== seat &&
    (seat === state.seat || seat === contract.dummy));
  const how = (name) => ({
    label: name,
    makeCard: choosing ? (code) => activeCard(code, playable) : null,
  });
  const small = place !== "top" && place !== "bottom";
  let make = () => null;
  let shown = null;   // what the cards show: their node is rebuilt only when it changes
  if (seat === state.seat && view.hand.length) {
    shown = ["hand", view.hand];
    make = () => holding(state.catalogue, view.hand, state.language, how("Your hand"));
  } else if (seat === contract?.dummy && view.dummy) {
    shown = ["dummy", view.dummy, small];
    make = () => holding(state.catalogue, view.dummy, state.language, { small, ...how("Dummy") });
  } else if (view.phase === "auction" || view.phase === "play") {
    const count = HAND_SIZE - cardsPlayedBy(seat);
    shown = ["hidden", count];
    make = () => el("span", { class: "hidden-hand", role: "img", "aria-label": `${count} cards` },
      cardElement(state.catalogue, null), `× ${count}`);
  }
  const box = $(`position-${place}`);
  // A redraw for anything else (someone connecting, say) between the press and
  // the release of a mouse button would lose the click on a card: the cards'
  // node is kept while what it shows, and which of its cards are playable, stay.
  const key = JSON.stringify([seat, shown, choosing ? playable : null, state.language]);
  const kept = box.dataset.cards === key && box.children.length === 2 ? box.children[1] : null;
  const cards = kept || make();
  if (cards && choosing) {
    cards.classList.add("my-turn");
    // one stop in the Tab order: said, as the bidding box says it, where the arrows go
    cards.setAttribute("aria-describedby", "card-keys");
    holdCardStop(cards.querySelectorAll(".card.playable"));
  }
  cards?.classList?.toggle("not-to-play", waiting);
  box.classList.toggle("face-up", Boolean(cards?.classList.contains("hand")));
  box.dataset.seat = seat;
  box.dataset.cards = key;
  if (kept) box.replaceChild(label, box.firstChild);
  else box.replaceChildren(label, cards || "");
}

function drawTrick(places) {
  const view = state.view;
  const area = $("trick");
  let plays = view.current_trick;
  let caption = "";
  let winner = null;
  // Between tricks the finished one stays in the centre until the next lead.
  if (!plays.length && view.tricks.length) {
    const last = view.tricks[view.tricks.length - 1];
    plays = last.plays;
    winner = last.winner;
    caption = `trick ${view.tricks.length} won by ${SEAT_NAMES[winner]}`;
  }
  area.classList.toggle("done", winner !== null);
  area.replaceChildren(...plays.map((play) => el("div", {
    class: `slot slot-${places[play.seat]}${play.seat === winner ? " winner" : ""}`, dataset: { seat: play.seat },
  }, el("span", { class: "visually-hidden" }, `${SEAT_NAMES[play.seat]}: `),
  // seen too (its name is read out above): where the layout sets the trick apart from the
  // seats (a phone on its side, a side dummy moved up), the place alone did not say whose
  el("span", { class: "slot-seat", "aria-hidden": "true" }, play.seat),
  cardElement(state.catalogue, play.card, state.language))));
  if (caption) area.append(el("div", { class: "trick-caption" }, caption));
}

function drawFelt() {
  const places = positions(state.seat);
  for (const seat of SEATS) seatBox(seat, places[seat]);
  drawTrick(places);
  const dummy = state.view.contract?.dummy;
  const felt = $("felt");
  if (dummy && state.view.dummy && dummy !== state.seat) felt.dataset.dummyAt = places[dummy];
  else delete felt.dataset.dummyAt;
}

// What a spectator's call key or click on a card is answered with (it did nothing, and
// said nothing, to a person who had opened the watching link for their seat's).
const WATCHING = "You are watching: only the people seated at the table call and play.";

// Why a card of a face-up hand, clicked, cannot be played now (null: say nothing).
function whyNotPlayable(seat) {
  const view = state.view;
  if (!view || view.phase !== "play") return null;
  if (state.role === "spectator") return WATCHING;
  if (!state.seat) return null;
  const contract = view.contract;
  const dummy = contract.dummy;
  if (seat === dummy && contract.declarer !== state.seat) {
    return `${SEAT_NAMES[contract.declarer]} (declarer) plays the dummy's cards.`;
  }
  if (seat !== state.seat && seat !== dummy) return null;
  if (!isMyTurn()) return `Not your turn: ${turnMessage({ standIn: false })}`;
  if (view.turn !== seat) {
    return view.turn === dummy
      ? `${SEAT_NAMES[dummy]} (dummy) plays now: play from ${SEAT_NAMES[dummy]}'s hand.`
      : `You play now from your own hand (${SEAT_NAMES[state.seat]}), not the dummy's.`;
  }
  const lead = view.current_trick[0];
  if (!lead) return "That card cannot be played now.";
  const who = seat === state.seat ? "You" : `${SEAT_NAMES[seat]} (dummy)`;
  return `${who} must follow ${SUIT_NAMES[state.catalogue.get(lead.card).suit]}.`;
}

// A click on a card that cannot be played is answered, in the refusal line.
function clickedCard(event) {
  const card = event.target.closest?.(".seat-box .hand .card");
  if (!card || card.classList.contains("playable") || secondClick(event)) return;
  const why = whyNotPlayable(card.closest(".seat-box").dataset.seat);
  if (!why) return;
  state.hint = why;
  draw();
}

// ------------------------------------------------------------ side panels

// Who won the session (R19: the side with more points in all), or a tie.
function sessionResult(sheet) {
  const { NS, EW } = sheet.totals;
  if (!sheet.leader) return `a tie, ${NS.total} points each`;
  const [won, lost] = sheet.leader === "NS" ? [NS, EW] : [EW, NS];
  return `${SIDE_NAMES[sheet.leader]} won, ${won.total} points to ${lost.total}`;
}

function sessionOver() {
  return Boolean(state.scoresheet?.is_over && (state.view.phase === "finished" || state.view.phase === "passed out"));
}

// A table closed before its session was over ("closed after 75 minutes without
// play to make room"), with who was ahead then (R19: more points in all).
function closedText(closed, sheet) {
  const { NS, EW } = sheet.totals;
  if (!sheet.leader) return `The session is over: the table was ${closed}, the sides tied at ${NS.total} points each.`;
  const [ahead, behind] = sheet.leader === "NS" ? [NS, EW] : [EW, NS];
  return `The session is over: the table was ${closed}, with ${SIDE_NAMES[sheet.leader]} ahead, ` +
    `${ahead.total} points to ${behind.total}.`;
}

// What a stand-in did for the person while they were away: `text`, "While you were
// away, a bot played for you: in hand 2, calls 1R, Pass; cards 9R, 3P.", and where
// that is long (more than one hand, or a dozen actions: lines and lines on a phone)
// a `summary`, "While you were away, a bot played for you in hands 2 to 4: 9 calls,
// 30 cards.", shown with the hands' `parts` folded under it.
const STOOD_IN_ACTIONS_SHOWN = 12;

function stoodInNews(actions) {
  const hands = [...new Set(actions.map((a) => a.hand))];
  const count = (kind) => actions.filter((a) => a.kind === kind).length;
  const parts = hands.map((hand) => {
    // (a card a declarer's stand-in played from the dummy says so: with twins, the person's
    // own hand may hold the same card)
    const of = (kind) => actions.filter((a) => a.hand === hand && a.kind === kind)
      .map((a) => (a.from ? `${a.action} (dummy)` : a.action));
    const calls = of("call");
    const cards = of("play");
    return [`in hand ${hand}`, calls.length ? `calls ${calls.join(", ")}` : null,
      cards.length ? `cards ${cards.join(", ")}` : null].filter(Boolean).join(", ");
  });
  const text = `While you were away, a bot played for you: ${parts.join("; ")}.`;
  if (hands.length === 1 && actions.length <= STOOD_IN_ACTIONS_SHOWN) return { text, summary: null, parts };
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const where = hands.length === 1 ? `in hand ${hands[0]}` : `in hands ${hands[0]} to ${hands[hands.length - 1]}`;
  const summary = `While you were away, a bot played for you ${where}: ` +
    `${[count("call") ? plural(count("call"), "call") : null, count("play") ? plural(count("play"), "card") : null]
      .filter(Boolean).join(", ")}.`;
  return { text, summary, parts };
}

// The stand-in's news under the turn line: the whole line, or its summary with
// the hands folded under it (drawn again only when it changes: an unfolded list
// stays unfolded through the redraws).
function drawStoodIn() {
  const line = $("stood-in");
  const news = state.stoodIn;
  const key = news?.text || "";
  if (line.dataset.news === key) return;
  line.dataset.news = key;
  if (!news) line.replaceChildren();
  else if (!news.summary) line.replaceChildren(news.text);
  else {
    line.replaceChildren(el("details", {}, el("summary", {}, news.summary, " ", el("span", { class: "more" }, "What it played")),
      el("ul", {}, ...news.parts.map((part) => el("li", {}, part)))));
  }
}

// The person's seat open in more than one window: whoever has a seat's link holds
// the seat, so a window that is not theirs is someone else with their link.
function drawElsewhere() {
  const windows = state.role === "seat" ? state.table?.seats?.[state.seat]?.windows ?? 1 : 1;
  const text = windows > 1
    ? `Your seat is open in ${windows === 2 ? "another window" : `${windows - 1} other windows`} too. ` +
      "If that is not you, someone else has your link."
    : "";
  if ($("elsewhere").textContent !== text) $("elsewhere").textContent = text;
  $("elsewhere").classList.toggle("hidden", !text);
}

function turnMessage({ standIn = true } = {}) {
  const view = state.view;
  if (state.table?.closed) return closedText(state.table.closed, state.scoresheet);
  if (sessionOver()) {
    return `The session is over: ${sessionResult(state.scoresheet)}.`;
  }
  if (view.phase === "finished") return "The hand is over.";
  if (view.phase === "passed out") return "Passed out.";
  // a table whose people all left: its stand-ins wait for one of them
  if (state.table?.waiting) return "The table waits for one of its players to come back.";
  if (view.phase === "auction") {
    if (isMyTurn()) return state.pendingLevel ? `Your call: ${state.pendingLevel}… (P, R, A or N)` : "Your call.";
    return `${SEAT_NAMES[view.turn]} to call.${standIn ? standInToCome(view.turn) : ""}`;
  }
  if (isMyTurn()) {
    // the opening lead said as such: the dummy is not yet shown, and a new player asked why
    // (short: on a phone a second line is kept all hand, see holdPlayPanel)
    if (!view.tricks.length && !view.current_trick.length) return "Your opening lead.";
    return view.turn === state.seat ? "Your card." : `Your card from dummy (${SEAT_NAMES[view.turn]}).`;
  }
  return view.turn === view.contract.dummy
    ? `${SEAT_NAMES[view.actor]} to play from dummy.${standIn ? standInToCome(view.actor) : ""}`
    : `${SEAT_NAMES[view.turn]} to play.${standIn ? standInToCome(view.turn) : ""}`;
}

// The table waits on a person who left: what comes if they stay away (the server's
// stand-in clock runs for them), counting down from when this page learnt it (at the
// latest: a page opened later than they left counts from then); "" otherwise.
function standInToCome(seat) {
  const after = state.table?.seats?.[seat]?.stand_in_after;
  if (after == null) return "";
  const due = state.standInDue[seat] ?? Date.now() + after * 1000;
  const seconds = Math.ceil((due - Date.now()) / 1000);
  const bot = `a ${state.table.stand_in} bot`;
  if (seconds <= 0) return ` ${SEAT_NAMES[seat]} has left: ${bot} plays for them now.`;
  const within = seconds % 60 === 0 ? (seconds === 60 ? "a minute" : `${seconds / 60} minutes`)
    : seconds > 60 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} s`;
  return ` ${SEAT_NAMES[seat]} has left: ${bot} plays for them if they are not back within ${within}.`;
}

// Each seat's stand-in clock as this page first heard of it; and the turn line kept
// counting down, once a second, while one runs (the line only: not a live region).
function noteStandIns(seats) {
  for (const [seat, info] of Object.entries(seats || {})) {
    if (info.stand_in_after == null) delete state.standInDue[seat];
    else state.standInDue[seat] ??= Date.now() + info.stand_in_after * 1000;
  }
}

setInterval(() => {
  if (!state.view || state.linkRefused || !Object.keys(state.standInDue).length) return;
  const message = turnMessage();
  if ($("message").textContent !== message) $("message").textContent = message;
}, 1000);

// Whether the turn line is news a screen reader is told (with the action that
// brought it, in one update of the live region): the person's own turn, the end
// of the session, a table waiting for its people. Another seat's turn is not:
// each call and card is said as it happens, a new deal who deals, the contract
// who leads; and the hand's end is said by its result.
function turnIsNews() {
  const view = state.view;
  if (state.table?.closed || sessionOver()) return true;
  if (view.phase === "finished" || view.phase === "passed out") return false;
  // the cards of an accepted claim, which the server plays out: no turn comes to the person
  // (it said "Your card." at each of theirs it played)
  if (view.phase === "play" && state.claimed?.hand === state.hand) return false;
  return Boolean(state.table?.waiting) || isMyTurn();
}

function drawPlayPanel() {
  const view = state.view;
  const contract = view.contract;
  $("contract").replaceChildren(
    el("span", { class: "hand-number" }, `Hand ${state.hand}`),
    contract
      // "Contract 2R by East" on screen, "Contract 2 Ribbons by East" to a screen reader
      ? el("span", {}, "Contract ", shownAndSaid(el("strong", {}, contract.bid), spokenCall(contract.bid)),
        ` by ${SEAT_NAMES[contract.declarer]}`)
      : el("span", { class: "muted" }, view.phase === "auction" && !state.table?.closed ? "Auction in progress" : "No contract"),
    // (no tricks to count before there is a contract: "Tricks NS 0 · EW 0" all through the auction)
    el("span", { class: `tricks-won${contract ? "" : " hidden"}`, dataset: { ns: view.tricks_won.NS, ew: view.tricks_won.EW } },
      `Tricks NS ${view.tricks_won.NS} · EW ${view.tricks_won.EW}`));
  // The turn line is not a live region (it would speak at every action, and again
  // when focus waits on it): what is news in it is said with the action, once.
  // A turn is news when its line changes, and when it comes back with the same line after
  // a trick (the person's card won it and they lead again: the line stayed "Your card.",
  // and nothing said it was their lead).
  const message = turnMessage();
  const turn = `${message} ${state.hand} ${view.tricks_won.NS + view.tricks_won.EW}`;
  if ($("message").textContent !== message || $("message").dataset.turn !== turn) {
    if ($("message").textContent !== message) $("message").textContent = message;
    $("message").dataset.turn = turn;
    if (turnIsNews()) state.spokenTurn = message;
  }
  $("session-end").classList.toggle("hidden", !sessionOver() && !state.table?.closed);
  drawElsewhere();
  // (an alert: written only when it changes, or a redraw would have it read out again)
  const refusal = state.refusal || state.hint || "";
  if (!state.linkRefused && $("refusal").textContent !== refusal) $("refusal").textContent = refusal;
  $("ask-hint").classList.toggle("hidden", !mayAskHint());
  $("claim-rest").classList.toggle("hidden", !mayClaim());
  $("take-back").classList.toggle("hidden", !mayTakeBack());
  const advice = state.advice?.seq === connection.seq && isMyTurn() ? state.advice.text : state.claimed?.text || "";
  if ($("advice").textContent !== advice) $("advice").textContent = advice;
  drawStoodIn();
  drawWatchedResult();
  // Rebuilt only when what it offers changed: a redraw for anything else (someone
  // connecting, say) between the press and the release of a button would lose the
  // click. (Its tab stop moves in place, by the arrow keys: see moveInBidding.)
  const recent = recentCalls(turnView(), state.explanations);
  if ($("recent-calls").textContent !== recent) $("recent-calls").textContent = recent;
  const calls = legalCalls();
  const box = JSON.stringify([calls, state.pendingLevel]);
  if ($("bidding").dataset.box !== box) {
    $("bidding").dataset.box = box;
    $("bidding").replaceChildren(calls.length
      ? renderBiddingBox(calls, clickedCall, state.pendingLevel, state.currentCall) : "");
  }
  holdTurnLines();
  holdPlayPanel();
}

// While a seat's auction lasts, the lines above its bidding box (the turn,
// what a stand-in did, the last calls) keep the greatest height they have had
// in it: a line that goes (the stand-in's news once the person acts) moved the
// box up under the pointer, onto another call. (The refusal line is below the
// box.) Dropped once the auction is over (the box goes), and measured afresh
// when the window's width changes.
function holdTurnLines(afresh = false) {
  const lines = $("turn-lines");
  const auction = state.seat && state.view.phase === "auction" ? String(state.hand) : "";
  if (afresh || lines.dataset.auction !== auction) {
    lines.dataset.auction = auction;
    lines.style.minHeight = "";
  }
  if (auction) lines.style.minHeight = `${lines.getBoundingClientRect().height}px`;
}

// In the play, where the panel lies above the felt (one column, below 1000 px), the
// panel of a seat keeps the greatest height it has had in the hand: a refusal of three
// lines ("claim not accepted: …") or a hint's answer pushed the felt and its cards down,
// and back up once it went, at the person's next tap. (A one-line refusal has its room
// kept by the style sheet.) Dropped at the hand's end, and measured afresh when the
// window's width changes.
const ONE_COLUMN = window.matchMedia("(max-width: 999px)");

function holdPlayPanel(afresh = false) {
  const panel = $("play-panel");
  const hand = state.seat && state.view.phase === "play" && ONE_COLUMN.matches ? String(state.hand) : "";
  if (afresh || panel.dataset.heldHand !== hand) {
    panel.dataset.heldHand = hand;
    panel.style.minHeight = "";
  }
  if (hand) panel.style.minHeight = `${panel.getBoundingClientRect().height}px`;
}

function drawLastTrick() {
  $("last-trick-panel").classList.toggle("hidden", !state.showLastTrick);
  $("toggle-last").setAttribute("aria-pressed", String(state.showLastTrick));
  const tricks = state.view.tricks;
  if (!tricks.length) {
    $("last-trick").replaceChildren(el("p", { class: "muted" }, "No trick has been completed yet."));
    return;
  }
  const last = tricks[tricks.length - 1];
  // the tricks before it, one line each, folded (every seat may look back at the tricks
  // played and who played each card: docs/rules.md); opened, it stays open as the page redraws
  const open = $("last-trick").querySelector("details.earlier-tricks")?.open;
  const earlier = tricks.slice(0, -1);
  // (replaceChildren is the DOM's, not el(): a null given it was written as the text "null")
  $("last-trick").replaceChildren(el("p", {}, `Trick ${tricks.length}, led by ${SEAT_NAMES[last.leader]}, won by ${SEAT_NAMES[last.winner]}.`),
    el("div", { class: "last-trick" }, ...last.plays.map((play) =>
      el("figure", { class: play.seat === last.winner ? "winner" : null },
        cardElement(state.catalogue, play.card, state.language),
        el("figcaption", {}, shownAndSaid(play.seat, SEAT_NAMES[play.seat]))))),
    ...(earlier.length ? [el("details", { class: "earlier-tricks", open: open || null },
      el("summary", {}, `Earlier tricks (${earlier.length})`),
      el("ol", {}, ...earlier.map((trick) => el("li", {},
        ...trick.plays.flatMap((play, i) => [i ? ", " : "", shownAndSaid(play.seat, SEAT_NAMES[play.seat]), ` ${play.card}`]),
        `: won by ${SEAT_NAMES[trick.winner]}.`))))] : []));
}

// the scoresheet as last drawn, and the options it was drawn with
let drawnSheet = { sheet: undefined, options: "" };

function drawPanels() {
  // an explanation hidden with Esc stays hidden through the redraw (until its call is left)
  const dismissed = [...$("auction").querySelectorAll("td.dismissed")].map((cell) =>
    [cell.parentElement.rowIndex, cell.cellIndex, cell.getAttribute("aria-label")]);
  $("auction").replaceChildren(renderAuction(turnView(), state.explanations));
  // the table's rule options other than the defaults, above its auction: what a bid risks
  // (R15) and who declares (R9) were nowhere on the page
  const changed = state.table?.options_changed ?? [];
  for (const [id, lead] of [["table-rules", "This table's rules"], ["help-table-rules", "This table changes them"]]) {
    $(id).textContent = changed.length ? `${lead}: ${changed.join("; ")}.` : "";
    $(id).classList.toggle("hidden", !changed.length);
  }
  const note = changed.length ? `${changed.join("; ")}.` : "";
  if ($("rules-note-text").textContent !== note) $("rules-note-text").textContent = note;
  $("rules-note").classList.toggle("hidden", !changed.length || state.view.phase !== "auction");
  const grid = $("auction").querySelector("table");
  for (const [row, column, label] of dismissed) {
    const cell = grid.rows[row]?.cells[column];
    if (cell?.getAttribute("aria-label") === label) cell.classList.add("dismissed");
  }
  $("copies-panel").classList.toggle("hidden", !state.showCopies);
  $("toggle-copies").setAttribute("aria-pressed", String(state.showCopies));
  if (state.showCopies) $("copies").replaceChildren(renderCopiesSeen(state.catalogue, state.seen, state.language));
  // drawn again only when it changed (a hand's end, a snapshot): it grows with the
  // session, and was drawn anew at every call and card (12-15 ms at 419 hands)
  const options = JSON.stringify(state.view.options ?? {});
  if (drawnSheet.sheet !== state.scoresheet || drawnSheet.options !== options) {
    const open = new Set([...$("scoresheet").querySelectorAll("details.earlier[open]")].map((fold) => fold.dataset.fold));
    $("scoresheet").replaceChildren(renderScoresheet(state.scoresheet, state.view.options));
    // a fold the person opened stays open (each by what it holds: one may come before the other)
    $("scoresheet").querySelectorAll("details.earlier").forEach((fold) => { fold.open = open.has(fold.dataset.fold); });
    drawnSheet = { sheet: state.scoresheet, options };
  }
  $("open-review").disabled = !state.review;
  $("close-table").classList.toggle("hidden", !mayClose());
}

function drawReview() {
  const shown = state.reviewing ?? state.review;
  if (!shown) return;
  $("review").replaceChildren(renderReview(state.catalogue, shown, state.language));
  // any finished hand of the session, one at a time (the server has them all)
  const latest = Math.max(state.review?.hand ?? 0, shown.hand);
  $("review-which").textContent = `Hand ${shown.hand} of ${latest}`;
  $("review-earlier").disabled = shown.hand <= 1;
  $("review-later").disabled = shown.hand >= latest;
}

// Show hand `hand`'s review in the window: the latest as the page has it, an
// earlier one as the server gives it.
async function reviewHand(hand) {
  // one look at a time: a second click, or a hand's end, while the first is on its
  // way makes the first one's answer stale (a later hand's end shows that hand)
  const asked = ++state.reviewAsked;
  state.reviewTarget = hand;
  if (hand === state.review?.hand) {
    state.reviewing = null;
  } else {
    let review;
    try {
      const response = await fetch(`/api/tables/${encodeURIComponent(state.tableId)}/hands/${hand}`);
      if (!response.ok) throw new Error(String(response.status));
      review = await response.json();
    } catch {
      if (asked === state.reviewAsked) {
        state.reviewTarget = null;
        announce(`Hand ${hand}'s review could not be fetched; try again.`);
      }
      return;
    }
    if (asked !== state.reviewAsked) return;
    state.reviewing = review;
  }
  state.reviewTarget = null;
  const focused = document.activeElement;
  drawReview();
  // at the first or the last hand the button pressed is disabled: focus goes to the other
  if (focused?.disabled) (focused.id === "review-earlier" ? $("review-later") : $("review-earlier")).focus();
  announce(headline(state.reviewing ?? state.review));
}

// Open a window. `opener` is what the person used to open it (a button, or
// whatever had focus when they pressed its key): closed, the window gives focus
// back to it. Null: the page opened it by itself (the review at a hand's end).
function openDialog(dialog, opener) {
  if (dialog.open) return;
  state.openers.set(dialog, opener && opener !== document.body ? opener : null);
  dialog.showModal();
}

// Whether a window other than `dialog` is open (the page opens none over another).
function otherDialogOpen(dialog) {
  return [...document.querySelectorAll("dialog[open]")].some((open) => open !== dialog);
}

// The review is a modal window: while it is open the page's own live regions
// are hidden from screen readers, so the window carries its own (.dialog-live)
// and everything the page says is said there too.
function openReview(opener = null) {
  if (!state.review) return;
  if (!$("review-dialog").open) {     // opened, it shows the latest hand (a look on its way is stale)
    state.reviewing = null;
    state.reviewAsked++;
    state.reviewTarget = null;
  }
  drawReview();
  if (!$("review-dialog").open) {
    $("review-live").textContent = "";
    openDialog($("review-dialog"), opener);
  }
}

// Whether focus can be put on an element: still on the page, shown, enabled.
function focusable(element) {
  return Boolean(element?.isConnected && !element.disabled && element.getClientRects().length);
}

// A window closed, and the turn is said. Focus goes back to what the person
// opened it with (Keys, Close the table…, Review: a second Enter opens it again
// rather than making a call); only a window the page opened by itself (the
// review at a hand's end), or a focus that would be lost, goes to the turn (the
// bidding box or a card when it is the person's turn), else to the turn line.
function closedDialog(event) {
  const opener = state.openers.get(event.target) ?? null;
  state.openers.delete(event.target);
  if (!state.view) return;
  // after the browser has put focus back where it was before the window opened
  setTimeout(() => {
    const focused = document.activeElement;
    const lost = !focused || focused === document.body || Boolean(focused.closest("dialog:not([open])"));
    if (focusable(opener)) {
      if (focused !== opener) opener.focus();
    } else if (state.keyboard && isMyTurn() && (lost || !opener)) focusTurn();
    else if (state.keyboard && lost) $("message").focus();
    if (state.closing) state.closing = false;
    else announce(turnMessage());
    showTurn();
  }, 0);
}

function drawTitle() {
  const table = state.table;
  $("title").textContent = `${table.name} — hand ${state.hand} (${describeLength(table.length)}), ` +
    (state.role === "spectator" ? "watching" : SEAT_NAMES[state.seat]);
  document.title = `${turnMessage({ standIn: false }).replace(/\.$/, "")} — ${table.name}, hand ${state.hand} — Flower Bridge`;
}

// ---------------------------------------------------------------- focus

// Where focus is before a redraw, to put it back after: a card, a call or an
// auction cell by what it is (the redraw replaces the nodes); "parked" when it
// is nowhere in particular (the page, the turn line) or on a card or call that
// a redraw may take away.
function rememberFocus() {
  const focused = document.activeElement;
  if (!focused || focused === document.body || focused === $("message")) return { parked: true };
  if (focused.closest("#felt .hand")) {
    return { parked: true, code: focused.dataset.code, copies: copiesHeld(focused.dataset.code) };
  }
  if (focused.closest("#bidding")) return { parked: true, call: focused.dataset.call };
  // Hint, Claim the rest, Take back: left be while shown; one that goes with what it
  // did (Take back, its last call taken back) hands focus on as a card gone does
  if (focused.closest(".hint-line")) return { button: focused.id };
  const cell = focused.closest("#auction td");
  if (cell) return { row: cell.parentElement.rowIndex, column: cell.cellIndex };
  return null;  // elsewhere (the top bar, a window): a redraw does not touch it
}

// The control of the person's turn: the bidding box's tab stop (Pass, or the
// call last focused) or a playable card (the one named, else the first).
function turnTarget(code = null) {
  const stop = document.querySelector('#bidding button[tabindex="0"]');
  if (stop) return stop;
  const playable = [...document.querySelectorAll("#felt .card.playable")];
  return playable.find((card) => card.dataset.code === code) || playable[0] || null;
}

function copiesHeld(code) {
  return [...document.querySelectorAll("#felt .hand .card")].filter((card) => card.dataset.code === code).length;
}

function focusTurn(code = null) {
  focusByPage(turnTarget(code) || $("message"));
}

function restoreFocus(was) {
  if (!was || document.querySelector("dialog[open]")) return;
  if (was.button !== undefined) {
    if (!$(was.button).classList.contains("hidden")) return;
  } else if (was.row !== undefined) {
    const cell = $("auction").querySelector("table")?.rows[was.row]?.cells[was.column];
    if (cell && cell.tabIndex >= 0) {
      cell.focus();
      return;
    }
  } else {
    // the same card or call when it is still there, whoever moved focus to it
    const same = was.code ? [...document.querySelectorAll("#felt .card.playable")].find((c) => c.dataset.code === was.code)
      : was.call ? [...document.querySelectorAll("#bidding button")].find((b) => b.dataset.call === was.call) : null;
    if (same) {
      // one copy fewer: the card played, the focus is on its twin, moved there by the page
      if (was.code && copiesHeld(was.code) < was.copies) focusByPage(same);
      else same.focus();
      return;
    }
    if (was.call && document.querySelector("#bidding button")) {
      focusTurn();
      return;
    }
  }
  // Gone, or nowhere: a person at the keyboard is taken to their turn's
  // controls, else to the turn line, never left on the page's top.
  if (!state.keyboard) return;
  if (isMyTurn()) focusTurn(was.code);
  else if (document.activeElement !== $("message")) $("message").focus();
}

// Redraw everything from the state; keeps keyboard focus on the card, call or
// auction cell that had it (every message redraws the page), and takes a person
// at the keyboard to the bidding box or the hand when their turn comes.
function draw() {
  if (!state.view || state.linkRefused) return;
  const focus = rememberFocus();
  state.spokenTurn = null;
  // The last event applied, for people debugging and for the browser tests.
  document.body.dataset.seq = connection.seq ?? "";
  document.body.dataset.phase = state.view.phase;
  document.body.dataset.role = state.role || "";
  drawTitle();
  drawFelt();
  drawPlayPanel();
  drawLastTrick();
  drawPanels();
  restoreFocus(focus);
  markDisconnected();
  speak();
  showTurn();
}

// The turn as a place in the hand: the calls and cards made so far.
function turnKey() {
  const view = state.view;
  return `${state.hand}:${view.auction?.length ?? 0}:${view.plays?.length ?? 0}`;
}

// When the person's turn comes and the place to act (the bidding box, the hand
// to play from) is wholly off the screen, it is scrolled into view: a touch
// screen has no focus to follow the turn (a person who had scrolled down to
// the scoresheet, or closed the review there, had their call above the screen).
// Not while a window is open (done when it closes), and not when any of it is
// in view: a person who scrolled there is left there.
function showTurn() {
  if (!isMyTurn() || state.turnShown === turnKey() || document.querySelector("dialog[open]")) return;
  state.turnShown = turnKey();
  const place = document.querySelector("#bidding .bidding-box") || document.querySelector("#felt .hand.my-turn");
  const box = place?.getBoundingClientRect();
  if (!box || (box.bottom > 0 && box.top < innerHeight)) return;
  const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
  place.scrollIntoView({ block: "nearest", behavior: still ? "auto" : "smooth" });
}

// --------------------------------------------------------------- messages

function applyView(message) {
  state.hint = null;  // the table moved: what a click was told may no longer hold
  state.hand = message.hand;
  state.view = message.view;
  state.seen = message.seen;
}

const HANDLERS = {
  welcome(message) {
    // back after a drop (a server restart too): a stand-in that took a seat
    // meanwhile is said, as a presence message would have said it
    if (state.table) for (const news of presenceNews(state.table.seats, message.table?.seats, true)) say(news);
    state.role = message.role;
    state.seat = message.seat;
    state.table = message.table;
    noteJoined(message.table?.seats);
    noteStandIns(message.table?.seats);
    if (message.stood_in?.length) {
      state.stoodIn = stoodInNews(message.stood_in);
      say(state.stoodIn.summary || state.stoodIn.text);
    }
  },
  snapshot(message) {
    // The hand this page showed still going (none: the page's first snapshot, a
    // fresh load, which opens no window by itself).
    const going = state.view && (state.view.phase === "auction" || state.view.phase === "play") ? state.hand : null;
    state.role = message.role;
    state.seat = message.seat;
    state.table = message.table;
    noteJoined(message.table?.seats);
    noteStandIns(message.table?.seats);
    applyView(message);
    state.pendingLevel = null;      // a level typed before the page was away: the auction may have moved
    state.currentCall = null;
    state.explanations = message.explanations;
    state.scoresheet = message.scoresheet;
    state.review = message.last_review;
    state.reviewing = null;
    state.reviewAsked++;
    state.reviewTarget = null;
    // an open review window shows the snapshot's last hand: the one it showed may
    // be older, its values sent while this page was away
    if ($("review-dialog").open) {
      if (state.review) drawReview();
      else $("review-dialog").close();
    }
    // The hand this page showed ended while it was away (the connection dropped
    // as its last card was played, and a snapshot came back instead of the events):
    // told as a page that saw the last card is told (handOver), rather than left
    // in the next hand's auction, or a finished hand, with no word of how it ended.
    // Away for more hands than that, the page says how many ended and opens the
    // review of the last (the scoresheet has them all).
    if (going !== null && state.review && state.review.hand >= going) {
      const missed = state.review.hand - going + 1;
      if (missed > 1) {
        say(`${missed} hands ended while this page was away, hands ${going} to ${state.review.hand}; ` +
          "the scoresheet has them all.");
      }
      say(headline(state.review));
      reviewAtHandsEnd();
    }
  },
  deal(message) {
    applyView(message);
    state.refusal = null;
    state.explanations = [];
    state.pendingLevel = null;
    state.currentCall = null;
    say(`Hand ${message.hand}, ${SEAT_NAMES[message.view.dealer]} deals.`);
  },
  call(message) {
    applyView(message);
    if (message.seat === state.seat) actedElsewhere();
    state.explanations = [...state.explanations, message.explanation];
    say(`${SEAT_NAMES[message.seat]}: ${spokenCall(message.call)}` +
      (message.explanation ? `, ${message.explanation}.` : "."));
    const contract = message.view.contract;
    if (contract && message.view.phase === "play") {
      say(`Contract ${spokenCall(contract.bid)} by ${SEAT_NAMES[contract.declarer]}, ${SEAT_NAMES[message.view.turn]} leads.`);
    }
    handOver(message);
  },
  play(message) {
    applyView(message);
    // (by: declarer, for the dummy; a claim's cards played out are not the seat acting again)
    if ((message.by ?? message.seat) === state.seat && message.hand !== state.claimed?.hand) actedElsewhere();
    const card = state.catalogue.get(message.card);
    say([`${SEAT_NAMES[message.seat]}: ${message.card}, `, inLanguage(cardName(card, state.language)), "."]);
    const view = message.view;
    if (!view.current_trick.length && view.tricks.length) {
      const last = view.tricks[view.tricks.length - 1];
      say(`Trick ${view.tricks.length} to ${SEAT_NAMES[last.winner]}; NS ${view.tricks_won.NS}, EW ${view.tricks_won.EW}.`);
    }
    handOver(message);
  },
  presence(message) {
    for (const news of presenceNews(state.table?.seats, message.seats)) say(news);
    state.table = { ...state.table, seats: message.seats, spectators: message.spectators,
      waiting: message.waiting };
    noteJoined(message.seats);
    noteStandIns(message.seats);
  },
  review(message) {
    // the latest hand's values, or those of the earlier hand the window shows (asked
    // for, it was solved then, and its values come as the latest's do)
    const latest = !state.review || state.review.hand === message.hand;
    const looked = state.reviewing?.hand === message.hand;
    if (!latest && !looked) return;
    const was = (looked ? state.reviewing : state.review)?.dd_status;
    if (latest) state.review = message.review;
    if (looked) state.reviewing = message.review;
    drawReview();
    // the window's status line changed: said in the window's live region when it
    // shows that hand (a hand passed out has no play, and its window no such line)
    const shown = (state.reviewing ?? state.review).hand === message.hand;
    if ($("review-dialog").open && shown && was === "pending" && message.review.dd_status !== "pending" &&
        message.review.contract) {
      say(message.review.dd_status === "ready" ? "Double-dummy values are ready."
        : "Double-dummy values are not available.");
    }
  },
  error(message) {
    state.takingBack = null;    // (a take-back refused may be asked again)
    // "stale": this page acted on a view the table had left. After a double
    // click the first action took, and the view has moved on: nothing to say.
    if (message.code === "stale") {
      state.refusal = isMyTurn() ? "The table moved on before that arrived: look again and choose." : null;
      return;
    }
    if (message.id?.startsWith("h")) state.advice = null;   // the hint asked for is not coming
    state.refusal = asSentence(message.message);
  },
  undo(message) {
    const dummy = state.view?.contract?.dummy;     // (the hand's, before the undo)
    applyView(message);
    actedElsewhere();
    state.advice = null;
    const calls = message.taken_back.filter((action) => action.call !== undefined).length;
    if (calls) state.explanations = state.explanations.slice(0, -calls);
    // one's own take-back shown beside its button, as a hint's answer is (that line is
    // live: a screen reader says it there), until one acts again; another's, said
    const text = takenBackText(message, { seat: state.seat, dummy, catalogue: state.catalogue,
                                          language: state.language });
    if (message.seat === state.seat) state.advice = { seq: message.seq, text };
    else say(text);
  },
  claim(message) {
    // told before the cards come (shown in the hint's live region, so said once)
    const left = message.tricks === 1 ? `the last trick of hand ${message.hand} goes`
      : `the last ${message.tricks} tricks of hand ${message.hand} go`;
    state.claimed = { hand: message.hand,
      text: `Claim accepted: ${left} to your side; the cards are played out.` };
  },
  hint(message) {
    if (message.seq === connection.seq) state.advice = { seq: message.seq, text: adviceText(message) };
  },
  pong() {},
};

// A person's seat as the page tells of it: here, away, or away with a stand-in
// bot playing for them (null: a bot's own seat).
function presenceOf(info) {
  if (!info || info.player !== "human") return null;
  if (info.stand_in) return "stood-in";
  return info.connected ? "here" : "away";
}

// The seats whose person this page has seen at the table (here, or stood in for):
// one who comes back is "back", one never seen here is "here".
const joined = new Set();

function noteJoined(seats) {
  for (const [seat, info] of Object.entries(seats || {})) {
    if (info.player === "human" && (info.connected || info.stand_in)) joined.add(seat);
  }
}

// What a presence message changed at the other seats, said once per change
// (a spectator coming or going, someone reconnecting as they were, says nothing):
// "West left.", "A basic bot plays for West.", "West left; a basic bot plays
// for West.", "West is back." `standIns`: only the stand-ins that came (a page
// back after a drop, to whom everyone else has not yet come back).
function presenceNews(before, after, standIns = false) {
  const news = [];
  for (const seat of SEATS) {
    if (seat === state.seat) continue;
    const was = presenceOf(before?.[seat]);
    const now = presenceOf(after?.[seat]);
    if (!was || !now || was === now || (standIns && now !== "stood-in")) continue;
    const name = SEAT_NAMES[seat];
    const level = after[seat].stand_in;
    const bot = `${/^[aeiou]/i.test(level || "") ? "an" : "a"} ${level} bot plays for ${name}`;
    if (now === "here") news.push(`${name} is ${joined.has(seat) ? "back" : "here"}.`);
    else if (now === "away" && was === "here") news.push(`${name} left.`);
    else if (now === "stood-in") news.push(was === "here" ? `${name} left; ${bot}.` : `${bot[0].toUpperCase()}${bot.slice(1)}.`);
  }
  return news;
}

// Each call and card is read out to screen readers as it happens, with what
// it led to (the contract, a trick's winner, the hand's result, a new deal).
// `text` is a string, or a list of strings and elements (a card's name in its
// own language, see inLanguage).
function say(text) {
  state.spoken.push(text);
}

// A card's name as the reader chose it: in Japanese or Korean, marked so, for a
// screen reader to speak it in that language's voice.
function inLanguage(name) {
  return state.language === "en" ? name : el("span", { lang: state.language }, name);
}

// The parts said, as nodes for a live region (each part its own copy).
function spokenNodes(parts) {
  return parts.flatMap((part, i) => [i ? " " : "", ...[part].flat()])
    .map((node) => (typeof node === "string" ? node : node.cloneNode(true)));
}

// Say what the message applied has to say, and the turn line's news with it, in
// one update of the live region. While a window is open the page's live regions
// are hidden from screen readers: the window's own says it.
function speak() {
  const parts = state.spoken;
  state.spoken = [];
  const live = document.querySelector("dialog[open] .dialog-live");
  if (state.spokenTurn) parts.push(state.spokenTurn);
  state.spokenTurn = null;
  if (!parts.length) return;
  $("announce").replaceChildren(...spokenNodes(parts));
  if (live) live.replaceChildren(...spokenNodes(parts));
}

function announce(text) {
  say(text);
  speak();
}

function handOver(message) {
  if (!message.hand_over) return;
  state.scoresheet = message.hand_over.scoresheet;
  state.review = message.hand_over.review;
  if (state.review) say(headline(state.review));
  // a person looking back at an earlier hand in the open window stays there (the
  // window counts the new hand; Later hand reaches it); else the hand just ended shows
  if ($("review-dialog").open && (state.reviewing !== null || state.reviewTarget !== null)) {
    drawReview();
    return;
  }
  state.reviewing = null;
  state.reviewAsked++;          // (a look still on its way is stale)
  state.reviewTarget = null;
  reviewAtHandsEnd();
}

// The review at a hand's end opens by itself for a player. A spectator watches on
// between hands (a window at every hand's end covered the play it came to see):
// told the result and where the review is (R only where single keys are on), it
// opens by itself at the end of the session's last hand. (A window open already
// shows the hand just ended.)
// The review opens by itself at a hand's end (for a spectator, only at the session's);
// not over another window the person has open (Keys, Close the table…): said instead.
function reviewAtHandsEnd() {
  const opens = $("review-dialog").open || state.role !== "spectator" || sessionOver();
  if (opens && !otherDialogOpen($("review-dialog"))) {
    const was = $("review-dialog").open;
    openReview();
    // (the window's Close, focused as it opens, is the page's doing)
    if (!was) pageFocus = { element: document.activeElement, at: performance.now() };
    return;
  }
  const where = state.singleKeys ? "Review (R) shows it." : "Review shows it.";
  say(where);
  // seen too, not only heard: the next deal's auction took the finished hand off the felt
  if (state.role === "spectator" && state.review) {
    state.watchedResult = { hand: state.review.hand, text: `${headline(state.review)} ${where}` };
  }
}

// A spectator's line for the hand just ended, until the next hand's opening lead (not a
// live region: the result was said as the hand ended).
function drawWatchedResult() {
  const result = state.watchedResult;
  const shown = result && state.role === "spectator" && !state.table?.closed &&
    (state.hand === result.hand || (state.hand === result.hand + 1 && state.view?.phase === "auction"))
    ? result.text : "";
  if ($("watched-result").textContent !== shown) $("watched-result").textContent = shown;
}

function receive(message) {
  const handler = HANDLERS[message.type];
  if (!handler) return;  // a newer server's message this page does not know
  handler(message);
  draw();
}

// The connection's badge is a live region: once down, it says "reconnecting…"
// through every retry (each tries "connecting" again) until it is back.
let reconnecting = false;

function showStatus(status, closeCode) {
  if (status === "blocked") {  // still "reconnecting…", and why it is taking so long
    state.refusal = BLOCKED;
    if (!state.linkRefused) $("refusal").textContent = BLOCKED;
    return;
  }
  const badge = $("status");
  const words = { connecting: "connecting…", online: "connected", offline: "reconnecting…", refused: "refused" };
  if (status === "offline") reconnecting = true;
  else if (status !== "connecting") reconnecting = false;
  const shown = status === "connecting" && reconnecting ? "offline" : status;
  if (badge.textContent !== words[shown]) badge.textContent = words[shown];
  badge.className = `status ${shown === "online" ? "online" : shown === "connecting" ? "" : "offline"}`;
  // Down (or coming back): the cards and calls are shown as not to be played (a click says why).
  document.body.classList.toggle("disconnected", status !== "online");
  markDisconnected();
  if (status === "refused") showRefusedLink(closeCode);
  if (status === "online") {
    // connected again: the person may act, and what a click was told while
    // away (why a card could not be played) may no longer hold
    state.hint = null;
    if (state.refusal === NOT_SENT || state.refusal?.endsWith(BLOCKED)) state.refusal = null;
    if (!state.linkRefused) $("refusal").textContent = state.refusal || "";
  }
}

// While disconnected the calls and cards, greyed, are told to screen readers as
// not available (aria-disabled: still focusable, and a click still says why).
function markDisconnected() {
  const down = document.body.classList.contains("disconnected");
  for (const control of document.querySelectorAll("#bidding button, #felt .card.playable")) {
    if (down) control.setAttribute("aria-disabled", "true");
    else control.removeAttribute("aria-disabled");
  }
}

// The link is refused for good (no such table, a token that holds no seat), or
// this window is one too many (the seat's or the table's most connections, or
// the address's): the server's reason, and the way back to the lobby.
function showRefusedLink(closeCode) {
  const tooMany = closeCode === TOO_MANY;
  // (the server's reason, a sentence of its own: error() made it one)
  const why = state.refusal || (tooMany ? "Too many connections."
    : closeCode === BROKEN_LINK ? "Its table id has a broken %-escape (was it cut short or changed?)."
    : "Check the table and the invitation.");
  state.refusal = null;
  const lobby = el("a", { href: "/" }, "Back to the lobby");
  $("refusal").replaceChildren(tooMany
    ? `The server refused this window. ${why} Then reload this page. `
    : closeCode === BROKEN_LINK ? `This link is damaged. ${why} `
    : `The server refused this link. ${why} `, lobby);
  state.linkRefused = true;
  // Only that: no empty felt, panels or buttons for a table this page does not have.
  const main = document.querySelector("main");
  main.className = "refused-link";
  const heading = tooMany ? "Too many windows on this table" : "This link opens no table";
  main.replaceChildren(el("section", { class: "panel" }, el("h2", {}, heading), $("refusal")));
  for (const id of ["toggle-copies", "toggle-last", "open-review", "open-keys"]) $(id).classList.add("hidden");
  $("language").closest("label").classList.add("hidden");
  const title = tooMany ? "Connection refused" : "Link refused";
  $("title").textContent = title;
  document.title = `${title} — Flower Bridge`;
}

// --------------------------------------------------------------- keyboard

// Focus the control an arrow key leads to; whether focus moved (when it did
// not, the key is left to the browser: it scrolls the page).
function moveTo(target) {
  if (!target || target === document.activeElement) return false;
  target.focus();
  return document.activeElement === target;
}

function moveFocus(step) {
  const playable = [...document.querySelectorAll("#felt .card.playable")];
  // the auction: arrows lead into the bidding box (none: nowhere to go)
  if (!playable.length) return moveTo(document.querySelector('#bidding button[tabindex="0"]'));
  const at = playable.indexOf(document.activeElement);
  const next = at < 0 ? 0 : (at + step + playable.length) % playable.length;
  holdCardStop(playable, playable[next]);
  return moveTo(playable[next]);
}

// Arrow keys, Home and End inside the bidding box; the call reached takes the tab stop.
function moveInBidding(key) {
  const box = document.querySelector("#bidding .bidding-box");
  const next = box && moveInBiddingBox(box, document.activeElement, key);
  if (!next || next === document.activeElement) return false;
  for (const button of box.querySelectorAll("button")) button.tabIndex = button === next ? 0 : -1;
  state.currentCall = next.dataset.call;
  return moveTo(next);
}

function setSingleKeys(on) {
  state.singleKeys = on;
  store(SINGLE_KEYS_KEY, on ? "on" : "off");
  $("single-keys").checked = on;
  for (const button of document.querySelectorAll("[data-shortcut]")) {
    if (on) button.setAttribute("aria-keyshortcuts", button.dataset.shortcut);
    else button.removeAttribute("aria-keyshortcuts");
  }
}

function toggleCopies() {
  state.showCopies = !state.showCopies;
  store(COPIES_KEY, state.showCopies ? "on" : "off");
  draw();
}

function toggleLastTrick() {
  state.showLastTrick = !state.showLastTrick;
  draw();
  // On a phone the panel opens below the table, out of sight: bring it into view.
  if (state.showLastTrick) $("last-trick-panel").scrollIntoView({ block: "nearest" });
}

// Esc hides the explanation shown by the call in focus or under the pointer
// (WCAG 1.4.13); it shows again once the call is left, by focus and pointer both.
function dismissExplanations() {
  for (const cell of document.querySelectorAll("#auction td.explained:focus, #auction td.explained:hover")) {
    cell.classList.add("dismissed");
  }
}

function undismissExplanation(event) {
  const cell = event.target.closest?.("td.dismissed");
  if (!cell || cell.contains(event.relatedTarget)) return;
  if (!cell.matches(":hover")) cell.classList.remove("dismissed");
}

// The pointer's leaving is told by where it arrives (a mouseover anywhere), or by its leaving
// the page: the auction drawn again under a resting pointer (every call, and Esc itself)
// put a new cell there that the browser did not yet count as under it, and the pointer's
// mouseout went to the cell drawn over, so its explanation stayed hidden for good.
function undismissPointedAway(event) {
  const leftThePage = event.type === "mouseout";
  if (leftThePage && event.relatedTarget) return;
  for (const cell of document.querySelectorAll("#auction td.dismissed")) {
    if ((leftThePage || !cell.contains(event.target)) && document.activeElement !== cell) {
      cell.classList.remove("dismissed");
    }
  }
}

// What L did: "Last trick shown: trick 3, won by East." or "Last trick hidden."
function lastTrickNews() {
  if (!state.showLastTrick) return "Last trick hidden.";
  const tricks = state.view?.tricks || [];
  if (!tricks.length) return "Last trick shown: no trick has been completed yet.";
  return `Last trick shown: trick ${tricks.length}, won by ${SEAT_NAMES[tricks[tricks.length - 1].winner]}.`;
}

// A bid's place in the order of bids: 1P < 1R < 1A < 1NT < 2P < … < 7NT.
function bidRank(call) {
  const bid = splitCall(call);
  return bid ? bid.level * 4 + ["P", "R", "A", "NT"].indexOf(bid.denomination) : null;
}

// Why a typed bid is not on offer: it is not above the last bid, so say the lowest one that is.
function whyNotThisCall(call, calls) {
  const rank = bidRank(call);
  if (rank === null) return "";
  const bids = calls.filter((c) => bidRank(c) !== null).sort((a, b) => bidRank(a) - bidRank(b));
  if (!bids.length) return ": no bid is left, only Pass";
  if (rank >= bidRank(bids[0])) return "";
  return `: the lowest bid now is ${spokenCall(bids[0])} (${bids[0]})`;
}

function keyCall(key) {
  const calls = legalCalls();
  if (!calls.length) {
    // a bid or Pass typed while another seat calls: said, as a card clicked out of turn is
    if (/^[1-7p]$/.test(key) && (state.seat || state.role === "spectator") && state.view?.phase === "auction"
        && !isMyTurn() && !state.table?.closed) {
      state.hint = state.role === "spectator" ? WATCHING : `Not your turn: ${turnMessage({ standIn: false })}`;
      draw();
      return true;
    }
    return false;
  }
  if (/^[1-7]$/.test(key)) {
    state.pendingLevel = Number(key);
    draw();
    return true;
  }
  const denomination = DENOMINATION_KEYS[key];
  if (!denomination) return false;
  const call = state.pendingLevel ? `${state.pendingLevel}${denomination}` : key === "p" ? "Pass" : null;
  if (!call) return false;
  if (calls.includes(call)) {
    sendCall(call);
  } else {
    state.pendingLevel = null;
    state.refusal = `${spokenCall(call)} is not a call you can make now${whyNotThisCall(call, calls)}.`;
    draw();
  }
  return true;
}

// A key that cannot act now (R, U, H) says why on the refusal line: seen, and read out
// (it is an alert), where the hidden announcement alone left a sighted person with nothing
function refuseKey(text) {
  state.refusal = text;
  draw();
}

// A window opened by its key (R, ?) gives focus back to the control the person
// had moved to; from the page or the turn line (where the page put focus), none.
function keyOpener() {
  const focused = document.activeElement;
  return focused && focused !== document.body && focused !== $("message") ? focused : null;
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, select, textarea")) return;
  if (document.querySelector("dialog[open]")) return;  // the dialog handles Esc itself
  if (state.linkRefused) return;                       // no table: nothing for the keys to do
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  // Letters, digits and "?" act only while single-key shortcuts are on (the Keys window).
  if (!state.singleKeys && key.length === 1 && key !== " ") return;
  let handled = true;
  // an arrow key that moves no focus (a spectator, between turns, the edge of
  // the bidding box) is the browser's: it scrolls the page
  if (event.target.closest("#bidding") && /^(Arrow(Right|Left|Up|Down)|Home|End)$/.test(key)) handled = moveInBidding(key);
  else if (key === "ArrowRight" || key === "ArrowDown") handled = moveFocus(1);
  else if (key === "ArrowLeft" || key === "ArrowUp") handled = moveFocus(-1);
  else if (key === "Escape") { dismissExplanations(); state.pendingLevel = null; draw(); }
  else if (keyCall(key)) { /* a call or its level */ }
  // L and C press a button that has no focus, R may have nothing to open: said (WCAG 4.1.3)
  else if (key === "l") { toggleLastTrick(); announce(lastTrickNews()); }
  else if (key === "c") { toggleCopies(); announce(`Copies seen ${state.showCopies ? "shown" : "hidden"}.`); }
  else if (key === "r") { if (state.review) openReview(keyOpener()); else refuseKey("No hand to review yet."); }
  else if (key === "?") openDialog($("keys-dialog"), keyOpener());
  else if (key === "u") {
    const why = whyNoTakeBack();
    if (why) refuseKey(why);
    else takeBack();
  }
  else if (key === "h") {
    if (mayAskHint()) askHint();
    else refuseKey(isMyTurn() ? "Hints are given only at a table of one person and three bots."
      : "A hint is given at your turn.");
  }
  else handled = false;
  if (handled) event.preventDefault();
}

// ------------------------------------------------------------------- start

/** The table id of the page's address; null when its %-escapes are broken (a cut or altered link). */
function tableIdFromPath() {
  try {
    return decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
  } catch {
    return null;
  }
}

function tokenFromHash() {
  return new URLSearchParams(location.hash.slice(1)).get("token");
}

async function main() {
  const tableId = tableIdFromPath();
  state.tableId = tableId;
  if (tableId === null) {
    showRefusedLink(BROKEN_LINK);
    $("status").classList.add("hidden");  // nothing to connect to
    return;
  }
  state.catalogue = await loadCatalogue();
  bindLanguageSelect($("language"), state.language, (language) => {
    state.language = language;
    setLanguage(language);
    draw();
    drawReview();
  });
  $("toggle-copies").addEventListener("click", toggleCopies);
  $("felt").addEventListener("click", clickedCard);
  $("auction").addEventListener("focusout", undismissExplanation);
  document.addEventListener("mouseover", undismissPointedAway);
  document.addEventListener("mouseout", undismissPointedAway);
  $("toggle-last").addEventListener("click", toggleLastTrick);
  $("open-review").addEventListener("click", () => openReview($("open-review")));
  $("open-keys").addEventListener("click", () => openDialog($("keys-dialog"), $("open-keys")));
  $("close-review").addEventListener("click", (event) => { if (!secondClick(event)) $("review-dialog").close(); });
  // from the hand on its way, if any: two quick clicks go back two hands
  const lookedAt = () => state.reviewTarget ?? (state.reviewing ?? state.review).hand;
  $("review-earlier").addEventListener("click", () => reviewHand(Math.max(1, lookedAt() - 1)));
  $("review-later").addEventListener("click", () => reviewHand(Math.min(state.review.hand, lookedAt() + 1)));
  $("close-keys").addEventListener("click", () => $("keys-dialog").close());
  $("review-dialog").addEventListener("close", closedDialog);
  $("keys-dialog").addEventListener("close", closedDialog);
  $("close-table").addEventListener("click", () => openDialog($("close-dialog"), $("close-table")));
  $("ask-hint").addEventListener("click", (event) => { if (!secondClick(event)) askHint(); });
  $("claim-rest").addEventListener("click", (event) => { if (!secondClick(event)) claimRest(); });
  $("take-back").addEventListener("click", (event) => { if (!secondClick(event)) takeBack(); });
  $("close-confirm").addEventListener("click", closeTable);
  $("close-cancel").addEventListener("click", () => $("close-dialog").close());
  $("close-dialog").addEventListener("close", closedDialog);
  setSingleKeys(state.singleKeys);
  $("single-keys").addEventListener("change", () => setSingleKeys($("single-keys").checked));
  // How the person works the page: keys move focus to their turn, a pointer never does
  // (and Enter on the lobby's link to it counts as a key).
  state.keyboard = openedByKeyboard() || state.keyboard;
  document.addEventListener("keydown", (event) => {
    if (!["Shift", "Control", "Alt", "Meta"].includes(event.key)) state.keyboard = true;
    // another key (an arrow, say) first: the person has found where the page put focus
    if (event.key !== "Enter" && event.key !== " ") pageFocus = { element: null, at: -Infinity };
  }, true);
  document.addEventListener("pointerdown", () => { state.keyboard = false; }, true);
  document.addEventListener("focusin", (event) => {
    const call = event.target.closest?.("#bidding button")?.dataset.call;
    if (call) state.currentCall = call;
    const card = event.target.closest?.("#felt .card.playable");
    if (card) {
      state.currentCard = card.dataset.code;
      holdCardStop(document.querySelectorAll("#felt .card.playable"), card);
    }
  });
  document.addEventListener("keydown", onKey);
  // A new width reflows the lines above the bidding box: their held height is
  // measured afresh. (Not a new height alone: a phone's address bar coming and
  // going as the page scrolls resizes it.)
  let width = innerWidth;
  window.addEventListener("resize", () => {
    if (innerWidth === width) return;
    width = innerWidth;
    if (state.view && !state.linkRefused) {
      holdTurnLines(true);
      holdPlayPanel(true);
    }
  });
  connection = new TableConnection(tableId, tokenFromHash(), { onMessage: receive, onStatus: showStatus });
}

main().catch((error) => {
  $("refusal").textContent = failed("Could not start the table", error);
});
