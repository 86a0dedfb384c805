#!/usr/bin/env node
// A fake signal-cli for sigil's channel tests: `signal-cli -a ACCOUNT daemon --http HOST:PORT` for one account,
// written from signal-cli's documentation (man pages signal-cli(1) and signal-cli-jsonrpc(5)) and the JSON its
// daemon writes. See README.md beside this file.
//
//   node tests/fakes/signal.mjs --port 0 --state-dir DIR [--account +15550100001] [--receive-mode on-start]
//                               [--keepalive-ms 15000]
//
// prints `listening <port>` when ready. JSON-RPC 2.0 on POST /api/v1/rpc (single and batch), the SSE stream of
// received messages on GET /api/v1/events, GET /api/v1/check; the admin API (tests only) under /_fake/.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { Faults, Journal, answerAfterFault, listen, parseOptions, readBody, sendJson, serveAdmin } from "./common.mjs";
import { SignalEvents } from "./signal-events.mjs";
import {
  Params,
  RPC,
  RpcError,
  isE164,
  isUuid,
  parseGroupId,
  parseMentions,
  parseRecipient,
  parseTextStyles,
  readAttachment,
  styledView,
  trimToBytes,
  userError,
} from "./signal-params.mjs";

// The account (the bot) and the people and groups it knows. Numbers are in the +1 555 01xx fiction range.
export const IDS = {
  account: "+15550100001",
  accountUuid: "5e1f0000-0000-4000-8000-00000000b071",
  alice: { number: "+15550100002", uuid: "a11ce000-0000-4000-8000-000000000002", name: "Alice" },
  bob: { number: "+15550100003", uuid: "b0b00000-0000-4000-8000-000000000003", name: "Bob" },
  // A number no Signal account has: sends to it end in UNREGISTERED_FAILURE.
  unregistered: "+15550100099",
  // "Sigil Test": the bot, Alice and Bob. "Left Behind": a group the bot has left (isMember false).
  group: Buffer.alloc(32, 0x51).toString("base64"),
  leftGroup: Buffer.alloc(32, 0x4c).toString("base64"),
};

// signal-cli sends longer message bodies as their first 2000 UTF-8 bytes plus the whole text as a
// text/x-signal-plain attachment (ServiceConfig.MAX_MESSAGE_SIZE_BYTES, MimeUtils.LONG_TEXT).
export const MAX_BODY_BYTES = 2000;
const LONG_TEXT = "text/x-signal-plain";
const JAVA_MAP = "java.util.LinkedHashMap<java.lang.String,java.lang.Object>";
const METHODS_WITH_ROUTE = new Set(["send", "sendReaction", "sendTyping", "remoteDelete", "listGroups", "getAttachment", "receive"]);

export class SignalFake {
  constructor({ account = IDS.account, journal, faults, receiveMode, keepAliveMs, stateDir = null } = {}) {
    this.account = account;
    this.accountUuid = IDS.accountUuid;
    this.journal = journal ?? new Journal(null);
    this.faults = faults ?? new Faults(["rpc_error"]);
    this.events = new SignalEvents({ journal: this.journal, account, receiveMode, keepAliveMs });
    this.attachmentDir = stateDir ? path.join(stateDir, "attachments") : null;
    if (this.attachmentDir) mkdirSync(this.attachmentDir, { recursive: true });
    this.users = [];
    this.groups = new Map();
    this.chats = new Map(); // chat key (the peer's number or uuid, or "group:<id>") → messages in order
    this.attachments = new Map();
    this.lastTimestamp = 0;
    this.host = "127.0.0.1";
    this.port = 0;
    for (const who of [IDS.alice, IDS.bob]) this.addUser(who);
    this.addGroup({ id: IDS.group, name: "Sigil Test", members: [IDS.alice.number, IDS.bob.number] });
    this.addGroup({ id: IDS.leftGroup, name: "Left Behind", members: [IDS.alice.number], isMember: false });
  }

  setAddress(host, port) {
    this.host = host;
    this.port = port;
  }

  // Message timestamps are the message ids: unique and increasing for this account.
  nextTimestamp() {
    this.lastTimestamp = Math.max(Date.now(), this.lastTimestamp + 1);
    return this.lastTimestamp;
  }

  addUser({ number = null, uuid = null, name = null }) {
    const user = { number, uuid: uuid ?? randomUuid(), name };
    this.users.push(user);
    return user;
  }

