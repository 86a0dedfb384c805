#!/usr/bin/env node
// A fake Matrix homeserver for sigil's channel tests: the client-server API v3 (and the authenticated media of
// v1.11) as a homeserver such as Synapse speaks it, written from the Matrix specification (spec.matrix.org,
// data/api/client-server/*.yaml). Unencrypted rooms; an encrypted room's messages arrive as m.room.encrypted.
// See README.md beside this file.
//
//   node tests/fakes/matrix.mjs --port 0 --state-dir DIR [--access-token syt_…]
//
// prints `listening <port>` when ready. The API at http://127.0.0.1:<port>/_matrix/…; the admin API (tests
// only) under /_fake/.
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";

import {
  BodyTooLarge,
  Faults,
  Journal,
  answerAfterFault,
  listen,
  parseOptions,
  readBody,
  sendJson,
  serveAdmin,
  sha256,
  takeFault,
} from "./common.mjs";
import { MatrixError, Rooms, SERVER_NAME } from "./matrix-rooms.mjs";

export const IDS = {
  server: SERVER_NAME,
  bot: `@sigil:${SERVER_NAME}`,
  alice: `@alice:${SERVER_NAME}`,
  bob: `@bob:${SERVER_NAME}`,
  aliceDm: `!dm-alice:${SERVER_NAME}`, // a direct chat: the bot and alice
  general: `!general:${SERVER_NAME}`, // a group room: the bot, alice and bob
  secret: `!secret:${SERVER_NAME}`, // an encrypted room: the bot and alice
};
export const DEFAULT_ACCESS_TOKEN = "syt_c2lnaWw_sigilFakeAccessTokenNotASecret_0AbCdE";
export const ALICE_ACCESS_TOKEN = "syt_YWxpY2U_aliceFakeAccessTokenNotASecret_1FgHiJ";

const UPLOAD_LIMIT = 50 * 1024 * 1024; // m.upload.size
const SYNC_TIMEOUT_CAP = 60_000;

// ------------------------------------------------------------------ the fake

export class MatrixFake {
  constructor({ accessToken = DEFAULT_ACCESS_TOKEN, journal, faults } = {}) {
    this.journal = journal ?? new Journal(null);
    this.faults = faults ?? new Faults();
    this.ids = IDS;
    this.base = "http://127.0.0.1";
    // access token → the device it belongs to
    this.tokens = new Map([
      [accessToken, { user_id: IDS.bot, device_id: "SIGILBOTDEV" }],
      [ALICE_ACCESS_TOKEN, { user_id: IDS.alice, device_id: "ALICEDEV01" }],
    ]);
    this.profiles = new Map([[IDS.bot, "sigil"], [IDS.alice, "Alice"], [IDS.bob, "Bob"]]);
    this.rooms = new Rooms(IDS.bot);
    this.txns = new Map(); // access token + request path → the answer given the first time
    this.filters = new Map();
    this.media = new Map(); // media id → {data, content_type, filename, uploader}
    this.polls = new Set(); // open /sync long polls: their sockets, for /_fake/sync/drop
    this.rooms.createRoom({ room_id: IDS.aliceDm, creator: IDS.alice, members: [IDS.bot], direct: true });
    this.rooms.createRoom({ room_id: IDS.general, name: "General", creator: IDS.alice, members: [IDS.bot, IDS.bob] });
    this.rooms.createRoom({ room_id: IDS.secret, name: "Secret", creator: IDS.alice, members: [IDS.bot], encrypted: true });
  }

  setAddress(port) {
    this.base = `http://127.0.0.1:${port}`;
  }

  // ---------------------------------------------------------------- routes

