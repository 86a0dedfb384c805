// The WhatsApp fake (whatsapp.mjs) against a WhatsApp Cloud API client library, @kapso/whatsapp-cloud-api
// (node --test; ctest fakes.whatsapp). Meta publishes no official Node SDK for the Cloud API any more (its
// WhatsApp-Nodejs-SDK is archived), so the fake is proven with this maintained client: its WhatsAppClient
// (messages, media) pointed at the fake with `baseUrl`, and its webhook helpers (verifySignature,
// normalizeWebhook) in a callback server the fake delivers to.
//
// Each test spawns its own fake as a process. The checks look at what the client sees (results,
// GraphApiError with Meta's codes and the library's retry hints) and at what the fake recorded (its journal and
// a user's chat as they would see it).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import http from "node:http";
import { test } from "node:test";

import { DEFAULT_ACCESS_TOKEN, DEFAULT_APP_SECRET, DEFAULT_VERIFY_TOKEN, IDS } from "./whatsapp.mjs";
import { eventually, sdk, startFake } from "./harness.mjs";

const { GraphApiError, WhatsAppClient } = sdk("@kapso/whatsapp-cloud-api");
const { normalizeWebhook, verifySignature } = sdk("@kapso/whatsapp-cloud-api/server");

const sha256 = (b) => createHash("sha256").update(b).digest("hex");
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201e221bc330000000049454e44ae426082",
  "hex",
);
const OGG = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(60, 1)]);
const phoneNumberId = IDS.phoneNumberId;

async function withFake(fn, args) {
  const fake = await startFake("whatsapp.mjs", args);
  const stops = [];
  try {
    await fn(fake, stops);
  } catch (e) {
    e.message += `\n--- fake journal ---\n${fake.journalTail(40)}`;
    throw e;
  } finally {
    for (const stop of stops.reverse()) await stop();
    await fake.stop();
  }
}

const client = (fake, token = DEFAULT_ACCESS_TOKEN) => new WhatsAppClient({ accessToken: token, baseUrl: fake.base });
const userSays = (fake, spec) => fake.admin("POST", "/_fake/messages", { from: IDS.alice, ...spec });
const chat = async (fake, waId = IDS.alice) => (await fake.admin("GET", `/_fake/users/${waId}`)).user;

