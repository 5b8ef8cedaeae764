// Seat names and the geometry of the table as one seat sees it.

/** The seats in clockwise order, as the protocol spells them. */
export const SEATS = ["N", "E", "S", "W"];

export const SEAT_NAMES = { N: "North", E: "East", S: "South", W: "West" };

/** Cards dealt to each seat; the view tells only how many each has played. */
export const HAND_SIZE = 13;

/** The partnership of a seat, as the protocol spells sides. */
export function sideOf(seat) {
  return seat === "N" || seat === "S" ? "NS" : "EW";
}

/**
 * Where each seat sits on screen for a viewer: the viewer at the bottom, the
 * others clockwise (left-hand opponent on the left). Spectators sit South.
 */
export function positions(viewer) {
  const start = SEATS.indexOf(viewer || "S");
  const places = ["bottom", "left", "top", "right"];
  const result = {};
  places.forEach((place, i) => { result[SEATS[(start + i) % 4]] = place; });
  return result;
}
