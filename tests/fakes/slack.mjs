#!/usr/bin/env node
// A fake Slack for sigil's channel tests: the Web API (https://slack.com/api/<method>) and Socket Mode, written
// from Slack's API reference (docs.slack.dev). See README.md beside this file.
//
//   node tests/fakes/slack.mjs --port 0 --state-dir DIR [--bot-token xoxb-…] [--app-token xapp-…]
//
// prints `listening <port>` when ready. Web API at http://127.0.0.1:<port>/api/<method>; the Socket Mode URL
// that apps.connections.open returns (ws://127.0.0.1:<port>/link/?ticket=…); upload URLs at /upload/v1/…;
// files' url_private at /files-pri/…; the admin API (tests only) under /_fake/.
import { randomBytes, randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";

import {
  BodyTooLarge,
  Faults,
  Journal,
  answerAfterFault,
  listen,
  mimeFor,
  parseContentType,
  parseMultipart,
  parseOptions,
  readBody,
  readParsedBody,
  sendJson,
  serveAdmin,
  sha256,
  takeFault,
} from "./common.mjs";
import { knownReactionName } from "./slack-emoji.mjs";
import { SocketMode } from "./slack-socket.mjs";

export const IDS = {
  team: "T0SIGIL0001",
  app: "A0SIGIL0001",
  bot: "B0SIGIL0001", // bot_id
  botUser: "U0SIGILBOT1", // the bot's user id: mentions are <@U0SIGILBOT1>
  alice: "U0ALICE0001",
  bob: "U0BOB000001",
  general: "C0GENERAL01",
  random: "C0RANDOM001", // the bot is not a member: chat.postMessage → not_in_channel
  aliceDm: "D0ALICEDM01",
};
export const DEFAULT_BOT_TOKEN = "xoxb-1000000001-2000000002-sigilFakeBotTokenNotASecret";
export const DEFAULT_APP_TOKEN = "xapp-1-A0SIGIL0001-3000000003-sigilfakeapptokennotasecret";

const TEXT_LIMIT = 40_000; // characters; Slack refuses longer text with msg_too_long
const UPLOAD_LIMIT = 1024 * 1024 * 1024; // files up to 1 GB
const now = () => Math.floor(Date.now() / 1000);

class SlackError extends Error {
  constructor(code, extra = {}) {
    super(code);
    this.code = code;
    this.extra = extra;
  }
}

// ------------------------------------------------------------------ the fake

export class SlackFake {
  constructor({ botToken = DEFAULT_BOT_TOKEN, appToken = DEFAULT_APP_TOKEN, journal, faults } = {}) {
    this.botToken = botToken;
    this.appToken = appToken;
    this.ids = IDS;
    this.journal = journal ?? new Journal(null);
    this.faults = faults ?? new Faults();
    this.base = "http://127.0.0.1";
    this.wsBase = "ws://127.0.0.1";
    this.socket = new SocketMode(this);
    // What the app subscribes to (its Event Subscriptions page): bot events.
    this.subscriptions = new Set(["app_mention", "message.im"]);
    // chat.postMessage: about 1 a second per channel, with a short burst allowed.
    this.postRate = { per_second: 1, burst: 5 };
    this.buckets = new Map();
    this.lastTs = 0;
    this.users = new Map();
    this.channels = new Map();
    this.files = new Map();
    this.uploads = new Map(); // upload URL token → file id
    this.customEmoji = new Set();
    this.addUser({ id: IDS.botUser, name: "sigil", real_name: "sigil", is_bot: true, bot_id: IDS.bot });
    this.addUser({ id: IDS.alice, name: "alice", real_name: "Alice" });
    this.addUser({ id: IDS.bob, name: "bob", real_name: "Bob" });
    this.addChannel({ id: IDS.general, name: "general", members: [IDS.botUser, IDS.alice, IDS.bob] });
    this.addChannel({ id: IDS.random, name: "random", members: [IDS.alice, IDS.bob] });
    this.addChannel({ id: IDS.aliceDm, type: "im", user: IDS.alice });
  }

  setAddress(port) {
    this.base = `http://127.0.0.1:${port}`;
    this.wsBase = `ws://127.0.0.1:${port}`;
  }

  // Message timestamps: "<seconds>.<6 digits>", unique and increasing, as Slack's are per channel.
  nextTs() {
    let micros = Date.now() * 1000;
    if (micros <= this.lastTs) micros = this.lastTs + 1;
    this.lastTs = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, "0")}`;
  }

  // ---------------------------------------------------------------- world

  addUser(spec) {
    const id = spec.id ?? `U${randomBytes(5).toString("hex").toUpperCase()}`;
    const user = { id, team_id: IDS.team, name: spec.name ?? "user", deleted: false, real_name: spec.real_name ?? "",
      is_bot: Boolean(spec.is_bot), is_app_user: false, tz: "Europe/London",
      profile: { real_name: spec.real_name ?? "", display_name: spec.name ?? "", team: IDS.team } };
    if (spec.bot_id) user.profile.bot_id = spec.bot_id;
    this.users.set(id, user);
    return user;
  }

  addChannel(spec) {
    const type = spec.type ?? "channel";
    const id = spec.id ?? `${type === "im" ? "D" : "C"}${randomBytes(5).toString("hex").toUpperCase()}`;
    const channel = { id, type, name: spec.name ?? null, user: spec.user ?? null, created: now(),
      members: new Set(type === "im" ? [spec.user, IDS.botUser] : spec.members ?? [IDS.botUser]),
      messages: new Map(), order: [] };
    if (type === "im" && !this.users.has(spec.user)) throw new Error(`no user ${spec.user}`);
    this.channels.set(id, channel);
    return channel;
  }

  channelObject(c) {
    if (c.type === "im") {
      return { id: c.id, created: c.created, is_im: true, is_org_shared: false, user: c.user, is_user_deleted: false,
        priority: 0 };
    }
    return { id: c.id, name: c.name, is_channel: true, is_group: false, is_im: false, is_mpim: false,
      is_private: false, created: c.created, is_archived: false, is_general: c.id === IDS.general,
      name_normalized: c.name, is_shared: false, is_org_shared: false, is_member: c.members.has(IDS.botUser),
      topic: { value: "", creator: "", last_set: 0 }, purpose: { value: "", creator: "", last_set: 0 } };
  }

  // A channel id, or a user id (a post to a user goes to the DM with them, as Slack does).
  channelFor(id) {
    let c = this.channels.get(String(id ?? ""));
    if (!c && /^[UW]/.test(String(id ?? ""))) c = [...this.channels.values()].find((x) => x.type === "im" && x.user === id);
    if (!c) throw new SlackError("channel_not_found");
    return c;
  }

  messageFor(channel, ts) {
    const m = channel.messages.get(String(ts ?? ""));
    if (!m) throw new SlackError("message_not_found");
    return m;
  }

  fileObject(f) {
    const base = `${this.base}/files-pri/${IDS.team}-${f.id}`;
    return { id: f.id, created: f.created, timestamp: f.created, name: f.name, title: f.title, mimetype: f.mimetype,
      filetype: (f.name.split(".").pop() ?? "").toLowerCase(), pretty_type: f.mimetype, user: f.user, editable: false,
      size: f.data?.length ?? 0, mode: "hosted", is_external: false, external_type: "", is_public: true,
      public_url_shared: false, display_as_bot: false, username: "",
      url_private: `${base}/${encodeURIComponent(f.name)}`,
      url_private_download: `${base}/download/${encodeURIComponent(f.name)}`,
      permalink: `https://sigil-test.slack.com/files/${f.user}/${f.id}/${encodeURIComponent(f.name)}` };
  }

  newFile({ name, title, data, mimetype, user }) {
    const id = `F${randomBytes(5).toString("hex").toUpperCase()}`;
    const file = { id, name, title: title ?? name, data: data ?? null, mimetype: mimetype ?? null, user,
      created: now(), declaredLength: data?.length ?? null, completed: false };
    this.files.set(id, file);
    return file;
  }

  // ---------------------------------------------------------------- messages and their events

  store(channel, message) {
    const stored = { message, reactions: [], edits: 0 };
    channel.messages.set(message.ts, stored);
    channel.order.push(message.ts);
    return stored;
  }

  subscribed(channel, event) {
    if (event === "message") {
      const kind = { im: "message.im", channel: "message.channels", group: "message.groups", mpim: "message.mpim" };
      return this.subscriptions.has(kind[channel.type]);
    }
    return this.subscriptions.has(event);
  }

  // An Events API payload (event_callback) for the app, delivered over Socket Mode.
  emit(event) {
    const payload = { token: "fakeVerificationToken", team_id: IDS.team, context_team_id: IDS.team,
      context_enterprise_id: null, api_app_id: IDS.app, event,
      type: "event_callback", event_id: `Ev${randomBytes(5).toString("hex").toUpperCase()}`, event_time: now(),
      authorizations: [{ enterprise_id: null, team_id: IDS.team, user_id: IDS.botUser, is_bot: true,
        is_enterprise_install: false }],
      is_ext_shared_channel: false, event_context: `4-${randomBytes(12).toString("base64url")}` };
    this.socket.deliver(payload);
    return payload.event_id;
  }

  // The events a new message makes: `message` (when the app subscribes to its channel type) and, for a
  // message that mentions the bot outside a DM, `app_mention`.
  messageEvents(channel, m) {
    const ids = [];
    const base = { ...m, event_ts: m.ts };
    delete base.reactions;
    if (this.subscribed(channel, "message")) {
      ids.push(this.emit({ ...base, type: "message", channel: channel.id, channel_type: channel.type }));
    }
    if (channel.type !== "im" && !m.bot_id && m.text?.includes(`<@${IDS.botUser}>`) && this.subscribed(channel, "app_mention")) {
      const { subtype: _s, upload: _u, display_as_bot: _d, ...rest } = base;
      ids.push(this.emit({ ...rest, type: "app_mention", channel: channel.id }));
    }
    return ids;
  }

  // A user's message: admin POST /_fake/messages.
  injectMessage(spec) {
    const channel = this.channelFor(spec.channel ?? IDS.general);
    const user = this.users.get(String(spec.user ?? IDS.alice));
    if (!user) throw new SlackError("user_not_found");
    const files = (spec.files ?? []).map((f) => {
      const data = Buffer.from(f.data_base64 ?? "", "base64");
      const file = this.newFile({ name: f.name ?? "file", title: f.title, data, user: user.id,
        mimetype: f.mimetype ?? mimeFor(f.name, data) });
      file.completed = true;
      return this.fileObject(file);
    });
    const m = { user: user.id, type: "message", ts: this.nextTs(), client_msg_id: randomUUID(),
      text: spec.text ?? "", team: IDS.team };
    if (spec.thread_ts) {
      this.messageFor(channel, spec.thread_ts);
      m.thread_ts = String(spec.thread_ts);
      m.parent_user_id = channel.messages.get(m.thread_ts).message.user;
    }
    if (files.length) {
      m.subtype = "file_share";
      m.files = files;
      m.upload = true;
      m.display_as_bot = false;
    }
    this.store(channel, m);
    return { message: m, event_ids: this.messageEvents(channel, m) };
  }

  botMessage(channel, fields) {
    const m = { bot_id: IDS.bot, type: "message", text: fields.text ?? "", user: IDS.botUser, ts: this.nextTs(),
      app_id: IDS.app, team: IDS.team, ...fields,
      bot_profile: { id: IDS.bot, app_id: IDS.app, name: "sigil", deleted: false, team_id: IDS.team } };
    this.store(channel, m);
    this.messageEvents(channel, m);
    return m;
  }

  // ---------------------------------------------------------------- Web API methods

  // chat.postMessage's rate: a bucket per channel (burst, refilled per_second).
  takePostSlot(channelId) {
    const t = Date.now();
    let b = this.buckets.get(channelId);
    if (!b) b = { tokens: this.postRate.burst, at: t };
    b.tokens = Math.min(this.postRate.burst, b.tokens + ((t - b.at) / 1000) * this.postRate.per_second);
    b.at = t;
    this.buckets.set(channelId, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.postRate.per_second));
  }

  threadOf(channel, p) {
    if (p.thread_ts === undefined || p.thread_ts === "") return undefined;
    const parent = channel.messages.get(String(p.thread_ts));
    // A reply names the thread's first message; a reply's own ts names its thread.
    if (!parent) throw new SlackError("thread_not_found");
    return parent.message.thread_ts ?? parent.message.ts;
  }

  checkText(p) {
    const text = p.text === undefined || p.text === null ? "" : String(p.text);
    const blocks = parseJsonParam(p.blocks);
    if (!text && !(Array.isArray(blocks) && blocks.length) && !p.attachments) throw new SlackError("no_text");
    if (text.length > TEXT_LIMIT) throw new SlackError("msg_too_long");
    return { text, blocks };
  }

  methods() {
    return {
      "auth.test": { token: "bot", run: () => ({ url: "https://sigil-test.slack.com/", team: "sigil test",
        user: "sigil", team_id: IDS.team, user_id: IDS.botUser, bot_id: IDS.bot, is_enterprise_install: false }) },
      "apps.connections.open": { token: "app", run: () => ({ url: this.socket.openUrl() }) },
      "chat.postMessage": { token: "bot", run: (p, ctx) => {
        const channel = this.channelFor(p.channel);
        if (!channel.members.has(IDS.botUser)) throw new SlackError("not_in_channel");
        const { text, blocks } = this.checkText(p);
        const threadTs = this.threadOf(channel, p);
        const wait = this.takePostSlot(channel.id);
        if (wait) throw new RateLimited(wait);
        const fields = { text };
        if (Array.isArray(blocks)) fields.blocks = blocks;
        if (threadTs) fields.thread_ts = threadTs;
        if (p.mrkdwn !== undefined) ctx.entry.mrkdwn = String(p.mrkdwn);
        const m = this.botMessage(channel, fields);
        return { channel: channel.id, ts: m.ts, message: m };
      } },
      "chat.update": { token: "bot", run: (p) => {
        const channel = this.channelFor(p.channel);
        const stored = this.messageFor(channel, p.ts);
        if (stored.message.user !== IDS.botUser) throw new SlackError("cant_update_message");
        const { text, blocks } = this.checkText(p);
        stored.message.text = text;
        if (Array.isArray(blocks)) stored.message.blocks = blocks;
        stored.message.edited = { user: IDS.botUser, ts: this.nextTs() };
        stored.edits += 1;
        return { channel: channel.id, ts: stored.message.ts, text, message: stored.message };
      } },
      "chat.delete": { token: "bot", run: (p) => {
        const channel = this.channelFor(p.channel);
        const stored = this.messageFor(channel, p.ts);
        if (stored.message.user !== IDS.botUser) throw new SlackError("cant_delete_message");
        channel.messages.delete(stored.message.ts);
        channel.order = channel.order.filter((ts) => ts !== stored.message.ts);
        return { channel: channel.id, ts: stored.message.ts };
      } },
      "reactions.add": { token: "bot", run: (p) => {
        if (!p.channel || !p.timestamp) throw new SlackError("no_item_specified");
        const channel = this.channelFor(p.channel);
        const stored = this.messageFor(channel, p.timestamp);
        const name = String(p.name ?? "");
        if (!knownReactionName(name, this.customEmoji)) throw new SlackError("invalid_name");
        let r = stored.reactions.find((x) => x.name === name);
        if (r?.users.has(IDS.botUser)) throw new SlackError("already_reacted");
        if (!r) {
          if (stored.reactions.length >= 23) throw new SlackError("too_many_emoji");
          r = { name, users: new Set() };
          stored.reactions.push(r);
        }
        r.users.add(IDS.botUser);
        if (this.subscriptions.has("reaction_added")) {
          this.emit({ type: "reaction_added", user: IDS.botUser, reaction: name, item_user: stored.message.user,
            item: { type: "message", channel: channel.id, ts: stored.message.ts }, event_ts: this.nextTs() });
        }
        return {};
      } },
      "reactions.remove": { token: "bot", run: (p) => {
        const channel = this.channelFor(p.channel);
        const stored = this.messageFor(channel, p.timestamp);
        const r = stored.reactions.find((x) => x.name === String(p.name ?? ""));
        if (!r || !r.users.delete(IDS.botUser)) throw new SlackError("no_reaction");
        if (!r.users.size) stored.reactions = stored.reactions.filter((x) => x !== r);
        return {};
      } },
      "files.getUploadURLExternal": { token: "bot", run: (p) => {
        const length = Number(p.length);
        if (!p.filename || !Number.isInteger(length) || length < 1) throw new SlackError("invalid_arguments");
        if (length > UPLOAD_LIMIT) throw new SlackError("file_size_too_large");
        const file = this.newFile({ name: String(p.filename), user: IDS.botUser });
        file.declaredLength = length;
        if (p.alt_text) file.alt_text = String(p.alt_text);
        const key = randomBytes(16).toString("hex");
        this.uploads.set(key, file.id);
        return { upload_url: `${this.base}/upload/v1/${key}`, file_id: file.id };
      } },
      "files.completeUploadExternal": { token: "bot", run: (p) => {
        const list = parseJsonParam(p.files);
        if (!Array.isArray(list) || !list.length) throw new SlackError("invalid_arguments");
        const files = list.map((x) => {
          const f = this.files.get(String(x?.id ?? ""));
          if (!f || f.data === null || f.completed) throw new SlackError("file_not_found");
          return [f, x];
        });
        const channelId = p.channel_id ?? (p.channels ? String(p.channels).split(",")[0] : undefined);
        const channel = channelId !== undefined ? this.channelFor(channelId) : null;
        if (channel && !channel.members.has(IDS.botUser)) throw new SlackError("not_in_channel");
        const threadTs = channel ? this.threadOf(channel, p) : undefined;
        for (const [f, x] of files) {
          f.completed = true;
          if (x.title) f.title = String(x.title);
          f.mimetype = mimeFor(f.name, f.data);
        }
        if (channel) {
          const fields = { text: p.initial_comment ? String(p.initial_comment) : "", files: files.map(([f]) => this.fileObject(f)),
            upload: true, display_as_bot: false };
          if (threadTs) fields.thread_ts = threadTs;
          this.botMessage(channel, fields);
        }
        return { files: files.map(([f]) => ({ id: f.id, title: f.title })) };
      } },
      "conversations.info": { token: "bot", run: (p) => ({ channel: this.channelObject(this.channelFor(p.channel)) }) },
      "users.info": { token: "bot", run: (p) => {
        const user = this.users.get(String(p.user ?? ""));
        if (!user) throw new SlackError("user_not_found");
        return { user };
      } },
    };
  }

  // ---------------------------------------------------------------- HTTP

  async handle(req, res) {
    const url = new URL(req.url, "http://fake");
    if (url.pathname.startsWith("/_fake/")) return this.admin(req, res, url);
    if (url.pathname.startsWith("/upload/v1/")) return this.upload(req, res, url);
    if (url.pathname.startsWith("/files-pri/")) return this.download(req, res, url);
    if (url.pathname === "/signin" && req.method === "GET") {
      const html = "<!DOCTYPE html><html><head><title>Sign in | Slack</title></head><body>Sign in to sigil test</body></html>";
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Length": Buffer.byteLength(html) });
      res.end(html);
      return;
    }
    const m = /^\/api\/([A-Za-z0-9_.]+)$/.exec(url.pathname);
    if (!m) {
      sendJson(res, 404, { ok: false, error: "unknown_method" });
      return;
    }
    const method = m[1];
    const started = Date.now();
    const entry = { kind: "api", route: method, method };
    const finish = (status, body, extra = {}) =>
      this.journal.record({ ...entry, ...extra, status, response: body ?? null, duration_ms: Date.now() - started });
    const parsed = await readParsedBody(req, res, 64 * 1024 * 1024, finish, (status) =>
      ({ ok: false, error: status === 413 ? "request_too_large" : "invalid_form_data" }));
    if (!parsed) return;
    // Arguments: the query string, then the body (form fields or a JSON object).
    const params = { ...Object.fromEntries(url.searchParams), ...parsed.fields, ...(parsed.json ?? {}) };
    const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? params.token;
    delete params.token;
    entry.params = params;
    entry.content_type = parsed.type;
    entry.token_kind = auth === this.botToken ? "bot" : auth === this.appToken ? "app" : auth ? "unknown" : "none";

    const reply = (status, body, headers = {}) => {
      finish(status, body);
      sendJson(res, status, body, headers);
    };
    const fault = takeFault(this.faults, method, entry, req, finish);
    if (fault?.kind === "drop") return;
    if (fault?.kind === "rate_limit") {
      const retry = Math.max(1, Math.ceil(Number(fault.retry_after ?? 1)));
      reply(429, { ok: false, error: "ratelimited" }, { "Retry-After": String(retry) });
      return;
    }
    if (fault?.kind === "status") {
      const text = fault.body ?? `<html><body>${fault.status} upstream error</body></html>`;
      finish(fault.status, text);
      res.writeHead(fault.status, { "Content-Type": "text/html", "Content-Length": Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    const def = this.methods()[method];
    if (!def) {
      reply(404, { ok: false, error: "unknown_method", req_method: method });
      return;
    }
    if (!auth) return reply(200, { ok: false, error: "not_authed" });
    if (entry.token_kind === "unknown") return reply(200, { ok: false, error: "invalid_auth" });
    if (entry.token_kind !== def.token) return reply(200, { ok: false, error: "not_allowed_token_type" });
    if (parsed.type === "application/json" && method !== "apps.connections.open" && req.headers["content-type"] &&
        !/charset=utf-8/i.test(req.headers["content-type"])) {
      entry.warning = "missing_charset";
    }
    let status = 200;
    let body;
    let headers = {};
    try {
      body = { ok: true, ...def.run(params, { entry }) };
    } catch (e) {
      if (e instanceof RateLimited) {
        status = 429;
        body = { ok: false, error: "ratelimited" };
        headers = { "Retry-After": String(e.retryAfter) };
      } else if (e instanceof SlackError) {
        body = { ok: false, error: e.code, ...e.extra };
      } else {
        throw e;
      }
    }
    finish(status, body, fault ? { withheld: fault.kind } : {});
    answerAfterFault(fault, req, res, () => sendJson(res, status, body, headers));
  }

  // Step 2 of a file upload: the bytes, POSTed raw or as multipart/form-data (the first file part), to the
  // URL files.getUploadURLExternal returned. Answered "OK - <length>" (text/plain), as Slack's upload host does.
  async upload(req, res, url) {
    const key = url.pathname.slice("/upload/v1/".length);
    const started = Date.now();
    const entry = { kind: "upload", route: "upload", key };
    const finish = (status, body, extra = {}) =>
      this.journal.record({ ...entry, ...extra, status, response: body ?? null, duration_ms: Date.now() - started });
    const fileId = this.uploads.get(key);
    let raw;
    try {
      raw = await readBody(req, UPLOAD_LIMIT);
    } catch (e) {
      if (!(e instanceof BodyTooLarge)) throw e;
      finish(413, "Request Entity Too Large");
      res.writeHead(413, { "Content-Length": 0 }).end();
      return;
    }
    const fault = takeFault(this.faults, "upload", entry, req, finish);
    if (fault?.kind === "drop") return;
    const text = (status, t) => {
      finish(status, t);
      res.writeHead(status, { "Content-Type": "text/plain", "Content-Length": Buffer.byteLength(t) });
      res.end(t);
    };
    if (fault?.kind === "status" || fault?.kind === "rate_limit") return text(fault.status ?? 429, "error");
    const file = this.files.get(fileId ?? "");
    if (req.method !== "POST" || !file) return text(404, "Not Found");
    if (file.data !== null) return text(400, "upload already received");
    const { type, params } = parseContentType(req.headers["content-type"]);
    let data = raw;
    if (type === "multipart/form-data") {
      try {
        data = parseMultipart(raw, params.boundary ?? "").files[0]?.data ?? Buffer.alloc(0);
      } catch {
        return text(400, "invalid multipart body");
      }
    }
    entry.body_type = type || "none";
    file.data = data;
    entry.file_id = file.id;
    entry.size = data.length;
    entry.sha256 = sha256(data);
    if (file.declaredLength !== data.length) entry.length_mismatch = file.declaredLength;
    const answer = `OK - ${data.length}`;
    finish(200, answer, fault ? { withheld: fault.kind } : {});
    answerAfterFault(fault, req, res, () => {
      res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": Buffer.byteLength(answer) });
      res.end(answer);
    });
  }

  // A file's url_private(_download): the bytes with the bot token; without it Slack sends the browser to its
  // sign-in page (an HTML page, status 200 after the redirect), which a client must not take for the file.
  download(req, res, url) {
    const m = /^\/files-pri\/[A-Z0-9]+-(F[A-Z0-9]+)\/(?:download\/)?[^/]+$/.exec(url.pathname);
    const file = m ? this.files.get(m[1]) : null;
    const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    this.journal.record({ kind: "download", route: "download", file_id: m?.[1] ?? null, authorized: auth === this.botToken });
    if (!file || file.data === null) {
      res.writeHead(404, { "Content-Length": 0 }).end();
      return;
    }
    if (auth !== this.botToken) {
      res.writeHead(302, { Location: `${this.base}/signin?redir=${encodeURIComponent(url.pathname)}`, "Content-Length": 0 });
      res.end();
      return;
    }
    res.writeHead(200, { "Content-Type": file.mimetype ?? "application/octet-stream", "Content-Length": file.data.length });
    res.end(file.data);
  }

  onUpgrade(req, socket, head) {
    this.socket.accept(req, socket, head);
  }

  // ---------------------------------------------------------------- admin API

  admin(req, res, url) {
    return serveAdmin(req, res, url, this, (body, p) => this.ownAdmin(req, res, body, p),
      (e) => (e instanceof SlackError ? 404 : 400));
  }

  async ownAdmin(req, res, body, p) {
    let m;
    if (req.method === "POST" && p === "/_fake/messages") {
      sendJson(res, 200, this.injectMessage(body));
    } else if (req.method === "POST" && p === "/_fake/users") {
      sendJson(res, 200, { user: this.addUser(body) });
    } else if (req.method === "POST" && p === "/_fake/channels") {
      sendJson(res, 200, { channel: this.channelObject(this.addChannel(body)) });
    } else if (req.method === "POST" && p === "/_fake/emoji") {
      this.customEmoji.add(String(body.name));
      sendJson(res, 200, { emoji: [...this.customEmoji] });
    } else if (req.method === "POST" && p === "/_fake/config") {
      if (Array.isArray(body.subscriptions)) this.subscriptions = new Set(body.subscriptions);
      if (body.ack_timeout_ms !== undefined) this.socket.ackTimeoutMs = Number(body.ack_timeout_ms);
      if (body.max_retries !== undefined) this.socket.maxRetries = Number(body.max_retries);
      if (body.ping_ms !== undefined) this.socket.pingMs = Number(body.ping_ms);
      if (body.post_rate) {
        this.postRate = { ...this.postRate, ...body.post_rate };
        this.buckets.clear();
      }
      sendJson(res, 200, { subscriptions: [...this.subscriptions], ack_timeout_ms: this.socket.ackTimeoutMs,
        max_retries: this.socket.maxRetries, ping_ms: this.socket.pingMs, post_rate: this.postRate });
    } else if (req.method === "GET" && (m = /^\/_fake\/channels\/([A-Z0-9]+)$/.exec(p))) {
      const channel = this.channels.get(m[1]);
      if (!channel) sendJson(res, 404, { error: "no such channel" });
      else sendJson(res, 200, { channel: this.channelState(channel) });
    } else if (req.method === "GET" && (m = /^\/_fake\/files\/([A-Z0-9]+)$/.exec(p))) {
      const f = this.files.get(m[1]);
      if (!f) sendJson(res, 404, { error: "no such file" });
      else sendJson(res, 200, { file: { ...this.fileObject(f), completed: f.completed, sha256: f.data ? sha256(f.data) : null,
        data_base64: f.data?.toString("base64") ?? null } });
    } else if (req.method === "POST" && p === "/_fake/socket/disconnect") {
      sendJson(res, 200, { sent: this.socket.disconnect(body.reason ?? "refresh_requested", body.close_after_ms ?? 10_000) });
    } else if (req.method === "POST" && p === "/_fake/socket/drop") {
      const dropped = this.socket.drop();
      this.journal.record({ kind: "socket", direction: "admin", action: "drop", connections: dropped });
      sendJson(res, 200, { dropped });
    } else if (req.method === "GET" && p === "/_fake/socket/envelopes") {
      sendJson(res, 200, { envelopes: this.socket.state() });
    } else if (req.method === "GET" && p === "/_fake/socket/connections") {
      sendJson(res, 200, { connections: this.socket.connectionsState() });
    } else {
      return false;
    }
    return true;
  }

  // A channel as a user sees it now: its messages in order, with reactions (and who reacted), files and edits.
  channelState(channel) {
    const messages = channel.order.map((ts) => {
      const s = channel.messages.get(ts);
      const view = { ...s.message, edits: s.edits };
      if (s.reactions.length) {
        view.reactions = s.reactions.map((r) => ({ name: r.name, users: [...r.users], count: r.users.size }));
      }
      if (view.files) {
        view.files = view.files.map((f) => {
          const file = this.files.get(f.id);
          return { ...f, sha256: file?.data ? sha256(file.data) : null };
        });
      }
      return view;
    });
    return { ...this.channelObject(channel), messages };
  }
}

class RateLimited extends Error {
  constructor(retryAfter) {
    super("ratelimited");
    this.retryAfter = retryAfter;
  }
}

// Slack takes structured arguments (blocks, files) as JSON text in a form field, or as JSON in a JSON body.
function parseJsonParam(v) {
  if (v === undefined || v === null || typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    throw new SlackError("invalid_arguments");
  }
}

// ------------------------------------------------------------------ main

async function main() {
  const options = parseOptions(process.argv.slice(2), { "bot-token": DEFAULT_BOT_TOKEN, "app-token": DEFAULT_APP_TOKEN });
  const fake = new SlackFake({
    botToken: options["bot-token"],
    appToken: options["app-token"],
    journal: new Journal(options["state-dir"]),
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
    process.stderr.write(`slack fake: ${e.stack ?? e}\n`);
    process.exit(1);
  });
}
