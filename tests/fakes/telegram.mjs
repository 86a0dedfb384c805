#!/usr/bin/env node
// A fake Telegram Bot API server for sigil's channel tests, written from the Bot API reference
// (core.telegram.org/bots/api, Bot API 10.1). See README.md beside this file for what it covers.
//
//   node tests/fakes/telegram.mjs --port 0 --state-dir DIR [--token T] [--bot-username U]
//
// prints `listening <port>` when ready. The Bot API is at http://127.0.0.1:<port>/bot<token>/<method>, files at
// /file/bot<token>/<file_path>, the admin API (tests only) under /_fake/.
import { pathToFileURL } from "node:url";

import {
  Faults,
  Journal,
  answerAfterFault,
  fileSummary,
  listen,
  parseOptions,
  randomToken,
  mimeFor,
  readParsedBody,
  sendJson,
  serveAdmin,
  shownAndDeleted,
  takeFault,
  sniffMime,
} from "./common.mjs";
import { HtmlParseError, parseHtml } from "./telegram-html.mjs";
import { DEFAULT_EXT, KIND_FOLDER, KIND_PREFIX, TYPE_NAME, imageSize, oggOpusSeconds, photoSizes } from "./telegram-media.mjs";
import { deliverWebhook, postToWebhook } from "./telegram-webhook.mjs";

export const DEFAULT_TOKEN = "123456789:AAHfakeTokenForSigilTests00000000000";

// ReactionTypeEmoji.emoji, Bot API 10.1: the only emoji a bot may react with (no U+FE0F variation selectors).
export const REACTION_EMOJI = [
  "❤", "👍", "👎", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩", "🤮", "💩", "🙏", "👌", "🕊",
  "🤡", "🥱", "🥴", "😍", "🐳", "❤‍🔥", "🌚", "🌭", "💯", "🤣", "⚡", "🍌", "🏆", "💔", "🤨", "😐", "🍓", "🍾", "💋",
  "🖕", "😈", "😴", "😭", "🤓", "👻", "👨‍💻", "👀", "🎃", "🙈", "😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅", "🎄", "☃",
  "💅", "🤪", "🗿", "🆒", "💘", "🙉", "🦄", "😘", "💊", "🙊", "😎", "👾", "🤷‍♂", "🤷", "🤷‍♀", "😡",
];
const REACTIONS = new Set(REACTION_EMOJI);

const CHAT_ACTIONS = new Set([
  "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice", "upload_document",
  "choose_sticker", "find_location", "record_video_note", "upload_video_note",
]);

// Update types a bot gets when allowed_updates is empty or was never set.
const NOT_BY_DEFAULT = new Set(["chat_member", "message_reaction", "message_reaction_count"]);

const TEXT_LIMIT = 4096; // UTF-16 code units after entity parsing
const CAPTION_LIMIT = 1024;
const UPLOAD_LIMIT = 50 * 1024 * 1024;
const DOWNLOAD_LIMIT = 20 * 1024 * 1024;

class ApiError extends Error {
  constructor(code, description, parameters) {
    super(description);
    this.code = code;
    this.parameters = parameters;
  }
}
const badRequest = (what) => new ApiError(400, `Bad Request: ${what}`);

const now = () => Math.floor(Date.now() / 1000);

// ------------------------------------------------------------------ parameters

// Parameters arrive as JSON values, or as strings (query, form, multipart) holding numbers, booleans and
// JSON-serialized objects, as the Bot API allows.
function intParam(p, name) {
  const v = p[name];
  if (v === undefined || v === null || v === "") return undefined;
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isInteger(n)) throw badRequest(`invalid ${name} specified`);
  return n;
}

function boolParam(p, name) {
  const v = p[name];
  return v === true || v === "true" || v === "1" || v === 1;
}

function jsonParam(p, name) {
  const v = p[name];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    throw badRequest(`can't parse ${name} JSON object`);
  }
}

// ------------------------------------------------------------------ the fake

