// The auction grid (one column per seat, the dealer's call first) and the
// bidding box, which offers exactly the calls the server lists as legal.

import { el } from "../ui.js";
import { SEATS, SEAT_NAMES } from "../seats.js";

const DENOMINATIONS = ["P", "R", "A", "NT"];
const DENOMINATION_NAMES = { P: "Plains", R: "Ribbons", A: "Bright Animals", NT: "No Trump" };

/** A call's level and denomination (`{level: 3, denomination: "NT"}`), or null for Pass. */
export function splitCall(text) {
  const match = /^([1-7])(P|R|A|NT)$/.exec(text);
  return match ? { level: Number(match[1]), denomination: match[2] } : null;
}

/** How a call reads aloud: "3 No Trump", "Pass". */
export function spokenCall(text) {
  const bid = splitCall(text);
  return bid ? `${bid.level} ${DENOMINATION_NAMES[bid.denomination]}` : text;
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
  if (view.phase === "auction") cells.push({ pending: true });
  const rows = [];
  for (let i = 0; i < cells.length; i += 4) rows.push(cells.slice(i, i + 4));
  return el("table", { class: "auction", "aria-label": "Auction" },
    el("thead", {}, el("tr", {}, ...SEATS.map((seat) =>
      el("th", { scope: "col", class: seat === view.dealer ? "dealer" : null, title: SEAT_NAMES[seat] }, seat)))),
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
 * The bidding box: a button for each legal call, bids laid out by level.
 *
 * @param {string[]} legal  the calls the server allows now
 * @param {(call: string) => void} onCall  called with the chosen call
 * @param {number|null} pendingLevel  a level typed at the keyboard, waiting for its denomination
 */
export function renderBiddingBox(legal, onCall, pendingLevel = null) {
  const button = (call, extra = "") => el("button", {
    type: "button", class: extra, dataset: { call }, "aria-label": spokenCall(call), onclick: () => onCall(call),
  }, call);
  const levels = [...new Set(legal.map(splitCall).filter(Boolean).map((bid) => bid.level))];
  const grid = [];
  for (const level of levels) {
    for (const denomination of DENOMINATIONS) {
      const call = `${level}${denomination}`;
      grid.push(legal.includes(call)
        ? button(call, `denom-${denomination}${level === pendingLevel ? " pending-level" : ""}`)
        : el("span", { "aria-hidden": "true" }));
    }
  }
  const pass = legal.includes("Pass") ? button("Pass", "pass") : null;
  return el("div", { class: "bidding-box", role: "group", "aria-label": "Bidding box" }, pass, ...grid);
}
