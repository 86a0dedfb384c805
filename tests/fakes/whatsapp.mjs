#!/usr/bin/env node
// A fake WhatsApp Business Cloud API for sigil's channel tests: the Graph API endpoints a bot uses
// (https://graph.facebook.com/v23.0/…) and the webhook Meta calls, written from Meta's API reference and its
// OpenAPI description (facebook/openapi, business-messaging-api_v23.0.yaml). See README.md beside this file.
//
//   node tests/fakes/whatsapp.mjs --port 0 --state-dir DIR [--access-token …] [--app-secret …]
//        [--webhook-url URL --verify-token T] [--webhook-retry-ms 500]
//
// prints `listening <port>` when ready. Graph API at http://127.0.0.1:<port>/v23.0/…; media downloads at
// /whatsapp_business/attachments/?mid=…; the admin API (tests only) under /_fake/. With --webhook-url the fake
// verifies the URL (the GET handshake) at start and at every POST /_fake/webhook, and delivers from then on.
import { createHmac, randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";

import {
  Faults,
  Journal,
  answerAfterFault,
  listen,
  mimeFor,
  parseOptions,
  readParsedBody,
  sendJson,
  serveAdmin,
  sha256,
  takeFault,
} from "./common.mjs";
import { WebhookSender } from "./whatsapp-webhook.mjs";

export const IDS = {
  phoneNumberId: "106540352242922",
  displayPhone: "15550783881",
  waba: "102290129340398",
  alice: "16505551234",
  bob: "447700900123",
  nobody: "15005550006", // not on WhatsApp: sends are accepted, then a `failed` status (131026) arrives
};
export const DEFAULT_ACCESS_TOKEN = "EAAGsigilFakeSystemUserTokenNotASecret0000000000";
export const DEFAULT_APP_SECRET = "sigil-fake-app-secret-not-a-secret";
export const DEFAULT_VERIFY_TOKEN = "sigil-fake-verify-token";
export const API_VERSION = "v23.0";

const TEXT_LIMIT = 4096; // characters of text.body
const CAPTION_LIMIT = 1024;
const WINDOW_MS = 24 * 3600 * 1000; // the customer-service window
const URL_TTL_MS = 5 * 60 * 1000; // a media URL is valid for 5 minutes
// Media types WhatsApp takes, and their size limits (bytes).
const MEDIA = {
  image: { types: ["image/jpeg", "image/png"], limit: 5 * 1024 * 1024 },
  audio: { types: ["audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"], limit: 16 * 1024 * 1024 },
  video: { types: ["video/mp4", "video/3gpp"], limit: 16 * 1024 * 1024 },
  document: { types: ["text/plain", "application/pdf", "application/msword", "application/vnd.ms-excel",
    "application/vnd.ms-powerpoint", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation"], limit: 100 * 1024 * 1024 },
  sticker: { types: ["image/webp"], limit: 500 * 1024 },
};
const now = () => Math.floor(Date.now() / 1000);

// A Graph API error as Meta sends it: {"error": {message, type, code, error_subcode?, error_data?, fbtrace_id}}.
export class GraphError extends Error {
  constructor(status, code, message, { type = "OAuthException", subcode, details, headers } = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.type = type;
    this.subcode = subcode;
    this.details = details;
    this.headers = headers ?? {};
  }

  body() {
    const error = { message: this.message, type: this.type, code: this.code };
    if (this.details) error.error_data = { messaging_product: "whatsapp", details: this.details };
    if (this.subcode !== undefined) error.error_subcode = this.subcode;
    error.fbtrace_id = `A${randomBytes(11).toString("base64url")}`;
    return { error };
  }
}

const invalidParam = (details) =>
  new GraphError(400, 100, "(#100) Invalid parameter", { details });
const notValid = (details) =>
  new GraphError(400, 131009, "(#131009) Parameter value is not valid", { details });
// The named Graph errors a test can inject with a `status` fault's `code`.
export const KNOWN_ERRORS = {
  4: [429, "(#4) Application request limit reached", {}],
  130429: [400, "(#130429) Rate limit hit", { details: "Cloud API message throughput has been reached." }],
  131047: [400, "(#131047) Re-engagement message", { subcode: 2494010,
    details: "Message failed to send because more than 24 hours have passed since the customer last replied to this number." }],
  131056: [400, "(#131056) (Business Account, Consumer Account) pair rate limit hit", {
    details: "Too many messages sent from the sender phone number to the same recipient phone number in a short period of time." }],
  131026: [400, "(#131026) Message undeliverable", { details: "Unable to deliver message." }],
  131000: [500, "(#131000) Something went wrong", { details: "Something went wrong" }],
  131016: [503, "(#131016) Service unavailable", { details: "A service is temporarily unavailable." }],
  190: [401, "Invalid OAuth access token - Cannot parse access token", {}],
};

export function knownError(code) {
  const k = KNOWN_ERRORS[code];
  if (!k) return new GraphError(400, Number(code), `(#${code}) Error`, {});
  return new GraphError(k[0], Number(code), k[1], k[2]);
}

// One emoji (a single extended grapheme that is pictographic, a flag or a keycap): what a reaction takes.
const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });
export function isOneEmoji(s) {
  const graphemes = [...segmenter.segment(s)];
  if (graphemes.length !== 1) return false;
  return /\p{Extended_Pictographic}|\p{Regional_Indicator}{2}|\u20e3/u.test(s);
}

// ------------------------------------------------------------------ the fake

export class WhatsAppFake {
  constructor({ accessToken = DEFAULT_ACCESS_TOKEN, appSecret = DEFAULT_APP_SECRET, journal, faults,
    webhookRetryMs = 500 } = {}) {
    this.accessToken = accessToken;
    this.appSecret = appSecret;
    this.journal = journal ?? new Journal(null);
    this.faults = faults ?? new Faults();
    this.webhook = new WebhookSender({ journal: this.journal, appSecret, retryMs: webhookRetryMs });
    this.base = "http://127.0.0.1";
    this.users = new Map(); // wa_id → {wa_id, name, lastInbound (ms), messages: []}
    this.messages = new Map(); // wamid → {id, wa_id, direction, ...}
    this.media = new Map(); // media id → {id, data, mime, sha256, owner, filename}
    this.statusOptions = { enabled: true, out_of_order: false, read: false };
    this.seq = 0;
    this.addUser({ wa_id: IDS.alice, name: "Alice" });
    this.addUser({ wa_id: IDS.bob, name: "Bob" });
  }

  setAddress(port) {
    this.base = `http://127.0.0.1:${port}`;
  }

  addUser({ wa_id: waId, name = "User" }) {
    const user = { wa_id: String(waId), name, lastInbound: null, messages: [], typing: 0, reads: [] };
    this.users.set(user.wa_id, user);
    return user;
  }

  wamid(waId) {
    const inner = Buffer.concat([Buffer.from(`\x0b${waId}\x15\x02\x00\x11\x18\x12`), randomBytes(9)]);
    return `wamid.HBgL${inner.toString("base64")}`;
  }

  mediaId() {
    return String(1_000_000_000_000_000n + BigInt(randomBytes(6).readUIntBE(0, 6)));
  }

  // ---------------------------------------------------------------- inbound (a user's messages)

  // A user's message (admin POST /_fake/messages): {from, text} | {from, image|audio|document|video: {name,
  // data_base64, mime_type, caption, voice}} | {from, reaction: {message_id, emoji}}; `context` (a reply to a
  // message id). Opens the user's 24-hour window and delivers the webhook. Returns {message, delivery_id}.
  inject(spec) {
    const user = this.users.get(String(spec.from ?? IDS.alice)) ?? this.addUser({ wa_id: spec.from, name: spec.name });
    const m = { from: user.wa_id, id: this.wamid(user.wa_id), timestamp: String(spec.timestamp ?? now()) };
    if (spec.context) m.context = { from: IDS.displayPhone, id: String(spec.context) };
    if (spec.reaction) {
      m.type = "reaction";
      m.reaction = { message_id: String(spec.reaction.message_id), emoji: String(spec.reaction.emoji ?? "") };
    } else {
      const kind = ["image", "audio", "document", "video", "sticker"].find((k) => spec[k]);
      if (kind) {
        const f = spec[kind];
        const data = Buffer.from(f.data_base64 ?? "", "base64");
        const mime = f.mime_type ?? mimeFor(f.name, data);
        const media = this.storeMedia({ data, mime, filename: f.name, owner: IDS.phoneNumberId });
        m.type = kind;
        m[kind] = { mime_type: kind === "audio" && mime === "audio/ogg" ? "audio/ogg; codecs=opus" : mime,
          sha256: Buffer.from(media.sha256, "hex").toString("base64"), id: media.id };
        if (f.caption !== undefined && kind !== "audio") m[kind].caption = String(f.caption);
        if (kind === "document") m[kind].filename = f.name ?? "file";
        if (kind === "audio") m[kind].voice = Boolean(f.voice);
      } else {
        m.type = "text";
        m.text = { body: String(spec.text ?? "") };
      }
    }
    user.lastInbound = spec.window_open === false ? Date.now() - WINDOW_MS - 1000 : Date.now();
    this.messages.set(m.id, { ...m, wa_id: user.wa_id, direction: "in" });
    user.messages.push({ direction: "in", ...m });
    const payload = this.envelope({ contacts: [{ profile: { name: user.name }, wa_id: user.wa_id }], messages: [m] });
    const deliveryId = this.webhook.enqueue(payload);
    this.journal.record({ kind: "inbound", id: m.id, type: m.type, from: m.from, delivery_id: deliveryId });
    return { message: m, delivery_id: deliveryId, payload };
  }

  envelope(value) {
    return { object: "whatsapp_business_account", entry: [{ id: IDS.waba, changes: [{ value: { messaging_product:
      "whatsapp", metadata: { display_phone_number: IDS.displayPhone, phone_number_id: IDS.phoneNumberId }, ...value },
    field: "messages" }] }] };
  }

  // The statuses Meta reports for a message the business sent: sent and delivered (delivered first when
  // statusOptions.out_of_order), read when statusOptions.read; `failed` with 131026 for a number that is not on
  // WhatsApp. Each is its own webhook delivery.
  reportStatuses(message) {
    if (!this.statusOptions.enabled) return;
    const base = { id: message.id, recipient_id: message.wa_id };
    const status = (s, extra = {}) => this.envelope({ statuses: [{ ...base, status: s, timestamp: String(now()),
      ...extra }] });
    const conversation = { id: randomBytes(16).toString("hex"), origin: { type: "service" } };
    const pricing = { billable: false, pricing_model: "PMP", category: "service", type: "free_customer_service" };
    if (!this.users.has(message.wa_id)) {
      this.webhook.enqueue(status("failed", { errors: [{ code: 131026, title: "Message undeliverable",
        message: "Message undeliverable", error_data: { details: "Message Undeliverable." } }] }));
      return;
    }
    const list = [status("sent", { conversation, pricing }), status("delivered", { conversation, pricing })];
    if (this.statusOptions.read) list.push(status("read"));
    if (this.statusOptions.out_of_order) list.reverse();
    for (const p of list) this.webhook.enqueue(p);
  }

  // ---------------------------------------------------------------- media

  storeMedia({ data, mime, filename, owner }) {
    const media = { id: this.mediaId(), data, mime, sha256: sha256(data), owner, filename: filename ?? null,
      created: Date.now() };
    this.media.set(media.id, media);
    return media;
  }

  mediaUrl(media) {
    const ext = Date.now() + URL_TTL_MS;
    const hash = createHmac("sha256", this.appSecret).update(`${media.id}:${ext}`).digest("base64url").slice(0, 22);
    return `${this.base}/whatsapp_business/attachments/?mid=${media.id}&ext=${ext}&hash=${hash}`;
  }

  // ---------------------------------------------------------------- Graph API

  // POST /{phone-number-id}/messages
  sendMessage(p, entry) {
    if (p.messaging_product !== "whatsapp") {
      throw new GraphError(400, 100, "(#100) The parameter messaging_product is required.");
    }
    if (p.status !== undefined) return this.markRead(p, entry);
    if (p.recipient_type !== undefined && p.recipient_type !== "individual") {
      throw invalidParam("recipient_type must be individual");
    }
    const to = String(p.to ?? "").replace(/^\+/, "").replace(/[\s()-]/g, "");
    if (!to) throw new GraphError(400, 100, "(#100) The parameter to is required.");
    if (!/^\d{6,15}$/.test(to)) throw notValid("Invalid WhatsApp recipient: to");
    const type = p.type ?? "text";
    const user = this.users.get(to);
    const out = { id: this.wamid(to), wa_id: to, direction: "out", type, timestamp: String(now()) };
    if (type === "text") {
      const body = p.text?.body;
      if (typeof body !== "string" || !body.length) throw new GraphError(400, 100, "(#100) The parameter text['body'] is required.");
      if ([...body].length > TEXT_LIMIT) {
        throw new GraphError(400, 100, `(#100) Param text['body'] must be at most ${TEXT_LIMIT} characters long.`);
      }
      out.text = { body, preview_url: Boolean(p.text.preview_url) };
    } else if (type === "reaction") {
      const r = p.reaction ?? {};
      const target = this.messages.get(String(r.message_id ?? ""));
      if (!target || target.wa_id !== to) throw notValid("reaction.message_id: the message does not exist in this chat");
      const emoji = String(r.emoji ?? "");
      if (emoji && !isOneEmoji(emoji)) throw notValid("reaction.emoji must be a single emoji");
      out.reaction = { message_id: target.id, emoji };
      target.reaction = emoji || undefined; // the business's one reaction on it ("" removes)
    } else if (MEDIA[type]) {
      out[type] = this.mediaObject(type, p[type] ?? {});
    } else if (type === "template") {
      if (!p.template?.name) throw new GraphError(400, 100, "(#100) The parameter template['name'] is required.");
      out.template = p.template;
    } else {
      throw notValid(`Unsupported message type: ${type}`);
    }
    if (p.context !== undefined) {
      const target = this.messages.get(String(p.context?.message_id ?? ""));
      if (!target || target.wa_id !== to) throw notValid("context.message_id: the message does not exist in this chat");
      out.context = { message_id: target.id };
    }
    // The customer-service window: free-form messages need the user's message within 24 hours.
    if (type !== "template" && user && (user.lastInbound === null || Date.now() - user.lastInbound > WINDOW_MS)) {
      throw knownError(131047);
    }
    this.messages.set(out.id, out);
    (user ?? { messages: [] }).messages.push(out);
    entry.message_id = out.id;
    this.reportStatuses(out);
    return { messaging_product: "whatsapp", contacts: [{ input: String(p.to), wa_id: to }], messages: [{ id: out.id }] };
  }

  mediaObject(type, m) {
    const out = {};
    if (m.id !== undefined) {
      const media = this.media.get(String(m.id));
      if (!media || media.owner !== IDS.phoneNumberId) throw notValid(`${type}.id: no such media`);
      // A document may be any file WhatsApp takes; the other kinds need their own types.
      if (type !== "document" && !MEDIA[type].types.includes(media.mime.split(";")[0])) {
        throw new GraphError(400, 131053, "(#131053) Media upload error", { details: `${media.mime} is not a ${type}` });
      }
      out.id = media.id;
      out.sha256 = media.sha256;
      out.mime_type = media.mime;
    } else if (typeof m.link === "string" && /^https?:\/\//.test(m.link)) {
      out.link = m.link;
    } else {
      throw new GraphError(400, 100, `(#100) The parameter ${type}['id'] or ${type}['link'] is required.`);
    }
    if (m.caption !== undefined) {
      if (type === "audio" || type === "sticker") throw notValid(`${type} has no caption`);
      if ([...String(m.caption)].length > CAPTION_LIMIT) throw notValid(`caption over ${CAPTION_LIMIT} characters`);
      out.caption = String(m.caption);
    }
    if (m.filename !== undefined) {
      if (type !== "document") throw notValid("filename is for documents");
      out.filename = String(m.filename);
    }
    if (m.voice !== undefined) {
      if (type !== "audio") throw notValid("voice is for audio");
      if (m.voice && out.mime_type && !out.mime_type.startsWith("audio/ogg")) {
        throw notValid("a voice message must be OGG/Opus audio");
      }
      out.voice = Boolean(m.voice);
    }
    return out;
  }

  markRead(p, entry) {
    if (p.status !== "read") throw invalidParam("status must be read");
    const target = this.messages.get(String(p.message_id ?? ""));
    if (!target || target.direction !== "in") throw notValid("message_id: no such message received");
    const user = this.users.get(target.wa_id);
    user.reads.push(target.id);
    target.read = true;
    if (p.typing_indicator !== undefined) {
      if (p.typing_indicator?.type !== "text") throw invalidParam("typing_indicator.type must be text");
      user.typing += 1;
      entry.typing = true;
    }
    return { success: true };
  }

  // POST /{phone-number-id}/media (multipart: file, type, messaging_product)
  upload(parsed) {
    const f = parsed.fields;
    if (f.messaging_product !== "whatsapp") throw new GraphError(400, 100, "(#100) The parameter messaging_product is required.");
    const file = parsed.files.find((x) => x.field === "file");
    if (!file) throw new GraphError(400, 100, "(#100) The parameter file is required.");
    const declared = String(f.type ?? "").split(";")[0].trim().toLowerCase();
    if (!declared) throw new GraphError(400, 100, "(#100) The parameter type is required.");
    const kind = Object.keys(MEDIA).find((k) => MEDIA[k].types.includes(declared));
    if (!kind) {
      throw new GraphError(400, 131053, "(#131053) Media upload error", { details: `Unsupported file type ${declared}` });
    }
    if (file.data.length > MEDIA[kind].limit) {
      throw new GraphError(400, 131053, "(#131053) Media upload error", {
        details: `${kind} over ${MEDIA[kind].limit} bytes` });
    }
    const filename = file.filename && file.filename !== "blob" ? file.filename : null;
    const media = this.storeMedia({ data: file.data, mime: declared, filename, owner: IDS.phoneNumberId });
    return { id: media.id };
  }

  // GET /{media-id}
  mediaInfo(id, query) {
    const media = this.media.get(id);
    if (!media || (query.phone_number_id && query.phone_number_id !== media.owner)) {
      throw new GraphError(400, 100, `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`, { type: "GraphMethodException", subcode: 33 });
    }
    return { messaging_product: "whatsapp", url: this.mediaUrl(media), mime_type: media.mime, sha256: media.sha256,
      file_size: String(media.data.length), id: media.id };
  }

  // ---------------------------------------------------------------- HTTP

  async handle(req, res) {
    const url = new URL(req.url, "http://fake");
    if (url.pathname.startsWith("/_fake/")) return this.admin(req, res, url);
    if (url.pathname === "/whatsapp_business/attachments/") return this.download(req, res, url);
    const started = Date.now();
    const m = new RegExp(`^/(v\\d+\\.\\d+)/([^/]+)(?:/([a-z_]+))?$`).exec(url.pathname);
    const route = m ? `${req.method} ${m[3] ?? "media-url"}` : `${req.method} ${url.pathname}`;
    const entry = { kind: "api", route, path: url.pathname };
    const finish = (status, body, extra = {}) =>
      this.journal.record({ ...entry, ...extra, status, response: body ?? null, duration_ms: Date.now() - started });
    const fail = (e) => {
      finish(e.status, e.body());
      sendJson(res, e.status, e.body(), e.headers);
    };
    const parsed = await readParsedBody(req, res, 128 * 1024 * 1024, finish, (status) =>
      new GraphError(status, 100, status === 413 ? "(#100) Request too large" : "(#100) Invalid request body").body());
    if (!parsed) return;
    entry.params = parsed.json ?? parsed.fields;
    // A read receipt goes to /messages too; it is its own route, so a fault can aim at sends or at reads.
    if (m?.[3] === "messages" && req.method === "POST" && entry.params?.status !== undefined) entry.route = "POST read";
    if (parsed.files.length) entry.files = parsed.files.map((f) => ({ field: f.field, filename: f.filename,
      content_type: f.contentType, size: f.data.length, sha256: sha256(f.data) }));
    if (!m) return fail(new GraphError(400, 2500, "Unknown path components: " + url.pathname));
    if (m[1] !== API_VERSION && !["v22.0", "v21.0", "v24.0"].includes(m[1])) {
      return fail(new GraphError(400, 2635, `(#2635) You are calling a deprecated version of the Graph API (${m[1]}).`));
    }
    entry.version = m[1];
    const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? url.searchParams.get("access_token");
    if (!auth) return fail(new GraphError(400, 2500, "An active access token must be used to query information about the current user."));
    if (auth !== this.accessToken) return fail(knownError(190));

    const fault = takeFault(this.faults, entry.route, entry, req, finish);
    if (fault?.kind === "drop") return;
    if (fault?.kind === "rate_limit") {
      const retry = Math.max(1, Math.ceil(Number(fault.retry_after ?? 1)));
      const e = fault.code ? knownError(fault.code) : new GraphError(429, 4, "(#4) Application request limit reached");
      e.status = 429;
      e.headers = { "Retry-After": String(retry) };
      return fail(e);
    }
    if (fault?.kind === "status") {
      const e = fault.code ? knownError(fault.code) : new GraphError(fault.status, 1,
        "An unknown error occurred", { type: "OAuthException" });
      e.status = fault.status;
      return fail(e);
    }

    let status = 200;
    let body;
    try {
      const [, , id, edge] = m;
      if (edge === "messages" && req.method === "POST") {
        this.ownNumber(id);
        body = this.sendMessage(entry.params ?? {}, entry);
      } else if (edge === "media" && req.method === "POST") {
        this.ownNumber(id);
        body = this.upload(parsed);
      } else if (!edge && req.method === "GET") {
        body = this.mediaInfo(id, Object.fromEntries(url.searchParams));
      } else if (!edge && req.method === "DELETE") {
        if (!this.media.delete(id)) this.mediaInfo(id, {});
        body = { success: true };
      } else {
        throw new GraphError(400, 100, `Unsupported ${req.method.toLowerCase()} request.`, { type: "GraphMethodException", subcode: 33 });
      }
    } catch (e) {
      if (!(e instanceof GraphError)) throw e;
      return fail(e);
    }
    finish(status, body, fault ? { withheld: fault.kind } : {});
    answerAfterFault(fault, req, res, () => sendJson(res, status, body));
  }

  ownNumber(id) {
    if (id !== IDS.phoneNumberId) {
      throw new GraphError(400, 100, `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`, { type: "GraphMethodException", subcode: 33 });
    }
  }

  // A media URL from GET /{media-id}: the bytes, with the access token only, for 5 minutes.
  download(req, res, url) {
    const id = url.searchParams.get("mid") ?? "";
    const media = this.media.get(id);
    const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const ext = Number(url.searchParams.get("ext"));
    const hash = createHmac("sha256", this.appSecret).update(`${id}:${ext}`).digest("base64url").slice(0, 22);
    const entry = { kind: "download", route: "GET download", media_id: id, authorized: auth === this.accessToken };
    const fault = takeFault(this.faults, "GET download", entry, req, () => this.journal.record(entry));
    if (fault?.kind === "drop") return;
    if (!media || hash !== url.searchParams.get("hash") || Date.now() > ext) {
      this.journal.record({ ...entry, status: 404 });
      res.writeHead(404, { "Content-Type": "text/plain", "Content-Length": 9 }).end("Not Found");
      return;
    }
    if (auth !== this.accessToken) {
      const body = new GraphError(401, 190, "Invalid OAuth access token - Cannot parse access token").body();
      this.journal.record({ ...entry, status: 401 });
      sendJson(res, 401, body);
      return;
    }
    this.journal.record({ ...entry, status: 200, size: media.data.length });
    res.writeHead(200, { "Content-Type": media.mime, "Content-Length": media.data.length });
    res.end(media.data);
  }

  // ---------------------------------------------------------------- admin API

  admin(req, res, url) {
    return serveAdmin(req, res, url, this, (body, p) => this.ownAdmin(req, res, body, p));
  }

  async ownAdmin(req, res, body, p) {
    let m;
    if (req.method === "POST" && p === "/_fake/messages") {
      sendJson(res, 200, this.inject(body));
    } else if (req.method === "POST" && p === "/_fake/users") {
      sendJson(res, 200, { user: this.userState(this.addUser(body)) });
    } else if (req.method === "POST" && (m = /^\/_fake\/users\/(\d+)\/window$/.exec(p))) {
      const user = this.users.get(m[1]);
      if (!user) throw new Error(`no user ${m[1]}`);
      user.lastInbound = body.open === false ? Date.now() - WINDOW_MS - 1000 : Date.now();
      sendJson(res, 200, { user: this.userState(user) });
    } else if (req.method === "GET" && (m = /^\/_fake\/users\/(\d+)$/.exec(p))) {
      const user = this.users.get(m[1]);
      if (!user) sendJson(res, 404, { error: "no such user" });
      else sendJson(res, 200, { user: this.userState(user) });
    } else if (req.method === "GET" && (m = /^\/_fake\/media\/(\d+)$/.exec(p))) {
      const media = this.media.get(m[1]);
      if (!media) sendJson(res, 404, { error: "no such media" });
      else sendJson(res, 200, { media: { id: media.id, mime_type: media.mime, sha256: media.sha256,
        size: media.data.length, filename: media.filename, data_base64: media.data.toString("base64") } });
    } else if (req.method === "POST" && p === "/_fake/webhook") {
      // {url, verify_token}: the subscription, verified as Meta does before it delivers anything.
      sendJson(res, 200, await this.webhook.verify(String(body.url ?? this.webhook.url), String(body.verify_token ?? DEFAULT_VERIFY_TOKEN)));
    } else if (req.method === "POST" && p === "/_fake/webhook/post") {
      sendJson(res, 200, await this.webhook.manual(body));
    } else if (req.method === "POST" && p === "/_fake/webhook/pause") {
      this.webhook.paused = body.paused !== false;
      if (!this.webhook.paused) this.webhook.flush();
      sendJson(res, 200, { paused: this.webhook.paused });
    } else if (req.method === "GET" && p === "/_fake/webhook/deliveries") {
      sendJson(res, 200, { deliveries: this.webhook.state(), url: this.webhook.url });
    } else if (req.method === "POST" && p === "/_fake/config") {
      if (body.statuses) this.statusOptions = { ...this.statusOptions, ...body.statuses };
      if (body.webhook_retry_ms !== undefined) this.webhook.retryMs = Number(body.webhook_retry_ms);
      if (body.webhook_max_retry_ms !== undefined) this.webhook.maxRetryMs = Number(body.webhook_max_retry_ms);
      sendJson(res, 200, { statuses: this.statusOptions, webhook_retry_ms: this.webhook.retryMs });
    } else {
      return false;
    }
    return true;
  }

  // A chat as the user sees it: every message in and out in order (a sent message with the business's
  // reaction on it, reads and typing counted).
  userState(user) {
    const messages = user.messages.map((x) => {
      const stored = this.messages.get(x.id);
      const view = { ...x };
      if (stored?.reaction) view.reaction = stored.reaction;
      if (stored?.read) view.read = true;
      return view;
    });
    return { wa_id: user.wa_id, name: user.name, window_open: user.lastInbound !== null &&
      Date.now() - user.lastInbound <= WINDOW_MS, typing: user.typing, reads: user.reads, messages };
  }
}

// ------------------------------------------------------------------ main

async function main() {
  const options = parseOptions(process.argv.slice(2), { "access-token": DEFAULT_ACCESS_TOKEN,
    "app-secret": DEFAULT_APP_SECRET, "webhook-url": "", "verify-token": DEFAULT_VERIFY_TOKEN,
    "webhook-retry-ms": 500 });
  const fake = new WhatsAppFake({
    accessToken: options["access-token"],
    appSecret: options["app-secret"],
    webhookRetryMs: options["webhook-retry-ms"],
    journal: new Journal(options["state-dir"]),
  });
  await listen({
    host: options.host,
    port: options.port,
    onRequest: (req, res) => fake.handle(req, res),
    onPort: (port) => fake.setAddress(port),
  });
  // A callback URL given at start: verified (and retried every second until it answers, as a server started
  // after the fake may take a moment), then delivered to.
  if (options["webhook-url"]) {
    fake.webhook.url = null;
    const tryVerify = async () => {
      const r = await fake.webhook.verify(options["webhook-url"], options["verify-token"]);
      if (!r.ok) setTimeout(tryVerify, 1000);
    };
    tryVerify();
  }
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(`whatsapp fake: ${e.stack ?? e}\n`);
    process.exit(1);
  });
}
