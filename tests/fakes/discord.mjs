#!/usr/bin/env node
// A fake Discord for sigil's channel tests: REST v10 and the Gateway WebSocket (JSON encoding, no
// compression), written from Discord's developer documentation. See README.md beside this file.
//
//   node tests/fakes/discord.mjs --port 0 --state-dir DIR [--token T] [--heartbeat-ms N]
//
// prints `listening <port>` when ready. REST at http://127.0.0.1:<port>/api/v10/..., the gateway at the URL
// GET /api/v10/gateway/bot returns (ws://127.0.0.1:<port>/gateway), attachment files at /attachments/...,
// the admin API (tests only) under /_fake/.
import { pathToFileURL } from "node:url";

import {
  Faults,
  Journal,
  answerAfterFault,
  codePointLength,
  fileSummary,
  listen,
  mimeFor,
  parseOptions,
  readParsedBody,
  sendJson,
  serveAdmin,
  shownAndDeleted,
  takeFault,
} from "./common.mjs";
import { INTENTS, acceptGateway, sendGatewayPayload } from "./discord-gateway.mjs";

export { INTENTS };

export const IDS = {
  bot: "1200000000000000001",
  guild: "1200000000000000100",
  general: "1200000000000000200",
  random: "1200000000000000201",
  alice: "1200000000000000300",
  bob: "1200000000000000301",
  aliceDm: "1200000000000000400",
  emoji: "1200000000000000500",
};
export const DEFAULT_TOKEN = `${Buffer.from(IDS.bot).toString("base64").replace(/=+$/, "")}.GfAkEt.sigil-test-token-not-a-secret`;

const FLAGS = { SUPPRESS_EMBEDS: 1 << 2, SUPPRESS_NOTIFICATIONS: 1 << 12, IS_VOICE_MESSAGE: 1 << 13 };
const CONTENT_LIMIT = 2000; // code points
const UPLOAD_LIMIT = 10 * 1024 * 1024; // per file, an unboosted guild
const NONCE_WINDOW_MS = 5 * 60 * 1000;
const EPOCH = 1420070400000n;
const RGI_EMOJI = /^\p{RGI_Emoji}$/v;

// ------------------------------------------------------------------ errors

class ApiError extends Error {
  constructor(status, body) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}
const unknownChannel = () => new ApiError(404, { message: "Unknown Channel", code: 10003 });
const unknownMessage = () => new ApiError(404, { message: "Unknown Message", code: 10008 });
const invalidFormBody = (errors) => new ApiError(400, { message: "Invalid Form Body", code: 50035, errors });
const fieldError = (code, message) => ({ _errors: [{ code, message }] });

// ------------------------------------------------------------------ the fake

export class DiscordFake {
  constructor({ token = DEFAULT_TOKEN, journal, faults, heartbeatMs = 41250 } = {}) {
    this.token = token;
    this.journal = journal ?? new Journal(null);
    this.faults = faults ?? new Faults();
    this.heartbeatMs = heartbeatMs;
    this.base = "http://127.0.0.1";
    this.wsBase = "ws://127.0.0.1";
    this.privileged = { guild_members: true, guild_presences: true, message_content: true };
    this.rateLimit = { limit: 50, window_ms: 1000 };
    this.manageMessages = false;
    this.ackHeartbeats = true;  // false: heartbeats are taken but never acknowledged (a zombie connection)
    this.lastSnowflake = 0n;
    this.users = new Map();
    this.guilds = new Map();
    this.channels = new Map();
    this.nonces = new Map();
    this.buckets = new Map();
    this.sessions = new Map();
    this.connections = new Set();
    this.connectionCount = 0;
    this.bot = this.addUser({ id: IDS.bot, username: "sigil-test-bot", bot: true });
    this.addUser({ id: IDS.alice, username: "alice", global_name: "Alice" });
    this.addUser({ id: IDS.bob, username: "bob", global_name: "Bob" });
    this.addGuild({
      id: IDS.guild,
      name: "sigil test guild",
      channels: [{ id: IDS.general, name: "general" }, { id: IDS.random, name: "random" }],
      emojis: [{ id: IDS.emoji, name: "sigil" }],
    });
    this.addChannel({ id: IDS.aliceDm, type: 1, recipient_id: IDS.alice });
  }

  setAddress(port) {
    this.base = `http://127.0.0.1:${port}`;
    this.wsBase = `ws://127.0.0.1:${port}`;
  }

  snowflake() {
    let id = (BigInt(Date.now()) - EPOCH) << 22n;
    if (id <= this.lastSnowflake) id = this.lastSnowflake + 1n;
    this.lastSnowflake = id;
    return id.toString();
  }

