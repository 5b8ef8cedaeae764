// One websocket to a table (docs/protocol.md): the hello handshake with the
// seat token, events applied strictly in `seq` order, `sync` when one was
// missed, and reconnection with `since` after the socket drops.

const RETRY_MS = [500, 1000, 2000, 5000];
const SEQUENCED = new Set(["deal", "call", "play"]);

export class TableConnection {
  /**
   * @param {string} tableId  the table to join
   * @param {string|null} token  the seat token from the invitation link; null to spectate
   * @param {object} handlers  `onMessage(message)` for every message in order,
   *   `onStatus("connecting"|"online"|"offline"|"refused")` for the connection's state
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
      // 4401: a wrong token, 4404: no such table; retrying cannot help.
      if (event.code === 4401 || event.code === 4404) this.closedForGood = true;
      this.onStatus(this.closedForGood ? "refused" : "offline");
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
      if (this.seq !== null && message.seq <= this.seq) return;  // already applied
      if (this.seq === null || message.seq > this.seq + 1) {
        this.send({ type: "sync", since: this.seq });
        return;
      }
      this.seq = message.seq;
    }
    this.onMessage(message);
  }

  /** Send an action (`{type: "call", call}` or `{type: "play", card}`) for this seat. */
  act(action) {
    const id = `a${this.nextId++}`;
    this.send({ ...action, seq: this.seq, id });
    return id;
  }

  send(message) {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }
}
