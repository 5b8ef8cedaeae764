// Card faces drawn as SVG from the card catalogue the server sends.
//
// Every picture here is the project's own: a few geometric shapes per month
// plant, a mark per kind (光 in a red circle on brights, a ribbon band, a small
// animal) and the card's code and name. Nothing is decided here about the
// game: which card is which comes from the catalogue entry
// ({code, month, kind, name, name_ja, name_ko, picture, ...}).

const SVG_NS = "http://www.w3.org/2000/svg";

// Card face size in SVG user units; CSS scales it.
const CARD_WIDTH = 100;
const CARD_HEIGHT = 150;

// The catalogue's name field for each language of card names.
const NAME_FIELDS = { en: "name", ja: "name_ja", ko: "name_ko" };

// The month plants: the colour of each month's flowers or leaves and a motif.
// A motif is a function returning SVG markup drawn in the art box
// (x 6–94, y 26–116), which clips it.
const PLANTS = {
  1: { colour: "#2e7d32", motif: pine },
  2: { colour: "#c62828", motif: (c) => blossoms(c, "#c62828", false) },
  3: { colour: "#ec6f9b", motif: (c) => blossoms(c, "#f8a5c2", true) },
  4: { colour: "#6a3d9a", motif: wisteria },
  5: { colour: "#3f51b5", motif: iris },
  6: { colour: "#d81b60", motif: peony },
  7: { colour: "#ad1457", motif: bushClover },
  8: { colour: "#455a64", motif: pampas },
  9: { colour: "#f9a825", motif: chrysanthemum },
  10: { colour: "#e64a19", motif: maple },
  11: { colour: "#558b2f", motif: willow },
  12: { colour: "#7e57c2", motif: paulownia },
};

/** The colour that stands for a month in borders and the copies-seen panel. */
export function monthColour(month) {
  return PLANTS[month].colour;
}

// ------------------------------------------------------------ plant motifs

function pine(c) {
  return `<path d="M50 112 C48 90 54 70 46 50" stroke="#6d4c41" stroke-width="5" fill="none"/>
    ${[[32, 58, 22], [62, 44, 20], [44, 80, 24], [68, 72, 16]].map(([x, y, r]) =>
      `<ellipse cx="${x}" cy="${y}" rx="${r}" ry="${r / 2.6}" fill="${c}"/>
       <path d="M${x - r + 4} ${y} h${2 * r - 8}" stroke="#1b5e20" stroke-width="1.2"/>`).join("")}`;
}

function flower(x, y, r, fill, notched) {
  // Five petals round a yellow centre; cherry petals are notched at the tip.
  let petals = "";
  for (let i = 0; i < 5; i++) {
    const a = (i * 72 - 90) * Math.PI / 180;
    const px = x + Math.cos(a) * r * 0.62;
    const py = y + Math.sin(a) * r * 0.62;
    petals += `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="${(r * 0.48).toFixed(1)}" fill="${fill}"/>`;
    if (notched) {
      const nx = x + Math.cos(a) * r * 1.05;
      const ny = y + Math.sin(a) * r * 1.05;
      petals += `<circle cx="${nx.toFixed(1)}" cy="${ny.toFixed(1)}" r="${(r * 0.12).toFixed(1)}" fill="#fbf6ea"/>`;
    }
  }
  return petals + `<circle cx="${x}" cy="${y}" r="${(r * 0.25).toFixed(1)}" fill="#fdd835"/>`;
}

function blossoms(c, fill, notched) {
  return `<path d="M14 108 C34 90 40 70 70 52 M40 76 C56 78 70 88 84 84" stroke="#4e342e"
      stroke-width="4" fill="none" stroke-linecap="round"/>
    ${[[70, 50, 11], [44, 70, 10], [84, 82, 9], [30, 92, 8], [60, 82, 7]].map(([x, y, r]) =>
      flower(x, y, r, fill, notched)).join("")}`;
}