  addGroup({ id = randomBytes(32).toString("base64"), name, description = "", members = [], isMember = true }) {
    const group = { id, name, description, members: members.map((m) => this.userFor(m)), isMember };
    this.groups.set(id, group);
    return group;
  }

  self() {
    return { number: this.account, uuid: this.accountUuid, name: null };
  }

  // A known user by number, ACI, or the names "alice"/"bob"; null for anyone else.
  userFor(who) {
    if (who && typeof who === "object") who = who.number ?? who.uuid;
    if (who === this.account || who === this.accountUuid) return this.self();
    if (IDS[who]?.number) who = IDS[who].number;
    return this.users.find((u) => u.number === who || u.uuid === who?.toLowerCase?.()) ?? null;
  }

  address(user) {
    return { uuid: user.uuid, number: user.number, username: null };
  }

  chatKeyOf(recipient) {
    const user = this.userFor(recipient.number ?? recipient.uuid);
    return user ? (user.number ?? user.uuid) : (recipient.number ?? recipient.uuid ?? recipient.username);
  }

  chat(key) {
    if (!this.chats.has(key)) this.chats.set(key, []);
    return this.chats.get(key);
  }

  // The messages in a chat with this timestamp as id (a message, or any revision of an edited one).
  findMessage(key, timestamp, author = null) {
    return (
      (this.chats.get(key) ?? []).find(
        (m) => (m.timestamp === timestamp || m.revisions.some((r) => r.timestamp === timestamp)) &&
          (!author || m.author === author),
      ) ?? null
    );
  }

  // ---------------------------------------------------------------- targets of a send

  // recipient[] / groupId[] / username[] / noteToSelf, as CommandUtil.getRecipientIdentifiers reads them.
  targets(p, { withUsernames = true, withNoteToSelf = true } = {}) {
    const targets = [];
    if (withNoteToSelf && p.bool("noteToSelf")) targets.push({ kind: "self" });
    for (const r of p.list("recipient") ?? []) targets.push({ kind: "single", recipient: parseRecipient(r) });
    for (const g of p.list("groupId") ?? []) targets.push({ kind: "group", groupId: parseGroupId(g) });
    if (withUsernames) for (const u of p.list("username") ?? []) targets.push({ kind: "single", recipient: { username: u } });
    if (targets.length === 0) throw userError("No recipients given");
    return targets;
  }

  // Each target's chat and send results; group errors as signal-cli raises them (before anything is sent).
  resolve(targets) {
    return targets.map((t) => {
      if (t.kind === "self") {
        return { key: this.account, results: [{ recipientAddress: this.address(this.self()), type: "SUCCESS" }] };
      }
      if (t.kind === "group") {
        const group = this.groups.get(t.groupId);
        if (!group) throw userError(`Group not found: ${t.groupId}`);
        if (!group.isMember) throw userError(`User is not a member in group: ${group.name} (${group.id})`);
        const results = group.members.map((u) => ({ recipientAddress: this.address(u), groupId: group.id, type: "SUCCESS" }));
        return { key: `group:${group.id}`, group, results };
      }
      const user = this.userFor(t.recipient.number ?? t.recipient.uuid);
      const key = this.chatKeyOf(t.recipient);
      if (!user) {
        const address = { uuid: t.recipient.uuid ?? null, number: t.recipient.number ?? null, username: t.recipient.username ?? null };
        return { key, results: [{ recipientAddress: address, type: "UNREGISTERED_FAILURE" }], unregistered: true };
      }
      return { key, user, results: [{ recipientAddress: this.address(user), type: "SUCCESS" }] };
    });
  }

  // What signal-cli answers once a send went out: {timestamp, results}, or the error outputResult() raises when
  // no recipient got it (the results ride along in error.data.response).
  outcome(timestamp, resolved) {
    const results = resolved.flatMap((r) => r.results);
    const response = { timestamp, results };
    if (!results.some((r) => r.type === "SUCCESS")) throw userError("Failed to send message", { response });
    return response;
  }

  // A rate-limit failure as signal-cli reports it: every result RATE_LIMIT_FAILURE, error -5.
  rateLimited(resolved, retryAfter) {
    const timestamp = this.nextTimestamp();
    const results = resolved.flatMap((r) =>
      r.results.map((x) => ({ ...x, type: "RATE_LIMIT_FAILURE", retryAfterSeconds: retryAfter })),
    );
    return new RpcError(RPC.RATELIMIT_ERROR, "Failed to send message due to rate limiting", {
      response: { timestamp, results },
    });
  }

