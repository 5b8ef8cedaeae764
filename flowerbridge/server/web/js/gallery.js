// The deck page: every card face, suit by suit, highest first.

import { loadCatalogue, sortCodes, cardElement, getLanguage, setLanguage } from "./catalogue.js";
import { bindLanguageSelect } from "./ui.js";

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

async function main() {
  const catalogue = await loadCatalogue();
  bindLanguageSelect(document.getElementById("language"), getLanguage(), (language) => {
    setLanguage(language);
    render(catalogue, language);
  });
  render(catalogue, getLanguage());
}

main().catch((error) => {
  document.getElementById("gallery").textContent = `Could not load the deck: ${error.message}`;
});