function wisteria(c) {
  let out = `<path d="M18 30 Q50 40 84 30" stroke="#3e2723" stroke-width="3" fill="none"/>`;
  for (const [x, len] of [[28, 52], [50, 66], [72, 48]]) {
    for (let i = 0; i < len; i += 8) {
      const r = 5 - i / 26;
      out += `<ellipse cx="${x + (i % 16 ? 2 : -2)}" cy="${38 + i}" rx="${r.toFixed(1)}" ry="${(r * 0.8).toFixed(1)}" fill="${c}"/>`;
    }
  }
  return out;
}

function iris(c) {
  const blades = [[30, -14], [42, -6], [58, 6], [70, 14]].map(([x, lean]) =>
    `<path d="M${x} 112 Q${x + lean / 2} 80 ${x + lean} 50" stroke="#2e7d32" stroke-width="4" fill="none"/>`).join("");
  const bloom = (x, y) => `<path d="M${x} ${y} l-8 -12 l8 4 l8 -4 z M${x} ${y} l-12 6 l12 -2 l12 2 z"
      fill="${c}"/><circle cx="${x}" cy="${y - 2}" r="2" fill="#fdd835"/>`;
  return blades + bloom(28, 50) + bloom(74, 58);
}

function peony(c) {
  const leaves = `<path d="M50 96 q-30 4 -36 -16 q20 -2 36 16 z M50 96 q30 4 36 -16 q-20 -2 -36 16 z"
      fill="#388e3c"/>`;
  let petals = "";
  for (const [r, fill] of [[24, c], [16, "#f06292"], [8, "#fce4ec"]]) {
    petals += `<circle cx="50" cy="62" r="${r}" fill="${fill}"/>`;
  }
  return leaves + petals;
}

function bushClover(c) {
  let out = "";
  for (const [x0, bend] of [[16, 40], [40, 24], [64, 36]]) {
    out += `<path d="M${x0} 112 Q${x0 + bend} 70 ${x0 + bend / 2 + 10} 32" stroke="#5d4037" stroke-width="2" fill="none"/>`;
    for (let t = 0.15; t < 1; t += 0.17) {
      const x = (1 - t) ** 2 * x0 + 2 * (1 - t) * t * (x0 + bend) + t * t * (x0 + bend / 2 + 10);
      const y = (1 - t) ** 2 * 112 + 2 * (1 - t) * t * 70 + t * t * 32;
      out += `<ellipse cx="${(x + 4).toFixed(1)}" cy="${y.toFixed(1)}" rx="4" ry="2.4" fill="${c}"/>`;
    }
  }
  return out;
}

function pampas(c) {
  let grass = "";
  for (let x = 14; x < 90; x += 8) {
    grass += `<path d="M${x} 80 q3 -12 ${x % 16 ? 6 : -4} -20" stroke="#fbf6ea" stroke-width="1.5" fill="none"/>`;
  }
  return `<path d="M10 112 V78 Q50 40 90 78 V112 z" fill="${c}"/>${grass}`;
}

function chrysanthemum(c) {
  let petals = "";
  for (let i = 0; i < 16; i++) {
    petals += `<ellipse cx="50" cy="44" rx="4" ry="15" fill="${c}" stroke="#e65100" stroke-width="0.6"
        transform="rotate(${i * 22.5} 50 60)"/>`;
  }
  return `<path d="M50 112 V78" stroke="#2e7d32" stroke-width="3"/>${petals}
    <circle cx="50" cy="60" r="6" fill="#e65100"/>`;
}

function mapleLeaf(x, y, s, fill, angle) {
  return `<path transform="translate(${x} ${y}) rotate(${angle}) scale(${s})"
      d="M0 -12 L3 -4 L10 -7 L6 0 L12 3 L4 4 L5 11 L0 6 L-5 11 L-4 4 L-12 3 L-6 0 L-10 -7 L-3 -4 Z"
      fill="${fill}"/>`;
}