  // ---------------------------------------------------------------- methods

  methods() {
    return {
      send: (p, ctx) => this.send(p, ctx),
      sendReaction: (p, ctx) => this.sendReaction(p, ctx),
      sendTyping: (p, ctx) => this.sendTyping(p, ctx),
      remoteDelete: (p, ctx) => this.remoteDelete(p, ctx),
      listGroups: (p) => this.listGroups(p),
      getAttachment: (p) => this.getAttachment(p),
      receive: (p) =>
        this.events.receive({ timeout: p.p.timeout ?? 3.0, maxMessages: p.p.maxMessages ?? -1 }).catch((e) => {
          throw e.rpcCode ? userError(e.message) : e;
        }),
    };
  }

  send(p, ctx) {
    const targets = this.targets(p);
    const message = p.string("message") ?? "";
    const attachmentSpecs = p.list("attachment") ?? [];
    const sticker = p.string("sticker");
    const quoteTimestamp = p.long("quoteTimestamp");
    let quote = null;
    if (quoteTimestamp !== null) {
      const author = p.string("quoteAuthor");
      if (author === null) throw userError("Quote author parameter is missing");
      quote = { id: quoteTimestamp, author: parseRecipient(author), text: p.string("quoteMessage") ?? "" };
    }
    const mentions = parseMentions(p.list("mention"));
    const textStyles = parseTextStyles(p.list("textStyle"));
    if (message === "" && attachmentSpecs.length === 0 && sticker === null && quote === null) {
      throw userError("Sending empty message is not allowed, either a message, attachment or sticker must be given.");
    }
    const editTimestamp = p.long("editTimestamp");
    const voiceNote = p.bool("voiceNote");
    const resolved = this.resolve(targets);
    const files = attachmentSpecs.map((spec) => readAttachment(spec));
    if (ctx.fault?.kind === "rate_limit") throw this.rateLimited(resolved, ctx.fault.retry_after ?? 3);
    const timestamp = this.nextTimestamp();
    const attachments = files.map((f) => this.storeAttachment(f, { voiceNote }));
    let body = message;
    if (Buffer.byteLength(message) > MAX_BODY_BYTES) {
      body = trimToBytes(message, MAX_BODY_BYTES);
      attachments.unshift(this.storeAttachment({ contentType: LONG_TEXT, filename: null, data: Buffer.from(message) }, {}));
    }
    for (const r of resolved) {
      if (r.unregistered) continue;
      if (editTimestamp !== null) {
        const target = this.findMessage(r.key, editTimestamp, this.account);
        if (!target) {
          // Signal's server carries the edit; the apps drop an edit of a message they do not have.
          ctx.entry.edit_target_missing = true;
          continue;
        }
        target.revisions.push({ timestamp, body, textStyles, attachments, mentions });
        Object.assign(target, { body, textStyles, attachments, mentions, full_text: message, edited: true });
        continue;
      }
      this.chat(r.key).push({
        timestamp,
        author: this.account,
        body,
        full_text: message,
        long_text: body !== message,
        textStyles,
        mentions,
        attachments,
        quote,
        voiceNote,
        reactions: [],
        revisions: [],
        deleted: false,
      });
    }
    return this.outcome(timestamp, resolved);
  }

  sendReaction(p, ctx) {
    const targets = this.targets(p);
    const emoji = p.string("emoji");
    const remove = p.bool("remove");
    let targetAuthor = p.string("targetAuthor");
    const targetTimestamp = p.requiredLong("targetTimestamp");
    if (emoji === null) {
      throw new RpcError(RPC.INTERNAL_ERROR, `Cannot invoke "String.length()" because "emoji" is null (NullPointerException)`);
    }
    if (targetAuthor === null) {
      if (targets.length !== 1 || targets[0].kind !== "single") {
        throw new RpcError(RPC.INTERNAL_ERROR, `Cannot invoke "String.startsWith(String)" because "identifier" is null (NullPointerException)`);
      }
      targetAuthor = targets[0].recipient.number ?? targets[0].recipient.uuid;
    }
    const author = this.userFor(parseRecipient(targetAuthor));
    const resolved = this.resolve(targets);
    if (ctx.fault?.kind === "rate_limit") throw this.rateLimited(resolved, ctx.fault.retry_after ?? 3);
    const timestamp = this.nextTimestamp();
    const graphemes = [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(emoji)].length;
    ctx.entry.single_grapheme = graphemes === 1;
    for (const r of resolved) {
      if (r.unregistered) continue;
      const target = author ? this.findMessage(r.key, targetTimestamp, author.number ?? author.uuid) : null;
      if (!target) {
        ctx.entry.target_missing = true;
        continue;
      }
      target.reactions = target.reactions.filter((x) => x.by !== this.account);
      if (!remove) target.reactions.push({ emoji, by: this.account, timestamp });
    }
    return this.outcome(timestamp, resolved);
  }

