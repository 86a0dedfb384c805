// The Discord fake's (discord.mjs) Gateway side: the WebSocket connections, identify and resume with their
// close codes, heartbeats and the watchdog that times a silent connection out, and the journal lines of what
// went each way. Sessions and the events queued for them live on the fake (DiscordFake.dispatch), so a resume
// on a new connection replays what the old one missed.
import { randomBytes } from "node:crypto";

import { WebSocketConnection } from "./common.mjs";

export const INTENTS = {
  GUILDS: 1 << 0, GUILD_MEMBERS: 1 << 1, GUILD_MODERATION: 1 << 2, GUILD_EXPRESSIONS: 1 << 3,
  GUILD_INTEGRATIONS: 1 << 4, GUILD_WEBHOOKS: 1 << 5, GUILD_INVITES: 1 << 6, GUILD_VOICE_STATES: 1 << 7,
  GUILD_PRESENCES: 1 << 8, GUILD_MESSAGES: 1 << 9, GUILD_MESSAGE_REACTIONS: 1 << 10, GUILD_MESSAGE_TYPING: 1 << 11,
  DIRECT_MESSAGES: 1 << 12, DIRECT_MESSAGE_REACTIONS: 1 << 13, DIRECT_MESSAGE_TYPING: 1 << 14,
  MESSAGE_CONTENT: 1 << 15, GUILD_SCHEDULED_EVENTS: 1 << 16, AUTO_MODERATION_CONFIGURATION: 1 << 20,
  AUTO_MODERATION_EXECUTION: 1 << 21, GUILD_MESSAGE_POLLS: 1 << 24, DIRECT_MESSAGE_POLLS: 1 << 25,
};
const ALL_INTENTS = Object.values(INTENTS).reduce((a, b) => a | b, 0);
const PRIVILEGED = { guild_members: INTENTS.GUILD_MEMBERS, guild_presences: INTENTS.GUILD_PRESENCES,
  message_content: INTENTS.MESSAGE_CONTENT };

export function sendGatewayPayload(fake, conn, payload, extra = {}) {
  conn.ws.send(JSON.stringify(payload));
  fake.journal.record({ kind: "gateway", direction: "out", conn: conn.n, session_id: conn.session?.id ?? null,
    op: payload.op, t: payload.t ?? null, s: payload.s ?? null, ...gatewaySummary(payload), ...extra });
}

export function acceptGateway(fake, req, socket, head) {
  const url = new URL(req.url, "http://fake");
  if (url.pathname !== "/gateway" && url.pathname !== "/gateway-resume") {
    socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    return;
  }
  const ws = WebSocketConnection.accept(req, socket, head);
  if (!ws) return;
  const conn = { n: ++fake.connectionCount, ws, session: null, path: url.pathname, lastHeartbeat: Date.now() };
  fake.connections.add(conn);
  fake.journal.record({ kind: "gateway", direction: "connect", conn: conn.n, path: url.pathname,
    query: Object.fromEntries(url.searchParams) });
  ws.onclose = (code, reason) => onClose(fake, conn, code, reason);
  if (url.searchParams.get("v") !== "10") {
    ws.close(4012, "Invalid API version");
    return;
  }
  if ((url.searchParams.get("encoding") ?? "json") !== "json") {
    ws.close(4002, "Error while decoding payload.");
    return;
  }
  ws.onmessage = (data) => onMessage(fake, conn, data);
  sendGatewayPayload(fake, conn, { t: null, s: null, op: 10, d: { heartbeat_interval: fake.heartbeatMs, _trace: ["fake"] } });
  conn.watchdog = setInterval(() => {
    if (Date.now() - conn.lastHeartbeat > 2 * fake.heartbeatMs + 1000) ws.close(4009, "Session timed out.");
  }, fake.heartbeatMs);
  conn.watchdog.unref();
}

function onClose(fake, conn, code, reason) {
  clearInterval(conn.watchdog);
  fake.connections.delete(conn);
  fake.journal.record({ kind: "gateway", direction: "close", conn: conn.n, session_id: conn.session?.id ?? null,
    code, reason });
  const session = conn.session;
  if (!session || session.conn !== conn) return;
  session.conn = null;
  // A client that closes with 1000 or 1001 ends its session; any other close leaves it resumable.
  if (code === 1000 || code === 1001) session.invalid = true;
}