function maple(c) {
  return `<path d="M84 30 Q60 60 20 104" stroke="#4e342e" stroke-width="2.5" fill="none"/>
    ${[[72, 44, 1.3, -10], [52, 64, 1.5, 15], [30, 86, 1.2, -25], [70, 76, 1.1, 30], [34, 52, 1.0, 5]]
      .map(([x, y, s, a]) => mapleLeaf(x, y, s, c, a)).join("")}`;
}

function willow(c) {
  let out = `<path d="M10 30 Q50 24 90 32" stroke="#33691e" stroke-width="3" fill="none"/>`;
  for (let x = 16; x <= 84; x += 10) {
    out += `<path d="M${x} 30 q${x % 20 ? 6 : -6} 40 0 ${60 + (x % 3) * 8}" stroke="${c}" stroke-width="2.4" fill="none"/>`;
  }
  return out;
}

function paulownia(c) {
  const leaf = (x, y, a) => `<ellipse cx="${x}" cy="${y}" rx="16" ry="10" fill="#43a047"
      transform="rotate(${a} ${x} ${y})"/>`;
  let spike = "";
  for (const x of [36, 50, 64]) {
    for (let i = 0; i < 4; i++) {
      spike += `<circle cx="${x + (i % 2 ? 2 : -2)}" cy="${42 + i * 8}" r="${4.5 - i * 0.6}" fill="${c}"/>`;
    }
  }
  return leaf(30, 96, -20) + leaf(70, 96, 20) + leaf(50, 84, 0) + spike;
}

// --------------------------------------------------------------- kind marks

// 光 ("light") drawn as brush strokes, so the mark needs no CJK font.
const HIKARI = "M0 -8 V-2 M-6 -7 L-4 -3 M6 -7 L4 -3 M-8 -1 H8 M-3 -1 Q-3 6 -8 8 M3 -1 V6 Q3 8 5 8 H8 V6";

function brightMark() {
  return `<g class="mark-bright"><circle cx="78" cy="38" r="11" fill="#c62828" stroke="#fbf6ea" stroke-width="1.5"/>
    <path d="${HIKARI}" transform="translate(78 38)" stroke="#fbf6ea" stroke-width="1.8" fill="none"
      stroke-linecap="round" stroke-linejoin="round"><title>光</title></path></g>`;
}

function ribbonMark(picture) {
  const blue = /blue/.test(picture);
  const poetry = /poetry/.test(picture);
  const fill = blue ? "#1e4fa8" : "#d32f2f";
  // The poetry ribbons carry writing; a few brush strokes stand for it.
  const writing = poetry
    ? [46, 56, 66, 76].map((y, i) => `<path d="M${i % 2 ? 48 : 50} ${y} q3 3 0 6" stroke="#111" stroke-width="1.6" fill="none"/>`).join("")
    : "";
  return `<g class="mark-ribbon" transform="rotate(-12 50 64)">
    <path d="M42 34 H58 V92 L50 86 L42 92 Z" fill="${fill}" stroke="#fbf6ea" stroke-width="1.2"/>${writing}</g>`;
}

