// The card catalogue (codes, names, kinds, ranks) as the server describes the
// engine's deck, and the reader's language for card names.

import { faceMarkup, backMarkup } from "./cards.js";
import { fetchJson, store, stored } from "./ui.js";

const LANGUAGE_KEY = "flowerbridge.language";

/** Fetch the catalogue once; resolves to a Map from card code to its entry. */
export async function loadCatalogue() {
  const cards = await fetchJson("/api/cards");
  return new Map(cards.map((card) => [card.code, card]));
}

/** Codes sorted for display as the engine sorts a hand: by suit, then rank, highest first. */
export function sortCodes(catalogue, codes) {
  return [...codes].sort((a, b) => catalogue.get(b).index - catalogue.get(a).index);
}

/** The reader's chosen language for card names (en, ja or ko). */
export function getLanguage() {
  return stored(LANGUAGE_KEY) || "en";
}

/** Remember the language for card names across pages and visits. */
export function setLanguage(language) {
  store(LANGUAGE_KEY, language);
}

/**
 * A card as a DOM element: a face when `code` is known, a back otherwise.
 * The element carries `data-code` so that tests and keyboard handlers can find it.
 */
export function cardElement(catalogue, code, language, tag = "span") {
  const element = document.createElement(tag);
  element.className = "card";
  if (code) {
    const card = catalogue.get(code);
    element.dataset.code = code;
    element.dataset.kind = card.kind;
    // No title: the face's label already names the card (code and name, in its
    // language), and a title was read again as its description, without the language.
    element.innerHTML = faceMarkup(card, language);
  } else {
    element.classList.add("back");
    element.innerHTML = backMarkup();
  }
  return element;
}