// A callback server as an app runs one: the GET handshake answered with the challenge when the verify token
// matches, each POST's signature checked over the raw bytes with verifySignature, then normalizeWebhook.
// `answer(n)` gives the status for the n-th POST (1-based).
async function callbackServer(stops, { answer = () => 200 } = {}) {
  const seen = { posts: [], verified: [], rejected: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (req.method === "GET") {
      const ok = url.searchParams.get("hub.mode") === "subscribe" &&
        url.searchParams.get("hub.verify_token") === DEFAULT_VERIFY_TOKEN;
      seen.verified.push(ok);
      res.writeHead(ok ? 200 : 403).end(ok ? url.searchParams.get("hub.challenge") : "");
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      if (!verifySignature({ appSecret: DEFAULT_APP_SECRET, rawBody: raw, signatureHeader: req.headers["x-hub-signature-256"] })) {
        seen.rejected += 1;
        res.writeHead(401).end();
        return;
      }
      const n = seen.posts.length + 1;
      seen.posts.push({ raw, normalized: normalizeWebhook(JSON.parse(raw.toString("utf8"))) });
      res.writeHead(answer(n)).end();
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  stops.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${server.address().port}/whatsapp`, seen };
}

test("text: sent by the client, with preview_url and a reply context; a wamid back", async () => {
  await withFake(async (fake) => {
    const wa = client(fake);
    const { message } = await userSays(fake, { text: "hello" });
    const sent = await wa.messages.sendText({ phoneNumberId, to: `+${IDS.alice}`, body: "see https://example.org",
      previewUrl: true, contextMessageId: message.id });
    assert.equal(sent.messagingProduct, "whatsapp");
    assert.equal(sent.contacts[0].waId, IDS.alice);
    assert.match(sent.messages[0].id, /^wamid\./);
    const c = await chat(fake);
    const out = c.messages.at(-1);
    assert.equal(out.direction, "out");
    assert.deepEqual(out.text, { body: "see https://example.org", preview_url: true });
    assert.equal(out.context.message_id, message.id);
    const [call] = await fake.journal({ route: "POST messages" });
    assert.equal(call.status, 200);
    assert.equal(call.params.recipient_type, "individual");
  });
});

test("text over 4096 characters, an unknown reply context, a wrong token: Graph errors as Meta sends them", async () => {
  await withFake(async (fake) => {
    const wa = client(fake);
    await userSays(fake, { text: "hi" });
    await assert.rejects(wa.messages.sendText({ phoneNumberId, to: IDS.alice, body: "x".repeat(4097) }), (e) => {
      assert.ok(e instanceof GraphApiError);
      assert.equal(e.httpStatus, 400);
      assert.equal(e.code, 100);
      assert.match(e.message, /at most 4096 characters/);
      assert.match(e.fbtraceId, /^A/);
      return true;
    });
    // 4096 emoji (astral characters: 8192 UTF-16 units) are 4096 characters: accepted.
    await wa.messages.sendText({ phoneNumberId, to: IDS.alice, body: "🙂".repeat(4096) });
    await assert.rejects(wa.messages.sendText({ phoneNumberId, to: IDS.alice, body: "x", contextMessageId: "wamid.nope" }),
      (e) => e.code === 131009);
    await assert.rejects(client(fake, "EAAwrong").messages.sendText({ phoneNumberId, to: IDS.alice, body: "x" }), (e) => {
      assert.equal(e.httpStatus, 401);
      assert.equal(e.code, 190);
      assert.equal(e.retry.action, "refresh_token");
      return true;
    });
  });
});

test("reaction: any single emoji on a message of the chat; two emoji refused; empty removes", async () => {
  await withFake(async (fake) => {
    const wa = client(fake);
    const { message } = await userSays(fake, { text: "react to me" });
    await wa.messages.sendReaction({ phoneNumberId, to: IDS.alice, reaction: { messageId: message.id, emoji: "🎉" } });
    let c = await chat(fake);
    assert.equal(c.messages[0].reaction, "🎉");
    // The library caps `emoji` at 2 UTF-16 units (its own schema, not WhatsApp's rule): a ZWJ sequence with a
    // skin tone goes as a raw payload, and replaces the business's earlier reaction.
    const raw = (emoji) => wa.messages.sendRaw({ phoneNumberId, payload: { messaging_product: "whatsapp", to: IDS.alice,
      type: "reaction", reaction: { message_id: message.id, emoji } } });
    await raw("🧑🏽‍🚀");
    c = await chat(fake);
    assert.equal(c.messages[0].reaction, "🧑🏽‍🚀");
    await assert.rejects(raw("👍👍"), (e) => e.code === 131009 && /single emoji/.test(e.details));
    await assert.rejects(raw("ok"), (e) => e.code === 131009);
    await raw("");
    c = await chat(fake);
    assert.equal(c.messages[0].reaction, undefined);
  });
});

test("media: uploaded by the client, sent by id (image, voice note, document); a user's media downloaded", async () => {
  await withFake(async (fake) => {
    const wa = client(fake);
    await userSays(fake, { text: "send files" });
    const img = await wa.media.upload({ phoneNumberId, type: "image/png", file: PNG, fileName: "dot.png" });
    assert.match(img.id, /^\d{16,}$/);
    const voice = await wa.media.upload({ phoneNumberId, type: "audio/ogg", file: OGG, fileName: "note.ogg" });
    const doc = await wa.media.upload({ phoneNumberId, type: "text/plain", file: Buffer.from("report\n"), fileName: "r.txt" });
    await wa.messages.sendImage({ phoneNumberId, to: IDS.alice, image: { id: img.id, caption: "a dot" } });
    await wa.messages.sendAudio({ phoneNumberId, to: IDS.alice, audio: { id: voice.id, voice: true } });
    await wa.messages.sendDocument({ phoneNumberId, to: IDS.alice, document: { id: doc.id, filename: "report.txt" } });
    const out = (await chat(fake)).messages.filter((m) => m.direction === "out");
    assert.deepEqual(out.map((m) => m.type), ["image", "audio", "document"]);
    assert.equal(out[0].image.sha256, sha256(PNG));
    assert.equal(out[0].image.caption, "a dot");
    assert.equal(out[1].audio.voice, true);
    assert.equal(out[2].document.filename, "report.txt");
    // A PNG is no audio; an unsupported type is refused at upload.
    await assert.rejects(wa.messages.sendAudio({ phoneNumberId, to: IDS.alice, audio: { id: img.id } }), (e) => e.code === 131053);
    await assert.rejects(wa.media.upload({ phoneNumberId, type: "application/x-msdownload", file: PNG }), (e) => e.code === 131053);

    // The user's photo: the webhook names a media id; GET /{media-id} gives a short-lived URL, fetched with the token.
    const { message } = await userSays(fake, { image: { name: "cat.png", data_base64: PNG.toString("base64"), caption: "cat" } });
    const info = await wa.media.get({ mediaId: message.image.id });
    assert.equal(info.mimeType, "image/png");
    assert.equal(info.sha256, sha256(PNG));
    assert.equal(info.fileSize, String(PNG.length));
    const bytes = Buffer.from(await wa.media.download({ mediaId: message.image.id, auth: "always" }));
    assert.equal(sha256(bytes), sha256(PNG));
    // Without the token the URL gives nothing (the library's default for a non-Kapso host sends none).
    const res = await wa.media.download({ mediaId: message.image.id, as: "response" });
    assert.equal(res.status, 401);
    const downloads = await fake.journal({ kind: "download" });
    assert.deepEqual(downloads.map((d) => d.status), [200, 401]);
  });
});

test("429 with Retry-After and 130429, 131056, 131047 outside the 24-hour window: the library's retry hints", async () => {
  await withFake(async (fake) => {
    const wa = client(fake);
    await userSays(fake, { text: "hi" });
    await fake.admin("POST", "/_fake/faults", { match: "POST messages", kind: "rate_limit", retry_after: 7 });
    await assert.rejects(wa.messages.sendText({ phoneNumberId, to: IDS.alice, body: "1" }), (e) => {
      assert.equal(e.httpStatus, 429);
      assert.equal(e.code, 4);
      assert.equal(e.isRateLimit(), true);
      assert.deepEqual(e.retry, { action: "retry_after", retryAfterMs: 7000 });
      return true;
    });
    await fake.admin("POST", "/_fake/faults", { match: "POST messages", kind: "status", status: 400, code: 130429 });
    await assert.rejects(wa.messages.sendText({ phoneNumberId, to: IDS.alice, body: "2" }),
      (e) => e.code === 130429 && e.category === "throttling" && e.retry.action === "retry_after");
    await fake.admin("POST", "/_fake/faults", { match: "POST messages", kind: "status", status: 400, code: 131056 });
    await assert.rejects(wa.messages.sendText({ phoneNumberId, to: IDS.alice, body: "3" }),
      (e) => e.code === 131056 && e.category === "throttling");
    // None of the refused sends reached the chat.
    assert.equal((await chat(fake)).messages.filter((m) => m.direction === "out").length, 0);

    await fake.admin("POST", `/_fake/users/${IDS.alice}/window`, { open: false });
    await assert.rejects(wa.messages.sendText({ phoneNumberId, to: IDS.alice, body: "late" }), (e) => {
      assert.equal(e.code, 131047);
      assert.equal(e.errorSubcode, 2494010);
      assert.equal(e.category, "reengagementWindow");
      assert.equal(e.retry.action, "do_not_retry");
      assert.match(e.details, /24 hours/);
      return true;
    });
    // A reaction is free-form too; a template is what may open a conversation.
    await wa.messages.sendTemplate({ phoneNumberId, to: IDS.alice, template: { name: "hello_world", language: { code: "en_US" } } });
  });
});

test("a send that goes through and then times out is in the chat once; a 5xx is not", async () => {
  await withFake(async (fake) => {
    await userSays(fake, { text: "hi" });
    await fake.admin("POST", "/_fake/faults", { match: "POST messages", kind: "timeout", delay_ms: 5000 });
    const aborted = new WhatsAppClient({ accessToken: DEFAULT_ACCESS_TOKEN, baseUrl: fake.base,
      fetch: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(300) }) });
    await assert.rejects(aborted.messages.sendText({ phoneNumberId, to: IDS.alice, body: "in doubt" }), /abort|timeout/i);
    await fake.admin("POST", "/_fake/faults", { match: "POST messages", kind: "status", status: 503, code: 131016 });
    await assert.rejects(client(fake).messages.sendText({ phoneNumberId, to: IDS.alice, body: "not sent" }),
      (e) => e.httpStatus === 503 && e.retry.action === "retry");
    const out = (await chat(fake)).messages.filter((m) => m.direction === "out");
    assert.deepEqual(out.map((m) => m.text.body), ["in doubt"]);
  });
});

test("mark read with the typing indicator", async () => {
  await withFake(async (fake) => {
    const wa = client(fake);
    const { message } = await userSays(fake, { text: "are you there?" });
    const r = await wa.messages.markRead({ phoneNumberId, messageId: message.id, typingIndicator: { type: "text" } });
    assert.equal(r.success, true);
    const c = await chat(fake);
    assert.equal(c.typing, 1);
    assert.deepEqual(c.reads, [message.id]);
    await assert.rejects(wa.messages.markRead({ phoneNumberId, messageId: "wamid.unknown" }), (e) => e.code === 131009);
  });
});

test("webhook: verified by the GET handshake, deliveries signed (verifySignature), retried until a 200", async () => {
  await withFake(async (fake, stops) => {
    // The callback answers 500 to its first POST: Meta keeps the payload and posts the same bytes again.
    const cb = await callbackServer(stops, { answer: (n) => (n === 1 ? 500 : 200) });
    const wrong = await fake.admin("POST", "/_fake/webhook", { url: cb.url, verify_token: "not-the-token" });
    assert.equal(wrong.ok, false);
    assert.equal(wrong.status, 403);
    const v = await fake.admin("POST", "/_fake/webhook", { url: cb.url, verify_token: DEFAULT_VERIFY_TOKEN });
    assert.equal(v.ok, true);
    assert.deepEqual(cb.seen.verified, [false, true]);
    await fake.admin("POST", "/_fake/config", { webhook_retry_ms: 50 });

    const { message } = await userSays(fake, { text: "hello bot" });
    await eventually(() => cb.seen.posts.length >= 2, 5000, "the retried delivery");
    assert.deepEqual(cb.seen.posts[0].raw, cb.seen.posts[1].raw);
    const n = cb.seen.posts[1].normalized;
    assert.equal(n.object, "whatsapp_business_account");
    assert.equal(n.phoneNumberId, IDS.phoneNumberId);
    assert.equal(n.messages[0].id, message.id);
    assert.equal(n.messages[0].from, IDS.alice);
    assert.equal(n.messages[0].text.body, "hello bot");
    assert.equal(n.contacts[0].waId, IDS.alice);
    const attempts = (await fake.journal({ kind: "webhook" })).map((e) => e.status);
    assert.deepEqual(attempts, [500, 200]);

    // Hand-made posts: wrong, missing, or a body changed by one byte after signing: all refused by the library.
    for (const spec of [{ signature: "wrong" }, { signature: "missing" }, { tamper: true }]) {
      const r = await fake.admin("POST", "/_fake/webhook/post", { delivery_id: 1, ...spec });
      assert.equal(r.status, 401, JSON.stringify(spec));
    }
    assert.equal(cb.seen.rejected, 3);
    assert.equal(cb.seen.posts.length, 2);
  });
});

test("webhook: a voice note, a document, a reaction; statuses out of order and a failed one", async () => {
  await withFake(async (fake, stops) => {
    const cb = await callbackServer(stops);
    await fake.admin("POST", "/_fake/webhook", { url: cb.url, verify_token: DEFAULT_VERIFY_TOKEN });
    await fake.admin("POST", "/_fake/config", { statuses: { out_of_order: true, read: true } });
    const wa = client(fake);
    const voice = await userSays(fake, { audio: { name: "v.ogg", data_base64: OGG.toString("base64"), voice: true } });
    await userSays(fake, { document: { name: "notes.pdf", data_base64: Buffer.from("%PDF-1.4\n").toString("base64"),
      caption: "my notes" } });
    const sent = await wa.messages.sendText({ phoneNumberId, to: IDS.alice, body: "got them" });
    await userSays(fake, { reaction: { message_id: sent.messages[0].id, emoji: "❤️" } });
    await wa.messages.sendText({ phoneNumberId, to: IDS.nobody, body: "anyone?" });
    await eventually(() => cb.seen.posts.length >= 7, 5000, "7 deliveries");
    const all = cb.seen.posts.map((p) => p.normalized);
    const messages = all.flatMap((n) => n.messages);
    assert.deepEqual(messages.map((m) => m.type), ["audio", "document", "reaction"]);
    assert.equal(messages[0].audio.voice, true);
    assert.equal(messages[0].audio.id, voice.message.audio.id);
    assert.equal(messages[1].document.filename, "notes.pdf");
    assert.equal(messages[1].document.caption, "my notes");
    assert.equal(messages[2].reaction.messageId, sent.messages[0].id);
    const statuses = all.flatMap((n) => n.statuses);
    assert.deepEqual(statuses.filter((s) => s.id === sent.messages[0].id).map((s) => s.status), ["read", "delivered", "sent"]);
    const failed = statuses.find((s) => s.status === "failed");
    assert.equal(failed.recipientId, IDS.nobody);
    assert.equal(failed.errors[0].code, 131026);
  });
});
