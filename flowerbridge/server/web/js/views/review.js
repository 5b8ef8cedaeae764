// The review of a finished hand: the four hands as dealt, the 8 undealt cards,
// the auction, every trick and, for each card played, its double-dummy value.

import { el, shownAndSaid } from "../ui.js";
import { cardElement } from "../catalogue.js";
import { SEATS, SEAT_NAMES, sideOf } from "../seats.js";
import { holding } from "./hands.js";
import { spokenCall } from "./auction.js";

const DD_STATUS = {
  pending: "Double-dummy values are being computed…",
  ready: "Under each card: tricks for the declaring side if all four hands play perfectly from there on; " +
    "a red figure is what the card cost against the best card.",
  unavailable: "Double-dummy values are not available on this server.",
};

// Tricks a card gave away: declarer's side wants more tricks, defenders fewer.
function cost(play, declarer) {
  if (play.dd === null || play.best === null || play.dd === undefined) return null;
  return sideOf(play.seat) === sideOf(declarer) ? play.best - play.dd : play.dd - play.best;
}

function playCell(catalogue, play, declarer, language, won) {
  const lost = cost(play, declarer);
  const dd = play.dd === null || play.dd === undefined ? null
    : el("span", { class: `dd${lost > 0 ? " cost" : ""}`,
      title: lost > 0 ? `cost ${lost} trick${lost === 1 ? "" : "s"} (best was ${play.best})` : "a best card" },
    lost > 0 ? `${play.dd} (−${lost})` : `${play.dd}`);
  // The winner: shaded, marked ★ (a mark, not only a colour) and said in words to screen readers.
  return el("td", { class: won ? "won" : null, dataset: { seat: play.seat, code: play.card } },
    el("span", { class: "muted" }, shownAndSaid(play.seat, SEAT_NAMES[play.seat]), won ? el("span", { class: "won-mark", "aria-hidden": "true" }, " ★") : null),
    cardElement(catalogue, play.card, language), dd,
    won ? el("span", { class: "visually-hidden" }, "won the trick") : null);
}

function tricksTable(catalogue, review, language) {
  const declarer = review.contract.declarer;
  return el("table", { class: "tricks-table" },
    el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", { colspan: 4 }, "cards in the order played; the winner marked ★"))),
    el("tbody", {}, ...review.tricks.map((trick) => el("tr", {},
      el("th", { scope: "row" }, `${trick.number}`),
      ...trick.plays.map((play) => playCell(catalogue, play, declarer, language, play.seat === trick.winner))))));
}

function auctionList(review) {
  return el("ol", { class: "review-auction" }, ...review.auction.map((item) =>
    el("li", {}, shownAndSaid(`${item.seat}: ${item.call}`, `${SEAT_NAMES[item.seat]}: ${spokenCall(item.call)}`),
      item.explanation ? el("span", { class: "muted" }, ` — ${item.explanation}`) : null)));
}

// The headline in three parts, the contract between them.
function headlineParts(review) {
  const score = review.score;
  if (!review.contract) return [`Hand ${review.hand}: passed out.`, null, ""];
  const result = score.result === 0 ? "made exactly"
    : score.result > 0 ? `made with ${score.result} overtrick${score.result === 1 ? "" : "s"}`
      : `down ${-score.result}`;
  return [`Hand ${review.hand}: `, review.contract.bid,
    ` by ${SEAT_NAMES[review.contract.declarer]}, ${result} (NS ${score.tricks.NS} trick${score.tricks.NS === 1 ? "" : "s"}, EW ${score.tricks.EW}).`];
}

/** The review's one-line result as it is said: "Hand 1: 4 Bright Animals by South, made with
 *  1 overtrick (NS 11 tricks, EW 2)." (shown with the contract's code, "4A": see renderReview) */
export function headline(review) {
  const [before, bid, after] = headlineParts(review);
  return `${before}${bid ? spokenCall(bid) : ""}${after}`;
}

function scoreLines(score) {
  return el("ul", { class: "review-score" }, ...score.breakdown.map((item) =>
    el("li", {}, `${item.side} ${item.points} ${item.line} the line — ${item.label}`)));
}

/** The review of one hand as a DOM element (the protocol's review object). */
export function renderReview(catalogue, review, language) {
  return el("div", { class: "review", dataset: { hand: review.hand, ddStatus: review.dd_status } },
    el("h2", { id: "review-headline" }, ...headlineParts(review).map((part, i) =>
      (i === 1 && part ? shownAndSaid(part, spokenCall(part)) : part))),
    review.contract ? scoreLines(review.score) : null,
    el("div", { class: "deal-grid" },
      ...SEATS.map((seat) => el("section", { class: "review-hand", dataset: { seat } },
        el("h3", {}, `${SEAT_NAMES[seat]}${seat === review.dealer ? " (dealer)" : ""}`),
        holding(catalogue, review.hands[seat], language, { small: true, label: `${SEAT_NAMES[seat]}'s hand` }))),
      el("section", { class: "review-hand review-undealt" },
        el("h3", {}, "Undealt"),
        holding(catalogue, review.undealt, language, { small: true, label: "The undealt cards" }))),
    el("h3", {}, "Auction"), auctionList(review),
    review.contract ? [el("h3", {}, "Tricks"), el("p", { class: "muted dd-status" }, DD_STATUS[review.dd_status] || ""),
      tricksTable(catalogue, review, language)] : null);
}