  sendTyping(p, ctx) {
    const targets = [];
    for (const r of p.list("recipient") ?? []) targets.push({ kind: "single", recipient: parseRecipient(r) });
    for (const g of p.list("groupId") ?? []) targets.push({ kind: "group", groupId: parseGroupId(g) });
    if (targets.length === 0) throw userError("No recipients given");
    const stop = p.bool("stop");
    let resolved;
    try {
      resolved = this.resolve(targets);
    } catch (e) {
      if (e instanceof RpcError && /^(Group not found|User is not a member)/.test(e.message)) {
        throw userError(`Failed to send to group: ${e.message}`);
      }
      throw e;
    }
    if (ctx.fault?.kind === "rate_limit") throw this.rateLimited(resolved, ctx.fault.retry_after ?? 3);
    const timestamp = this.nextTimestamp();
    for (const r of resolved) {
      if (!r.unregistered) this.typing.set(r.key, { typing: !stop, at_ms: Date.now() });
    }
    return this.outcome(timestamp, resolved);
  }

  get typing() {
    this._typing ??= new Map();
    return this._typing;
  }

  remoteDelete(p, ctx) {
    const targets = this.targets(p);
    const targetTimestamp = p.requiredLong("targetTimestamp");
    const resolved = this.resolve(targets);
    if (ctx.fault?.kind === "rate_limit") throw this.rateLimited(resolved, ctx.fault.retry_after ?? 3);
    const timestamp = this.nextTimestamp();
    for (const r of resolved) {
      if (r.unregistered) continue;
      const target = this.findMessage(r.key, targetTimestamp, this.account);
      if (target) target.deleted = true;
      else ctx.entry.target_missing = true;
    }
    return this.outcome(timestamp, resolved);
  }

  listGroups(p) {
    const only = (p.list("groupId") ?? []).map(parseGroupId);
    const member = (u, admin = false) => ({ number: u.number, uuid: u.uuid, isAdmin: admin });
    const addr = (u) => ({ number: u.number, uuid: u.uuid });
    return [...this.groups.values()]
      .filter((g) => only.length === 0 || only.includes(g.id))
      .map((g) => {
        const members = g.isMember ? [this.self(), ...g.members] : g.members;
        return {
          id: g.id,
          name: g.name,
          description: g.description,
          isMember: g.isMember,
          isBlocked: false,
          messageExpirationTime: 0,
          members: members.map((u, i) => member(u, i === 0)),
          pendingMembers: [],
          requestingMembers: [],
          admins: members.slice(0, 1).map(addr),
          banned: [],
          permissionAddMember: "EVERY_MEMBER",
          permissionEditDetails: "EVERY_MEMBER",
          permissionSendMessage: "EVERY_MEMBER",
          groupInviteLink: null,
        };
      });
  }

  getAttachment(p) {
    const id = p.string("id");
    if (id === null) throw userError("Missing attachment id parameter");
    const a = this.attachments.get(id);
    if (!a) throw userError(`Could not find attachment with ID: ${id}`);
    return { data: a.data.toString("base64") };
  }

  // An attachment kept as signal-cli keeps received ones: <data dir>/attachments/<id>.
  storeAttachment(file, { voiceNote = false } = {}) {
    const ext = (file.filename ?? "").includes(".") ? `.${file.filename.split(".").pop()}` : "";
    const id = `${randomBytes(15).toString("base64url")}${ext}`;
    const a = { id, contentType: file.contentType, filename: file.filename, size: file.data.length, data: file.data, voiceNote };
    this.attachments.set(id, a);
    if (this.attachmentDir) writeFileSync(path.join(this.attachmentDir, id), file.data);
    return a;
  }

  attachmentJson(a) {
    return {
      contentType: a.contentType,
      filename: a.filename,
      id: a.id,
      size: a.size,
      width: null,
      height: null,
      caption: null,
      uploadTimestamp: a.uploadTimestamp ?? null,
    };
  }

  // ---------------------------------------------------------------- HTTP

