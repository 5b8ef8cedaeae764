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

/**
 * Text shown one way and said another: a compact code on screen ("2R", "N"),
 * words to a screen reader ("2 Ribbons", "North"). The same text is left as it is.
 */
export function shownAndSaid(shown, said) {
  if (shown === said) return shown;
  return [el("span", { "aria-hidden": "true" }, shown), el("span", { class: "visually-hidden" }, said)];
}

/** Set a language <select> to `language` and call `onChange` with each new choice. */
export function bindLanguageSelect(select, language, onChange) {
  select.value = language;
  select.addEventListener("change", () => onChange(select.value));
}

/** What a request that got no answer says (the server gone, the connection down). */
const NO_ANSWER = "The server did not answer: check your connection and try again.";

/** Statuses a proxy in front of the server (docs/server.md) answers for it when it is down. */
const PROXY_NO_ANSWER = [502, 503, 504];

/**
 * Fetch JSON; an error answer (`{"error": {"code", "message"}}`, docs/protocol.md)
 * becomes an Error carrying the server's message, and no answer at all an Error
 * saying NO_ANSWER (the browser's own words, "Failed to fetch", tell a person nothing).
 * An error answer of another form is not this server's: a proxy's 502, 503 or 504 means
 * that the server did not answer it either, and another 5xx (a 500 above all) that it failed
 * before it answered (a request cut short as it stops, docs/server.md, or a fault). An answer
 * whose body cannot be read (cut off on its way) is no answer. Those errors are whole
 * sentences (`sentence`); a no-answer one is also marked `noAnswer`.
 */
export async function fetchJson(url, options = {}) {
  let response;
  try {
    response = await fetch(url, {
      ...options,
      headers: { "Content-Type": "application/json", Accept: "application/json", ...options.headers },
    });
  } catch {
    throw Object.assign(new Error(NO_ANSWER), { noAnswer: true, sentence: true });
  }
  const body = await response.json().catch(() => null);
  if (response.ok) {
    // an answer cut off on its way is no answer
    if (body === null) throw Object.assign(new Error(NO_ANSWER), { noAnswer: true, sentence: true });
    return body;
  }
  if (body?.error?.message) {
    // a refusal that says when to ask again (429 too many tables this minute, 503 every
    // table in use): when, in seconds
    const wait = Number(response.headers.get("Retry-After"));
    throw new Error(Number.isInteger(wait) && wait > 0
      ? `${body.error.message} (try again in ${wait} s)` : body.error.message);
  }
  const status = `${response.status} ${response.statusText}`.trim();
  if (PROXY_NO_ANSWER.includes(response.status)) {
    throw Object.assign(new Error(NO_ANSWER), { noAnswer: true, sentence: true });
  }
  if (response.status >= 500) {
    throw Object.assign(new Error(`The server failed before it answered (${status}): try again.`),
                        { sentence: true });
  }
  throw new Error(status);
}

/** What could not be done, and why: "Could not list the tables: database write failed" (the
 * server's words), or a sentence of fetchJson's after a stop: "Could not list the tables. The
 * server did not answer: check your connection and try again." */
/**
 * The server's message (written as an error's, "claim not accepted: ...; play on") as a
 * sentence to show a person: its first letter a capital, a full stop at its end.
 */
export function asSentence(text) {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

export function failed(what, error) {
  return error.sentence ? `${what}. ${error.message}` : `${what}: ${error.message}`;
}

/** A session's length as people say it: `{"hands": 8}` → "8 hands", `{"games": 1}` → "1 game". */
export function describeLength(length) {
  const [unit, count] = Object.entries(length)[0];
  return `${count} ${count === 1 ? unit.slice(0, -1) : unit}`;
}

/**
 * The value this browser keeps under `key`, or null: also where the browser refuses
 * its storage (site data blocked: reading `localStorage` throws), so that a page works
 * with its defaults rather than not at all.
 */
export function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Keep `value` under `key` where the browser lets pages keep anything (else nothing kept). */
export function store(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage refused: the choice holds for this page only
  }
}

// A table page opened from the lobby by the keyboard (Enter on its link) is worked by the
// keyboard from the start: the lobby notes it for this tab, the table page reads it once.
const BY_KEYBOARD = "flowerbridge.opened-by-keyboard";

/** Note, for the page a link clicked by `event` opens in this tab, that it was opened by the keyboard. */
export function noteOpenedByKeyboard(event) {
  // (a click with no pointer is a key's: Enter on a link fires click with detail 0; with
  // Ctrl, Shift or Meta the page opens in another tab or window, with Alt it is downloaded)
  if (event.detail !== 0 || event.ctrlKey || event.shiftKey || event.metaKey || event.altKey) return;
  try {
    sessionStorage.setItem(BY_KEYBOARD, "1");
  } catch {
    // storage refused: the table page waits for a key, as for a link opened anywhere else
  }
}

/** Whether this page was opened by the keyboard from the lobby (read once: the note is taken). */
export function openedByKeyboard() {
  try {
    const noted = sessionStorage.getItem(BY_KEYBOARD) !== null;
    sessionStorage.removeItem(BY_KEYBOARD);
    return noted;
  } catch {
    return false;
  }
}
