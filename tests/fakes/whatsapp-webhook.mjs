// The WhatsApp fake's (whatsapp.mjs) webhook side, as Meta's platform calls an app's callback URL:
// the subscription's verification request (GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…, which
// must be answered 200 with the challenge alone), and deliveries: each `whatsapp_business_account` payload
// POSTed as JSON, signed with X-Hub-Signature-256 (sha256=<hex HMAC-SHA256 of the raw body, keyed with the app
// secret>), kept and POSTed again, the same bytes, with growing back-off until a 200 comes. Deliveries are
// independent of each other, so they may arrive out of order, as Meta's do. The admin API's hand-made POSTs
// (right, wrong, missing or stale signature; a redelivery of a payload delivered before) live here too.
import { createHmac, randomBytes } from "node:crypto";

export function signature(secret, body) {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

const connectionError = (e) => String(e.cause?.code ?? e.cause?.message ?? e.message);

export class WebhookSender {
  constructor({ journal, appSecret, retryMs = 500, maxRetryMs = 4000, maxAttempts = 100 }) {
    this.journal = journal;
    this.appSecret = appSecret;
    this.retryMs = retryMs;
    this.maxRetryMs = maxRetryMs;
    this.maxAttempts = maxAttempts;
    this.url = null; // set once the verification request succeeded
    this.verifyToken = null;
    this.deliveries = new Map(); // id → {id, body, attempts, delivered, pending}
    this.nextId = 1;
    this.timers = new Set();
    this.paused = false;
  }

  // The subscription: Meta's GET to the callback URL, which must answer 200 with hub.challenge as its body.
  // Only then does Meta keep the URL (and deliver to it).
  async verify(url, verifyToken) {
    const challenge = String(randomBytes(6).readUIntBE(0, 6));
    const target = new URL(url);
    target.searchParams.set("hub.mode", "subscribe");
    target.searchParams.set("hub.challenge", challenge);
    target.searchParams.set("hub.verify_token", verifyToken);
    let status = null;
    let text = "";
    let error = null;
    try {
      const res = await fetch(target, { method: "GET" });
      status = res.status;
      text = await res.text();
    } catch (e) {
      error = connectionError(e);
    }
    const ok = status === 200 && text === challenge;
    this.journal.record({ kind: "webhook_verify", url, status, ok, error, challenge, answer: text.slice(0, 200) });
    if (ok) {
      this.url = url;
      this.verifyToken = verifyToken;
      this.flush();
    }
    return { ok, status, challenge, answer: text, error };
  }

  // A payload to deliver: kept until the callback answers 200.
  enqueue(payload) {
    const delivery = { id: this.nextId++, body: Buffer.from(JSON.stringify(payload)), attempts: 0, delivered: false,
      pending: false, payload };
    this.deliveries.set(delivery.id, delivery);
    this.attempt(delivery);
    return delivery.id;
  }

  flush() {
    for (const d of this.deliveries.values()) if (!d.delivered && !d.pending) this.attempt(d);
  }

  schedule(delivery) {
    const wait = Math.min(this.maxRetryMs, this.retryMs * 2 ** Math.max(0, delivery.attempts - 1));
    delivery.pending = true;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      delivery.pending = false;
      this.attempt(delivery);
    }, wait);
    this.timers.add(timer);
  }

  async attempt(delivery) {
    if (!this.url || delivery.delivered || delivery.pending || this.paused) return;
    if (delivery.attempts >= this.maxAttempts) return;
    delivery.pending = true;
    delivery.attempts += 1;
    const { status, error } = await this.post(this.url, delivery.body, "right");
    delivery.pending = false;
    this.journal.record({ kind: "webhook", delivery_id: delivery.id, attempt: delivery.attempts, status, error,
      summary: summarize(delivery.payload) });
    if (status === 200) {
      delivery.delivered = true;
      return;
    }
    this.schedule(delivery);
  }

  // One POST of `body` (bytes) to `url`; `sig` "right", "wrong", "missing", or a header value to send as is.
  async post(url, body, sig) {
    const headers = { "Content-Type": "application/json", "User-Agent": "facebookexternalua" };
    if (sig === "right") headers["X-Hub-Signature-256"] = signature(this.appSecret, body);
    else if (sig === "wrong") headers["X-Hub-Signature-256"] = signature(`wrong-${this.appSecret}`, body);
    else if (sig !== "missing") headers["X-Hub-Signature-256"] = String(sig);
    try {
      const res = await fetch(url, { method: "POST", headers, body });
      await res.arrayBuffer();
      return { status: res.status, error: null };
    } catch (e) {
      return { status: null, error: connectionError(e) };
    }
  }

  // Admin: a hand-made POST outside the retry queue: `delivery_id` (a redelivery of that payload's bytes) or
  // `payload`; `signature` as in post(); `tamper`: the body is changed by one byte after signing.
  async manual({ delivery_id: id, payload, signature: sig = "right", tamper = false, url = this.url }) {
    if (!url) throw new Error("no callback URL is verified (POST /_fake/webhook) and no url given");
    let body;
    if (id !== undefined) {
      const d = this.deliveries.get(Number(id));
      if (!d) throw new Error(`no delivery ${id}`);
      body = d.body;
    } else if (payload) {
      body = Buffer.from(JSON.stringify(payload));
    } else {
      throw new Error("give delivery_id or payload");
    }
    let header = sig;
    if (tamper) {
      header = sig === "right" ? signature(this.appSecret, body) : sig;
      body = Buffer.from(body);
      // One byte changed: a digit of the first timestamp, so the body is still valid JSON and only the
      // signature can tell.
      const ts = body.indexOf(Buffer.from('"timestamp":"'));
      const at = ts >= 0 ? ts + 13 : body.length - 1;
      body[at] = body[at] >= 0x30 && body[at] < 0x39 ? body[at] + 1 : 0x30;
    }
    const result = await this.post(url, body, header);
    this.journal.record({ kind: "webhook", manual: true, delivery_id: id ?? null, signature: sig, tamper, ...result });
    return result;
  }

  state() {
    return [...this.deliveries.values()].map((d) => ({ id: d.id, attempts: d.attempts, delivered: d.delivered,
      summary: summarize(d.payload) }));
  }

  stop() {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

// What a payload carries, for the journal: message ids and types, status ids and states.
export function summarize(payload) {
  const out = { messages: [], statuses: [] };
  for (const e of payload?.entry ?? []) {
    for (const c of e.changes ?? []) {
      for (const m of c.value?.messages ?? []) out.messages.push({ id: m.id, type: m.type, from: m.from });
      for (const s of c.value?.statuses ?? []) out.statuses.push({ id: s.id, status: s.status });
    }
  }
  return out;
}
