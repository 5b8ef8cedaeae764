// Small DOM helpers shared by the pages.

/**
 * Create an element: `el("p", {class: "x", title: "t"}, "text", child)`.
 * Attributes named `on<event>` become listeners; `dataset` takes an object.
 */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (name === "class") element.className = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  element.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return element;
}

/** Set a language <select> to `language` and call `onChange` with each new choice. */
export function bindLanguageSelect(select, language, onChange) {
  select.value = language;
  select.addEventListener("change", () => onChange(select.value));
}

/**
 * Fetch JSON; an error answer (`{"error": {"code", "message"}}`, docs/protocol.md)
 * becomes an Error carrying the server's message.
 */
export async function fetchJson(url, options = {}) {
  const response = await fetch(url, {
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    ...options,
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(body?.error?.message || `${response.status} ${response.statusText}`);
  return body;
}

/** A session's length as people say it: `{"hands": 8}` → "8 hands", `{"games": 1}` → "1 game". */
export function describeLength(length) {
  const [unit, count] = Object.entries(length)[0];
  return `${count} ${count === 1 ? unit.slice(0, -1) : unit}`;
}
