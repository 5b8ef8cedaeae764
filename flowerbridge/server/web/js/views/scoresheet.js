// The scoresheet in the layout of the rulebook's Appendix B, drawn from the
// server's `Session.scoresheet()` data: above the line, below the line game by
// game, the games won, the last hand's record and its honors boxes.

import { el, shownAndSaid } from "../ui.js";
import { SEAT_NAMES } from "../seats.js";
import { spokenCall } from "./auction.js";

const SIDES = ["NS", "EW"];
const SIDE_NAMES = { NS: "NORTH-SOUTH", EW: "EAST-WEST" };

// Two columns of entries, North-South on the left, as on the paper sheet.
function sideColumns(entries, describe) {
  const columns = SIDES.map((side) => entries.filter((entry) => entry.side === side));
  const rows = Math.max(columns[0].length, columns[1].length, 1);
  const body = [];
  for (let i = 0; i < rows; i++) {
    body.push(el("tr", { class: "column-sides" }, ...columns.map((column) =>
      el("td", {}, column[i] ? describe(column[i]) : ""))));
  }
  return body;
}

function entry(points, note) {
  return el("span", { class: "entry" }, `${points} `, el("small", {}, note));
}

function box(ticked, label) {
  // a picture of a box, ticked or not: role img, so that its label is its name
  return el("span", { class: `box${ticked ? " ticked" : ""}`, role: "img", "aria-label": `${label}: ${ticked ? "yes" : "no"}` },
    ticked ? "✓" : "");
}

// A totals row's cell: the figure, and for a screen reader what it is ("Total: 27";
// the paper sheet has no word there).
function total(points) {
  return el("td", {}, el("span", { class: "visually-hidden" }, "Total: "), `${points}`);
}

function header() {
  return el("tr", {}, ...SIDES.map((side) => el("th", { scope: "col" }, SIDE_NAMES[side])));
}

// A long session's sheet keeps its latest part in view and folds the rest away
// (every entry one click off): above the line, the entries of the latest hands,
// at least the last hand's and at most SHOWN when the earlier hands have more
// than FOLD between them; below the line, the last GAMES_SHOWN games once there
// are more than GAMES_FOLD, and of those the entries of the latest hands as above
// the line (a long game: at 4,547 hands, 6 games of some 175 entries each drew a
// table 8,742 pixels tall). (At 419 hands the whole sheet was 25,000 pixels tall,
// the totals at its foot.)
export const SHOWN = 16;
export const FOLD = 8;
export const GAMES_SHOWN = 3;
export const GAMES_FOLD = 5;

const aboveEntry = (item) => entry(item.points, `${item.label} (hand ${item.hand})`);

// The first hand whose entries (above or below the line) stay in view; 0: all do.
function firstShownHand(items) {
  if (!items.length) return 0;
  let first = items[items.length - 1].hand;
  for (const hand of [...new Set(items.map((item) => item.hand))].reverse()) {
    if (items.filter((item) => item.hand >= hand).length > SHOWN) break;
    first = hand;
  }
  const earlier = items.filter((item) => item.hand < first).length;
  return earlier > FOLD ? first : 0;
}

// Earlier entries in a fold of their own: a summary that says what it holds, and
// the same two columns inside.
function folded(summary, label, tableClass, rows) {
  return el("details", { class: "earlier", dataset: { fold: tableClass } }, el("summary", {}, summary),
    el("table", { class: `${tableClass} earlier`, "aria-label": label },
      el("thead", {}, header()), el("tbody", {}, ...rows)));
}

function aboveTheLine(sheet) {
  const first = firstShownHand(sheet.above);
  const earlier = sheet.above.filter((item) => item.hand < first);
  const shown = sheet.above.filter((item) => item.hand >= first);
  const fold = earlier.length
    ? folded(`Hands 1 to ${first - 1}: ${earlier.length} earlier entries`, `Above the line, hands 1 to ${first - 1}`,
      "above", sideColumns(earlier, aboveEntry))
    : null;
  return [fold, el("table", { class: "above", "aria-label": first ? `Above the line, from hand ${first}` : "Above the line" },
    el("thead", {}, header()),
    el("tbody", {},
      ...sideColumns(shown, aboveEntry),
      el("tr", { class: "totals the-line" }, ...SIDES.map((side) => total(sheet.totals[side].above)))))];
}

function gameRows(games, all) {
  const rows = [];
  for (const game of games) {
    // The open game after the last line has no entries yet: nothing to draw.
    if (!game.below.length && !game.winner && all.length > 1) continue;
    // the contract that scored it ("2A (hand 3)"): "(hand 3)" alone said nothing of what was made
    rows.push(...sideColumns(game.below, (item) => entry(item.points,
      item.contract ? `${item.contract} (hand ${item.hand})` : `(hand ${item.hand})`)));
    if (game.winner) {
      rows.push(el("tr", { class: "game-line" },
        el("td", { colspan: 2 }, `game ${game.number} to ${SIDE_NAMES[game.winner]}`)));
    }
  }
  return rows;
}