  // signal-cli pins the Host header to the address it listens on (and localhost, 127.0.0.1, ::1): 421 else.
  hostAllowed(req) {
    const host = req.headers.host;
    if (!host) return false;
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
    if (!m) return false;
    const name = m[1].replace(/^\[|\]$/g, "").toLowerCase();
    if (![this.host, "localhost", "127.0.0.1", "::1"].includes(name)) return false;
    return m[2] === undefined || Number(m[2]) === this.port;
  }

  async handle(req, res) {
    const url = new URL(req.url, "http://fake");
    if (url.pathname.startsWith("/_fake/")) return this.admin(req, res, url);
    const endpoints = ["/api/v1/rpc", "/api/v1/events", "/api/v1/check"];
    const endpoint = endpoints.find((e) => url.pathname === e || url.pathname.startsWith(`${e}/`));
    if (!endpoint) return bare(res, 404);
    if (endpoint !== "/api/v1/check" && !this.hostAllowed(req)) return bare(res, 421);
    if (url.pathname !== endpoint) return bare(res, 404);
    if (endpoint === "/api/v1/check") return bare(res, req.method === "GET" ? 200 : 405);
    if (endpoint === "/api/v1/events") {
      if (req.method !== "GET") return bare(res, 405);
      const account = url.searchParams.get("account");
      // Single-account mode: the account query is not looked at.
      void account;
      return this.events.open(req, res);
    }
    if (req.method !== "POST") return bare(res, 405);
    if (!(req.headers["content-type"] ?? "").startsWith("application/json")) return bare(res, 415);
    return this.rpc(req, res, await readBody(req, 256 * 1024 * 1024));
  }

  // POST /api/v1/rpc: one request or a batch; 200 with the answer, or 201 with no body when there is none
  // (notifications only).
  async rpc(req, res, raw) {
    let message;
    try {
      message = JSON.parse(raw.toString("utf8"));
    } catch (e) {
      return this.answer(req, res, null, errorResponse(RPC.PARSE_ERROR, parseErrorText(raw, e), null));
    }
    if (Array.isArray(message)) {
      if (message.length === 0) return this.answer(req, res, null, errorResponse(RPC.INVALID_REQUEST, "invalid request", null));
      const fault = this.transportFault(message);
      if (fault?.kind === "drop" || fault?.kind === "status") return this.refuse(req, res, fault, "batch");
      const answers = [];
      for (const item of message) {
        const a = await this.call(item, fault);
        if (a) answers.push(a);
      }
      return this.answer(req, res, fault, answers.length ? answers : null);
    }
    if (message === null || typeof message !== "object") {
      const type = message === null ? "NULL" : typeof message === "string" ? "STRING" : typeof message === "number" ? "NUMBER" : "BOOLEAN";
      return this.answer(req, res, null, errorResponse(RPC.INVALID_REQUEST, `unexpected type: ${type}`, null));
    }
    if ("result" in message || "error" in message) return this.answer(req, res, null, null); // a response: ignored
    const fault = this.transportFault([message]);
    if (fault?.kind === "drop" || fault?.kind === "status") return this.refuse(req, res, fault, String(message.method));
    return this.answer(req, res, fault, await this.call(message, fault));
  }

  // A request that never reached signal-cli: the connection dropped, or a 5xx on the way (nothing happened).
  refuse(req, res, fault, route) {
    this.journal.record({ kind: "rpc", route, fault: fault.kind, ...(fault.status ? { status: fault.status } : {}) });
    if (fault.kind === "drop") req.socket.destroy();
    else bare(res, fault.status);
  }

  // A drop / drop_after_send / timeout / status fault for the first request of this HTTP exchange that has one.
  transportFault(items) {
    for (const item of items) {
      const method = item && typeof item === "object" ? String(item.method) : "";
      const fault = this.faults.pending.find(
        (f) => f.times > 0 && ["drop", "drop_after_send", "timeout", "status"].includes(f.kind) &&
          (f.match === "*" || f.match.toLowerCase() === method.toLowerCase()),
      );
      if (fault) return this.faults.take(method);
    }
    return null;
  }

  answer(req, res, fault, body) {
    answerAfterFault(fault, req, res, () => (body === null ? bare(res, 201) : sendJson(res, 200, body)));
  }