  // ---------------------------------------------------------------- world

  addUser(spec) {
    const user = { id: String(spec.id ?? this.snowflake()), username: spec.username ?? "user", discriminator: "0",
      global_name: spec.global_name ?? null, avatar: null, public_flags: 0, flags: 0 };
    if (spec.bot) user.bot = true;
    this.users.set(user.id, user);
    return user;
  }

  addGuild(spec) {
    const id = String(spec.id ?? this.snowflake());
    const guild = { id, name: spec.name ?? "guild", owner_id: spec.owner_id ?? IDS.alice, joined_at: new Date().toISOString(),
      emojis: (spec.emojis ?? []).map((e) => ({ id: String(e.id ?? this.snowflake()), name: e.name, roles: [],
        require_colons: true, managed: false, animated: false, available: true })) };
    this.guilds.set(id, guild);
    for (const c of spec.channels ?? []) this.addChannel({ ...c, guild_id: id });
    return guild;
  }

  addChannel(spec) {
    const id = String(spec.id ?? this.snowflake());
    const type = spec.type ?? 0;
    const channel = { id, type, messages: new Map(), order: [], typing: [] };
    if (type === 1) {
      const recipient = this.users.get(String(spec.recipient_id));
      if (!recipient) throw new Error(`no user ${spec.recipient_id}`);
      channel.recipient = recipient;
    } else {
      const guild = this.guilds.get(String(spec.guild_id ?? IDS.guild));
      if (!guild) throw new Error(`no guild ${spec.guild_id}`);
      channel.guild_id = guild.id;
      channel.name = spec.name ?? `channel-${id}`;
      channel.position = [...this.channels.values()].filter((c) => c.guild_id === guild.id).length;
    }
    this.channels.set(id, channel);
    return channel;
  }

  channelObject(c) {
    if (c.type === 1) {
      return { id: c.id, type: 1, last_message_id: c.order.at(-1) ?? null, flags: 0, recipients: [c.recipient] };
    }
    return { id: c.id, type: c.type, last_message_id: c.order.at(-1) ?? null, flags: 0, guild_id: c.guild_id,
      name: c.name, parent_id: null, rate_limit_per_user: 0, topic: null, position: c.position,
      permission_overwrites: [], nsfw: false };
  }

  guildCreate(guild) {
    const channels = [...this.channels.values()].filter((c) => c.guild_id === guild.id).map((c) => {
      const o = this.channelObject(c);
      delete o.guild_id;
      return o;
    });
    const members = [...this.users.values()].map((user) => ({ user, roles: [], joined_at: guild.joined_at, nick: null,
      deaf: false, mute: false, flags: 0, pending: false }));
    return {
      id: guild.id, name: guild.name, icon: null, splash: null, discovery_splash: null, owner_id: guild.owner_id,
      afk_channel_id: null, afk_timeout: 300, verification_level: 0, default_message_notifications: 0,
      explicit_content_filter: 0, mfa_level: 0, application_id: null, system_channel_id: null, system_channel_flags: 0,
      rules_channel_id: null, vanity_url_code: null, description: null, banner: null, premium_tier: 0,
      premium_subscription_count: 0, preferred_locale: "en-US", public_updates_channel_id: null, nsfw_level: 0,
      premium_progress_bar_enabled: false, features: [], stickers: [], max_members: 500000,
      roles: [{ id: guild.id, name: "@everyone", color: 0, hoist: false, position: 0, permissions: "1071698660929",
        managed: false, mentionable: false, flags: 0 }],
      emojis: guild.emojis, joined_at: guild.joined_at, large: false, unavailable: false,
      member_count: members.length, voice_states: [], members, channels, threads: [], presences: [],
      stage_instances: [], guild_scheduled_events: [], soundboard_sounds: [],
    };
  }

  member(guildId, user) {
    const guild = this.guilds.get(guildId);
    return { roles: [], joined_at: guild?.joined_at ?? new Date().toISOString(), nick: null, deaf: false, mute: false,
      flags: 0, pending: false, premium_since: null, avatar: null, communication_disabled_until: null, user };
  }

  channelFor(id) {
    const c = this.channels.get(String(id));
    if (!c) throw unknownChannel();
    return c;
  }

  messageFor(channel, id) {
    const m = channel.messages.get(String(id));
    if (!m || m.deleted) throw unknownMessage();
    return m;
  }

  // ---------------------------------------------------------------- messages

