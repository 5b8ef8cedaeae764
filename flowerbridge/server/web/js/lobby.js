// The lobby: create a table (rule options, length, a person or a bot in each
// seat), hand out one invitation link per person, list the open tables.

import { el, describeLength, failed, fetchJson, noteOpenedByKeyboard } from "./ui.js";
import { SEAT_NAMES, SEATS } from "./seats.js";

const REFRESH_MS = 10000;
const CREATING = "Creating the table…";
const STILL_CREATING = "Still creating the table…";
const STILL_LOADING = "The lobby is still loading the server's settings: try again in a moment.";

function levelOptions(select, bots, chosen) {
  select.replaceChildren(...bots.map((level) => el("option", { value: level, selected: level === chosen }, level)));
}

// What each level of bot the server offers is, in a line under the seats (a level of
// the server's own, not among these, is named alone).
const LEVELS = {
  random: "any legal call or card, at random",
  basic: "bids by a written system and plays as a club player does",
  pimc: "the strongest: deals the cards it cannot see many ways, solves each, and plays the card that does best",
};

function describeLevels(levels) {
  return `Bots: ${levels.map((level) => (LEVELS[level] ? `${level}, ${LEVELS[level]}` : level)).join("; ")}.`;
}

// One row per seat: person or bot, and the bot's level. South defaults to a person.
function seatChoices(meta) {
  document.getElementById("bot-levels").textContent = describeLevels(meta.bots);
  const container = document.getElementById("seat-choices");
  for (const seat of SEATS) {
    const player = el("select", { name: `player_${seat}`, "aria-label": `${SEAT_NAMES[seat]}: person or bot` },
      el("option", { value: "human", selected: seat === "S" }, "person"),
      el("option", { value: "bot", selected: seat !== "S" }, "bot"));
    const level = el("select", { name: `level_${seat}`, "aria-label": `${SEAT_NAMES[seat]}: bot level` });
    levelOptions(level, meta.bots, meta.default_bot);
    const sync = () => { level.disabled = player.value !== "bot"; };
    player.addEventListener("change", sync);
    sync();
    container.append(el("div", { class: "seat-choice" }, el("strong", {}, seat), player, level));
  }
}

/** The form's "More rule options": a JSON object of RuleOptions keys (the server checks
 * each), or an Error that says what is wrong with the text. */
function moreOptions(text) {
  if (!text.trim()) return {};
  let options;
  let huge = false;
  try {
    // a number past what JavaScript keeps exactly (1e400 became Infinity, sent as null,
    // which the server reads as no option given: a table under the defaults, unsaid)
    options = JSON.parse(text, (key, value) => {
      if (typeof value === "number" && !Number.isSafeInteger(value) && Math.abs(value) > Number.MAX_SAFE_INTEGER) {
        huge = true;
      }
      return value;
    });
  } catch (failure) {
    throw new Error(`More rule options: not JSON (${failure.message}): write them as {"game_points": 60}`);
  }
  if (huge) throw new Error("More rule options: a number far too large: an option is at most 1,000,000");
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new Error('More rule options: give an object of options, as {"game_points": 60}');
  }
  const above = ["declarer", "undertrick_penalty"].filter((key) => key in options);
  if (above.length) {
    throw new Error(`More rule options: ${above.join(" and ")} ${above.length > 1 ? "are" : "is"} set above, not here`);
  }
  return options;
}

function tableRequest(form) {
  const data = new FormData(form);
  const seats = {};
  for (const seat of SEATS) {
    seats[seat] = data.get(`player_${seat}`) === "bot"
      ? { player: "bot", level: data.get(`level_${seat}`) }
      : { player: "human" };
  }
  const request = {
    options: { ...moreOptions(data.get("more_options") ?? ""), declarer: data.get("declarer"),
      undertrick_penalty: Number(data.get("undertrick_penalty")) },
    length: { [data.get("length_unit")]: Number(data.get("length")) },
    seats,
    stand_in: data.get("stand_in"),
  };
  const name = data.get("name").trim();
  if (name) request.name = name;
  return request;
}