  // One JSON-RPC request object → its response object, or null for a notification.
  // transport: the exchange's drop_after_send / timeout fault, noted on each request it carries.
  async call(item, transport = null) {
    const id = item && typeof item === "object" && !Array.isArray(item) && isValue(item.id) ? item.id : null;
    const hasId = id !== null;
    const entry = { kind: "rpc", route: typeof item?.method === "string" ? item.method : "", id };
    if (transport) entry.fault = transport.kind;
    // A request signal-cli cannot read is always answered; a request it ran, only when it has an id.
    const finish = (response, always = false) => {
      if (response?.error) entry.error = response.error;
      else if (response) entry.result = response.result;
      this.journal.record(entry);
      return hasId || always ? response : null;
    };
    if (!item || typeof item !== "object" || Array.isArray(item)) {
      return finish(errorResponse(RPC.INVALID_REQUEST, "invalid request", null), true);
    }
    if (item.jsonrpc !== "2.0") {
      return finish(errorResponse(RPC.INVALID_REQUEST, "only jsonrpc version 2.0 is supported", id), true);
    }
    if (typeof item.method !== "string") {
      return finish(errorResponse(RPC.INVALID_REQUEST, "method field must be set", id), true);
    }
    const params = item.params ?? null;
    if (params !== null && (typeof params !== "object" || Array.isArray(params))) {
      const what = Array.isArray(params) ? "Array value (token `JsonToken.START_ARRAY`)" : "a scalar value";
      return finish(
        errorResponse(RPC.INVALID_REQUEST, `Cannot deserialize value of type \`${JAVA_MAP}\` from ${what}`, id),
        true,
      );
    }
    entry.params = loggedParams(params);
    const method = this.methods()[item.method];
    if (!method) return finish(errorResponse(RPC.METHOD_NOT_FOUND, "Method not implemented", id));
    const fault = METHODS_WITH_ROUTE.has(item.method) ? this.ownFault(item.method) : null;
    if (fault) entry.fault = fault.kind;
    try {
      if (fault?.kind === "rpc_error") {
        throw new RpcError(fault.code ?? RPC.IO_ERROR, fault.message ?? "Failed to send message", fault.data ?? null);
      }
      const result = await method(new Params(params ?? {}), { entry, fault });
      return finish({ jsonrpc: "2.0", result, id });
    } catch (e) {
      if (!(e instanceof RpcError)) throw e;
      return finish(errorResponse(e.code, e.message, id, e.data));
    }
  }

  // A rate_limit or rpc_error fault for this method (the transport kinds are taken per HTTP exchange).
  ownFault(method) {
    const fault = this.faults.pending.find(
      (f) => f.times > 0 && ["rate_limit", "rpc_error"].includes(f.kind) &&
        (f.match === "*" || f.match.toLowerCase() === method.toLowerCase()),
    );
    return fault ? this.faults.take(method) : null;
  }

  // ---------------------------------------------------------------- what reaches the account

  sender(from) {
    const user = this.userFor(from);
    if (!user) throw new Error(`unknown sender ${JSON.stringify(from)} (POST /_fake/users first)`);
    return user;
  }

  envelope(user, timestamp, fields) {
    return {
      source: user.number ?? user.uuid,
      sourceNumber: user.number,
      sourceUuid: user.uuid,
      sourceName: user.name,
      sourceDevice: 1,
      timestamp,
      serverReceivedTimestamp: timestamp + 5,
      serverDeliveredTimestamp: timestamp + 9,
      ...fields,
    };
  }

  groupInfo(groupId) {
    const group = this.groups.get(groupId);
    if (!group) throw new Error(`unknown group ${groupId}`);
    return { groupId: group.id, groupName: group.name, revision: 1, type: "DELIVER" };
  }

