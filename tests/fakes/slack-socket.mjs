// The Slack fake's (slack.mjs) Socket Mode side: the WebSocket connections that apps.connections.open hands
// out (single-use tickets), `hello`, server pings, envelopes of Events API payloads with their acks, the
// redelivery of an envelope not acked in time (retry_attempt, retry_reason "timeout"), `disconnect` messages,
// and the journal lines of what went each way.
//
// Envelopes belong to the app, not to a connection (as on Slack): an envelope goes to one open connection;
// when that connection ends before the ack, or the ack does not come within ackTimeoutMs, it is sent again
// (to whichever connection is open then) with retry_attempt + 1, at most maxRetries times; after that it is
// recorded as `undelivered` and dropped, as Slack gives up on an event.
import { randomUUID } from "node:crypto";

import { WebSocketConnection } from "./common.mjs";

export class SocketMode {
  constructor(fake) {
    this.fake = fake;
    this.tickets = new Map(); // ticket → {issued_at, used}
    this.connections = new Set();
    this.connectionCount = 0;
    this.envelopes = new Map(); // envelope_id → state
    this.order = [];
    this.nextConn = 0;
    this.ackTimeoutMs = 3000;
    this.maxRetries = 3;
    this.pingMs = 5000;
  }

  // apps.connections.open: a new single-use URL.
  openUrl() {
    const ticket = randomUUID();
    this.tickets.set(ticket, { issued_at: Date.now(), used: false });
    return `${this.fake.wsBase}/link/?ticket=${ticket}&app_id=${this.fake.ids.app}`;
  }