export class TelegramFake {
  constructor({ token = DEFAULT_TOKEN, botUsername = "sigil_test_bot", botName = "sigil test bot", journal, faults,
    webhookRetryMs = 500, firstUpdateId = 10000 } = {}) {
    this.token = token;
    this.bot = { id: Number(token.split(":")[0]), is_bot: true, first_name: botName, username: botUsername };
    this.journal = journal ?? new Journal(null);
    this.faults = faults ?? new Faults();
    this.webhookRetryMs = webhookRetryMs;
    this.chats = new Map();
    this.updates = [];
    this.nextUpdateId = firstUpdateId;
    this.allowedUpdates = [];
    this.poller = null;
    this.webhook = { url: "", secret: null, allowed: [], lastErrorDate: 0, lastErrorMessage: null, busy: false };
    this.files = new Map();
    this.fileCount = 0;
    this.delivered = new Map(); // update_id → update, each delivered to the webhook (for redelivery tests)
    this.methods = new Map(
      [
        "getMe", "getUpdates", "setWebhook", "deleteWebhook", "getWebhookInfo", "sendMessage", "editMessageText",
        "deleteMessage", "sendChatAction", "setMessageReaction", "sendVoice", "sendAudio", "sendDocument",
        "sendPhoto", "sendVideo", "getFile", "sendMessageDraft", "getChat",
      ].map((m) => [m.toLowerCase(), m]),
    );
  }

  // ---------------------------------------------------------------- chats and messages

  configureChat(spec) {
    const id = Number(spec.id);
    if (!Number.isInteger(id) || id === 0) throw new Error("a chat needs a non-zero integer id");
    const type = spec.type ?? (id > 0 ? "private" : "supergroup");
    let chat = this.chats.get(id);
    if (!chat) {
      chat = { id, type, nextMessageId: 1, messages: new Map(), actions: [], drafts: [] };
      this.chats.set(id, chat);
    }
    for (const key of ["type", "title", "username", "first_name", "last_name", "is_forum", "topics",
      "available_reactions", "voice_forbidden", "blocked", "bot_is_admin"]) {
      if (spec[key] !== undefined) chat[key] = spec[key];
    }
    if (chat.type === "private" && !chat.first_name) chat.first_name = "User";
    if (chat.type !== "private" && !chat.title) chat.title = `Chat ${id}`;
    return chat;
  }

  chatObject(chat) {
    const out = { id: chat.id };
    if (chat.type === "private") {
      out.first_name = chat.first_name;
      if (chat.last_name) out.last_name = chat.last_name;
      if (chat.username) out.username = chat.username;
    } else {
      out.title = chat.title;
      if (chat.username) out.username = chat.username;
    }
    out.type = chat.type;
    if (chat.is_forum) out.is_forum = true;
    return out;
  }

  chatFor(p) {
    const raw = p.chat_id;
    if (raw === undefined || raw === null || raw === "") throw badRequest("chat_id is empty");
    let chat;
    if (typeof raw === "string" && raw.startsWith("@")) {
      chat = [...this.chats.values()].find((c) => c.username && `@${c.username}`.toLowerCase() === raw.toLowerCase());
    } else {
      const id = Number(raw);
      if (!Number.isInteger(id)) throw badRequest("chat not found");
      chat = this.chats.get(id);
    }
    if (!chat) throw badRequest("chat not found");
    if (chat.blocked && chat.type === "private") throw new ApiError(403, "Forbidden: bot was blocked by the user");
    return chat;
  }

  storedMessage(chat, id) {
    const stored = chat.messages.get(id);
    return stored && !stored.deleted ? stored : null;
  }

  // The Message object as the Bot API returns it (reply_to_message one level deep).
  messageView(chat, stored, depth = 0) {
    const m = { ...stored.message };
    if (stored.replyTo !== undefined && depth === 0) {
      const target = chat.messages.get(stored.replyTo);
      if (target && !target.deleted) m.reply_to_message = this.messageView(chat, target, 1);
    }
    return m;
  }

  addMessage(chat, fields, { fromBot, replyTo, threadId }) {
    const message = { message_id: chat.nextMessageId++, from: fromBot ? { ...this.bot } : fields.from };
    delete fields.from;
    if (chat.type === "channel") delete message.from;
    message.chat = this.chatObject(chat);
    message.date = now();
    // The General topic (thread 1) is no topic to the Bot API: its messages carry no thread id.
    if (threadId !== undefined && threadId !== 1 && chat.is_forum) {
      message.message_thread_id = threadId;
      message.is_topic_message = true;
    }
    Object.assign(message, fields);
    const stored = { message, replyTo, fromBot, reactions: { bot: [], users: {} }, deleted: false, edits: 0 };
    chat.messages.set(message.message_id, stored);
    return stored;
  }