/** A new Idempotency-Key: 128 random bits in hex (crypto.randomUUID needs https or localhost). */
function randomKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function linkItem(label, path) {
  const url = new URL(path, location.origin).href;
  const input = el("input", { readonly: true, value: url, "aria-label": `${label} link`,
    dataset: { focus: `link ${label}` }, onfocus: (e) => e.target.select() });
  const copy = el("button", {
    type: "button",
    "aria-label": `Copy ${label} link`,
    dataset: { focus: `copy ${label}` },
    onclick: async () => {
      // The clipboard is there only in a secure context (https, or this
      // machine): elsewhere, or when the browser refuses, the link is
      // selected for the person to copy, and the button says so.
      let copied = false;
      try {
        if (navigator.clipboard) {
          await navigator.clipboard.writeText(url);
          copied = true;
        }
      } catch {
        copied = false;
      }
      if (!copied) {
        input.focus();
        input.select();
      }
      copy.textContent = copied ? "Copied" : "Selected: copy it (Ctrl+C / ⌘C)";
      copy.setAttribute("aria-label", `${copy.textContent}: ${label} link`);
      // said in the status line too: a screen reader does not read a label that changes
      // (emptied first, and said on the next frame: the same words again are news too)
      const status = document.getElementById("lobby-status");
      status.textContent = "";
      requestAnimationFrame(() => {
        status.textContent = copied ? `${label} link copied.` : `${label} link selected: copy it with Ctrl+C or ⌘C.`;
      });
    },
  }, "Copy");
  // "open" in a new tab, so that the lobby keeps the other seats' links (shown once only)
  const open = el("a", { href: url, target: "_blank", rel: "noopener", "aria-label": `open ${label} (new tab)`,
    dataset: { focus: `open ${label}` } }, "open");
  return el("li", { dataset: { link: label } }, el("strong", {}, label), " ", open, " ", copy, input);
}

// The server shows a table's invitations once and keeps only their hashes: this
// browser keeps the links of the tables it created (until they are no longer
// open), so that a reloaded lobby can still hand them out.
const KEPT = "flowerbridge.invitations";

function keptInvitations() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT) || "{}");
    return kept && typeof kept === "object" ? kept : {};
  } catch {
    return {};   // storage refused (private mode) or damaged: nothing kept
  }
}

function keepInvitations(kept) {
  try {
    localStorage.setItem(KEPT, JSON.stringify(kept));
  } catch {
    // storage refused: the links are shown this once, as before
  }
}

function keepCreated(created) {
  const seats = Object.fromEntries(Object.entries(created.invitations).map(([seat, i]) => [seat, i.url]));
  if (!Object.keys(seats).length) return;   // a table of bots: nothing secret to keep
  keepInvitations({ ...keptInvitations(), [created.table.id]: seats });
}

// The request not yet answered with a table, and its Idempotency-Key, kept in this tab's
// session storage: a reload of the lobby (after a lost answer, say) sends the same request
// with the same key, and so gets the table the server made rather than a second one. A new
// tab starts afresh: two tabs asking for two alike tables get two.
const UNANSWERED = "flowerbridge.unanswered";

function unansweredRequest() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(UNANSWERED));
    return typeof kept?.body === "string" && typeof kept?.key === "string" ? kept : null;
  } catch {
    return null;   // storage refused or damaged: nothing kept
  }
}

function keepUnanswered(request) {
  try {
    if (request) sessionStorage.setItem(UNANSWERED, JSON.stringify(request));
    else sessionStorage.removeItem(UNANSWERED);
  } catch {
    // storage refused: the key holds for this page only
  }
}

// The table whose links the lobby shows, until another Create is answered.
let shown = null;

// A Create refused after another table was made: that table's links, taken off
// the screen so as not to pass for the refused table's, are not lost. The lobby
// says where they are: under the table in the list (a table of bots: its Watch
// link there); where this browser could not keep them, they are shown again.
function pointToEarlierLinks(created) {
  const earlier = document.getElementById("earlier-links");
  earlier.textContent = "";
  if (!created) return;
  const name = `“${created.table.name}”`;
  if (!Object.keys(created.invitations).length) {
    earlier.textContent = `${name} is in the list of open tables: watch it from there.`;
  } else if (created.table.id in keptInvitations()) {
    earlier.textContent = `Your invitation links to ${name} are under it in the list of open tables.`;
  } else {
    showInvitations(created);
    earlier.textContent = `The links below are still those of ${name}.`;
  }
}

// The tables whose kept links are unfolded: the list is redrawn every few
// seconds, and must not fold them under the person's eyes.
const unfolded = new Set();