function belowTheLine(sheet) {
  const won = sheet.games.filter((game) => game.winner);
  let earlier = won.length > GAMES_FOLD ? won.slice(0, won.length - GAMES_SHOWN) : [];
  let shown = sheet.games.filter((game) => !earlier.includes(game));
  const last = earlier.length ? earlier[earlier.length - 1].number : 0;
  let summary = `Games 1 to ${last}`;
  let label = `Below the line, games 1 to ${last}`;
  let heading = last ? `Below the line, from game ${last + 1}` : "Below the line";
  // the games left in view may be long ones: their earlier entries go in the fold too,
  // a game cut in two keeping its line (who won it) with its later part
  const first = firstShownHand(shown.flatMap((game) => game.below));
  if (first) {
    const before = (game) => ({ ...game, below: game.below.filter((item) => item.hand < first), winner: null });
    const after = (game) => ({ ...game, below: game.below.filter((item) => item.hand >= first) });
    const whole = shown.filter((game) => game.below.length && game.below.every((item) => item.hand < first));
    const cut = shown.filter((game) => !whole.includes(game) && game.below.some((item) => item.hand < first));
    earlier = [...earlier, ...whole, ...cut.map(before)];
    shown = shown.filter((game) => !whole.includes(game)).map((game) => (cut.includes(game) ? after(game) : game));
    const entries = earlier.reduce((sum, game) => sum + game.below.length, 0);
    summary = `Hands 1 to ${first - 1}: ${entries} earlier entries`;
    label = `Below the line, hands 1 to ${first - 1}`;
    heading = `Below the line, from hand ${first}`;
  }
  const fold = earlier.length ? folded(summary, label, "below", gameRows(earlier, sheet.games)) : null;
  return [fold, el("table", { class: "below", "aria-label": heading },
    el("thead", {}, header()), el("tbody", {}, ...gameRows(shown, sheet.games),
      el("tr", { class: "totals" }, ...SIDES.map((side) => total(sheet.totals[side].below)))))];
}

function gameWinner(sheet) {
  const { NS, EW } = sheet.totals;
  const games = (n) => `${n} game${n === 1 ? "" : "s"}`;
  return el("div", { class: "game-winner" },
    el("p", {}, `NORTH-SOUTH ${games(NS.games)}, EAST-WEST ${games(EW.games)}`),
    el("p", {}, `Totals: NORTH-SOUTH ${NS.total}, EAST-WEST ${EW.total}`,
      sheet.is_over ? "" : sheet.leader ? ` — ${SIDE_NAMES[sheet.leader]} ahead` : " — tied"),
    // at the end, who won the session (R19: more points in all), not who is "ahead"
    // (with the points, as the turn line says it)
    sheet.is_over ? el("p", { class: "session-over" }, "The session is over: ",
      sheet.leader
        ? `${SIDE_NAMES[sheet.leader]} won, ${sheet.totals[sheet.leader].total} points to ` +
          `${sheet.totals[sheet.leader === "NS" ? "EW" : "NS"].total}.`
        : `a tie, ${NS.total} points each.`) : null);
}

function handRecord(record) {
  const line = (term, value) => [el("dt", {}, term), el("dd", {}, value)];
  return el("dl", { class: "record" },
    ...line("Hand", `${record.hand}`),
    ...line("Dealer", SEAT_NAMES[record.dealer]),
    ...line("Contract", record.contract ? shownAndSaid(record.contract, spokenCall(record.contract)) : "passed out"),
    ...line("Declarer", record.declarer ? SEAT_NAMES[record.declarer] : "—"),
    ...line("Tricks won", `NS ${record.tricks.NS} · EW ${record.tricks.EW}`));
}

// The bonus values a table changed are in its options; the others are the ones
// Appendix B prints on the sheet.
function honors(record, options) {
  const brights = Object.keys(record.honors.NS);
  const bonus = (key, label, points) => el("tr", {},
    el("th", { scope: "row" }, `${label} (+${points})`),
    ...SIDES.map((side) => el("td", {}, box(record[key][side], `${label}, ${side}`))));
  return el("table", { class: "honors", "aria-label": "Honors" },
    el("thead", {}, el("tr", {}, el("th", {}, "HONORS"), ...SIDES.map((side) => el("th", {}, side)))),
    el("tbody", {},
      ...brights.map((bright) => el("tr", {},
        el("th", { scope: "row" }, bright.toUpperCase()),
        ...SIDES.map((side) => el("td", {},
          // the copy's digit beside its box is for the eye: the box's name says it
          ...[1, 2].map((copy) => [box(record.honors[side][bright] >= copy, `${bright}, ${side}, copy ${copy}`),
            el("span", { "aria-hidden": "true" }, `${copy} `)]))))),
      // the boxes are the Brights (for the bonuses); the points count every honor captured
      el("tr", { class: "honor-points" }, el("th", { scope: "row" }, "HONOR POINTS"),
        ...SIDES.map((side) => el("td", {}, `${record.honor_points[side]}`))),
      bonus("five_bright", "FIVE BRIGHT BONUS", options.five_bright_bonus ?? 25),
      bonus("ten_bright", "TEN BRIGHT BONUS", options.ten_bright_bonus ?? 75)),
    el("caption", { class: "muted" }, "The boxes are the Brights captured; honor points count "
      + "every honor captured (Brights, Animals, Ribbons). Ten Bright Bonus replaces Five Bright Bonus."));
}

/**
 * The scoresheet as a DOM element.
 *
 * @param {object|null} sheet  `Session.scoresheet()` data, or null before the first hand ends
 * @param {object} options  the table's rule options (for the bonus values)
 */
export function renderScoresheet(sheet, options = {}) {
  if (!sheet) return el("p", { class: "muted" }, "No hand has been scored yet.");
  return el("div", { class: "scoresheet" },
    el("p", { class: "sheet-title" }, "FLOWER BRIDGE"),
    el("h3", {}, "ABOVE THE LINE"), aboveTheLine(sheet),
    el("h3", {}, "BELOW THE LINE"), belowTheLine(sheet),
    el("h3", {}, "GAME WINNER"), gameWinner(sheet),
    sheet.last_hand ? [el("h3", {}, "HAND RECORD"), handRecord(sheet.last_hand), honors(sheet.last_hand, options)] : null);
}
