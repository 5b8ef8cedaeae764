// What a take-back says: "Taken back: your 1P, then West Pass, North 2R."

import { cardName } from "../cards.js";
import { SEAT_NAMES } from "../seats.js";
import { spokenCall } from "./auction.js";

/**
 * The sentence for an undo message, as the page that sits at ``seat`` says it
 * (a spectator's ``seat`` is null). ``dummy`` is the dummy of the hand the
 * cards were played in, as the view before the undo had it: its cards among
 * those taken back after the first are marked "(dummy)", as the first is named
 * "the dummy's".
 */
export function takenBackText(message, { seat, dummy, catalogue, language }) {
  const said = message.taken_back.map((action) => action.card
    ? `${action.card}, ${cardName(catalogue.get(action.card), language)}`
    : spokenCall(action.call));
  const first = message.taken_back[0];
  const whose = first.seat === seat ? "your"
    : first.seat === message.seat ? `${SEAT_NAMES[first.seat]}'s` : `the dummy's (${SEAT_NAMES[first.seat]})`;
  const after = message.taken_back.slice(1).map((action, i) =>
    `${SEAT_NAMES[action.seat]}${action.card && action.seat === dummy ? " (dummy)" : ""} ${said[i + 1]}`);
  const who = message.seat === seat ? "Taken back" : `${SEAT_NAMES[message.seat]} took back`;
  return `${who}: ${whose} ${said[0]}` + (after.length ? `, then ${after.join(", ")}.` : ".");
}