// The kept links of a listed table: a folded list under its row.
function keptLinks(table, kept) {
  const seats = kept[table.id];
  if (!seats) return null;
  const details = el("details", { class: "kept-links", open: unfolded.has(table.id) },
    el("summary", { dataset: { focus: "links" } }, "Your invitation links"),
    el("ul", { class: "invitations" }, ...Object.entries(seats).map(([seat, url]) => linkItem(SEAT_NAMES[seat], url))));
  details.addEventListener("toggle", () => {
    if (details.open) unfolded.add(table.id); else unfolded.delete(table.id);
  });
  return details;
}

function showInvitations(created) {
  const people = Object.keys(created.invitations).length;
  document.getElementById("created-title").textContent = people
    ? `Invitations to ${created.table.name}` : `${created.table.name}: the spectator link`;
  // A table of bots has no seat to hand out: only the spectator link is shown.
  document.getElementById("created-note").textContent = people === 1
    ? "Your link carries your seat's secret token: it takes you back to your seat. Anyone may watch " +
      "with the spectator link. This browser keeps the links under the table in the list below while " +
      "the table is open."
    : people
    ? "Each link carries its seat's secret token: send each person their own link. " +
      "Anyone may watch with the spectator link. This browser keeps the links under the table in the list " +
      "below while the table is open."
    : "Every seat is a bot, so there is no invitation to send: open or share the spectator link to " +
      "watch. The bots play while someone has the table open.";
  const list = document.getElementById("invitations");
  list.replaceChildren(
    ...Object.entries(created.invitations).map(([seat, invitation]) => linkItem(SEAT_NAMES[seat], invitation.url)),
    linkItem("Spectators", created.spectate_url));
  // One person (the one who made it, most likely, with bots): nobody to invite, so the way
  // in is a link of its own, in this tab (the list below keeps the link for later)
  const seats = Object.entries(created.invitations);
  const go = document.getElementById("go-to-table");
  if (seats.length === 1) {
    const [seat, invitation] = seats[0];
    go.replaceChildren(el("a", { class: "go-to-table", href: invitation.url }, `Go to your table, as ${SEAT_NAMES[seat]}`));
    go.classList.remove("hidden");
  } else {
    go.replaceChildren();
    go.classList.add("hidden");
  }
  document.getElementById("created").classList.remove("hidden");
}

function hideInvitations() {
  document.getElementById("created").classList.add("hidden");
  document.getElementById("invitations").replaceChildren();
  document.getElementById("go-to-table").replaceChildren();
}

// A table of bots waits for anyone to open it; a table of people waits for one of
// them (a spectator alone does not drive the stand-ins of people who all left).
function waitingFor(table) {
  const people = Object.values(table.seats).some((seat) => seat.player === "human");
  return people ? "waits for one of its players" : "waits for someone to open it";
}

function describeSeat(info) {
  if (info.player === "bot") return `bot (${info.level})`;
  if (info.stand_in) return `away (${info.stand_in} stands in)`;
  // not "free": a person's seat is theirs, come or gone (their link's token), and the
  // list cannot tell a seat not yet taken from one left; the table page says "not here" too
  return info.connected ? "person, here" : "person, not here";
}

// Who sits where, drawn as a compass round a small table: North above, West on
// the left, East on the right, South below. A list, clockwise from North, whose
// items each name their seat in full ("West: bot (basic)") for screen readers.
function seatCompass(seats) {
  return el("ul", { class: "compass", "aria-label": "Seats" }, ...SEATS.map((seat) =>
    el("li", { class: `compass-${seat}`, dataset: { seat } },
      el("strong", {}, `${SEAT_NAMES[seat]}:`), " ", describeSeat(seats[seat]))));
}

// The list is drawn anew when a table changes: the control that had the focus
// (a table's Watch link, one of its kept links) gets it back, so that a person
// at the keyboard is not thrown to the page's top every few seconds.
function focusedInList(list) {
  const active = document.activeElement;
  if (!active || !list.contains(active) || !active.dataset.focus) return null;
  return { table: active.closest("li[data-table]")?.dataset.table, focus: active.dataset.focus };
}

function refocus(list, focused) {
  if (!focused) return;
  const row = [...list.querySelectorAll("li[data-table]")].find((li) => li.dataset.table === focused.table);
  const again = row && [...row.querySelectorAll("[data-focus]")].find((e) => e.dataset.focus === focused.focus);
  if (again) again.focus({ preventScroll: true });
  else list.closest("section")?.querySelector("h2")?.focus?.();
}