  // [method, pattern, name, handler, needs auth]; the name is what a fault's `match` and the journal use.
  routes() {
    const C = "/_matrix/client";
    return [
      ["GET", `^${C}/versions$`, "versions", () => this.versions(), false],
      ["GET", `^${C}/v3/account/whoami$`, "whoami", (ctx) => ({ user_id: ctx.user, device_id: ctx.device, is_guest: false })],
      ["GET", `^${C}/v3/capabilities$`, "capabilities", () => ({ capabilities: { "m.change_password": { enabled: false },
        "m.room_versions": { default: "10", available: { 10: "stable", 11: "stable" } } } })],
      ["GET", `^${C}/v3/pushrules/?$`, "pushrules", () => ({ global: { override: [], content: [], room: [], sender: [],
        underride: [] } })],
      ["POST", `^${C}/v3/user/([^/]+)/filter$`, "filter", (ctx, m) => this.postFilter(ctx, m[1])],
      ["GET", `^${C}/v3/user/([^/]+)/filter/([^/]+)$`, "filter", (ctx, m) => this.getFilter(m[2])],
      ["GET", `^${C}/v3/profile/([^/]+)(?:/displayname)?$`, "profile", (ctx, m) => this.profile(m[1])],
      ["GET", `^${C}/v3/sync$`, "sync", (ctx) => this.sync(ctx)],
      ["GET", `^${C}/v3/joined_rooms$`, "joined_rooms", (ctx) => ({ joined_rooms: [...this.rooms.rooms.values()]
        .filter((r) => this.rooms.membership(r, ctx.user) === "join").map((r) => r.roomId) })],
      ["POST", `^${C}/v3/join/([^/]+)$`, "join", (ctx, m) => ({ room_id: this.rooms.join(m[1], ctx.user).roomId })],
      ["POST", `^${C}/v3/rooms/([^/]+)/join$`, "join", (ctx, m) => ({ room_id: this.rooms.join(m[1], ctx.user).roomId })],
      ["PUT", `^${C}/v3/rooms/([^/]+)/send/([^/]+)/([^/]+)$`, "send", (ctx, m) => this.send(ctx, m[1], m[2], m[3])],
      ["PUT", `^${C}/v3/rooms/([^/]+)/redact/([^/]+)/([^/]+)$`, "redact", (ctx, m) => this.redact(ctx, m[1], m[2], m[3])],
      ["PUT", `^${C}/v3/rooms/([^/]+)/typing/([^/]+)$`, "typing", (ctx, m) => this.typing(ctx, m[1], m[2])],
      ["GET", `^${C}/v3/rooms/([^/]+)/event/([^/]+)$`, "event", (ctx, m) => this.event(ctx, m[1], m[2])],
      ["GET", `^${C}/v3/rooms/([^/]+)/messages$`, "messages", (ctx, m) => this.messages(ctx, m[1])],
      ["GET", `^${C}/v3/rooms/([^/]+)/joined_members$`, "joined_members", (ctx, m) => this.joinedMembers(ctx, m[1])],
      ["GET", `^${C}/v1/media/config$`, "media_config", () => ({ "m.upload.size": UPLOAD_LIMIT })],
      ["GET", `^/_matrix/media/v3/config$`, "media_config", () => ({ "m.upload.size": UPLOAD_LIMIT })],
      ["POST", `^/_matrix/media/v3/upload$`, "upload", (ctx) => this.upload(ctx)],
      ["GET", `^${C}/v1/media/download/([^/]+)/([^/]+)(?:/[^/]+)?$`, "download", (ctx, m) => this.download(ctx, m[1], m[2])],
      // Unauthenticated media is frozen (spec v1.11): media uploaded since is not served there.
      ["GET", `^/_matrix/media/v3/download/.*$`, "download_v3",
        () => { throw new MatrixError(404, "M_NOT_FOUND", "Not found"); }, false],
    ];
  }