  // `spec`: {author, content, attachments (already stored), embeds, flags, nonce, referenceId}
  createMessage(channel, spec) {
    const id = this.snowflake();
    const mentions = [];
    for (const m of (spec.content ?? "").matchAll(/<@!?(\d+)>/g)) {
      const user = this.users.get(m[1]);
      if (user && !mentions.some((u) => u.id === user.id)) mentions.push(user);
    }
    for (const uid of spec.mentionIds ?? []) {
      const user = this.users.get(String(uid));
      if (user && !mentions.some((u) => u.id === user.id)) mentions.push(user);
    }
    const message = {
      type: spec.referenceId ? 19 : 0, content: spec.content ?? "", mentions, mention_roles: [],
      attachments: spec.attachments ?? [], embeds: spec.embeds ?? [], timestamp: new Date().toISOString(),
      edited_timestamp: null, flags: spec.flags ?? 0, components: [], id, channel_id: channel.id, author: spec.author,
      pinned: false, mention_everyone: /@everyone|@here/.test(spec.content ?? ""), tts: false,
    };
    if (spec.nonce !== undefined) message.nonce = spec.nonce;
    if (spec.referenceId) {
      message.message_reference = { type: 0, channel_id: channel.id, message_id: spec.referenceId };
      if (channel.guild_id) message.message_reference.guild_id = channel.guild_id;
    }
    const stored = { message, deleted: false, reactions: [], edits: 0 };
    channel.messages.set(id, stored);
    channel.order.push(id);
    return stored;
  }

  // The Message object; `gateway` adds guild_id and member, as MESSAGE_CREATE carries them.
  messageView(channel, stored, { gateway = false, depth = 0 } = {}) {
    const m = { ...stored.message };
    if (stored.reactions.length) {
      m.reactions = stored.reactions.map((r) => ({ emoji: r.emoji, count: r.users.size,
        count_details: { burst: 0, normal: r.users.size }, burst_colors: [], me_burst: false, burst_me: false,
        me: r.users.has(this.bot.id), burst_count: 0 }));
    }
    if (m.message_reference && depth === 0) {
      const target = channel.messages.get(m.message_reference.message_id);
      m.referenced_message = target && !target.deleted ? this.messageView(channel, target, { depth: 1 }) : null;
    }
    if (gateway && channel.guild_id) {
      m.guild_id = channel.guild_id;
      if (!m.author.bot || m.author.id === this.bot.id) {
        const { user: _user, ...member } = this.member(channel.guild_id, m.author);
        m.member = member;
      }
      m.mentions = m.mentions.map((u) => {
        const { user: _u, ...member } = this.member(channel.guild_id, u);
        return { ...u, member };
      });
    }
    return m;
  }

  storeAttachment(channel, file, meta = {}) {
    const id = this.snowflake();
    const filename = meta.filename ?? file.filename ?? "file";
    const url = `${this.base}/attachments/${channel.id}/${id}/${encodeURIComponent(filename)}`;
    const attachment = { id, filename, size: file.data.length, url, proxy_url: url,
      content_type: mimeFor(filename, file.data, file.contentType) };
    if (meta.description) attachment.description = meta.description;
    if (meta.title) attachment.title = meta.title;
    if (meta.duration_secs !== undefined) attachment.duration_secs = Number(meta.duration_secs);
    if (meta.waveform !== undefined) attachment.waveform = meta.waveform;
    this.files ??= new Map();
    this.files.set(`${channel.id}/${id}`, { data: file.data, contentType: attachment.content_type, filename });
    return attachment;
  }

