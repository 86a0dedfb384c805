// sigil web chat: one WebSocket to /v1/ws (protocol: docs/web-chat.md), no framework, no build step.
//
// Model output is untrusted: text only ever reaches the page as text nodes (render.js builds the few
// elements it needs with DOM APIs); URLs from the server are checked before they go into href/src.

import { conversationList } from "./conversations.js";
import { formatDuration, formatSize, renderRich, safeHref } from "./render.js";

const ID_RE = /^[A-Za-z0-9._-]{1,128}$/;
const MAX_MESSAGE_BYTES = 32 * 1024;

const $ = (id) => document.getElementById(id);
const ui = {
  transcript: $("transcript"),
  empty: $("empty-hint"),
  typing: $("typing"),
  status: $("status"),
  model: $("model"),
  banner: $("replay-banner"),
  toast: $("toast"),
  form: $("composer"),
  input: $("input"),
  send: $("send"),
  stop: $("stop"),
  newConversation: $("new-conversation"),
  sayMode: $("say-mode"),
};

// ---------------------------------------------------------------- identity

const params = new URLSearchParams(location.search);
const hashParams = new URLSearchParams(location.hash.replace(/^#/, ""));
const user = ID_RE.test(params.get("user") ?? "") ? params.get("user") : "web";
// An API token may come in the fragment (#access_token=..., never sent to the server with the page) or
// the query; it is passed on to /v1/ws.
const accessToken = hashParams.get("access_token") ?? params.get("access_token") ?? "";
const storageKey = `sigil.conversation.${user}`;

function newConversationId() {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function loadConversation() {
  const fromUrl = params.get("conversation");
  if (fromUrl !== null && ID_RE.test(fromUrl)) return fromUrl;
  let id = null;
  try {
    id = localStorage.getItem(storageKey);
  } catch {
    // Storage disabled: a conversation per page load.
  }
  if (id === null || !ID_RE.test(id)) {
    id = newConversationId();
    saveConversation(id);
  }
  return id;
}

function saveConversation(id) {
  try {
    localStorage.setItem(storageKey, id);
  } catch {
    // Storage disabled.
  }
}

// ---------------------------------------------------------------- state

const state = {
  conversation: loadConversation(),
  ws: null,
  attempt: 0,  // reconnect attempts since the last hello
  reconnectTimer: 0,
  helloSeen: false,
  turns: new Map(),  // turn id -> {userEl, assistantEl, scheduled, running, text, segment}
  pending: new Map(),  // client_id -> user message element, until its "turn" arrives
  nextClientId: 1,
};

// ---------------------------------------------------------------- DOM helpers

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function atBottom() {
  const s = document.scrollingElement;
  return s.scrollHeight - s.scrollTop - s.clientHeight < 80;
}

function scrollToEnd(force = false) {
  if (force || atBottom()) window.scrollTo({ top: document.scrollingElement.scrollHeight });
}

function updateEmpty() {
  ui.empty.hidden = ui.transcript.childElementCount > 0 || !state.helloSeen;
}

let toastTimer = 0;
function showToast(message) {
  ui.toast.textContent = message;
  ui.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    ui.toast.hidden = true;
  }, 6000);
}

function setStatus(kind, text) {
  ui.status.dataset.state = kind;
  ui.status.textContent = text;
  ui.send.disabled = kind !== "online";
}

function updateTyping() {
  let running = false;
  for (const t of state.turns.values()) if (t.running) running = true;
  const waiting = state.pending.size > 0;
  ui.typing.hidden = !(running || waiting);
  ui.stop.hidden = !running;
}

// ---------------------------------------------------------------- messages

// Puts a message at the end of the transcript: its bubble, then its meta line (reactions and a note).
function appendMessage(li, bubble) {
  li.appendChild(bubble);
  const meta = el("div", "meta");
  const reactions = el("span", "reactions");
  reactions.setAttribute("aria-label", "Reactions");
  meta.appendChild(reactions);
  meta.appendChild(el("span", "note"));
  li.appendChild(meta);
  ui.transcript.appendChild(li);
  updateEmpty();
  return li;
}

function userMessage(text, { turn, clientId } = {}) {
  const li = el("li", "msg user");
  li.dataset.role = "user";
  if (turn) li.dataset.turn = turn;
  if (clientId) li.dataset.clientId = clientId;
  const bubble = el("div", "bubble");
  bubble.appendChild(el("div", "text", text));
  return appendMessage(li, bubble);
}

function setNote(li, text, kind = "") {
  const note = li.querySelector(":scope > .meta > .note");
  if (!note) return;
  note.textContent = text;
  note.dataset.kind = kind;
}

function assistantMessage(turn, scheduledText) {
  const li = el("li", "msg assistant");
  li.dataset.role = "assistant";
  if (turn) li.dataset.turn = turn;
  const bubble = el("div", "bubble");
  if (scheduledText !== undefined) {
    li.classList.add("scheduled");
    const tag = el("div", "scheduled-tag", "Scheduled");
    if (scheduledText) tag.title = `Scheduled task: ${scheduledText}`;
    bubble.appendChild(tag);
  }
  return appendMessage(li, bubble);
}

function turnState(id) {
  let t = state.turns.get(id);
  if (!t) {
    t = { userEl: null, assistantEl: null, scheduled: false, scheduledText: "", running: false, segment: null };
    state.turns.set(id, t);
  }
  return t;
}

// The assistant bubble is made on the turn's first visible output, so a silent turn (<no-reply/>)
// leaves no trace.
function bubbleOf(turnId) {
  const t = turnState(turnId);
  if (!t.assistantEl) {
    t.assistantEl = assistantMessage(turnId, t.scheduled ? t.scheduledText : undefined);
  }
  return t.assistantEl.querySelector(":scope > .bubble");
}

function appendText(turnId, piece) {
  if (!piece) return;
  const stick = atBottom();
  const t = turnState(turnId);
  const fresh =
    !t.assistantEl || !t.segment || t.segment.el.parentNode?.lastElementChild !== t.segment.el;
  // A paragraph does not start with whitespace (the space that stood before an attachment, say); and
  // whitespace alone makes no bubble.
  if (fresh) piece = piece.replace(/^\s+/, "");
  if (piece === "") return;
  const bubble = bubbleOf(turnId);
  if (fresh || t.segment.el.parentNode !== bubble) {
    t.segment = { el: el("div", "text"), raw: "" };
    bubble.appendChild(t.segment.el);
  }
  t.segment.raw += piece;
  renderRich(t.segment.el, t.segment.raw, location.href);
  if (stick) scrollToEnd(true);
}

function mediaUrl(url) {
  const href = safeHref(url, location.href);
  if (href === null) return null;
  return href;
}

function appendAttachment(turnId, d) {
  const stick = atBottom();
  const t = turnState(turnId);
  const bubble = bubbleOf(turnId);
  t.segment = null;  // text after an attachment starts a new paragraph below it
  const url = mediaUrl(d.url);
  const name = typeof d.name === "string" && d.name ? d.name : "file";
  if (d.op === "voice") {
    const box = el("div", "attachment voice");
    const audio = el("audio");
    audio.controls = true;
    audio.preload = "metadata";
    const dur = d.duration_ms ? formatDuration(d.duration_ms) : "";
    audio.setAttribute("aria-label", dur ? `Voice note, ${dur}` : "Voice note");
    if (url) {
      const source = el("source");
      source.src = url;
      source.type = "audio/ogg";
      audio.appendChild(source);
    }
    box.appendChild(audio);
    // The player cannot always tell an Ogg file's length before it plays; the server knows it.
    if (dur) box.appendChild(el("span", "duration", dur));
    bubble.appendChild(box);
  } else {
    const box = el("div", "attachment file");
    if (d.kind === "image" && url) {
      const img = el("img");
      img.src = url;
      img.alt = d.caption || name;
      img.loading = "lazy";
      // Icons and thumbnails a few pixels wide are shown larger, with their pixels kept sharp.
      img.addEventListener("load", () => img.classList.toggle("tiny", img.naturalWidth > 0 && img.naturalWidth < 64));
      box.appendChild(img);
    }
    const a = el("a", "file-link");
    if (url) {
      a.href = url;
      a.download = name;
    } else {
      a.setAttribute("aria-disabled", "true");
    }
    a.appendChild(el("span", "file-icon", "📄"));
    a.appendChild(el("span", "file-name", name));
    const size = formatSize(d.size);
    if (size) a.appendChild(el("span", "file-size", size));
    box.appendChild(a);
    if (d.caption) box.appendChild(el("div", "caption", d.caption));
    bubble.appendChild(box);
  }
  if (stick) scrollToEnd(true);
}

function addReaction(turnId, d) {
  const t = turnState(turnId);
  // "" is the user's message that started the turn; anything else names a turn of this conversation.
  let target = null;
  if (d.message) {
    target = ui.transcript.querySelector(`li.user[data-turn="${CSS.escape(d.message)}"]`);
  }
  if (!target) target = t.userEl;
  if (!target) target = t.assistantEl ?? bubbleOf(turnId).parentNode;  // a scheduled turn has no user message
  const reactions = target.querySelector(":scope > .meta > .reactions");
  const badge = el("span", "reaction", d.emoji || "?");
  badge.setAttribute("role", "img");
  badge.setAttribute("aria-label", `Reaction ${d.emoji || ""}`);
  reactions.appendChild(badge);
}

function addMessageDelivery(turnId, d) {
  const bubble = bubbleOf(turnId);
  turnState(turnId).segment = null;
  const box = el("div", "relayed");
  const where = [d.channel, d.chat].filter(Boolean).join(" ");
  box.appendChild(el("span", "relayed-to", where ? `Sent to ${where}: ` : "Sent: "));
  box.appendChild(el("span", "relayed-text", d.text ?? ""));
  bubble.appendChild(box);
}

// ---------------------------------------------------------------- protocol

function onHello(m) {
  state.helloSeen = true;
  state.attempt = 0;
  setStatus("online", "Connected");
  ui.model.textContent = m.model ? `Model: ${m.model}` : "";
  ui.banner.hidden = m.replay !== true;
  ui.sayMode.checked = m.say_mode === true;
  ui.sayMode.disabled = false;
  mergeHistory(Array.isArray(m.history) ? m.history : [], Array.isArray(m.deliveries) ? m.deliveries : []);
  updateEmpty();
  scrollToEnd(true);
  conversations.changed();
}

// History after a (re)connect: turns already on the page stay as they are; turns cut off by a lost
// connection get their stored text; new turns are appended in order, with what they delivered (files,
// voice notes, reactions, relayed texts: the same delivery frames, kept by the server).
function mergeHistory(history, deliveries = []) {
  const shown = new Set();
  for (const [id, t] of state.turns) if (t.userEl || t.assistantEl) shown.add(id);
  const repaired = new Set();
  for (const entry of history) {
    if (!entry || typeof entry.text !== "string") continue;
    // The greeting is bounded: a very long message comes shortened (the whole one: GET .../messages).
    const h = entry.truncated === true ? { ...entry, text: `${entry.text} … (shortened)` } : entry;
    const turn = typeof h.turn === "string" ? h.turn : "";
    const t = turn ? state.turns.get(turn) : undefined;
    if (turn && shown.has(turn)) {
      if (t && t.interrupted && h.role === "assistant") {
        if (!repaired.has(turn)) {
          repaired.add(turn);
          const bubble = bubbleOf(turn);
          for (const seg of bubble.querySelectorAll(":scope > .text")) seg.remove();
          t.segment = null;
        }
        appendText(turn, (t.segment ? "\n\n" : "") + h.text);
      }
      continue;
    }
    if (h.role === "user") {
      const ts = turn ? turnState(turn) : null;
      if (ts && (ts.userEl || ts.scheduled)) continue;  // only a turn's first user message is the user's
      if (typeof h.task === "string" && h.task !== "" && ts) {
        // Started by a scheduled task, not typed: the answer is marked, the task's text is on hover.
        ts.scheduled = true;
        ts.scheduledText = h.text;
        continue;
      }
      const li = userMessage(h.text, { turn });
      if (ts) ts.userEl = li;
    } else if (h.role === "assistant" && h.text.trim() !== "") {
      if (!turn) {
        const li = assistantMessage("");
        renderRich(li.querySelector(".bubble").appendChild(el("div", "text")), h.text, location.href);
        continue;
      }
      const ts = turnState(turn);
      appendText(turn, (ts.segment ? "\n\n" : "") + h.text);
    }
  }
  for (const d of deliveries) {
    if (!d || typeof d.turn !== "string" || shown.has(d.turn)) continue;
    onDelivery(d);
  }
  for (const t of state.turns.values()) t.interrupted = false;
}

function onTurn(m) {
  const t = turnState(m.turn);
  t.running = true;
  t.call = 0;
  if (m.scheduled) {
    t.scheduled = true;
    t.scheduledText = typeof m.text === "string" ? m.text : "";
  } else if (m.client_id && state.pending.has(m.client_id)) {
    const li = state.pending.get(m.client_id);
    state.pending.delete(m.client_id);
    li.dataset.turn = m.turn;
    setNote(li, "");
    t.userEl = li;
  } else if (!t.userEl) {
    // Sent from another tab or device watching the same conversation.
    t.userEl = userMessage(typeof m.text === "string" ? m.text : "", { turn: m.turn });
  }
  updateTyping();
  scrollToEnd();
}

function onModelCall(m) {
  // A later model call's text is a new message of the same answer (the server starts new message ids).
  turnState(m.turn).segment = null;
}

// Text messages have ids (per turn): a new id starts a paragraph of the turn's bubble, a known one grows
// (or, with "replace", is rewritten). Each say block of a say-mode reply is its own message.
function onText(m) {
  if (typeof m.text !== "string") return;
  const t = turnState(m.turn);
  const id = typeof m.message === "string" ? m.message : "";
  const seg = id ? t.messages?.get(id) : undefined;
  if (!seg) {
    if (id) t.segment = null;
    appendText(m.turn, m.text);
    if (id && t.segment) (t.messages ??= new Map()).set(id, t.segment);
    return;
  }
  if (!seg.el.isConnected) return;
  const stick = atBottom();
  seg.raw = m.replace === true ? m.text : seg.raw + m.text;
  renderRich(seg.el, seg.raw, location.href);
  if (stick) scrollToEnd(true);
}

// A message taken back (a late sentinel: the reply turned out silent). Attachments and reactions stay.
function onDelete(m) {
  const t = turnState(m.turn);
  const id = typeof m.message === "string" ? m.message : "";
  const seg = t.messages?.get(id);
  if (!seg) return;
  t.messages.delete(id);
  seg.el.remove();
  if (t.segment === seg) t.segment = null;
  const bubble = t.assistantEl?.querySelector(":scope > .bubble");
  if (bubble && bubble.childElementCount === 0) {
    t.assistantEl.remove();
    t.assistantEl = null;
  }
  updateTyping();
}

// The reply turned silent: the delete frames that follow take back what it showed. The user's message
// says so when the turn ends (a silent turn would otherwise leave no trace at all).
function onSilence(m) {
  if (m.turn) turnState(m.turn).silent = true;
  updateTyping();
}

function onDelivery(m) {
  switch (m.op) {
    case "reaction":
      addReaction(m.turn, m);
      break;
    case "file":
    case "voice":
      appendAttachment(m.turn, m);
      break;
    case "text":
      if (typeof m.text === "string" && m.text !== "") {
        turnState(m.turn).segment = null;
        appendText(m.turn, m.text);
        turnState(m.turn).segment = null;
      }
      break;
    case "message":
      addMessageDelivery(m.turn, m);
      break;
    default:
      break;
  }
}

const STATUS_TEXT = {
  "loop-limit": "The assistant stopped after too many steps.",
  "model-error": "The model failed to answer.",
  "store-error": "The conversation could not be saved.",
};

function onEnd(m) {
  const t = turnState(m.turn);
  t.running = false;
  if (m.status === "ok" && t.silent && !t.assistantEl && t.userEl) {
    setNote(t.userEl, "No reply: the assistant chose to stay silent.");
  }
  if (m.status && m.status !== "ok") {
    const diag = Array.isArray(m.diagnostics) ? m.diagnostics.join("; ") : "";
    const cancelled = /cancel/i.test(diag);
    let text = cancelled ? "Stopped." : STATUS_TEXT[m.status] ?? `Turn ended: ${m.status}`;
    // The cause belongs in the message, not only on hover: "The model failed to answer (HTTP 401 ...)".
    const cause = (m.diagnostics ?? []).find((d) => typeof d === "string" && d.startsWith("model-error: "));
    if (!cancelled && cause) {
      const detail = cause.slice("model-error: ".length).replace(/^model: /, "");
      text = `${text.replace(/\.$/, "")}: ${detail.length > 300 ? `${detail.slice(0, 300)}…` : detail}`;
    }
    const target = t.assistantEl ?? t.userEl;
    if (target) {
      setNote(target, text, "error");
      if (diag) target.querySelector(":scope > .meta > .note").title = diag;
    } else {
      showToast(text);
    }
  }
  updateTyping();
  conversations.changed();
}

function onError(m) {
  const message = typeof m.message === "string" && m.message ? m.message : "error";
  if (m.client_id === "say-mode") {
    // The setting was not saved: show what still holds.
    ui.sayMode.checked = !ui.sayMode.checked;
    ui.sayMode.disabled = false;
    showToast(message);
    return;
  }
  if (m.client_id && state.pending.has(m.client_id)) {
    const li = state.pending.get(m.client_id);
    state.pending.delete(m.client_id);
    li.classList.add("failed");
    setNote(li, `Not sent: ${message}`, "error");
    updateTyping();
  } else {
    showToast(message);
  }
}

function onFrame(event) {
  let m;
  try {
    m = JSON.parse(event.data);
  } catch {
    return;
  }
  if (!m || typeof m !== "object") return;
  switch (m.type) {
    case "hello":
      onHello(m);
      break;
    case "turn":
      onTurn(m);
      break;
    case "model_call":
      onModelCall(m);
      break;
    case "text":
      onText(m);
      break;
    case "silence":
      onSilence(m);
      break;
    case "delete":
      onDelete(m);
      break;
    case "settings":
      onSettings(m);
      break;
    case "deleted":
      // Deleted here or on another page: this page goes on with a new conversation.
      showToast("This conversation was deleted.");
      resetConversation(newConversationId());
      break;
    case "delivery":
      onDelivery(m);
      break;
    case "end":
      onEnd(m);
      break;
    case "error":
      onError(m);
      break;
    default:
      break;
  }
}

// The conversation's say mode changed (here or on another page of it); the next turn uses it.
function onSettings(m) {
  if (typeof m.say_mode === "boolean") ui.sayMode.checked = m.say_mode;
  ui.sayMode.disabled = false;
}

// ---------------------------------------------------------------- connection

function socketUrl() {
  const q = new URLSearchParams({ conversation: state.conversation, user });
  if (accessToken) q.set("access_token", accessToken);
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/ws?${q}`;
}

function connect() {
  clearTimeout(state.reconnectTimer);
  state.reconnectTimer = 0;
  if (state.ws) return;
  setStatus("connecting", state.attempt === 0 ? "Connecting…" : "Reconnecting…");
  const ws = new WebSocket(socketUrl());
  state.ws = ws;
  let opened = false;
  ws.addEventListener("open", () => {
    opened = true;
  });
  ws.addEventListener("message", onFrame);
  ws.addEventListener("close", async () => {
    if (state.ws !== ws) return;  // replaced on purpose (new conversation)
    state.ws = null;
    lostConnection();
    // A refused upgrade looks like any lost connection to a page; ask an API route why, once.
    const refusal = opened ? null : await tokenRefusal();
    if (refusal) {
      setStatus("offline", refusal);
      return;  // retrying cannot help: the address needs the right token (reload after fixing it)
    }
    scheduleReconnect();
  });
}

// "missing" or "wrong" token message when the gateway answers 401, else null (any other trouble).
async function tokenRefusal() {
  try {
    const headers = accessToken ? { Authorization: `Bearer ${accessToken}` } : {};
    const r = await fetch("/v1/models", { headers, cache: "no-store" });
    if (r.status !== 401) return null;
  } catch {
    return null;
  }
  return accessToken
    ? "The access token in this address is not accepted by the gateway."
    : "This gateway needs an access token: open it as …/#access_token=YOUR_TOKEN";
}

function lostConnection() {
  for (const [id, li] of state.pending) {
    li.classList.add("failed");
    setNote(li, "Not sent: the connection was lost", "error");
    state.pending.delete(id);
  }
  for (const t of state.turns.values()) {
    if (t.running) {
      t.running = false;
      t.interrupted = true;
    }
  }
  updateTyping();
}

function scheduleReconnect() {
  // Exponential backoff with jitter: 0.5 s, 1 s, 2 s ... up to 15 s.
  const base = Math.min(15000, 500 * 2 ** Math.min(state.attempt, 5));
  const delay = Math.round(base * (0.5 + Math.random() / 2));
  state.attempt += 1;
  const seconds = Math.max(1, Math.round(delay / 1000));
  setStatus("offline", state.attempt > 3 ? `Offline, retrying in ${seconds} s` : "Reconnecting…");
  state.reconnectTimer = setTimeout(connect, delay);
}

function resetConversation(id) {
  state.conversation = id;
  saveConversation(id);
  state.turns.clear();
  state.pending.clear();
  state.helloSeen = false;
  ui.transcript.replaceChildren();
  updateTyping();
  updateEmpty();
  const old = state.ws;
  state.ws = null;
  if (old) old.close(1000, "new conversation");
  state.attempt = 0;
  connect();
}

// ---------------------------------------------------------------- composer

function send() {
  const text = ui.input.value.replace(/\s+$/, "");
  if (text.trim() === "") return;
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN || !state.helloSeen) {
    showToast("Not connected yet: the message was not sent.");
    return;
  }
  if (new TextEncoder().encode(text).length > MAX_MESSAGE_BYTES) {
    showToast("That message is too long.");
    return;
  }
  const clientId = `c${Date.now().toString(36)}-${state.nextClientId++}`;
  const li = userMessage(text, { clientId });
  state.pending.set(clientId, li);
  setNote(li, "Sending…");
  state.ws.send(JSON.stringify({ type: "message", text, client_id: clientId }));
  ui.input.value = "";
  autosize();
  updateTyping();
  scrollToEnd(true);
}

function autosize() {
  ui.input.style.height = "auto";
  ui.input.style.height = `${Math.min(ui.input.scrollHeight, 200)}px`;
}

ui.form.addEventListener("submit", (e) => {
  e.preventDefault();
  send();
});

ui.input.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !e.altKey && !e.ctrlKey && !e.metaKey) {
    e.preventDefault();
    send();
  }
});
ui.input.addEventListener("input", autosize);

ui.stop.addEventListener("click", () => {
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN) return;
  for (const [id, t] of state.turns) {
    if (t.running) state.ws.send(JSON.stringify({ type: "cancel", turn: id }));
  }
});

ui.sayMode.addEventListener("change", () => {
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN || !state.helloSeen) {
    ui.sayMode.checked = !ui.sayMode.checked;  // not connected: nothing changed
    return;
  }
  // The server answers with a "settings" frame to every page of the conversation.
  ui.sayMode.disabled = true;
  state.ws.send(JSON.stringify({ type: "settings", say_mode: ui.sayMode.checked, client_id: "say-mode" }));
});

function startNewConversation() {
  resetConversation(newConversationId());
  ui.input.focus();
}

ui.newConversation.addEventListener("click", startNewConversation);

const conversations = conversationList({
  user,
  accessToken,
  current: () => state.conversation,
  open: (id) => resetConversation(id),
  startNew: startNewConversation,
  toast: showToast,
});

window.addEventListener("online", () => {
  if (!state.ws) connect();
});

connect();
ui.input.focus();