  versions() {
    return { versions: ["r0.6.1", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8", "v1.9", "v1.10", "v1.11"],
      unstable_features: {} };
  }

  async handle(req, res) {
    const url = new URL(req.url, this.base);
    if (url.pathname.startsWith("/_fake/")) return this.admin(req, res, url);
    const started = Date.now();
    const entry = { kind: "api", method: req.method, path: url.pathname };
    const finish = (status, body, extra = {}) =>
      this.journal.record({ ...entry, ...extra, status, response: body ?? null, duration_ms: Date.now() - started });
    const reply = (status, body, headers = {}) => {
      finish(status, body);
      sendJson(res, status, body, headers);
    };
    if (req.method === "OPTIONS") return reply(200, {});
    let route = null;
    let match = null;
    let pathKnown = false;
    for (const r of this.routes()) {
      const m = new RegExp(r[1]).exec(url.pathname);
      if (!m) continue;
      pathKnown = true;
      if (r[0] === req.method) {
        route = r;
        match = m.map((x, i) => (i === 0 || x === undefined ? x : decodeURIComponent(x)));
        break;
      }
    }
    if (!route) {
      entry.route = "unknown";
      // Synapse: a known path with another method → 405 M_UNRECOGNIZED; an unknown path → 404 M_UNRECOGNIZED.
      return reply(pathKnown ? 405 : 404, { errcode: "M_UNRECOGNIZED", error: "Unrecognized request" });
    }
    entry.route = route[2];
    let raw;
    try {
      raw = await readBody(req, UPLOAD_LIMIT);
    } catch (e) {
      if (!(e instanceof BodyTooLarge)) throw e;
      return reply(413, { errcode: "M_TOO_LARGE", error: "Uploaded content is too large" });
    }
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? url.searchParams.get("access_token");
    const device = token ? this.tokens.get(token) : null;
    entry.user = device?.user_id ?? null;
    if (route[4] !== false) {
      if (!token) return reply(401, { errcode: "M_MISSING_TOKEN", error: "Missing access token" });
      if (!device) return reply(401, { errcode: "M_UNKNOWN_TOKEN", error: "Unknown access token", soft_logout: false });
    }
    const fault = takeFault(this.faults, route[2], entry, req, finish);
    if (fault?.kind === "drop") return;
    if (fault?.kind === "rate_limit") {
      const ms = fault.retry_after_ms ?? Math.round((fault.retry_after ?? 1) * 1000);
      return reply(429, { errcode: "M_LIMIT_EXCEEDED", error: "Too Many Requests", retry_after_ms: ms },
        { "Retry-After": String(Math.ceil(ms / 1000)) });
    }
    if (fault?.kind === "status") {
      if (typeof fault.body === "string") {
        finish(fault.status, fault.body);
        res.writeHead(fault.status, { "Content-Type": "text/html", "Content-Length": Buffer.byteLength(fault.body) });
        res.end(fault.body);
        return;
      }
      return reply(fault.status, fault.body ?? { errcode: "M_UNKNOWN", error: "Internal server error" });
    }
    let json = null;
    const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
    if (route[2] !== "upload" && raw.length > 0) {
      try {
        json = JSON.parse(raw.toString("utf8"));
      } catch {
        return reply(400, { errcode: "M_NOT_JSON", error: "Content not JSON." });
      }
      entry.body = json;
    }
    const ctx = { req, res, url, token, user: device?.user_id, device: device?.device_id, json, raw, type, entry };
    let status = 200;
    let body;
    let headers = {};
    try {
      body = await route[3](ctx, match);
    } catch (e) {
      if (!(e instanceof MatrixError)) throw e;
      status = e.status;
      body = { errcode: e.errcode, error: e.message, ...e.extra };
    }
    if (body === RAW) return finish(200, null, ctx.rawInfo); // download: answered already
    if (body === GONE) return; // a sync whose client went away
    finish(status, body, fault ? { withheld: fault.kind } : {});
    answerAfterFault(fault, req, res, () => sendJson(res, status, body, headers));
  }

  // ---------------------------------------------------------------- filters and profiles

  postFilter(ctx, userId) {
    if (userId !== ctx.user) throw new MatrixError(403, "M_FORBIDDEN", "Can only create filters for the current user");
    if (!ctx.json || typeof ctx.json !== "object") throw new MatrixError(400, "M_BAD_JSON", "Filter must be an object");
    const id = String(this.filters.size + 1);
    this.filters.set(id, ctx.json);
    return { filter_id: id };
  }

  getFilter(id) {
    const f = this.filters.get(id);
    if (!f) throw new MatrixError(404, "M_NOT_FOUND", "No such filter");
    return f;
  }

  profile(userId) {
    if (!this.profiles.has(userId)) throw new MatrixError(404, "M_NOT_FOUND", "Profile was not found");
    return { displayname: this.profiles.get(userId) };
  }

  // ---------------------------------------------------------------- sync

  // GET /sync: `since` (a next_batch), `timeout` (ms to wait when nothing is new), `filter` (an id or inline
  // JSON; its room.timeline.limit, default 10, caps each room's timeline: more → `limited` + prev_batch).
  async sync(ctx) {
    const p = ctx.url.searchParams;
    const sinceText = p.get("since");
    let since = null;
    if (sinceText !== null) {
      const m = /^s(\d+)$/.exec(sinceText);
      if (!m) throw new MatrixError(400, "M_INVALID_PARAM", `Invalid stream token ${sinceText}`);
      since = Number(m[1]);
    }
    let filter = {};
    const f = p.get("filter");
    if (f) {
      if (f.startsWith("{")) {
        try {
          filter = JSON.parse(f);
        } catch {
          throw new MatrixError(400, "M_NOT_JSON", "Invalid filter JSON");
        }
      } else if (this.filters.has(f)) {
        filter = this.filters.get(f);
      } else {
        throw new MatrixError(400, "M_INVALID_PARAM", "Invalid filter ID");
      }
    }
    const limit = Math.max(1, Number(filter.room?.timeline?.limit ?? 10));
    const timeout = Math.min(Math.max(0, Number(p.get("timeout") ?? 0) || 0), SYNC_TIMEOUT_CAP);
    ctx.entry.since = sinceText;
    const build = () => this.rooms.syncRooms(ctx.user, ctx.token, since, limit);
    let rooms = build();
    const empty = (r) => !Object.keys(r.join).length && !Object.keys(r.invite).length && !Object.keys(r.leave).length;
    if (since !== null && empty(rooms) && timeout > 0) {
      const gone = await new Promise((resolve) => {
        const socket = ctx.req.socket;
        const done = (v) => {
          clearTimeout(timer);
          this.rooms.waiters.delete(wake);
          this.polls.delete(socket);
          socket.off("close", onClose);
          resolve(v);
        };
        const wake = () => {
          if (!empty(build())) done(false);
        };
        const onClose = () => done(true);
        const timer = setTimeout(() => done(false), timeout);
        this.rooms.waiters.add(wake);
        this.polls.add(socket);
        socket.on("close", onClose);
      });
      if (gone) {
        ctx.entry.dropped = true;
        this.journal.record({ ...ctx.entry, status: null, response: null });
        return GONE;
      }
      rooms = build();
    }
    ctx.entry.events = Object.values(rooms.join).reduce((n, r) => n + r.timeline.events.length, 0);
    ctx.entry.invites = Object.keys(rooms.invite);
    return { next_batch: `s${this.rooms.pos}`, rooms, presence: { events: [] }, account_data: { events: [] },
      to_device: { events: [] }, device_lists: { changed: [], left: [] },
      device_one_time_keys_count: { signed_curve25519: 0 } };
  }

  // ---------------------------------------------------------------- sending

  // A repeated transaction (same access token, same path) answers what the first one did and stores nothing:
  // the spec's idempotency of txnId-carrying requests.
  idempotent(ctx, txnId, run) {
    const key = `${ctx.token}\0${ctx.url.pathname}`;
    ctx.entry.txn_id = txnId;
    const seen = this.txns.get(key);
    if (seen) {
      ctx.entry.duplicate = true;
      return seen;
    }
    const answer = run({ token: ctx.token, txnId });
    this.txns.set(key, answer);
    return answer;
  }

  send(ctx, roomId, eventType, txnId) {
    const room = this.rooms.room(roomId);
    this.rooms.mustBeJoined(room, ctx.user);
    if (!ctx.json || typeof ctx.json !== "object" || Array.isArray(ctx.json)) {
      throw new MatrixError(400, "M_BAD_JSON", "Content must be a JSON object.");
    }
    return this.idempotent(ctx, txnId, (txn) => {
      if (eventType === "m.reaction") {
        const rel = ctx.json["m.relates_to"];
        if (rel?.rel_type !== "m.annotation" || typeof rel.key !== "string" || !rel.event_id) {
          throw new MatrixError(400, "M_INVALID_PARAM", "m.reaction needs an m.annotation relation with a key");
        }
        this.rooms.eventIn(room, rel.event_id);
        if (this.rooms.duplicateAnnotation(room, ctx.user, ctx.json)) {
          throw new MatrixError(400, "M_DUPLICATE_ANNOTATION", "Can't send same reaction twice");
        }
      }
      const event = this.rooms.append(room, ctx.user, eventType, ctx.json, undefined, { txn });
      ctx.entry.event_id = event.event_id;
      return { event_id: event.event_id };
    });
  }

  redact(ctx, roomId, eventId, txnId) {
    const room = this.rooms.room(roomId);
    this.rooms.mustBeJoined(room, ctx.user);
    return this.idempotent(ctx, txnId, (txn) => ({
      event_id: this.rooms.redact(room, ctx.user, eventId, ctx.json?.reason, txn).event_id,
    }));
  }

  typing(ctx, roomId, userId) {
    if (userId !== ctx.user) throw new MatrixError(403, "M_FORBIDDEN", "Cannot set another user's typing state");
    const room = this.rooms.room(roomId);
    this.rooms.mustBeJoined(room, ctx.user);
    if (typeof ctx.json?.typing !== "boolean") throw new MatrixError(400, "M_BAD_JSON", "Missing typing key");
    this.rooms.setTyping(room, ctx.user, ctx.json.typing, ctx.json.timeout);
    return {};
  }

  event(ctx, roomId, eventId) {
    const room = this.rooms.room(roomId);
    this.rooms.mustBeJoined(room, ctx.user);
    return this.rooms.view(this.rooms.eventIn(room, eventId), ctx.token);
  }

  messages(ctx, roomId) {
    const room = this.rooms.room(roomId);
    this.rooms.mustBeJoined(room, ctx.user);
    const p = ctx.url.searchParams;
    const dir = p.get("dir") ?? "b";
    if (dir !== "b" && dir !== "f") throw new MatrixError(400, "M_INVALID_PARAM", "Unknown dir");
    const limit = Math.min(Math.max(1, Number(p.get("limit") ?? 10) || 10), 1000);
    const { chunk, start, end } = this.rooms.messages(room, p.get("from"), dir, limit);
    const out = { chunk: chunk.map((s) => this.rooms.view(s, ctx.token)), start };
    if (end) out.end = end;
    return out;
  }

  joinedMembers(ctx, roomId) {
    const room = this.rooms.room(roomId);
    this.rooms.mustBeJoined(room, ctx.user);
    const joined = {};
    for (const [u, m] of room.membership) if (m === "join") joined[u] = { display_name: this.profiles.get(u) ?? null };
    return { joined };
  }

  // ---------------------------------------------------------------- media

  upload(ctx) {
    const filename = ctx.url.searchParams.get("filename");
    const mediaId = randomBytes(12).toString("base64url");
    const contentType = ctx.req.headers["content-type"] ?? "application/octet-stream";
    this.media.set(mediaId, { data: ctx.raw, content_type: contentType, filename, uploader: ctx.user });
    Object.assign(ctx.entry, { media_id: mediaId, size: ctx.raw.length, sha256: sha256(ctx.raw), content_type: contentType,
      filename });
    return { content_uri: `mxc://${SERVER_NAME}/${mediaId}` };
  }

  download(ctx, serverName, mediaId) {
    const m = serverName === SERVER_NAME ? this.media.get(mediaId) : null;
    if (!m) throw new MatrixError(404, "M_NOT_FOUND", "Not found");
    const disposition = m.filename ? `attachment; filename*=utf-8''${encodeURIComponent(m.filename)}` : "attachment";
    ctx.res.writeHead(200, { "Content-Type": m.content_type, "Content-Length": m.data.length,
      "Content-Disposition": disposition, "Cross-Origin-Resource-Policy": "cross-origin" });
    ctx.res.end(m.data);
    ctx.rawInfo = { media_id: mediaId, size: m.data.length };
    return RAW;
  }

  // ---------------------------------------------------------------- admin API

  admin(req, res, url) {
    return serveAdmin(req, res, url, this, (body, p) => this.ownAdmin(req, res, body, p),
      (e) => (e instanceof MatrixError ? e.status : 400));
  }

  async ownAdmin(req, res, body, p) {
    let m;
    if (req.method === "POST" && p === "/_fake/messages") {
      sendJson(res, 200, { event: this.injectMessage(body) });
    } else if (req.method === "POST" && p === "/_fake/events") {
      const room = this.rooms.room(body.room ?? IDS.aliceDm);
      sendJson(res, 200, { event: this.rooms.append(room, body.sender ?? IDS.alice, body.type, body.content ?? {},
        body.state_key) });
    } else if (req.method === "POST" && p === "/_fake/rooms") {
      const room = this.rooms.createRoom(body);
      sendJson(res, 200, { room: this.roomState(room) });
    } else if (req.method === "POST" && p === "/_fake/invites") {
      // `from` invites the bot to a new room (or `room`, an existing one of theirs).
      const from = body.from ?? IDS.alice;
      const room = body.room
        ? this.rooms.room(body.room)
        : this.rooms.createRoom({ creator: from, name: body.name, direct: Boolean(body.direct), encrypted: Boolean(body.encrypted) });
      this.rooms.setMember(room, body.user ?? IDS.bot, "invite", from);
      sendJson(res, 200, { room_id: room.roomId });
    } else if (req.method === "POST" && p === "/_fake/users") {
      this.profiles.set(body.user_id, body.displayname ?? body.user_id.slice(1).split(":")[0]);
      if (body.access_token) this.tokens.set(body.access_token, { user_id: body.user_id, device_id: body.device_id ?? "DEV" });
      sendJson(res, 200, { user_id: body.user_id });
    } else if (req.method === "POST" && p === "/_fake/config") {
      if (body.room && body.bot_is_moderator !== undefined) this.rooms.room(body.room).bot_is_moderator = Boolean(body.bot_is_moderator);
      sendJson(res, 200, { ok: true });
    } else if (req.method === "GET" && (m = /^\/_fake\/rooms\/([^/]+)$/.exec(p))) {
      sendJson(res, 200, { room: this.roomState(this.rooms.room(decodeURIComponent(m[1]))) });
    } else if (req.method === "GET" && (m = /^\/_fake\/media\/([^/]+)$/.exec(p))) {
      const media = this.media.get(m[1]);
      if (!media) sendJson(res, 404, { error: "no such media" });
      else sendJson(res, 200, { media: { content_type: media.content_type, filename: media.filename, size: media.data.length,
        sha256: sha256(media.data), data_base64: media.data.toString("base64"), uploader: media.uploader } });
    } else if (req.method === "POST" && p === "/_fake/sync/drop") {
      const dropped = this.polls.size;
      for (const socket of this.polls) socket.destroy();
      this.journal.record({ kind: "admin", action: "sync_drop", dropped });
      sendJson(res, 200, { dropped });
    } else {
      return false;
    }
    return true;
  }

  // A user writes in a room: `{body, room? (default the DM with alice), sender? (default alice), msgtype?,
  // formatted_body?, mentions? (user ids: m.mentions), reply_to?, file? {name, data_base64, mimetype,
  // msgtype?}, content? (the whole content, as given)}`. In an encrypted room it arrives as m.room.encrypted
  // (a client without the room's keys can read none of it).
  injectMessage(body) {
    const room = this.rooms.room(body.room ?? IDS.aliceDm);
    const sender = body.sender ?? IDS.alice;
    this.rooms.mustBeJoined(room, sender);
    let content = body.content;
    if (!content) {
      content = { msgtype: body.msgtype ?? "m.text", body: body.body ?? "" };
      if (body.formatted_body) Object.assign(content, { format: "org.matrix.custom.html", formatted_body: body.formatted_body });
      if (body.mentions) content["m.mentions"] = { user_ids: body.mentions };
      if (body.reply_to) content["m.relates_to"] = { "m.in_reply_to": { event_id: body.reply_to } };
      if (body.file) {
        const data = Buffer.from(body.file.data_base64 ?? "", "base64");
        const mediaId = randomBytes(12).toString("base64url");
        const mimetype = body.file.mimetype ?? "application/octet-stream";
        this.media.set(mediaId, { data, content_type: mimetype, filename: body.file.name, uploader: sender });
        content.msgtype = body.file.msgtype ?? (mimetype.startsWith("image/") ? "m.image" : mimetype.startsWith("audio/")
          ? "m.audio" : "m.file");
        content.body = body.body ?? body.file.name;
        content.filename = body.file.name;
        content.url = `mxc://${SERVER_NAME}/${mediaId}`;
        content.info = { mimetype, size: data.length };
      }
    }
    if (room.encrypted) {
      const ciphertext = randomBytes(64 + Buffer.byteLength(JSON.stringify(content))).toString("base64").replace(/=+$/, "");
      return this.rooms.append(room, sender, "m.room.encrypted", { algorithm: "m.megolm.v1.aes-sha2", ciphertext,
        device_id: "ALICEDEV01", sender_key: randomBytes(32).toString("base64").replace(/=+$/, ""),
        session_id: randomBytes(32).toString("base64").replace(/=+$/, "") });
    }
    return this.rooms.append(room, sender, body.type ?? "m.room.message", content);
  }

  // A room as its users see it now: members, typing, and its timeline events in order, each with the
  // reactions on it ({key, senders, count}), its valid edits (and the content they leave), whether it was
  // redacted, and the transaction id it was sent with.
  roomState(room) {
    const members = Object.fromEntries(room.membership);
    const events = room.events
      .filter((s) => s.event.state_key === undefined)
      .map((s) => {
        const view = { ...structuredClone(s.event), txn_id: s.txn?.txnId ?? null, redacted: Boolean(s.redacted_by) };
        if (s.reactions.size) {
          view.reactions = [...s.reactions].map(([key, senders]) => ({ key, senders: [...senders.keys()], count: senders.size }));
        }
        if (s.edits.length) {
          view.edits = s.edits.length;
          view.shown_content = room.byId.get(s.edits[s.edits.length - 1]).event.content["m.new_content"];
        }
        if (s.invalid_edit) view.invalid_edit = true;
        return view;
      });
    const typing = [...room.typing.entries()].filter(([, until]) => until > Date.now()).map(([u]) => u);
    return { room_id: room.roomId, name: room.name, encrypted: room.encrypted, direct: room.direct, members, typing, events };
  }
}

const RAW = Symbol("answered");
const GONE = Symbol("client gone");

// ------------------------------------------------------------------ main

async function main() {
  const options = parseOptions(process.argv.slice(2), { "access-token": DEFAULT_ACCESS_TOKEN });
  const fake = new MatrixFake({ accessToken: options["access-token"], journal: new Journal(options["state-dir"]) });
  await listen({
    host: options.host,
    port: options.port,
    onRequest: (req, res) => fake.handle(req, res),
    onPort: (port) => fake.setAddress(port),
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(`matrix fake: ${e.stack ?? e}\n`);
    process.exit(1);
  });
}
