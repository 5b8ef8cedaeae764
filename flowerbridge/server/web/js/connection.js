// One websocket to a table (docs/protocol.md): the hello handshake with the
// seat token, events applied strictly in `seq` order, `sync` when one was
// missed, and reconnection with `since` after the socket drops.

const RETRY_MS = [500, 1000, 2000, 5000];
const SEQUENCED = new Set(["deal", "call", "play"]);
// 4400: a bad hello, 4401: a wrong token, 4404: no such table; retrying cannot help.
// 4429: too many connections (this seat's, the table's spectators, this address's):
// retrying every few seconds would not help either, until the person closes one.
// Any other close (1013 included: the server could not reach its database) is retried.
export const TOO_MANY = 4429;
const FINAL_CLOSE_CODES = new Set([4400, 4401, 4404, TOO_MANY]);

export class TableConnection {
  /**
   * @param {string} tableId  the table to join
   * @param {string|null} token  the seat token from the invitation link; null to spectate
   * @param {object} handlers  `onMessage(message)` for every message in order,
   *   `onStatus("connecting"|"online"|"offline"|"refused", closeCode)` for the
   *   connection's state (the close code with "refused")
   */
  constructor(tableId, token, { onMessage, onStatus }) {
    this.tableId = tableId;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.seq = null;        // the last event applied; null until the first snapshot
    this.attempt = 0;
    this.closedForGood = false;
    this.nextId = 1;
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`);
    this.onStatus("connecting");
    this.socket.addEventListener("open", () => {
      this.socket.send(JSON.stringify({ type: "hello", token: this.token, since: this.seq }));
    });
    this.socket.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
    this.socket.addEventListener("close", (event) => {
      if (FINAL_CLOSE_CODES.has(event.code)) this.closedForGood = true;
      if (this.closedForGood) this.onStatus("refused", event.code);
      else this.onStatus("offline");
      if (!this.closedForGood) {
        setTimeout(() => this.open(), RETRY_MS[Math.min(this.attempt++, RETRY_MS.length - 1)]);
      }
    });
  }

  receive(message) {
    if (message.type === "welcome") {
      this.attempt = 0;
      this.onStatus("online");
    } else if (message.type === "snapshot") {
      this.seq = message.seq;
    } else if (SEQUENCED.has(message.type)) {
      // Before the first snapshot there is nothing to apply an event to; the snapshot follows.
      if (this.seq === null || message.seq <= this.seq) return;
      if (message.seq > this.seq + 1) {
        this.send({ type: "sync", since: this.seq });
        return;
      }
      this.seq = message.seq;
    } else if (message.type === "error" && message.code === "internal" && this.seq !== null) {
      // The server failed on our message: ask for what we may have missed.
      this.send({ type: "sync", since: this.seq });
    }
    this.onMessage(message);
  }

  /** Send an action (`{type: "call", call}` or `{type: "play", card}`) for this seat;
   *  false when it could not be sent (the socket is not open). */
  act(action) {
    return this.send({ ...action, seq: this.seq, id: `a${this.nextId++}` });
  }

  send(message) {
    if (this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }
}