  // POST /channels/{id}/messages
  postMessage(channel, payload, uploads) {
    const content = payload.content === undefined || payload.content === null ? "" : String(payload.content);
    if (codePointLength(content) > CONTENT_LIMIT) {
      throw invalidFormBody({ content: fieldError("BASE_TYPE_MAX_LENGTH", `Must be ${CONTENT_LIMIT} or fewer in length.`) });
    }
    const nonce = payload.nonce;
    if (nonce !== undefined && nonce !== null && String(nonce).length > 25) {
      throw invalidFormBody({ nonce: fieldError("BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.") });
    }
    if (nonce !== undefined && nonce !== null && payload.enforce_nonce === true) {
      const seen = this.nonces.get(`${this.bot.id}:${nonce}`);
      if (seen && Date.now() - seen.at < NONCE_WINDOW_MS) {
        const ch = this.channels.get(seen.channelId);
        const stored = ch?.messages.get(seen.messageId);
        if (stored) return { stored, duplicate: true };
      }
    }
    for (const f of uploads) {
      if (f.data.length > UPLOAD_LIMIT) throw new ApiError(413, { message: "Request entity too large", code: 40005 });
    }
    const embeds = Array.isArray(payload.embeds) ? payload.embeds : [];
    const flags = Number(payload.flags ?? 0);
    // attachments[]: {id: the n of files[n], filename?, description?, duration_secs?, waveform?}
    const meta = Array.isArray(payload.attachments) ? payload.attachments : [];
    const attachments = uploads.map((file) => {
      const n = /^files\[(\d+)\]$/.exec(file.field)?.[1] ?? /^file(\d*)$/.exec(file.field)?.[1] ?? "0";
      const m = meta.find((a) => String(a.id) === String(n || 0)) ?? {};
      return this.storeAttachment(channel, file, m);
    });
    if (!content && !embeds.length && !attachments.length && !payload.sticker_ids?.length && !payload.poll) {
      throw new ApiError(400, { message: "Cannot send an empty message", code: 50006 });
    }
    if (flags & FLAGS.IS_VOICE_MESSAGE) {
      if (content || embeds.length) {
        throw new ApiError(400, { message: "Voice messages do not support additional content.", code: 50159 });
      }
      if (attachments.length !== 1 || !attachments[0].content_type.startsWith("audio/")) {
        throw new ApiError(400, { message: "Voice messages must have a single audio attachment.", code: 50160 });
      }
      if (attachments[0].duration_secs === undefined || attachments[0].waveform === undefined) {
        throw new ApiError(400, { message: "Voice messages must have supporting metadata.", code: 50161 });
      }
    }
    let referenceId;
    const ref = payload.message_reference;
    if (ref?.message_id) {
      const target = this.channels.get(String(ref.channel_id ?? channel.id))?.messages.get(String(ref.message_id));
      if (target && !target.deleted) referenceId = String(ref.message_id);
      else if (ref.fail_if_not_exists !== false) {
        throw invalidFormBody({ message_reference: fieldError("MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message") });
      }
    }
    const stored = this.createMessage(channel, { author: this.bot, content, attachments, embeds,
      flags: flags & (FLAGS.SUPPRESS_EMBEDS | FLAGS.SUPPRESS_NOTIFICATIONS | FLAGS.IS_VOICE_MESSAGE),
      nonce: nonce ?? undefined, referenceId });
    if (nonce !== undefined && nonce !== null) {
      this.nonces.set(`${this.bot.id}:${nonce}`, { at: Date.now(), channelId: channel.id, messageId: stored.message.id });
    }
    this.dispatchMessage("MESSAGE_CREATE", channel, stored);
    return { stored, duplicate: false };
  }

  // An inbound user message: admin POST /_fake/messages.
  injectMessage(spec) {
    const channel = this.channelFor(spec.channel_id ?? IDS.general);
    let author = spec.author ? this.users.get(String(spec.author.id)) : this.users.get(String(spec.author_id ?? IDS.alice));
    if (!author && spec.author) author = this.addUser(spec.author);
    if (!author) throw new Error(`no user ${spec.author_id}`);
    const attachments = (spec.attachments ?? []).map((a) =>
      this.storeAttachment(channel, { data: Buffer.from(a.data_base64 ?? "", "base64"), filename: a.filename,
        contentType: a.content_type }, a));
    let referenceId;
    if (spec.reply_to) {
      this.messageFor(channel, spec.reply_to);
      referenceId = String(spec.reply_to);
    }
    const stored = this.createMessage(channel, { author, content: spec.content ?? "", attachments,
      mentionIds: spec.mentions, referenceId });
    this.dispatchMessage("MESSAGE_CREATE", channel, stored);
    return { message: this.messageView(channel, stored) };
  }

  reactionTarget(channel, messageId, rawEmoji) {
    const stored = this.messageFor(channel, messageId);
    let emoji;
    const custom = /^(?:a:)?([A-Za-z0-9_~]+):(\d+)$/.exec(rawEmoji);
    if (custom) {
      const known = [...this.guilds.values()].flatMap((g) => g.emojis).find((e) => e.id === custom[2]);
      if (!known) throw new ApiError(400, { message: "Unknown Emoji", code: 10014 });
      emoji = { id: known.id, name: known.name };
    } else if (RGI_EMOJI.test(rawEmoji) || RGI_EMOJI.test(rawEmoji + "\ufe0f") || RGI_EMOJI.test(rawEmoji.replace(/\ufe0f/g, ""))) {
      emoji = { id: null, name: rawEmoji };
    } else {
      throw new ApiError(400, { message: "Unknown Emoji", code: 10014 });
    }
    const key = emoji.id ?? emoji.name.replace(/\ufe0f/g, "");
    return { stored, emoji, key };
  }