// what the list of tables was last drawn from
let drawnList = null;
// while the server counts open tables as still loading, the list is asked again this soon
const LOADING_REFRESH_MS = 2000;
let loadingTimer = null;
// A long list is drawn a page at a time and can be searched by name (a server keeps
// up to --max-tables open, 1,000 by default): the search field shows once the list
// holds more than FIND_FROM tables (or has words in it), PAGE rows at first, PAGE
// more at each "Show more".
const PAGE = 50;
const FIND_FROM = 10;
let showing = PAGE;
// the list last received: { tables, still (their kept links), loading }
let listed = null;

/** Text as it is searched and shown: each run of spaces one space (as the page draws it). */
function spaced(text) {
  return text.trim().replace(/\s+/g, " ");
}

/** The tables whose name holds the words searched for (case and runs of spaces aside), in
 * the list's order: "friday  club" found no "Friday Club 1", and said so in words that
 * read "friday club". */
function matching(tables, words) {
  const wanted = spaced(words).toLocaleLowerCase();
  return wanted ? tables.filter((table) => spaced(table.name).toLocaleLowerCase().includes(wanted)) : tables;
}

function tableRow(table, still) {
  return el("li", { dataset: { table: table.id } },
    el("strong", {}, table.name),
    el("span", {}, `hand ${table.hand} · ${describeLength(table.length)}`),
    // its rule options other than the defaults, read before joining (R9, R15, the scales)
    table.options_changed?.length
      ? el("span", { class: "table-rules" }, `Rules: ${table.options_changed.join("; ")}`) : null,
    seatCompass(table.seats),
    el("span", { class: "muted" }, table.waiting ? waitingFor(table)
      : `${table.spectators} watching`),
    el("a", { href: `/t/${encodeURIComponent(table.id)}`, "aria-label": `Watch ${table.name}`,
      dataset: { focus: "watch" } }, "Watch"),
    keptLinks(table, still));
}

// "Showing 50 of 312 open tables", "3 of 312 open tables match “fri”": said under the
// list when it shows fewer than all (a status: a screen reader hears the count change)
function describeShown(shownCount, found, total, words) {
  const of = `${total.toLocaleString("en")} open table${total === 1 ? "" : "s"}`;
  if (words) {
    const match = `${found.toLocaleString("en")} of ${of} ${found === 1 ? "matches" : "match"} “${words}”`;
    return shownCount < found ? `${match}: showing the first ${shownCount.toLocaleString("en")}` : match;
  }
  return shownCount < total ? `Showing ${shownCount.toLocaleString("en")} of ${of}` : "";
}

/** Draw the list last received, as searched and paged now (only when that changed). */
function drawTables() {
  if (!listed) return;
  const list = document.getElementById("tables");
  const { tables, still, loading } = listed;
  const filter = document.getElementById("table-filter");
  const words = spaced(filter.value);
  document.getElementById("find-table").classList.toggle("hidden",
    tables.length <= FIND_FROM && !words && document.activeElement !== filter);
  const found = matching(tables, words);
  // the row that has the keyboard stays shown: a table opened meanwhile (the list is
  // newest first) pushed the last row of the page off it, and the focus to the heading
  const focused = focusedInList(list);
  const at = focused ? found.findIndex((table) => table.id === focused.table) : -1;
  if (at >= showing) showing = Math.ceil((at + 1) / PAGE) * PAGE;
  const rows = found.slice(0, showing);
  // Redrawn only when something changed: a redraw would drop the focus, the
  // selection and "Copied" in the kept links.
  const drawn = JSON.stringify([rows, still, loading, words, found.length, tables.length]);
  if (drawnList === drawn) return;
  drawnList = drawn;
  const count = describeShown(rows.length, found.length, tables.length, words);
  document.getElementById("tables-count").textContent = count;
  const more = found.length - rows.length;
  const button = document.getElementById("show-more");
  button.textContent = `Show ${Math.min(PAGE, more).toLocaleString("en")} more`;
  // (a Show more that goes with the keyboard on it: the keyboard goes to the last row)
  const buttonFocused = document.activeElement === button && more <= 0;
  button.classList.toggle("hidden", more <= 0);
  const loadingRow = loading > 0
    ? [el("li", { class: "muted", dataset: { loading: String(loading) } },
      `${loading === 1 ? "1 more open table is" : `${loading.toLocaleString("en")} more open tables are`} `
      + "being loaded (the server has just started)…")]
    : [];
  if (!tables.length && loadingRow.length) {
    list.replaceChildren(...loadingRow);
  } else if (!tables.length) {
    list.replaceChildren(el("li", { class: "muted" }, "No open tables yet: create one."));
  } else if (!found.length) {
    list.replaceChildren(el("li", { class: "muted" }, `No open table's name contains “${words}”.`),
      ...loadingRow);
  } else {
    list.replaceChildren(...rows.map((table) => tableRow(table, still)), ...loadingRow);
  }
  refocus(list, focused);     // (a Watch link gone with its table: the list's heading)
  if (buttonFocused) {
    const watch = [...list.querySelectorAll("[data-focus=watch]")].pop();
    if (watch) watch.focus(); else document.getElementById("open-title").focus();
  }
}

