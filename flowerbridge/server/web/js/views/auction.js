// The auction grid (one column per seat, the dealer's call first) and the
// bidding box, which offers exactly the calls the server lists as legal.

import { el } from "../ui.js";
import { SEATS, SEAT_NAMES } from "../seats.js";

const DENOMINATIONS = ["P", "R", "A", "NT"];
const DENOMINATION_NAMES = { P: "Plains", R: "Ribbons", A: "Bright Animals", NT: "No Trump" };
// at the one level, as the engine and the rulebook name it ("1 Plain down 3 × 50" on the score)
const DENOMINATION_NAME = { P: "Plain", R: "Ribbon", A: "Bright Animal", NT: "No Trump" };

/** A call's level and denomination (`{level: 3, denomination: "NT"}`), or null for Pass. */
export function splitCall(text) {
  const match = /^([1-7])(P|R|A|NT)$/.exec(text);
  return match ? { level: Number(match[1]), denomination: match[2] } : null;
}

/** How a call reads aloud: "3 No Trump", "Pass". */
export function spokenCall(text) {
  const bid = splitCall(text);
  if (!bid) return text;
  return `${bid.level} ${(bid.level === 1 ? DENOMINATION_NAME : DENOMINATION_NAMES)[bid.denomination]}`;
}

/**
 * The auction so far as a table.
 *
 * @param {object} view  the seat's view (dealer, auction, turn, phase)
 * @param {(string|null)[]} explanations  the bots' meaning of each call, by position
 */
export function renderAuction(view, explanations) {
  const cells = Array(SEATS.indexOf(view.dealer)).fill(null);
  view.auction.forEach((item, i) => cells.push({ ...item, explanation: explanations[i] || null }));
  if (view.phase === "auction" && view.turn) cells.push({ pending: true });    // (no turn: a table closed)
  const rows = [];
  for (let i = 0; i < cells.length; i += 4) rows.push(cells.slice(i, i + 4));
  return el("table", { class: "auction", "aria-label": "Auction" },
    el("thead", {}, el("tr", {}, ...SEATS.map((seat) =>
      // shown "N (D)", the "(D)" drawn by CSS; named in words: "North, dealer"
      el("th", { scope: "col", class: seat === view.dealer ? "dealer" : null,
        "aria-label": seat === view.dealer ? `${SEAT_NAMES[seat]}, dealer` : SEAT_NAMES[seat] }, seat)))),
    el("tbody", {}, ...rows.map((row) => el("tr", {}, ...SEATS.map((_, column) => {
      const cell = row[column];
      if (!cell) return el("td", {});
      if (cell.pending) return el("td", { class: "pending", "aria-label": `${SEAT_NAMES[view.turn]} to call` }, "?");
      // An explanation shows on hover, and on focus for keyboards and touch screens.
      return el("td", {
        class: cell.explanation ? "explained" : null,
        tabindex: cell.explanation ? "0" : null,
        dataset: cell.explanation ? { explanation: cell.explanation } : {},
        "aria-label": `${SEAT_NAMES[cell.seat]}: ${spokenCall(cell.call)}${cell.explanation ? `, ${cell.explanation}` : ""}`,
      }, cell.call);
    })))));
}

/**
 * The bidding box: a button for each legal call, bids laid out by level, one
 * row per level. Every call keeps its place all through the auction: one not
 * on offer (a bid no longer above the last) is a faded placeholder, hidden from
 * screen readers, so that a call made does not bring another, higher call
 * under the pointer at the next turn. One button is in the tab order at a time
 * (a roving tabindex): arrow keys move between the calls (see `moveInBiddingBox`).
 *
 * @param {string[]} legal  the calls the server allows now
 * @param {(call: string, event: MouseEvent) => void} onCall  called with the chosen call and its click
 * @param {number|null} pendingLevel  a level typed at the keyboard, waiting for its denomination
 * @param {string|null} current  the call that takes the tab stop (Pass when it is not legal now)
 */