// The picture of each animal and bright card, by code (the crane and sun, the
// curtain, the moon, the rain man, the phoenix; the birds, bridge, butterflies,
// boar), and November's lightning. A card without one (none of the deck's animals
// and brights) shows its plant and kind mark only.
const PICTURES = {
  "2A": `<g class="animal"><ellipse cx="56" cy="66" rx="13" ry="8" fill="#7cb342"/>
      <circle cx="68" cy="60" r="6" fill="#7cb342"/><path d="M73 60 l6 1 l-6 2 z" fill="#5d4037"/>
      <circle cx="69" cy="59" r="1.2" fill="#111"/><path d="M44 66 l-10 -4 l4 8 z" fill="#558b2f"/></g>`,
  "5A": `<g class="animal" fill="#8d6e63" stroke="#4e342e" stroke-width="1">
      <rect x="14" y="78" width="30" height="7" transform="rotate(-18 29 81)"/>
      <rect x="38" y="74" width="30" height="7" transform="rotate(18 53 77)"/>
      <rect x="60" y="78" width="28" height="7" transform="rotate(-18 74 81)"/></g>`,
  // June's butterflies: a pair, the second smaller, above and to the right
  "6A": `<g class="animal"><path d="M50 66 C38 48 26 54 34 66 C26 78 40 80 50 68 Z" fill="#ffb300" stroke="#3e2723"/>
      <path d="M50 66 C62 48 74 54 66 66 C74 78 60 80 50 68 Z" fill="#ffb300" stroke="#3e2723"/>
      <path d="M50 58 V76" stroke="#3e2723" stroke-width="2"/>
      <g transform="translate(70 34) scale(0.5) translate(-50 -66)">
        <path d="M50 66 C38 48 26 54 34 66 C26 78 40 80 50 68 Z" fill="#ffb300" stroke="#3e2723" stroke-width="2"/>
        <path d="M50 66 C62 48 74 54 66 66 C74 78 60 80 50 68 Z" fill="#ffb300" stroke="#3e2723" stroke-width="2"/>
        <path d="M50 58 V76" stroke="#3e2723" stroke-width="4"/></g></g>`,
  "7A": `<g class="animal"><ellipse cx="50" cy="80" rx="24" ry="12" fill="#6d4c41"/>
      <path d="M72 76 l12 6 l-12 4 z" fill="#6d4c41"/><circle cx="74" cy="77" r="1.5" fill="#fbf6ea"/>
      <path d="M34 90 v10 M44 91 v10 M56 91 v10 M66 90 v10" stroke="#4e342e" stroke-width="3"/></g>`,
  "8A": `<g class="animal" stroke="#212121" stroke-width="2.5" fill="none" stroke-linecap="round">
      <path d="M24 44 l8 6 l8 -6"/><path d="M46 36 l8 6 l8 -6"/><path d="M62 52 l8 6 l8 -6"/></g>`,
  "1B": `<g class="bright"><circle cx="34" cy="44" r="14" fill="#e53935"/>
      <ellipse cx="56" cy="82" rx="14" ry="9" fill="#fafafa" stroke="#424242"/>
      <path d="M64 78 Q70 60 62 52" stroke="#424242" stroke-width="3" fill="none"/>
      <circle cx="62" cy="51" r="3" fill="#e53935"/><path d="M42 82 l-8 4" stroke="#212121" stroke-width="3"/></g>`,
  "3B": `<g class="bright"><path d="M14 54 Q50 66 86 54 V96 Q50 108 14 96 Z" fill="#e53935" stroke="#b71c1c"/>
      <path d="M14 70 Q50 82 86 70" stroke="#fbf6ea" stroke-width="3" fill="none"/>
      <path d="M14 84 Q50 96 86 84" stroke="#fbf6ea" stroke-width="3" fill="none"/></g>`,
  "8B": `<g class="bright"><circle cx="50" cy="56" r="20" fill="#fff8e1" stroke="#f9a825" stroke-width="2"/></g>`,
  "11B": `<g class="bright"><path d="M30 64 Q50 40 70 64 Z" fill="#1565c0"/>
      <path d="M50 64 V96" stroke="#3e2723" stroke-width="2"/><circle cx="40" cy="76" r="5" fill="#ffcc80"/>
      <path d="M36 82 h8 v16 h-8 z" fill="#c62828"/></g>`,
  "12B": `<g class="bright"><path d="M50 50 C30 40 24 60 38 70 C20 74 26 96 46 86 L50 100 L56 86
      C76 96 82 74 64 70 C78 60 70 40 50 50 Z" fill="#ef6c00" stroke="#6a1b9a" stroke-width="1.5"/>
      <circle cx="50" cy="56" r="4" fill="#6a1b9a"/></g>`,
  // the one plain with a picture of its own: November's lightning (the willow's Plain)
  "11P": `<g class="lightning"><path d="M60 24 L42 50 H54 L38 80 L68 46 H56 L70 24 Z"
      fill="#212121" stroke="#c62828" stroke-width="1.5" stroke-linejoin="round"/></g>`,
};