async function refreshTables() {
  const list = document.getElementById("tables");
  try {
    const before = keptInvitations();
    const asked = performance.now();
    const { tables, loading = 0 } = await fetchJson("/api/tables");
    // after a restart, open tables still loading are counted, not listed: asked again soon
    clearTimeout(loadingTimer);
    if (loading > 0) loadingTimer = setTimeout(refreshTables, LOADING_REFRESH_MS);
    // the server answers again: "did not answer" under Create table no longer holds
    // (unless it was said after this list was asked for)
    const error = document.getElementById("create-error");
    if (error.dataset.noAnswer && Number(error.dataset.noAnswer) < asked) {
      error.textContent = "";
      delete error.dataset.noAnswer;
    }
    // links of tables no longer open are forgotten -- but not those of a table
    // created while this list was on its way, which it cannot name yet
    const kept = keptInvitations();
    const open = new Set(tables.map((table) => table.id));
    const still = Object.fromEntries(Object.entries(kept).filter(([id]) => open.has(id) || !(id in before)));
    if (Object.keys(still).length !== Object.keys(kept).length) keepInvitations(still);
    listed = { tables, still, loading };
    drawTables();
  } catch (error) {
    drawnList = null;
    listed = null;
    const focused = focusedInList(list);
    list.replaceChildren(el("li", { class: "error-text" }, failed("Could not list the tables", error)));
    document.getElementById("tables-count").textContent = "";
    document.getElementById("show-more").classList.add("hidden");
    refocus(list, focused);     // (a Watch link gone with the list: the list's heading)
  }
}

// The search field and "Show more": a search starts again from the first page; "Show
// more" puts the keyboard on the first row it adds (its Watch link), where reading on
// continues, rather than leave it on a button that moved down the page.
function listControls() {
  const filter = document.getElementById("table-filter");
  filter.addEventListener("input", () => {
    showing = PAGE;
    drawTables();
  });
  document.getElementById("show-more").addEventListener("click", () => {
    const before = showing;
    showing += PAGE;
    drawTables();
    const rows = document.querySelectorAll("#tables li[data-table]");
    rows[before]?.querySelector("[data-focus=watch]")?.focus();
  });
}

// The server's settings (bot levels, default options), which the form is made from:
// asked again until they come (a server restarting, or refusing for a moment), the
// list of tables and the form's handlers working meanwhile.
const META_RETRY_MS = [1000, 2000, 5000, 10000];
let meta = null;
let metaLoading = null;

function loadMeta(form) {
  metaLoading ??= (async () => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const answer = await fetchJson("/api/meta");
        levelOptions(form.elements.stand_in, answer.bots, answer.default_bot);
        // the server's defaults, but not over what the person chose meanwhile
        const penalty = form.elements.undertrick_penalty;
        const untouchedPenalty = penalty.value === penalty.defaultValue;
        penalty.defaultValue = String(answer.default_options.undertrick_penalty);
        if (untouchedPenalty) penalty.value = penalty.defaultValue;
        const declarer = form.elements.declarer;
        const untouchedDeclarer = declarer.selectedIndex === Math.max(0,
          [...declarer.options].findIndex((o) => o.defaultSelected));
        const chosen = declarer.value;
        // (setting an option's default selects it: the choice is put back after)
        for (const option of declarer.options) option.defaultSelected = option.value === answer.default_options.declarer;
        declarer.value = untouchedDeclarer ? answer.default_options.declarer : chosen;
        seatChoices(answer);
        meta = answer;
        const error = document.getElementById("create-error");
        if (error.dataset.starting) {
          error.textContent = "";
          delete error.dataset.starting;
        }
        const status = document.getElementById("lobby-status");
        if (status.textContent === STILL_LOADING) status.textContent = "";
        return;
      } catch (failure) {
        const wait = META_RETRY_MS[Math.min(attempt, META_RETRY_MS.length - 1)];
        const error = document.getElementById("create-error");
        let said = failed("Could not load the server's settings", failure);
        if (!/[.!?…]$/.test(said)) said += ".";
        said += ` Trying again in ${wait / 1000} s…`;
        // (an alert: rewritten only when it says something new, not every ten seconds)
        if (error.textContent !== said) error.textContent = said;
        error.dataset.starting = "1";
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  })();
  return metaLoading;
}