  accept(req, socket, head) {
    const url = new URL(req.url, "http://fake");
    const ticket = this.tickets.get(url.searchParams.get("ticket") ?? "");
    const refuse = (status, text) => {
      this.fake.journal.record({ kind: "socket", direction: "refused", path: url.pathname, status });
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (url.pathname !== "/link/" && url.pathname !== "/link") return refuse(404, "Not Found");
    // A URL from apps.connections.open works once; a second connect with it is refused.
    if (!ticket || ticket.used) return refuse(401, "Unauthorized");
    const ws = WebSocketConnection.accept(req, socket, head);
    if (!ws) return;
    ticket.used = true;
    const conn = { n: ++this.connectionCount, ws, open: true, disconnectSent: false };
    this.connections.add(conn);
    this.fake.journal.record({ kind: "socket", direction: "connect", conn: conn.n });
    ws.onclose = (code, reason) => this.onClose(conn, code, reason);
    ws.onmessage = (data) => this.onMessage(conn, data);
    this.send(conn, {
      type: "hello",
      num_connections: this.live().length,
      debug_info: { host: "applink-fake", build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: this.fake.ids.app },
    });
    conn.pinger = setInterval(() => {
      if (!conn.ws.closed && !conn.ws.closeSent) conn.ws.writeFrame(0x9, Buffer.from(`ping ${Date.now()}`));
    }, this.pingMs);
    conn.pinger.unref();
    // Whatever waits (queued while no connection was open, or in flight on a connection that ended).
    this.flush();
  }

  live() {
    return [...this.connections].filter((c) => c.open && !c.disconnectSent);
  }

  send(conn, message, extra = {}) {
    conn.ws.send(JSON.stringify(message));
    this.fake.journal.record({ kind: "socket", direction: "out", conn: conn.n, type: message.type,
      envelope_id: message.envelope_id ?? null, retry_attempt: message.retry_attempt ?? null,
      ...summary(message), ...extra });
  }

  onClose(conn, code, reason) {
    conn.open = false;
    clearInterval(conn.pinger);
    this.connections.delete(conn);
    this.fake.journal.record({ kind: "socket", direction: "close", conn: conn.n, code, reason });
    // Envelopes in flight on this connection are sent again on the next one (a new attempt).
    for (const env of this.envelopes.values()) {
      if (env.state === "sent" && env.conn === conn) this.retry(env, "connection_closed");
    }
  }

  onMessage(conn, data) {
    let msg;
    try {
      msg = JSON.parse(typeof data === "string" ? data : data.toString("utf8"));
    } catch {
      this.fake.journal.record({ kind: "socket", direction: "in", conn: conn.n, invalid: true });
      return;
    }
    const env = this.envelopes.get(String(msg.envelope_id ?? ""));
    this.fake.journal.record({ kind: "socket", direction: "in", conn: conn.n, envelope_id: msg.envelope_id ?? null,
      known: Boolean(env), payload: msg.payload ?? null });
    if (!env || env.state === "acked" || env.state === "undelivered") return;
    env.state = "acked";
    env.acked_at = Date.now();
    env.acked_attempt = env.attempt;
    clearTimeout(env.timer);
  }

  // A new Events API payload for the app: wrapped in an envelope and sent to an open connection (or kept
  // until one opens).
  deliver(payload) {
    const env = { envelope_id: randomUUID(), payload, attempt: 0, state: "queued", conn: null, timer: null,
      retry_reason: "", created_at: Date.now(), sends: [] };
    this.envelopes.set(env.envelope_id, env);
    this.order.push(env.envelope_id);
    this.flush();
    return env;
  }

  flush() {
    for (const id of this.order) {
      const env = this.envelopes.get(id);
      if (env.state === "queued") this.sendEnvelope(env);
    }
  }

  sendEnvelope(env) {
    const open = this.live();
    if (!open.length) {
      env.state = "queued";
      return;
    }
    const conn = open[this.nextConn++ % open.length];
    env.state = "sent";
    env.conn = conn;
    env.sends.push({ conn: conn.n, attempt: env.attempt, at: Date.now() });
    this.send(conn, { envelope_id: env.envelope_id, payload: env.payload, type: "events_api",
      accepts_response_payload: false, retry_attempt: env.attempt, retry_reason: env.retry_reason });
    clearTimeout(env.timer);
    env.timer = setTimeout(() => {
      if (env.state === "sent") this.retry(env, "timeout");
    }, this.ackTimeoutMs);
    env.timer.unref();
  }

  retry(env, reason) {
    clearTimeout(env.timer);
    if (env.attempt >= this.maxRetries) {
      env.state = "undelivered";
      this.fake.journal.record({ kind: "socket", direction: "undelivered", envelope_id: env.envelope_id,
        event_id: env.payload.event_id, attempts: env.attempt + 1 });
      return;
    }
    env.attempt += 1;
    // Slack's retry_reason is "timeout" whether the ack was late or the connection ended before it; the
    // journal keeps which.
    env.retry_reason = "timeout";
    env.sends.push({ retry_cause: reason });
    env.state = "queued";
    this.sendEnvelope(env);
  }

  // Admin: a `disconnect` message on each open connection (reason refresh_requested, warning,
  // link_disabled, too_many_websockets); the connection is closed `close_after_ms` later unless the app
  // closes it first, as Slack recycles a connection.
  disconnect(reason = "refresh_requested", closeAfterMs = 10_000) {
    const open = this.live();
    for (const conn of open) {
      this.send(conn, { type: "disconnect", reason, debug_info: { host: "applink-fake" } });
      conn.disconnectSent = true;
      const timer = setTimeout(() => conn.ws.close(1001, "Going Away"), closeAfterMs);
      timer.unref();
    }
    // Envelopes on those connections now go to the next one that opens.
    return open.length;
  }

  // Admin: every open connection destroyed without a close frame (a network failure).
  drop() {
    const open = [...this.connections];
    for (const conn of open) conn.ws.terminate();
    return open.length;
  }

  state() {
    return this.order.map((id) => {
      const e = this.envelopes.get(id);
      return { envelope_id: e.envelope_id, event_id: e.payload.event_id, event_type: e.payload.event?.type,
        state: e.state, attempt: e.attempt, acked_attempt: e.acked_attempt ?? null, sends: e.sends };
    });
  }

  connectionsState() {
    return [...this.connections].map((c) => ({ conn: c.n, open: c.open, disconnect_sent: c.disconnectSent }));
  }
}

function summary(message) {
  const event = message.payload?.event;
  if (!event) return {};
  return { event_id: message.payload.event_id, event_type: event.type, channel: event.channel ?? null,
    ts: event.ts ?? null, text: event.text ?? null };
}