function kindMark(card) {
  switch (card.kind) {
    case "B": return brightMark() + (PICTURES[card.code] || "");
    case "R": return ribbonMark(card.picture || "");
    default: return PICTURES[card.code] || "";    // an animal; a plain has none but 11P
  }
}

// ------------------------------------------------------------------ labels

function escapeXml(text) {
  return String(text).replace(/[&<>"']/g, (ch) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}

/** A card's name in a language (`en`, `ja` or `ko`); English when unknown. */
export function cardName(card, language = "en") {
  return card[NAME_FIELDS[language] || "name"] || card.name;
}

// Names run to two lines at the foot of the card; a long line is squeezed
// with textLength rather than cut, so every name is shown whole.
function nameLines(name) {
  const words = name.split(" ");
  if (name.length <= 14 || words.length === 1) return [name];
  let best = [name, ""];
  let bestWidth = Infinity;
  for (let i = 1; i < words.length; i++) {
    const lines = [words.slice(0, i).join(" "), words.slice(i).join(" ")];
    const width = Math.max(lines[0].length, lines[1].length);
    if (width < bestWidth) {
      best = lines;
      bestWidth = width;
    }
  }
  return best;
}

function nameText(name) {
  const lines = nameLines(name);
  const top = lines.length === 1 ? 132 : 126;
  return lines.map((line, i) => {
    const squeeze = line.length > 15 ? ` textLength="88" lengthAdjust="spacingAndGlyphs"` : "";
    return `<text x="50" y="${top + i * 11}" font-size="10" text-anchor="middle"${squeeze}>${escapeXml(line)}</text>`;
  }).join("");
}

// ------------------------------------------------------------------- faces

/**
 * The SVG markup of a card face.
 *
 * @param {object} card  a catalogue entry: code, month, kind (B/A/R/P), names, picture
 * @param {string} language  which name to print: en, ja or ko
 */
export function faceMarkup(card, language = "en") {
  const plant = PLANTS[card.month];
  return `<svg xmlns="${SVG_NS}" viewBox="0 0 ${CARD_WIDTH} ${CARD_HEIGHT}" class="card-face kind-${card.kind}"
      role="img"${language in NAME_FIELDS && language !== "en" ? ` lang="${language}"` : ""} aria-label="${escapeXml(card.code + " " + cardName(card, language))}">
    <rect x="1.5" y="1.5" width="97" height="147" rx="8" fill="#fbf6ea" stroke="${plant.colour}" stroke-width="3"/>
    <text x="8" y="20" font-size="17" font-weight="700" fill="#222">${escapeXml(card.code)}</text>
    <rect x="6" y="26" width="88" height="90" rx="4" fill="#fffdf7" stroke="#e6dcc4"/>
    <svg x="6" y="26" width="88" height="90" viewBox="6 26 88 90">
      <g class="plant">${plant.motif(plant.colour)}</g>
      ${kindMark(card)}
    </svg>
    <g class="name" fill="#222" font-family="system-ui,'Noto Sans CJK JP','Noto Sans CJK KR',sans-serif">${nameText(cardName(card, language))}</g>
  </svg>`;
}

/** The SVG markup of a card's back, for cards a seat may not see. */
export function backMarkup() {
  return `<svg xmlns="${SVG_NS}" viewBox="0 0 ${CARD_WIDTH} ${CARD_HEIGHT}" class="card-back" role="img" aria-label="hidden card">
    <rect x="1.5" y="1.5" width="97" height="147" rx="8" fill="#8e1b1b" stroke="#4a0d0d" stroke-width="3"/>
    <rect x="10" y="10" width="80" height="130" rx="5" fill="none" stroke="#e8b4a0" stroke-width="2"/>
    <circle cx="50" cy="75" r="18" fill="none" stroke="#e8b4a0" stroke-width="2"/>
    <circle cx="50" cy="75" r="8" fill="#e8b4a0"/>
  </svg>`;
}