export function renderBiddingBox(legal, onCall, pendingLevel = null, current = null) {
  const stop = legal.includes(current) ? current : legal.includes("Pass") ? "Pass" : legal[0];
  const button = (call, row, column, extra = "") => el("button", {
    type: "button", class: extra, dataset: { call, row, column }, tabindex: call === stop ? "0" : "-1",
    // named first by what it shows (WCAG 2.5.3: "click 1P"), then in words: "1P, 1 Plain"
    "aria-label": call === "Pass" ? null : `${call}, ${spokenCall(call)}`, onclick: (event) => onCall(call, event),
  }, call);
  const spent = (call) => el("span", { class: "spent", "aria-hidden": "true" }, call);
  const grid = [];
  for (let level = 1; level <= 7; level++) {
    DENOMINATIONS.forEach((denomination, column) => {
      const call = `${level}${denomination}`;
      grid.push(legal.includes(call)
        ? button(call, level, column, `denom-${denomination}${level === pendingLevel ? " pending-level" : ""}`)
        : spent(call));
    });
  }
  const pass = legal.includes("Pass") ? button("Pass", 0, 0, "pass") : null;   // Pass is legal all through an auction
  return el("div", { class: "bidding-box", role: "group", "aria-label": "Bidding box",
    "aria-describedby": "bidding-keys" }, pass, ...grid,
  el("span", { id: "bidding-keys", class: "visually-hidden" }, "Arrow keys move between the calls."));
}

/**
 * The button an arrow key (or Home, End) leads to from `from` in a bidding
 * box: left and right along the calls in order, up and down to the nearest
 * call of the row above or below. Null when there is none that way. Where the
 * box shows a column a level (a short screen: the stylesheet flows it by
 * column), up and down go along the calls and left and right between levels.
 */
export function moveInBiddingBox(box, from, key) {
  if (getComputedStyle(box).gridAutoFlow.startsWith("column")) {
    key = { ArrowDown: "ArrowRight", ArrowUp: "ArrowLeft", ArrowRight: "ArrowDown", ArrowLeft: "ArrowUp" }[key] || key;
  }
  const buttons = [...box.querySelectorAll("button[data-call]")];
  const at = buttons.indexOf(from);
  if (key === "Home") return buttons[0] || null;
  if (key === "End") return buttons[buttons.length - 1] || null;
  if (at < 0) return buttons[0] || null;
  if (key === "ArrowRight") return buttons[at + 1] || null;
  if (key === "ArrowLeft") return buttons[at - 1] || null;
  const row = Number(from.dataset.row);
  const column = Number(from.dataset.column);
  const rows = [...new Set(buttons.map((b) => Number(b.dataset.row)))].sort((a, b) => a - b);
  const next = rows[rows.indexOf(row) + (key === "ArrowDown" ? 1 : -1)];
  if (next === undefined) return null;
  const candidates = buttons.filter((b) => Number(b.dataset.row) === next);
  return candidates.reduce((best, b) =>
    Math.abs(Number(b.dataset.column) - column) < Math.abs(Number(best.dataset.column) - column) ? b : best);
}

/**
 * The last calls and whose call it is, on one line ("E 1R · S Pass · W 2P · N ?"):
 * on a phone the auction grid is out of view while one bids. Empty outside the auction.
 */
export function recentCalls(view, explanations = []) {
  if (view.phase !== "auction") return "";
  const last = view.auction.slice(-3).map((item) => `${item.seat} ${item.call}`);
  const line = [...last, ...(view.turn ? [`${view.turn} ?`] : [])].join(" · ");
  // and on a line of its own what the last bid shows, as the grid's hover would say it
  let i = view.auction.length - 1;
  while (i >= 0 && !splitCall(view.auction[i].call)) i--;
  const shown = i >= 0 && explanations[i] ? `${view.auction[i].seat} ${view.auction[i].call}: ${explanations[i]}` : "";
  return shown ? `${line}\n${shown}` : line;
}
