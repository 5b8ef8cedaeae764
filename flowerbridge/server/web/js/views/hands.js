// A holding drawn as rows of cards, one row per suit, highest suit and card first.

import { el } from "../ui.js";
import { cardElement, sortCodes } from "../catalogue.js";

const SUIT_ORDER = ["A", "R", "P"];
const SUIT_NAMES = { A: "Bright Animals", R: "Ribbons", P: "Plains" };

/**
 * A holding as suit rows, each a group named for a screen reader by its suit and
 * how many cards it holds ("Ribbons, 4 cards"): a card's name gives its suit
 * only by its code ("5A May Bridge" is a Bright Animal).
 *
 * @param {Map} catalogue  card code → catalogue entry
 * @param {string[]} codes  the cards (a code may appear twice)
 * @param {string} language  for card names
 * @param {object} [how]  `small` for the compact size, `label` for screen readers,
 *   `makeCard(code)` to build each card (the default draws a plain face)
 */
export function holding(catalogue, codes, language, { small = false, label = "", makeCard = null } = {}) {
  const draw = makeCard || ((code) => cardElement(catalogue, code, language));
  const sorted = sortCodes(catalogue, codes);
  const rows = SUIT_ORDER.map((suit) => sorted.filter((code) => catalogue.get(code).suit === suit))
    .filter((row) => row.length)
    .map((row) => el("div", { class: "suit-row", role: "group",
      "aria-label": `${SUIT_NAMES[catalogue.get(row[0]).suit]}, ${row.length} card${row.length === 1 ? "" : "s"}` },
    ...row.map(draw)));
  return el("div", { class: `hand${small ? " small" : ""}`, "aria-label": label || null, role: label ? "group" : null }, ...rows);
}