async function main() {
  const form = document.getElementById("create-form");
  // One table a click: the second click of a double click (the browser counts it:
  // event.detail 2) submits nothing, nor does a submit while one is on its way; the
  // button says meanwhile that it is, and so does the status a screen reader speaks
  // (a slow answer is not a dead button).
  const button = document.getElementById("create-button");
  const status = document.getElementById("lobby-status");
  button.addEventListener("click", (event) => {
    if (event.detail >= 2) event.preventDefault();
  });
  let creating = false;
  // The request not yet answered with a table, and its Idempotency-Key: asked again
  // unchanged (after no answer, a refusal or "being made"; in this page or after a reload),
  // it goes with the same key, and the server answers with the table it made, if it made
  // one, its links included, rather than making a second (docs/protocol.md; a refused
  // request's key is free again there).
  let unanswered = unansweredRequest();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!meta) {    // the form is not made yet (no seats to send): said, and asked again
      status.textContent = STILL_LOADING;
      return;
    }
    if (creating) {
      status.textContent = STILL_CREATING;
      return;
    }
    creating = true;
    button.textContent = "Creating…";
    status.textContent = CREATING;
    const error = document.getElementById("create-error");
    error.textContent = "";
    delete error.dataset.noAnswer;
    hideInvitations();  // the last table's links must not pass for this one's
    let body;
    try {
      body = JSON.stringify(tableRequest(form));
    } catch (failure) {     // "More rule options" that are no options: said, nothing sent
      error.textContent = failure.message;
      const field = form.querySelector("input[name=more_options]");
      field.closest("details").open = true;     // the field the error is about, in view
      field.setAttribute("aria-invalid", "true");
      field.focus();
      creating = false;
      button.textContent = "Create table";
      status.textContent = "";
      return;
    }
    if (unanswered?.body !== body) {
      unanswered = { body, key: randomKey() };
      keepUnanswered(unanswered);   // kept before it is sent: the page may go before the answer
    }
    try {
      const created = await fetchJson("/api/tables", {
        method: "POST", body, headers: { "Idempotency-Key": unanswered.key } });
      unanswered = null;
      keepUnanswered(null);
      keepCreated(created);
      showInvitations(created);
      // the news, said by the heading a screen reader reads on focus ("Invitations to
      // Friday"), and the keyboard's place is at the links
      document.getElementById("created-title").focus();
      // and the way in stays in view with it (on a phone it lay below the screen's foot,
      // and nothing seemed to have happened)
      const go = document.getElementById("go-to-table");
      if (!go.classList.contains("hidden")) go.scrollIntoView({ block: "nearest" });
      shown = created;
      pointToEarlierLinks(null);
      refreshTables();
    } catch (failure) {
      error.textContent = failure.message;
      if (failure.noAnswer) error.dataset.noAnswer = String(performance.now());
      pointToEarlierLinks(shown);
    } finally {
      creating = false;
      button.textContent = "Create table";
      if ([CREATING, STILL_CREATING].includes(status.textContent)) status.textContent = "";
    }
  });
  // a changed form answers the last refusal
  form.addEventListener("input", () => {
    const error = document.getElementById("create-error");
    error.textContent = "";
    delete error.dataset.noAnswer;
    form.querySelector("input[name=more_options]").removeAttribute("aria-invalid");
  });
  // a table opened in this tab by the keyboard (Go to your table, Watch) takes focus to the
  // person's turn at once (it waited for a first key, the focus on the page's top)
  document.addEventListener("click", (event) => {
    if (event.target.closest?.('a[href^="/t/"]:not([target])')) noteOpenedByKeyboard(event);
  });
  listControls();
  refreshTables();
  setInterval(refreshTables, REFRESH_MS);
  await loadMeta(form);
}

main().catch((error) => {
  // no answer, a refusal (503 ...) or a fault of the page's own: said as such
  document.getElementById("create-error").textContent = failed("Could not start the lobby", error);
});