  // A user's message to the account: admin POST /_fake/messages.
  injectMessage(spec) {
    const user = this.sender(spec.from ?? "alice");
    const timestamp = spec.timestamp ?? this.nextTimestamp();
    let text = spec.text ?? null;
    const mentions = [];
    if (spec.mention_bot) {
      // Signal puts U+FFFC where a mention is and names the member in `mentions`.
      text = `\uFFFC ${text ?? ""}`;
      mentions.push({ name: this.account, number: this.account, uuid: this.accountUuid, start: 0, length: 1 });
    }
    for (const m of spec.mentions ?? []) {
      const u = this.userFor(m.who) ?? { number: null, uuid: m.who };
      mentions.push({ name: u.number ?? u.uuid, number: u.number, uuid: u.uuid, start: m.start, length: m.length });
    }
    const attachments = (spec.attachments ?? []).map((a) => {
      const data = Buffer.from(a.data_base64 ?? "", "base64");
      const stored = this.storeAttachment({ contentType: a.content_type ?? "application/octet-stream", filename: a.filename ?? null, data });
      stored.uploadTimestamp = timestamp;
      return this.attachmentJson(stored);
    });
    const dataMessage = {
      timestamp,
      message: text,
      expiresInSeconds: 0,
      isExpirationUpdate: false,
      viewOnce: false,
      ...(spec.quote
        ? {
            quote: {
              id: spec.quote.timestamp,
              author: spec.quote.author ?? this.account,
              authorNumber: spec.quote.author ?? this.account,
              authorUuid: this.userFor(spec.quote.author ?? this.account)?.uuid ?? null,
              text: spec.quote.text ?? "",
              attachments: [],
            },
          }
        : {}),
      ...(mentions.length ? { mentions } : {}),
      ...(attachments.length ? { attachments } : {}),
      ...(spec.group ? { groupInfo: this.groupInfo(spec.group) } : {}),
    };
    const key = spec.group ? `group:${spec.group}` : user.number ?? user.uuid;
    this.chat(key).push({
      timestamp,
      author: user.number ?? user.uuid,
      body: text,
      textStyles: [],
      mentions,
      attachments,
      reactions: [],
      revisions: [],
      deleted: false,
    });
    const envelope = this.envelope(user, timestamp, { dataMessage });
    const delivery = this.events.arrive(envelope);
    this.journal.record({ kind: "inject", what: "message", timestamp, delivery: delivery.state });
    return { envelope, delivery };
  }

  // A user's reaction: admin POST /_fake/reactions.
  injectReaction(spec) {
    const user = this.sender(spec.from ?? "alice");
    const timestamp = this.nextTimestamp();
    const target = this.userFor(spec.target_author ?? this.account) ?? { number: spec.target_author, uuid: null };
    const reaction = {
      emoji: spec.emoji,
      targetAuthor: target.number ?? target.uuid,
      targetAuthorNumber: target.number,
      targetAuthorUuid: target.uuid,
      targetSentTimestamp: spec.target_timestamp,
      isRemove: Boolean(spec.remove),
    };
    const dataMessage = {
      timestamp,
      message: null,
      expiresInSeconds: 0,
      isExpirationUpdate: false,
      viewOnce: false,
      reaction,
      ...(spec.group ? { groupInfo: this.groupInfo(spec.group) } : {}),
    };
    const envelope = this.envelope(user, timestamp, { dataMessage });
    const delivery = this.events.arrive(envelope);
    this.journal.record({ kind: "inject", what: "reaction", timestamp, delivery: delivery.state });
    return { envelope, delivery };
  }

  // Delivery/read receipts and typing from a user, or a sync message of the account's own send from another
  // of its devices: envelopes a bot must not answer. Admin POST /_fake/envelopes {type, …}.
  injectOther(spec) {
    const timestamp = this.nextTimestamp();
    let user;
    let fields;
    if (spec.type === "receipt") {
      user = this.sender(spec.from ?? "alice");
      const read = spec.read === true;
      const timestamps = spec.timestamps ?? [];
      fields = { receiptMessage: { when: timestamp, isDelivery: !read, isRead: read, isViewed: false, timestamps } };
    } else if (spec.type === "typing") {
      user = this.sender(spec.from ?? "alice");
      fields = { typingMessage: { action: spec.stop ? "STOPPED" : "STARTED", timestamp } };
    } else if (spec.type === "sync") {
      user = this.self();
      const dest = this.userFor(spec.destination ?? this.account) ?? this.self();
      const sentMessage = {
        destination: dest.number,
        destinationNumber: dest.number,
        destinationUuid: dest.uuid,
        timestamp,
        message: spec.text ?? "",
        expiresInSeconds: 0,
        viewOnce: false,
      };
      fields = { syncMessage: { sentMessage } };
    } else {
      throw new Error("type must be receipt, typing or sync");
    }
    const envelope = this.envelope(user, timestamp, { sourceDevice: spec.type === "sync" ? 2 : 1, ...fields });
    const delivery = this.events.arrive(envelope);
    this.journal.record({ kind: "inject", what: spec.type, timestamp, delivery: delivery.state });
    return { envelope, delivery };
  }

  // ---------------------------------------------------------------- admin API