  // ---------------------------------------------------------------- gateway dispatch

  intentFor(kind, channel) {
    const dm = !channel.guild_id;
    if (kind === "message") return dm ? INTENTS.DIRECT_MESSAGES : INTENTS.GUILD_MESSAGES;
    if (kind === "reaction") return dm ? INTENTS.DIRECT_MESSAGE_REACTIONS : INTENTS.GUILD_MESSAGE_REACTIONS;
    return dm ? INTENTS.DIRECT_MESSAGE_TYPING : INTENTS.GUILD_MESSAGE_TYPING;
  }

  dispatchMessage(event, channel, stored) {
    const full = this.messageView(channel, stored, { gateway: true });
    this.dispatch(event, (session) => {
      if (session.intents & INTENTS.MESSAGE_CONTENT) return full;
      // Without MESSAGE_CONTENT: guild messages from others that do not mention the bot come without content.
      const own = full.author.id === this.bot.id;
      const mentioned = full.mentions.some((u) => u.id === this.bot.id);
      if (!channel.guild_id || own || mentioned) return full;
      return { ...full, content: "", embeds: [], attachments: [], components: [] };
    }, this.intentFor("message", channel));
  }

  // Queues `event` for every live session that has `intent`; `data` may be a function of the session.
  dispatch(event, data, intent) {
    for (const session of this.sessions.values()) {
      if (session.invalid || (intent && !(session.intents & intent))) continue;
      const d = typeof data === "function" ? data(session) : data;
      const payload = { t: event, s: ++session.seq, op: 0, d };
      session.events.push(payload);
      if (session.events.length > 1000) session.events.shift();
      if (session.conn) this.sendPayload(session.conn, payload);
      else this.journal.record({ kind: "gateway", direction: "buffered", session_id: session.id, op: 0, t: event, s: payload.s });
    }
  }

  // ---------------------------------------------------------------- gateway connections (discord-gateway.mjs)

  sendPayload(conn, payload, extra = {}) {
    sendGatewayPayload(this, conn, payload, extra);
  }

  onUpgrade(req, socket, head) {
    acceptGateway(this, req, socket, head);
  }

  // ---------------------------------------------------------------- REST

  rateHeaders(key, route) {
    const now = Date.now();
    let bucket = this.buckets.get(key);
    if (!bucket || now >= bucket.resetAt) {
      bucket = { remaining: this.rateLimit.limit, resetAt: now + this.rateLimit.window_ms,
        hash: bucketHash(route) };
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  async handle(req, res) {
    const url = new URL(req.url, "http://fake");
    if (url.pathname.startsWith("/_fake/")) return this.admin(req, res, url);
    const att = /^\/attachments\/(\d+)\/(\d+)\/[^/]+$/.exec(url.pathname);
    if (att && req.method === "GET") {
      const file = this.files?.get(`${att[1]}/${att[2]}`);
      if (!file) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "Content-Type": file.contentType, "Content-Length": file.data.length });
      res.end(file.data);
      return;
    }
    const m = /^\/api\/v10(\/.*)$/.exec(url.pathname);
    if (!m) {
      sendJson(res, 404, { message: "404: Not Found", code: 0 });
      return;
    }
    const path = m[1];
    const route = `${req.method} ${path}`;
    const template = routeTemplate(req.method, path);
    const started = Date.now();
    const entry = { kind: "rest", route, route_template: template };
    const finish = (status, body, extra = {}) =>
      this.journal.record({ ...entry, ...extra, status, response: body ?? null, duration_ms: Date.now() - started });

    const parsed = await readParsedBody(req, res, 8 * UPLOAD_LIMIT, finish, (status) =>
      (status === 413 ? { message: "Request entity too large", code: 40005 } : { message: "400: Bad Request", code: 0 }));
    if (!parsed) return;
    let payload = parsed.json ?? {};
    if (parsed.type === "multipart/form-data") {
      payload = parsed.fields.payload_json ? JSON.parse(parsed.fields.payload_json) : { ...parsed.fields };
    }
    entry.body = payload;
    entry.files = parsed.files.map(fileSummary);

    // Rate-limit state of this route's bucket (per major parameter, the channel), sent on every answer.
    const major = /^\/channels\/(\d+)/.exec(path)?.[1] ?? "global";
    const bucket = this.rateHeaders(`${template}:${major}`, template);
    const headers = () => ({
      "X-RateLimit-Limit": String(this.rateLimit.limit),
      "X-RateLimit-Remaining": String(bucket.remaining),
      "X-RateLimit-Reset": ((bucket.resetAt) / 1000).toFixed(3),
      "X-RateLimit-Reset-After": (Math.max(0, bucket.resetAt - Date.now()) / 1000).toFixed(3),
      "X-RateLimit-Bucket": bucket.hash,
    });

    if (req.headers.authorization !== `Bot ${this.token}`) {
      const body = { message: "401: Unauthorized", code: 0 };
      finish(401, body);
      sendJson(res, 401, body);
      return;
    }
    const fault = takeFault(this.faults, route, entry, req, finish);
    if (fault?.kind === "drop") return;
    const tooMany = (retryAfter, global, scope) => {
      const body = { message: "You are being rate limited.", retry_after: retryAfter, global };
      const h = { ...headers(), "Retry-After": String(Math.ceil(retryAfter)), "X-RateLimit-Scope": scope,
        "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": retryAfter.toFixed(3) };
      if (global) h["X-RateLimit-Global"] = "true";
      finish(429, body);
      sendJson(res, 429, body, h);
    };
    if (fault?.kind === "rate_limit") {
      tooMany(Number(fault.retry_after ?? 1), Boolean(fault.global), fault.global ? "global" : "user");
      return;
    }
    if (fault?.kind === "status") {
      const body = fault.body ?? { message: `${fault.status}: ${STATUS_TEXT[fault.status] ?? "Server Error"}`, code: 0 };
      finish(fault.status, body);
      sendJson(res, fault.status, body, headers());
      return;
    }
    if (bucket.remaining <= 0) {
      tooMany(Math.max(0.001, (bucket.resetAt - Date.now()) / 1000), false, "user");
      return;
    }
    bucket.remaining -= 1;
    let status;
    let body;
    try {
      [status, body] = this.route(req.method, path, payload, parsed.files);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      status = e.status;
      body = e.body;
    }
    finish(status, body, fault ? { withheld: fault.kind } : {});
    answerAfterFault(fault, req, res, () => sendJson(res, status, body, headers()));
  }