  // text + parse_mode / entities → {text, entities}; limits in UTF-16 code units after parsing.
  formatText(text, parseMode, entities) {
    if (parseMode === undefined || parseMode === null || parseMode === "") {
      return { text, entities: jsonParam({ entities }, "entities") ?? [] };
    }
    const mode = String(parseMode).toLowerCase();
    if (mode !== "html") {
      // MarkdownV2 and Markdown are not modelled: refuse loudly rather than accept what Telegram might not.
      throw badRequest(`unsupported parse_mode in this fake: ${parseMode} (use HTML or entities)`);
    }
    try {
      return parseHtml(text);
    } catch (e) {
      if (e instanceof HtmlParseError) throw badRequest(`can't parse entities: ${e.message}`);
      throw e;
    }
  }

  replyTarget(chat, p) {
    const params = jsonParam(p, "reply_parameters");
    const id = params?.message_id ?? intParam(p, "reply_to_message_id");
    if (id === undefined) return undefined;
    const target = chat.messages.get(Number(id));
    if (target && !target.deleted) return Number(id);
    if (params?.allow_sending_without_reply || boolParam(p, "allow_sending_without_reply")) return undefined;
    throw badRequest("message to be replied not found");
  }

  threadFor(chat, p) {
    const thread = intParam(p, "message_thread_id");
    if (thread === undefined || !chat.is_forum) return undefined;
    const topics = chat.topics ?? [];
    // Bots cannot name the General topic (id 1): Telegram answers "message thread not found"
    // (tdlib/telegram-bot-api#798); a message for it goes without message_thread_id.
    if (thread === 1 || !topics.includes(thread)) throw badRequest("message thread not found");
    return thread;
  }

  // ---------------------------------------------------------------- updates

  enqueue(update) {
    const type = Object.keys(update).find((k) => k !== "update_id");
    const allowed = this.webhook.url ? this.webhook.allowed : this.allowedUpdates;
    const ok = allowed.length ? allowed.includes(type) : !NOT_BY_DEFAULT.has(type);
    if (!ok) {
      this.journal.record({ kind: "update", update_type: type, dropped: "not in allowed_updates" });
      return null;
    }
    const full = { update_id: this.nextUpdateId++, ...update };
    this.updates.push(full);
    this.journal.record({ kind: "update", update_id: full.update_id, update_type: type });
    this.wakePoller();
    this.deliverWebhook();
    return full;
  }

  wakePoller() {
    const poller = this.poller;
    if (!poller || this.updates.length === 0) return;
    this.poller = null;
    clearTimeout(poller.timer);
    poller.resolve(this.updates.slice(0, poller.limit));
  }

  // An inbound user message: admin POST /_fake/messages.
  injectMessage(spec) {
    const from = { id: 1001, is_bot: false, first_name: "Alice", username: "alice", language_code: "en",
      ...(spec.from ?? {}) };
    let chat;
    if (spec.chat_id !== undefined) {
      chat = this.chats.get(Number(spec.chat_id));
      if (!chat && Number(spec.chat_id) > 0) chat = this.configureChat({ id: spec.chat_id, type: "private" });
      if (!chat) throw new Error(`no chat ${spec.chat_id}: configure it with POST /_fake/chats first`);
    } else {
      chat = this.chats.get(from.id) ?? this.configureChat({ id: from.id, type: "private" });
    }
    if (chat.type === "private" && chat.first_name === "User") {
      chat.first_name = from.first_name;
      if (from.username) chat.username = from.username;
    }
    const text = spec.text ?? "";
    let fields = { from, text };
    const entities = spec.entities ?? autoEntities(text);
    if (entities.length) fields.entities = entities;
    if (spec.file) {
      // A file the user sends: the text is its caption, as Telegram has it.
      const kind = spec.file.kind ?? "document";
      if (!KIND_PREFIX[kind]) throw new Error(`file.kind must be one of ${Object.keys(KIND_PREFIX).join(", ")}`);
      const data = Buffer.from(spec.file.data_base64 ?? "", "base64");
      const name = spec.file.name ?? (kind === "document" ? "file.bin" : undefined);
      const mime = spec.file.mime ?? (kind === "voice" ? sniffMime(data, "audio/ogg") : mimeFor(name ?? "", data, undefined));
      const stored = this.storeFile(kind, data, name, mime);
      fields = { from, ...this.mediaFields(kind, stored) };
      if (text) fields.caption = text;
      if (entities.length) fields.caption_entities = entities;
    }
    let replyTo;
    if (spec.reply_to_message_id !== undefined) {
      replyTo = Number(spec.reply_to_message_id);
      if (!this.storedMessage(chat, replyTo)) throw new Error(`no message ${replyTo} in chat ${chat.id}`);
    }
    // An album's item: Telegram sends each item of an album as a message of its own with the same id.
    if (spec.media_group_id !== undefined) fields.media_group_id = String(spec.media_group_id);
    const stored = this.addMessage(chat, fields, { fromBot: false, replyTo, threadId: spec.message_thread_id });
    const update = this.enqueue({ message: this.messageView(chat, stored) });
    return { update_id: update?.update_id ?? null, message: this.messageView(chat, stored) };
  }