  chatView(key) {
    return {
      key,
      typing: this.typing.get(key) ?? null,
      messages: (this.chats.get(key) ?? []).map((m) => ({
        timestamp: m.timestamp,
        author: m.author,
        body: m.body,
        body_bytes: m.body === null ? 0 : Buffer.byteLength(m.body),
        long_text: Boolean(m.long_text),
        full_text: m.full_text ?? m.body,
        textStyles: m.textStyles,
        styled: styledView(m.body ?? "", m.textStyles ?? []),
        mentions: m.mentions,
        attachments: (m.attachments ?? []).map((a) => (a.data ? { ...this.attachmentJson(a), voiceNote: a.voiceNote } : a)),
        quote: m.quote ?? null,
        voiceNote: Boolean(m.voiceNote),
        reactions: m.reactions,
        revisions: m.revisions.length,
        edited: Boolean(m.edited),
        deleted: m.deleted,
      })),
    };
  }

  admin(req, res, url) {
    return serveAdmin(req, res, url, this, async (body, p) => {
      let m;
      if (req.method === "POST" && p === "/_fake/messages") sendJson(res, 200, this.injectMessage(body));
      else if (req.method === "POST" && p === "/_fake/reactions") sendJson(res, 200, this.injectReaction(body));
      else if (req.method === "POST" && p === "/_fake/envelopes") sendJson(res, 200, this.injectOther(body));
      else if (req.method === "POST" && p === "/_fake/users") sendJson(res, 200, this.addUser(body));
      else if (req.method === "POST" && p === "/_fake/groups") sendJson(res, 200, { id: this.addGroup(body).id });
      else if (req.method === "GET" && (m = /^\/_fake\/chats\/(.+)$/.exec(p))) sendJson(res, 200, this.chatView(decodeURIComponent(m[1])));
      else if (req.method === "GET" && (m = /^\/_fake\/attachments\/(.+)$/.exec(p))) {
        const a = this.attachments.get(decodeURIComponent(m[1]));
        if (!a) sendJson(res, 404, { error: "no such attachment" });
        else sendJson(res, 200, { ...this.attachmentJson(a), voiceNote: a.voiceNote, data_base64: a.data.toString("base64") });
      } else if (req.method === "GET" && p === "/_fake/events") sendJson(res, 200, this.events.view());
      else if (req.method === "POST" && p === "/_fake/events/drop") sendJson(res, 200, { dropped: this.events.drop() });
      else if (req.method === "POST" && p === "/_fake/events/silence") sendJson(res, 200, { silenced: this.events.silence(body) });
      else return false;
      return true;
    });
  }
}

// ------------------------------------------------------------------ helpers

function randomUuid() {
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// A response as signal-cli's ObjectMapper writes it: `error.data` is always there (null when empty), `id` too.
function errorResponse(code, message, id, data = null) {
  return { jsonrpc: "2.0", error: { code, message, data }, id };
}

function isValue(v) {
  return v !== null && v !== undefined && typeof v !== "object";
}

// Jackson's parse error text starts "Unexpected character …" / "Unexpected end-of-input …"; the fake keeps the
// start and the position, which is what a client can rely on (the code).
function parseErrorText(raw, e) {
  return raw.length === 0 ? "No content to map due to end-of-input" : `Unexpected character: ${e.message}`;
}

// Params as journalled: data URIs cut short.
function loggedParams(params) {
  if (!params) return params;
  const cut = (v) => (typeof v === "string" && v.startsWith("data:") && v.length > 120 ? `${v.slice(0, 120)}…` : v);
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v.map(cut) : cut(v)]));
}

// An answer with no body, as signal-cli's sendResponse(status, null) sends it.
function bare(res, status) {
  res.writeHead(status, { "Content-Length": 0 });
  res.end();
}

export { isE164, isUuid };

// ------------------------------------------------------------------ main

async function main() {
  const options = parseOptions(process.argv.slice(2), {
    account: IDS.account,
    "receive-mode": "on-start",
    "keepalive-ms": 15_000,
  });
  const journal = new Journal(options["state-dir"]);
  const fake = new SignalFake({
    account: options.account,
    journal,
    receiveMode: options["receive-mode"],
    keepAliveMs: options["keepalive-ms"],
    stateDir: options["state-dir"],
  });
  await listen({
    host: options.host,
    port: options.port,
    onRequest: (req, res) => fake.handle(req, res),
    onPort: (port) => fake.setAddress(options.host, port),
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(`signal fake: ${e.stack ?? e}\n`);
    process.exit(1);
  });
}