function onMessage(fake, conn, data) {
  let payload;
  try {
    payload = JSON.parse(typeof data === "string" ? data : data.toString("utf8"));
  } catch {
    conn.ws.close(4002, "Error while decoding payload.");
    return;
  }
  fake.journal.record({ kind: "gateway", direction: "in", conn: conn.n, session_id: conn.session?.id ?? null,
    op: payload.op, ...gatewayInSummary(payload) });
  switch (payload.op) {
    case 1:
      conn.lastHeartbeat = Date.now();
      if (fake.ackHeartbeats) sendGatewayPayload(fake, conn, { t: null, s: null, op: 11, d: null });
      return;
    case 2:
      identify(fake, conn, payload.d ?? {});
      return;
    case 6:
      resume(fake, conn, payload.d ?? {});
      return;
    case 3:
    case 4:
    case 8:
      if (!conn.session) conn.ws.close(4003, "Not authenticated.");
      return;
    default:
      conn.ws.close(4001, "Unknown opcode.");
  }
}

function identify(fake, conn, d) {
  if (conn.session) {
    conn.ws.close(4005, "Already authenticated.");
    return;
  }
  if (String(d.token ?? "").replace(/^Bot\s+/i, "") !== fake.token) {
    conn.ws.close(4004, "Authentication failed.");
    return;
  }
  const intents = Number(d.intents);
  if (!Number.isInteger(intents) || intents < 0 || (intents & ~ALL_INTENTS) !== 0) {
    conn.ws.close(4013, "Invalid intent(s).");
    return;
  }
  for (const [name, bit] of Object.entries(PRIVILEGED)) {
    if (intents & bit && !fake.privileged[name]) {
      conn.ws.close(4014, "Disallowed intent(s).");
      return;
    }
  }
  const shard = d.shard ?? [0, 1];
  if (!Array.isArray(shard) || shard[1] < 1 || shard[0] < 0 || shard[0] >= shard[1]) {
    conn.ws.close(4010, "Invalid shard.");
    return;
  }
  const session = { id: randomBytes(16).toString("hex"), seq: 0, intents, events: [], conn, invalid: false,
    resumes: 0, identified_at: new Date().toISOString() };
  fake.sessions.set(session.id, session);
  conn.session = session;
  const guilds = [...fake.guilds.values()];
  const ready = {
    v: 10, user_settings: {}, user: { ...fake.bot, verified: true, mfa_enabled: false, email: null },
    guilds: guilds.map((g) => ({ id: g.id, unavailable: true })), session_id: session.id, session_type: "normal",
    resume_gateway_url: `${fake.wsBase}/gateway-resume`, relationships: [], private_channels: [], presences: [],
    geo_ordered_rtc_regions: [], guild_join_requests: [], shard,
    application: { id: fake.bot.id, flags: 0 }, _trace: ["fake"],
  };
  sendOne(fake, session, "READY", ready);
  if (intents & INTENTS.GUILDS) for (const g of guilds) sendOne(fake, session, "GUILD_CREATE", fake.guildCreate(g));
}

function sendOne(fake, session, event, d) {
  const payload = { t: event, s: ++session.seq, op: 0, d };
  session.events.push(payload);
  if (session.conn) sendGatewayPayload(fake, session.conn, payload);
}

function resume(fake, conn, d) {
  const session = fake.sessions.get(String(d.session_id ?? ""));
  if (String(d.token ?? "").replace(/^Bot\s+/i, "") !== fake.token) {
    conn.ws.close(4004, "Authentication failed.");
    return;
  }
  if (!session || session.invalid) {
    sendGatewayPayload(fake, conn, { t: null, s: null, op: 9, d: false });
    return;
  }
  const seq = Number(d.seq ?? 0);
  if (seq > session.seq) {
    conn.ws.close(4007, "Invalid seq.");
    return;
  }
  if (session.conn && session.conn !== conn) {
    session.conn.ws.close(4000, "Unknown error.");
  }
  session.conn = conn;
  session.resumes += 1;
  conn.session = session;
  for (const payload of session.events.filter((e) => e.s > seq)) sendGatewayPayload(fake, conn, payload, { replay: true });
  sendOne(fake, session, "RESUMED", { _trace: ["fake"] });
}

function gatewaySummary(payload) {
  const d = payload.d;
  if (payload.op !== 0 || !d || typeof d !== "object") return {};
  if (payload.t?.startsWith("MESSAGE_")) {
    return { message_id: d.id ?? d.message_id, channel_id: d.channel_id, content: d.content };
  }
  if (payload.t === "READY") return { ready_session_id: d.session_id };
  if (payload.t === "GUILD_CREATE") return { guild_id: d.id };
  return {};
}

function gatewayInSummary(payload) {
  const d = payload.d ?? {};
  if (payload.op === 2) return { intents: d.intents, shard: d.shard };
  if (payload.op === 6) return { resume_session_id: d.session_id, resume_seq: d.seq };
  return {};
}