  route(method, path, payload, uploads) {
    let m;
    if (method === "GET" && path === "/gateway") return [200, { url: `${this.wsBase}/gateway` }];
    if (method === "GET" && path === "/gateway/bot") {
      return [200, { url: `${this.wsBase}/gateway`, shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 } }];
    }
    if (method === "GET" && path === "/users/@me") return [200, { ...this.bot, verified: true, mfa_enabled: false }];
    if ((m = /^\/channels\/(\d+)$/.exec(path)) && method === "GET") {
      return [200, this.channelObject(this.channelFor(m[1]))];
    }
    if ((m = /^\/channels\/(\d+)\/messages$/.exec(path))) {
      const channel = this.channelFor(m[1]);
      if (method === "POST") {
        const { stored } = this.postMessage(channel, payload, uploads);
        return [200, this.messageView(channel, stored)];
      }
      if (method === "GET") {
        const visible = channel.order.map((id) => channel.messages.get(id)).filter((s) => !s.deleted);
        return [200, visible.reverse().slice(0, 50).map((s) => this.messageView(channel, s))];
      }
    }
    if ((m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path))) {
      const channel = this.channelFor(m[1]);
      const stored = this.messageFor(channel, m[2]);
      if (method === "GET") return [200, this.messageView(channel, stored)];
      if (method === "PATCH") {
        if (stored.message.author.id !== this.bot.id) {
          throw new ApiError(403, { message: "Cannot edit a message authored by another user", code: 50005 });
        }
        if (stored.message.flags & FLAGS.IS_VOICE_MESSAGE) {
          throw new ApiError(400, { message: "Voice messages cannot be edited.", code: 50162 });
        }
        if (payload.content !== undefined && payload.content !== null) {
          const content = String(payload.content);
          if (codePointLength(content) > CONTENT_LIMIT) {
            throw invalidFormBody({ content: fieldError("BASE_TYPE_MAX_LENGTH", `Must be ${CONTENT_LIMIT} or fewer in length.`) });
          }
          stored.message.content = content;
        }
        if (Array.isArray(payload.embeds)) stored.message.embeds = payload.embeds;
        if (payload.flags !== undefined) {
          stored.message.flags = (stored.message.flags & ~FLAGS.SUPPRESS_EMBEDS) | (Number(payload.flags) & FLAGS.SUPPRESS_EMBEDS);
        }
        if (Array.isArray(payload.attachments)) {
          const keep = new Set(payload.attachments.map((a) => String(a.id)));
          stored.message.attachments = stored.message.attachments.filter((a) => keep.has(a.id));
        }
        if (!stored.message.content && !stored.message.embeds.length && !stored.message.attachments.length) {
          throw new ApiError(400, { message: "Cannot send an empty message", code: 50006 });
        }
        stored.message.edited_timestamp = new Date().toISOString();
        stored.edits += 1;
        this.dispatchMessage("MESSAGE_UPDATE", channel, stored);
        return [200, this.messageView(channel, stored)];
      }
      if (method === "DELETE") {
        if (stored.message.author.id !== this.bot.id && !(channel.guild_id && this.manageMessages)) {
          throw new ApiError(403, { message: "Missing Permissions", code: 50013 });
        }
        stored.deleted = true;
        const d = { id: stored.message.id, channel_id: channel.id };
        if (channel.guild_id) d.guild_id = channel.guild_id;
        this.dispatch("MESSAGE_DELETE", d, this.intentFor("message", channel));
        return [204, undefined];
      }
    }
    if ((m = /^\/channels\/(\d+)\/messages\/(\d+)\/reactions\/([^/]+)\/@me$/.exec(path))) {
      const channel = this.channelFor(m[1]);
      const { stored, emoji, key } = this.reactionTarget(channel, m[2], decodeURIComponent(m[3]));
      let reaction = stored.reactions.find((r) => r.key === key);
      const event = { user_id: this.bot.id, type: 0, channel_id: channel.id, message_id: stored.message.id,
        emoji, burst: false };
      if (channel.guild_id) event.guild_id = channel.guild_id;
      if (method === "PUT") {
        if (!reaction) {
          if (stored.reactions.length >= 20) {
            throw new ApiError(400, { message: "Maximum number of reactions reached (20)", code: 30010 });
          }
          reaction = { key, emoji, users: new Set() };
          stored.reactions.push(reaction);
        }
        if (!reaction.users.has(this.bot.id)) {
          reaction.users.add(this.bot.id);
          if (channel.guild_id) event.member = this.member(channel.guild_id, this.bot);
          event.message_author_id = stored.message.author.id;
          event.burst_colors = [];
          this.dispatch("MESSAGE_REACTION_ADD", event, this.intentFor("reaction", channel));
        }
        return [204, undefined];
      }
      if (method === "DELETE") {
        if (reaction?.users.delete(this.bot.id)) {
          if (reaction.users.size === 0) stored.reactions = stored.reactions.filter((r) => r !== reaction);
          this.dispatch("MESSAGE_REACTION_REMOVE", event, this.intentFor("reaction", channel));
        }
        return [204, undefined];
      }
    }
    if ((m = /^\/channels\/(\d+)\/typing$/.exec(path)) && method === "POST") {
      const channel = this.channelFor(m[1]);
      const timestamp = Math.floor(Date.now() / 1000);
      channel.typing.push({ user_id: this.bot.id, timestamp });
      const d = { channel_id: channel.id, user_id: this.bot.id, timestamp };
      if (channel.guild_id) {
        d.guild_id = channel.guild_id;
        d.member = this.member(channel.guild_id, this.bot);
      }
      this.dispatch("TYPING_START", d, this.intentFor("typing", channel));
      return [204, undefined];
    }
    throw new ApiError(404, { message: "404: Not Found", code: 0 });
  }

  // ---------------------------------------------------------------- admin API

  admin(req, res, url) {
    return serveAdmin(req, res, url, this, (body, p) => this.ownAdmin(req, res, body, p),
      (e) => (e instanceof ApiError ? e.status : 400));
  }

  // This fake's own admin routes (README); false for a route it does not have.
  async ownAdmin(req, res, body, p) {
    let m;
    if (req.method === "POST" && p === "/_fake/messages") {
      sendJson(res, 200, this.injectMessage(body));
    } else if (req.method === "POST" && p === "/_fake/users") {
      sendJson(res, 200, { user: this.addUser(body) });
    } else if (req.method === "POST" && p === "/_fake/guilds") {
      const guild = this.addGuild(body);
      // A guild added while connected arrives as GUILD_CREATE, as when a bot joins one.
      this.dispatch("GUILD_CREATE", this.guildCreate(guild), INTENTS.GUILDS);
      sendJson(res, 200, { guild: this.guildCreate(guild) });
    } else if (req.method === "POST" && p === "/_fake/channels") {
      sendJson(res, 200, { channel: this.channelObject(this.addChannel(body)) });
    } else if (req.method === "POST" && p === "/_fake/config") {
      if (body.privileged_intents) Object.assign(this.privileged, body.privileged_intents);
      if (body.heartbeat_interval) this.heartbeatMs = Number(body.heartbeat_interval);
      if (body.rate_limit) {
        this.rateLimit = { ...this.rateLimit, ...body.rate_limit };
        this.buckets.clear();
      }
      if (body.manage_messages !== undefined) this.manageMessages = Boolean(body.manage_messages);
      if (body.ack_heartbeats !== undefined) this.ackHeartbeats = Boolean(body.ack_heartbeats);
      sendJson(res, 200, { privileged_intents: this.privileged, heartbeat_interval: this.heartbeatMs,
        rate_limit: this.rateLimit, manage_messages: this.manageMessages, ack_heartbeats: this.ackHeartbeats });
    } else if (req.method === "GET" && (m = /^\/_fake\/channels\/(\d+)$/.exec(p))) {
      const channel = this.channels.get(m[1]);
      if (!channel) sendJson(res, 404, { error: "no such channel" });
      else sendJson(res, 200, { channel: this.channelState(channel) });
    } else if (req.method === "POST" && p === "/_fake/gateway/drop") {
      const live = [...this.connections].filter((c) => c.session);
      for (const c of live) {
        if (body.code) c.ws.close(Number(body.code), body.reason ?? "");
        else c.ws.terminate();
      }
      this.journal.record({ kind: "gateway", direction: "admin", action: "drop", code: body.code ?? null,
        connections: live.map((c) => c.n) });
      sendJson(res, 200, { dropped: live.length });
    } else if (req.method === "POST" && p === "/_fake/gateway/reconnect") {
      const live = [...this.connections].filter((c) => c.session);
      for (const c of live) this.sendPayload(c, { t: null, s: null, op: 7, d: null });
      sendJson(res, 200, { sent: live.length });
    } else if (req.method === "POST" && p === "/_fake/gateway/invalidate") {
      const resumable = Boolean(body.resumable);
      const live = [...this.connections].filter((c) => c.session);
      for (const c of live) {
        if (!resumable) c.session.invalid = true;
        this.sendPayload(c, { t: null, s: null, op: 9, d: resumable });
      }
      sendJson(res, 200, { sent: live.length });
    } else if (req.method === "GET" && p === "/_fake/gateway/sessions") {
      sendJson(res, 200, { sessions: [...this.sessions.values()].map((s) => ({ session_id: s.id, seq: s.seq,
        intents: s.intents, connected: s.conn !== null, invalid: s.invalid, resumes: s.resumes,
        identified_at: s.identified_at })) });
    } else {
      return false;
    }
    return true;
  }

  // A channel as a user sees it now: messages after edits and deletes, with reactions and who reacted.
  channelState(channel) {
    const { messages, deleted } = shownAndDeleted(channel.order.map((id) => [id, channel.messages.get(id)]), (stored) => {
      const view = this.messageView(channel, stored);
      view.reactions = stored.reactions.map((r) => ({ emoji: r.emoji, count: r.users.size, me: r.users.has(this.bot.id),
        users: [...r.users] }));
      view.edits = stored.edits;
      return view;
    });
    return { ...this.channelObject(channel), messages, deleted, typing: channel.typing };
  }
}

const STATUS_TEXT = { 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout" };

// "POST /channels/123/messages/456" → "POST /channels/{channel.id}/messages/{message.id}"
function routeTemplate(method, path) {
  return `${method} ${path
    .replace(/^\/channels\/\d+/, "/channels/{channel.id}")
    .replace(/\/messages\/\d+/, "/messages/{message.id}")
    .replace(/\/reactions\/[^/]+/, "/reactions/{emoji}")}`;
}

function bucketHash(template) {
  let h = 0;
  for (const ch of template) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h.toString(16).padStart(8, "0");
}

// ------------------------------------------------------------------ main

async function main() {
  const options = parseOptions(process.argv.slice(2), { token: DEFAULT_TOKEN, "heartbeat-ms": 41250 });
  const fake = new DiscordFake({
    token: options.token,
    journal: new Journal(options["state-dir"]),
    heartbeatMs: options["heartbeat-ms"],
  });
  await listen({
    host: options.host,
    port: options.port,
    onRequest: (req, res) => fake.handle(req, res),
    onUpgrade: (req, socket, head) => fake.onUpgrade(req, socket, head),
    onPort: (port) => fake.setAddress(port),
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(`discord fake: ${e.stack ?? e}\n`);
    process.exit(1);
  });
}