  // ---------------------------------------------------------------- webhook delivery (telegram-webhook.mjs)

  deliverWebhook() {
    return deliverWebhook(this);
  }

  postToWebhook(spec) {
    return postToWebhook(this, spec);
  }

  // ---------------------------------------------------------------- files

  resolveInputFile(p, field, uploads) {
    const value = p[field];
    let part = uploads.find((f) => f.field === field);
    if (!part && typeof value === "string" && value.startsWith("attach://")) {
      part = uploads.find((f) => f.field === value.slice("attach://".length));
      if (!part) throw badRequest(`wrong HTTP URL specified`);
    }
    if (part) {
      if (part.data.length === 0) throw badRequest("file must be non-empty");
      if (part.data.length > UPLOAD_LIMIT) throw new ApiError(413, "Request Entity Too Large");
      return { upload: part };
    }
    if (value === undefined || value === null || value === "") throw badRequest(`there is no ${field} in the request`);
    if (typeof value !== "string") throw badRequest(`wrong file identifier/HTTP URL specified`);
    if (/^https?:\/\//i.test(value)) throw badRequest("failed to get HTTP URL content");
    const known = this.files.get(value);
    if (!known) throw badRequest("wrong file identifier/HTTP URL specified");
    return { known };
  }

  storeFile(kind, data, name, mime) {
    const n = this.fileCount++;
    const fileId = `${KIND_PREFIX[kind]}${randomToken(24)}`;
    const ext = (name ?? "").includes(".") ? name.split(".").pop() : DEFAULT_EXT[kind];
    const file = { file_id: fileId, file_unique_id: `AgAD${randomToken(6)}`, kind, data, name, mime,
      path: `${KIND_FOLDER[kind]}/file_${n}.${ext}` };
    this.files.set(fileId, file);
    return file;
  }

  // The message fields of a file message (photo, voice, audio, video, document), as the Bot API shows them.
  mediaFields(kind, file, p = {}) {
    const data = file.data;
    const filename = file.name;
    const base = { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: data.length };
    const duration = intParam(p, "duration") ?? oggOpusSeconds(data) ?? 0;
    if (kind === "photo") {
      const size = imageSize(data);
      if (!size) throw badRequest("IMAGE_PROCESS_FAILED");
      return { photo: photoSizes(this, file, size) };
    }
    if (kind === "voice") return { voice: { duration, mime_type: file.mime, ...base } };
    if (kind === "audio") {
      const audio = { duration, ...base };
      if (filename) audio.file_name = filename;
      audio.mime_type = file.mime;
      for (const k of ["title", "performer"]) if (p[k]) audio[k] = p[k];
      return { audio };
    }
    if (kind === "video") {
      return { video: { duration, width: intParam(p, "width") ?? 0, height: intParam(p, "height") ?? 0,
        ...(filename ? { file_name: filename } : {}), mime_type: file.mime, ...base } };
    }
    return { document: { ...(filename ? { file_name: filename } : {}), mime_type: file.mime, ...base } };
  }

  async sendMedia(kind, p, uploads) {
    const chat = this.chatFor(p);
    if (kind === "voice" && chat.voice_forbidden) throw badRequest("VOICE_MESSAGES_FORBIDDEN");
    const input = this.resolveInputFile(p, kind, uploads);
    const fields = {};
    if (p.caption !== undefined && p.caption !== "") {
      const { text, entities } = this.formatText(String(p.caption), p.parse_mode, p.caption_entities);
      if (text.length > CAPTION_LIMIT) throw badRequest("message caption is too long");
      if (text.length) fields.caption = text;
      if (entities.length) fields.caption_entities = entities;
    }
    const replyTo = this.replyTarget(chat, p);
    const threadId = this.threadFor(chat, p);
    let file = input.known;
    if (file && file.kind !== kind && !(kind === "document")) {
      throw badRequest(`can't use file of type ${TYPE_NAME[file.kind]} as ${TYPE_NAME[kind]}`);
    }
    const data = file ? file.data : input.upload.data;
    const filename = file ? file.name : input.upload.filename;
    if (!file) {
      const mime = kind === "voice" ? sniffMime(data, "audio/ogg") : mimeFor(filename, data, input.upload.contentType);
      file = this.storeFile(kind, data, filename, mime);
    }
    const media = this.mediaFields(kind, file, p);
    const stored = this.addMessage(chat, { ...media, ...fields }, { fromBot: true, replyTo, threadId });
    return this.messageView(chat, stored);
  }

  // ---------------------------------------------------------------- methods

  // One Bot API call. `uploads`: multipart file parts. `conn`: {onClose(fn)} for long polling, or null.
  async call(method, p, uploads, conn) {
    switch (method) {
      case "getMe":
        return { ...this.bot, can_join_groups: true, can_read_all_group_messages: false,
          supports_inline_queries: false, can_connect_to_business: false, has_main_web_app: false };

      case "getUpdates": {
        if (this.webhook.url) {
          throw new ApiError(409,
            "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
        }
        const offset = intParam(p, "offset") ?? 0;
        if (offset > 0) this.updates = this.updates.filter((u) => u.update_id >= offset);
        else if (offset < 0) this.updates = this.updates.slice(offset);
        const allowed = jsonParam(p, "allowed_updates");
        if (Array.isArray(allowed)) this.allowedUpdates = allowed;
        const limit = Math.min(100, Math.max(1, intParam(p, "limit") ?? 100));
        const timeout = Math.max(0, intParam(p, "timeout") ?? 0);
        if (this.poller) {
          const old = this.poller;
          this.poller = null;
          clearTimeout(old.timer);
          old.reject(new ApiError(409,
            "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"));
        }
        if (this.updates.length || timeout === 0) return this.updates.slice(0, limit);
        return await new Promise((resolve, reject) => {
          const poller = { limit, resolve, reject };
          poller.timer = setTimeout(() => {
            if (this.poller === poller) this.poller = null;
            resolve([]);
          }, timeout * 1000);
          this.poller = poller;
          conn?.onClose(() => {
            if (this.poller === poller) {
              this.poller = null;
              clearTimeout(poller.timer);
            }
          });
        });
      }

      case "setWebhook": {
        const url = String(p.url ?? "");
        if (boolParam(p, "drop_pending_updates")) this.updates = [];
        const allowed = jsonParam(p, "allowed_updates");
        if (!url) return this.call("deleteWebhook", p, uploads, conn);
        if (!/^https?:\/\//i.test(url)) throw badRequest("bad webhook: Failed to resolve host: Name or service not known");
        const same = this.webhook.url === url;
        this.webhook.url = url;
        this.webhook.secret = p.secret_token ? String(p.secret_token) : null;
        if (Array.isArray(allowed)) this.webhook.allowed = allowed;
        this.webhook.lastErrorDate = 0;
        this.webhook.lastErrorMessage = null;
        if (this.poller) {
          const old = this.poller;
          this.poller = null;
          clearTimeout(old.timer);
          old.resolve([]);
        }
        this.deliverWebhook();
        return { result: true, description: same ? "Webhook is already set" : "Webhook was set" };
      }

      case "deleteWebhook": {
        if (boolParam(p, "drop_pending_updates")) this.updates = [];
        const had = this.webhook.url !== "";
        this.webhook.url = "";
        this.webhook.secret = null;
        return { result: true, description: had ? "Webhook was deleted" : "Webhook is already deleted" };
      }

      case "getWebhookInfo": {
        const info = { url: this.webhook.url, has_custom_certificate: false, pending_update_count: this.updates.length };
        if (this.webhook.url) {
          info.ip_address = "127.0.0.1";
          if (this.webhook.lastErrorDate) {
            info.last_error_date = this.webhook.lastErrorDate;
            info.last_error_message = this.webhook.lastErrorMessage;
          }
          info.max_connections = 40;
          if (this.webhook.allowed.length) info.allowed_updates = this.webhook.allowed;
        }
        return info;
      }

      case "sendMessage": {
        const chat = this.chatFor(p);
        if (p.text === undefined || p.text === null || p.text === "") throw badRequest("message text is empty");
        const { text, entities } = this.formatText(String(p.text), p.parse_mode, p.entities);
        if (text.trim() === "") throw badRequest("message text is empty");
        if (text.length > TEXT_LIMIT) throw badRequest("message is too long");
        const replyTo = this.replyTarget(chat, p);
        const threadId = this.threadFor(chat, p);
        const fields = { text };
        if (entities.length) fields.entities = entities;
        const preview = jsonParam(p, "link_preview_options");
        if (preview) fields.link_preview_options = preview;
        const stored = this.addMessage(chat, fields, { fromBot: true, replyTo, threadId });
        return this.messageView(chat, stored);
      }

      case "editMessageText": {
        if (p.inline_message_id) throw badRequest("message to edit not found");
        const chat = this.chatFor(p);
        const id = intParam(p, "message_id");
        if (id === undefined) throw badRequest("message identifier is not specified");
        const stored = this.storedMessage(chat, id);
        if (!stored) throw badRequest("message to edit not found");
        if (!stored.fromBot) throw badRequest("message can't be edited");
        if (stored.message.text === undefined) throw badRequest("there is no text in the message to edit");
        if (p.text === undefined || p.text === null || p.text === "") throw badRequest("text must be non-empty");
        const { text, entities } = this.formatText(String(p.text), p.parse_mode, p.entities);
        if (text.trim() === "") throw badRequest("text must be non-empty");
        if (text.length > TEXT_LIMIT) throw badRequest("MESSAGE_TOO_LONG");
        const same = stored.message.text === text &&
          JSON.stringify(stored.message.entities ?? []) === JSON.stringify(entities);
        if (same) {
          throw badRequest("message is not modified: specified new message content and reply markup are exactly " +
            "the same as a current content and reply markup of the message");
        }
        stored.message.text = text;
        if (entities.length) stored.message.entities = entities;
        else delete stored.message.entities;
        stored.message.edit_date = now();
        stored.edits += 1;
        return this.messageView(chat, stored);
      }

      case "deleteMessage": {
        const chat = this.chatFor(p);
        const id = intParam(p, "message_id");
        const stored = id === undefined ? null : this.storedMessage(chat, id);
        if (!stored) throw badRequest("message to delete not found");
        if (!stored.fromBot && chat.type !== "private" && !chat.bot_is_admin) throw badRequest("message can't be deleted");
        stored.deleted = true;
        return true;
      }

      case "sendChatAction": {
        const chat = this.chatFor(p);
        if (!CHAT_ACTIONS.has(p.action)) throw badRequest("wrong parameter action in request");
        chat.actions.push({ action: p.action, date: now(), at_ms: Date.now(),
          message_thread_id: this.threadFor(chat, p) });
        return true;
      }

      case "setMessageReaction": {
        const chat = this.chatFor(p);
        const id = intParam(p, "message_id");
        const stored = id === undefined ? null : this.storedMessage(chat, id);
        if (!stored) throw badRequest("MESSAGE_ID_INVALID");
        const reaction = jsonParam(p, "reaction") ?? [];
        if (!Array.isArray(reaction)) throw badRequest("can't parse reaction JSON object");
        if (reaction.length > 1) throw badRequest("REACTIONS_TOO_MUCH");
        for (const r of reaction) {
          if (r?.type !== "emoji" || !REACTIONS.has(r.emoji)) throw badRequest("REACTION_INVALID");
          if (Array.isArray(chat.available_reactions) && !chat.available_reactions.includes(r.emoji)) {
            throw badRequest("REACTION_INVALID");
          }
        }
        stored.reactions.bot = reaction.map((r) => ({ type: "emoji", emoji: r.emoji }));
        return true;
      }

      case "sendVoice":
        return this.sendMedia("voice", p, uploads);
      case "sendAudio":
        return this.sendMedia("audio", p, uploads);
      case "sendDocument":
        return this.sendMedia("document", p, uploads);
      case "sendPhoto":
        return this.sendMedia("photo", p, uploads);
      case "sendVideo":
        return this.sendMedia("video", p, uploads);

      case "getFile": {
        const file = this.files.get(String(p.file_id ?? ""));
        if (!file) throw badRequest("invalid file_id");
        if (file.data.length > DOWNLOAD_LIMIT) throw badRequest("file is too big");
        return { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.data.length,
          file_path: file.path };
      }

      case "sendMessageDraft": {
        const chat = this.chatFor(p);
        const draftId = intParam(p, "draft_id");
        if (!draftId) throw badRequest("draft_id is empty");
        const { text, entities } = this.formatText(String(p.text ?? ""), p.parse_mode, p.entities);
        if (text.length > TEXT_LIMIT) throw badRequest("message is too long");
        chat.drafts.push({ draft_id: draftId, text, entities, at_ms: Date.now(), expires_ms: Date.now() + 30_000,
          message_thread_id: intParam(p, "message_thread_id") });
        return true;
      }

      case "getChat": {
        const chat = this.chatFor(p);
        const info = { ...this.chatObject(chat), accent_color_id: 0, max_reaction_count: 11 };
        if (Array.isArray(chat.available_reactions)) {
          info.available_reactions = chat.available_reactions.map((emoji) => ({ type: "emoji", emoji }));
        }
        return info;
      }

      default:
        throw new ApiError(404, "Not Found");
    }
  }

  // ---------------------------------------------------------------- HTTP

  async handle(req, res) {
    const url = new URL(req.url, "http://fake");
    if (url.pathname.startsWith("/_fake/")) return this.admin(req, res, url);
    const api = /^\/bot([^/]*)\/([A-Za-z]*)$/.exec(url.pathname);
    const file = /^\/file\/bot([^/]*)\/(.+)$/.exec(url.pathname);
    if (file) return this.download(req, res, file[1], decodeURIComponent(file[2]));
    if (!api) {
      sendJson(res, 404, { ok: false, error_code: 404, description: "Not Found" });
      return;
    }
    const started = Date.now();
    const method = this.methods.get(api[2].toLowerCase()) ?? api[2];
    const entry = { kind: "api", route: method, http_method: req.method };
    const finish = (status, body, extra = {}) => {
      this.journal.record({ ...entry, ...extra, status, response: body, duration_ms: Date.now() - started });
    };
    const fail = (code, description, parameters) => {
      const body = { ok: false, error_code: code, description };
      if (parameters) body.parameters = parameters;
      return body;
    };
    const parsed = await readParsedBody(req, res, UPLOAD_LIMIT + 1024 * 1024, finish, (status) =>
      (status === 413 ? fail(413, "Request Entity Too Large") : fail(400, "Bad Request: can't parse request body")));
    if (!parsed) return;
    const params = { ...Object.fromEntries(url.searchParams), ...parsed.fields, ...(parsed.json ?? {}) };
    entry.params = journalParams(params);
    entry.files = parsed.files.map(fileSummary);
    if (api[1] !== this.token) {
      const out = fail(401, "Unauthorized");
      finish(401, out);
      sendJson(res, 401, out);
      return;
    }
    const fault = takeFault(this.faults, method, entry, req, finish);
    if (fault?.kind === "drop") return;
    if (fault?.kind === "rate_limit") {
      const retry = Math.max(1, Math.round(fault.retry_after ?? 1));
      const out = fail(429, `Too Many Requests: retry after ${retry}`, { retry_after: retry });
      finish(429, out);
      sendJson(res, 429, out);
      return;
    }
    if (fault?.kind === "status") {
      const out = fault.body ?? fail(fault.status, STATUS_TEXT[fault.status] ?? "Internal Server Error");
      finish(fault.status, out);
      if (typeof out === "string") {
        res.writeHead(fault.status, { "Content-Type": "text/html" });
        res.end(out);
      } else {
        sendJson(res, fault.status, out);
      }
      return;
    }
    let status;
    let out;
    const closeHandlers = [];
    res.on("close", () => closeHandlers.forEach((fn) => fn()));
    try {
      const result = await this.call(method, params, parsed.files, { onClose: (fn) => closeHandlers.push(fn) });
      status = 200;
      out = result && typeof result === "object" && "description" in result && "result" in result
        ? { ok: true, result: result.result, description: result.description }
        : { ok: true, result };
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      status = e.code;
      out = fail(e.code, e.message, e.parameters);
    }
    finish(status, out, fault ? { withheld: fault.kind } : {});
    answerAfterFault(fault, req, res, () => sendJson(res, status, out));
  }

  download(req, res, token, filePath) {
    if (token !== this.token) {
      sendJson(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
      return;
    }
    const file = [...this.files.values()].find((f) => f.path === filePath);
    this.journal.record({ kind: "download", route: "file", path: filePath, status: file ? 200 : 404 });
    if (!file) {
      sendJson(res, 404, { ok: false, error_code: 404, description: "Not Found" });
      return;
    }
    res.writeHead(200, { "Content-Type": file.mime ?? "application/octet-stream", "Content-Length": file.data.length });
    res.end(file.data);
  }

  // ---------------------------------------------------------------- admin API

  admin(req, res, url) {
    return serveAdmin(req, res, url, this, (body, p) => this.ownAdmin(req, res, body, p));
  }

  // This fake's own admin routes (README); false for a route it does not have.
  async ownAdmin(req, res, body, p) {
    if (req.method === "POST" && p === "/_fake/chats") {
      sendJson(res, 200, { chat: this.chatState(this.configureChat(body)) });
    } else if (req.method === "GET" && p === "/_fake/chats") {
      sendJson(res, 200, { chats: [...this.chats.values()].map((c) => this.chatState(c)) });
    } else if (req.method === "GET" && p.startsWith("/_fake/chats/")) {
      const chat = this.chats.get(Number(p.slice("/_fake/chats/".length)));
      if (!chat) sendJson(res, 404, { error: "no such chat" });
      else sendJson(res, 200, { chat: this.chatState(chat) });
    } else if (req.method === "POST" && p === "/_fake/messages") {
      sendJson(res, 200, this.injectMessage(body));
    } else if (req.method === "POST" && p === "/_fake/updates") {
      const update = this.enqueue(body);
      sendJson(res, 200, { update });
    } else if (req.method === "POST" && p === "/_fake/webhook/post") {
      sendJson(res, 200, await this.postToWebhook(body));
    } else if (req.method === "GET" && p === "/_fake/state") {
      sendJson(res, 200, {
        bot: this.bot,
        pending_updates: this.updates,
        allowed_updates: this.allowedUpdates,
        polling: this.poller !== null,
        webhook: { url: this.webhook.url, secret_token: this.webhook.secret,
          last_error_message: this.webhook.lastErrorMessage },
      });
    } else {
      return false;
    }
    return true;
  }

  // A chat as a user sees it now: messages after edits and deletes, with the bot's reactions; plus the chat
  // actions and drafts the bot sent.
  chatState(chat) {
    const { messages, deleted } = shownAndDeleted(
      [...chat.messages.values()].map((stored) => [stored.message.message_id, stored]),
      (stored) => ({ ...this.messageView(chat, stored), reactions: stored.reactions.bot, edits: stored.edits }));
    const config = {};
    for (const key of ["available_reactions", "voice_forbidden", "blocked", "bot_is_admin", "topics"]) {
      if (chat[key] !== undefined) config[key] = chat[key];
    }
    return { ...this.chatObject(chat), config, messages, deleted, actions: chat.actions, drafts: chat.drafts };
  }
}

const STATUS_TEXT = { 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
  504: "Gateway Timeout" };

// Entities Telegram derives from a user's plain text: @mentions and /commands (enough for the tests; URLs,
// hashtags and the rest are not detected).
function autoEntities(text) {
  const out = [];
  const re = /(^|[\s(])(?:(@[A-Za-z][A-Za-z0-9_]{4,31})|(\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z][A-Za-z0-9_]{4,31})?))(?![A-Za-z0-9_])/g;
  let m;
  while ((m = re.exec(text))) {
    const offset = m.index + m[1].length;
    if (m[2]) out.push({ offset, length: m[2].length, type: "mention" });
    else out.push({ offset, length: m[3].length, type: "bot_command" });
  }
  return out;
}

function journalParams(params) {
  const out = {};
  for (const [k, v] of Object.entries(params)) {
    if (typeof v === "string" && (v.startsWith("{") || v.startsWith("["))) {
      try {
        out[k] = JSON.parse(v);
        continue;
      } catch {
        // a plain string after all
      }
    }
    out[k] = v;
  }
  return out;
}

// ------------------------------------------------------------------ main

async function main() {
  const options = parseOptions(process.argv.slice(2), {
    token: DEFAULT_TOKEN,
    "bot-username": "sigil_test_bot",
    "bot-name": "sigil test bot",
    "webhook-retry-ms": 500,
    "first-update-id": 10000,
  });
  const fake = new TelegramFake({
    token: options.token,
    botUsername: options["bot-username"],
    botName: options["bot-name"],
    journal: new Journal(options["state-dir"]),
    webhookRetryMs: options["webhook-retry-ms"],
    firstUpdateId: options["first-update-id"],
  });
  await listen({ host: options.host, port: options.port, onRequest: (req, res) => fake.handle(req, res) });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(`telegram fake: ${e.stack ?? e}\n`);
    process.exit(1);
  });
}
