// The deck page: every card face, suit by suit, highest first.

import { loadCatalogue, sortCodes, cardElement, getLanguage, setLanguage } from "./catalogue.js";
import { bindLanguageSelect, failed } from "./ui.js";

const SUITS = [["A", "Bright Animals"], ["R", "Ribbons"], ["P", "Plains"]];

function render(catalogue, language) {
  const gallery = document.getElementById("gallery");
  gallery.replaceChildren();
  for (const [letter, title] of SUITS) {
    const section = document.createElement("section");
    section.className = "gallery-suit";
    const heading = document.createElement("h2");
    heading.textContent = title;
    const row = document.createElement("div");
    row.className = "gallery-row";
    const codes = [...catalogue.values()].filter((card) => card.suit === letter).map((card) => card.code);
    for (const code of sortCodes(catalogue, codes)) {
      row.append(cardElement(catalogue, code, language, "figure"));
    }
    section.append(heading, row);
    gallery.append(section);
  }
}

// One line for screen readers when the names change: "Names in 日本語" (the
// language's name marked with its language, as its option is).
function sayLanguage(select) {
  const option = select.selectedOptions[0];
  const name = document.createElement("span");
  name.textContent = option.textContent;
  if (option.lang) name.lang = option.lang;
  document.getElementById("names-status").replaceChildren("Names in ", name);
}

async function main() {
  const catalogue = await loadCatalogue();
  const select = document.getElementById("language");
  bindLanguageSelect(select, getLanguage(), (language) => {
    setLanguage(language);
    render(catalogue, language);
    sayLanguage(select);
  });
  render(catalogue, getLanguage());
}

main().catch((error) => {
  document.getElementById("gallery").textContent = failed("Could not load the deck", error);
});
