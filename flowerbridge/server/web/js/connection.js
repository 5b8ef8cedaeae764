// One websocket to a table (docs/protocol.md): the hello handshake with the
// seat token, events applied strictly in `seq` order, `sync` when one was
// missed, and reconnection with `since` after the socket drops, or is given up
// for dead: nothing heard for a while, a ping unanswered, the browser offline.

const RETRY_MS = [500, 1000, 2000, 5000];
// A socket can go silent without closing (a network that drops without a word):
// after HEARTBEAT_MS of silence a ping is sent, and a socket that then says
// nothing at all for DEAD_MS more is taken for dead. An action waits no longer
// than DEAD_MS for its answer either (the server answers every one).
const HEARTBEAT_MS = 15_000;
const DEAD_MS = 10_000;
const SEQUENCED = new Set(["deal", "call", "play", "undo"]);
// 4400: a bad hello, 4401: a wrong token, 4404: no such table; retrying cannot help.
// 4429: too many connections (this seat's, the table's spectators, this address's):
// retrying every few seconds would not help either, until the person closes one.
// Any other close (1013 included: the server could not reach its database) is retried.
export const TOO_MANY = 4429;
const FINAL_CLOSE_CODES = new Set([4400, 4401, 4404, TOO_MANY]);
// A socket that closes before it opens, BLOCKED_AFTER times running, while the
// server answers plain requests, is refused before the handshake: by the server
// (a page of a site it does not serve) or by a proxy in front of it that does
// not pass websockets on. Retrying goes on (it may be put right); the page says so.
const BLOCKED_AFTER = 3;

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
    this.unopened = 0;      // the sockets that closed before they opened, one after the other
    this.blocked = false;   // "blocked" has been said since the last socket that opened
    this.closedForGood = false;
    this.nextId = 1;
    this.socket = null;     // the socket listened to; null while waiting to retry
    this.retry = null;      // the timer of the next attempt, while waiting
    this.silence = null;    // the timer of the heartbeat: a ping, or the verdict after it
    this.awaiting = false;  // a ping or an action sent and nothing heard since: the verdict runs
    // The browser knows it lost the network: the socket is dead now, whatever
    // it says (it may stall without closing). Back online: retry at once.
    window.addEventListener("offline", () => { if (this.socket) this.giveUp(); });
    window.addEventListener("online", () => {
      if (this.retry === null) return;
      clearTimeout(this.retry);
      this.retry = null;
      this.open();
    });
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`);
    this.socket = socket;
    this.onStatus("connecting");
    this.heard();  // a connection that hangs is given up as a silent one is
    // A socket given up for dead is no longer listened to: a late message from
    // it is dropped, and its late close schedules no second reconnect.
    let opened = false;
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      opened = true;
      this.unopened = 0;
      this.blocked = false;
      socket.send(JSON.stringify({ type: "hello", token: this.token, since: this.seq }));
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      this.heard();
      this.receive(JSON.parse(event.data));
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      if (!opened) this.unopened++;
      this.dropped(event.code);
    });
  }

  /** Something came: the silence starts again, a ping due after HEARTBEAT_MS of it. */
  heard() {
    clearTimeout(this.silence);
    this.awaiting = false;
    this.silence = setTimeout(() => {
      this.send({ type: "ping", id: `p${this.nextId++}` });
      this.awaitAnswer();
    }, HEARTBEAT_MS);
  }

  /** Something was sent that the server answers: nothing heard within DEAD_MS, the socket is dead. */
  awaitAnswer() {
    if (this.awaiting) return;  // a ping or an action is waiting already: its time runs
    this.awaiting = true;
    clearTimeout(this.silence);
    this.silence = setTimeout(() => this.giveUp(), DEAD_MS);
  }

  /** Stop listening to the socket, close it, and reconnect as after a close. */
  giveUp() {
    const socket = this.socket;
    this.socket = null;
    socket.close();
    this.dropped(null);
  }

  /** The socket is gone (closed with `code`, or given up: null): retry, unless refused for good. */
  dropped(code) {
    this.socket = null;
    clearTimeout(this.silence);
    if (FINAL_CLOSE_CODES.has(code)) this.closedForGood = true;
    if (this.closedForGood) {
      this.onStatus("refused", code);
      return;
    }
    this.onStatus("offline");
    this.retry = setTimeout(() => {
      this.retry = null;
      this.open();
    }, RETRY_MS[Math.min(this.attempt++, RETRY_MS.length - 1)]);
    if (this.unopened >= BLOCKED_AFTER && !this.blocked) this.probe();
  }

  /** Whether the server answers a plain request while its websocket will not open:
   *  "blocked" if so; if not, the server is down, which "offline" says already. */
  async probe() {
    let answers = false;
    try {
      answers = (await fetch("/api/meta", { cache: "no-store" })).ok;
    } catch {
      // no answer: the server (or the network) is down
    }
    if (answers && this.unopened >= BLOCKED_AFTER && !this.blocked && !this.closedForGood) {
      this.blocked = true;
      this.onStatus("blocked");
    }
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
    const sent = this.send({ ...action, seq: this.seq, id: `a${this.nextId++}` });
    if (sent) this.awaitAnswer();
    return sent;
  }

  send(message) {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }
}
