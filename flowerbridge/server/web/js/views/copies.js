// "Copies seen": for every card, whether none, one or both of its copies have
// been played this hand — the server counts them (`seen`); this only draws.

import { el } from "../ui.js";
import { cardName, monthColour } from "../cards.js";

const SUITS = [["A", "Bright Animals"], ["R", "Ribbons"], ["P", "Plains"]];
const PIPS = ["○○", "●○", "●●"];
const SAID = ["no copy played", "one copy played", "both copies played"];

/**
 * The panel's grid.
 *
 * @param {Map} catalogue  card code → entry, in catalogue order (highest first)
 * @param {object} seen  card code → copies played (0, 1, 2)
 * @param {string} language  for the names in tooltips
 */
export function renderCopiesSeen(catalogue, seen, language) {
  const items = [];
  for (const [suit, title] of SUITS) {
    items.push(el("div", { class: "copies-suit" }, title));
    for (const card of catalogue.values()) {
      if (card.suit !== suit) continue;
      const count = seen[card.code] || 0;
      const item = el("div", {
        class: `copy seen-${count}`, dataset: { code: card.code, seen: count },
        title: `${cardName(card, language)}: ${SAID[count]}`,
      }, el("span", {}, card.code, el("span", { class: "visually-hidden" }, `: ${SAID[count]}`)),
      el("span", { class: "pips", "aria-hidden": "true" }, PIPS[count]));
      // through the style object: the page's Content-Security-Policy refuses style attributes
      item.style.borderLeftColor = monthColour(card.month);
      items.push(item);
    }
  }
  return el("div", { class: "copies" }, ...items);
}
