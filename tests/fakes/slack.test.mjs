// The Slack fake (slack.mjs) against Slack's official clients (node --test; ctest fakes.slack): a Bolt app
// (@slack/bolt) in Socket Mode (@slack/socket-mode) and the Web API client (@slack/web-api).
//
// Each test spawns its own fake as a process and points the clients at it with `slackApiUrl`; the Socket Mode
// client finds its WebSocket URL itself through apps.connections.open, as it does with Slack. The checks look
// at what the clients see (listener calls, results, WebAPIPlatformError) and at what the fake recorded (its
// journal of API calls and socket frames, its envelopes, and its channels as a user would see them).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";

import { DEFAULT_APP_TOKEN, DEFAULT_BOT_TOKEN, IDS } from "./slack.mjs";
import { eventually, sdk, startFake } from "./harness.mjs";

const { App, LogLevel, SocketModeReceiver } = sdk("@slack/bolt");
const { SocketModeClient } = sdk("@slack/socket-mode");
const { ErrorCode, WebClient } = sdk("@slack/web-api");
const WebSocket = sdk("ws");

const sha256 = (b) => createHash("sha256").update(b).digest("hex");
const FAST_RETRY = { retries: 3, factor: 1, minTimeout: 10, maxTimeout: 20 };
const NO_RETRY = { retries: 0 };
const quiet = LogLevel.ERROR;

async function withFake(fn) {
  const fake = await startFake("slack.mjs");
  const stops = [];
  try {
    await fn(fake, stops);
  } catch (e) {
    e.message += `\n--- fake journal ---\n${fake.journalTail(60)}`;
    throw e;
  } finally {
    for (const stop of stops.reverse()) await stop();
    await fake.stop();
  }
}

const apiUrl = (fake) => `${fake.base}/api/`;
const web = (fake, options = {}) =>
  new WebClient(DEFAULT_BOT_TOKEN, { slackApiUrl: apiUrl(fake), logLevel: quiet, retryConfig: NO_RETRY, ...options });

// A started Bolt app in Socket Mode (hello seen), with a 500 ms client ping timeout so a reconnect waits 500 ms.
async function boltApp(fake, stops, setup) {
  const clientOptions = { slackApiUrl: apiUrl(fake), retryConfig: FAST_RETRY };
  const receiver = new SocketModeReceiver({ appToken: DEFAULT_APP_TOKEN, logLevel: quiet, clientPingTimeout: 500,
    installerOptions: { clientOptions } });
  const app = new App({ token: DEFAULT_BOT_TOKEN, receiver, logLevel: quiet, clientOptions });
  setup(app);
  await app.start();
  stops.push(() => app.stop());
  return { app, receiver };
}

// A raw Socket Mode client that records every events_api envelope and acks only when `ackIf(args)` says so.
async function socketClient(fake, stops, ackIf = () => true) {
  const client = new SocketModeClient({ appToken: DEFAULT_APP_TOKEN, logLevel: quiet, clientPingTimeout: 500,
    clientOptions: { slackApiUrl: apiUrl(fake), retryConfig: FAST_RETRY } });
  client.received = [];
  client.on("slack_event", async (args) => {
    client.received.push(args);
    if (ackIf(args)) await args.ack();
  });
  await client.start();
  stops.push(() => client.disconnect());
  return client;
}

async function channelState(fake, id) {
  return (await fake.admin("GET", `/_fake/channels/${id}`)).channel;
}

async function userSays(fake, text, extra = {}) {
  return fake.admin("POST", "/_fake/messages", { text, ...extra });
}

async function envelopes(fake) {
  return (await fake.admin("GET", "/_fake/socket/envelopes")).envelopes;
}

test("Bolt starts in Socket Mode: apps.connections.open with the app token, the URL it names, hello", () =>
  withFake(async (fake, stops) => {
    await boltApp(fake, stops, () => {});
    const journal = await fake.journal();
    const open = journal.find((e) => e.route === "apps.connections.open");
    assert.equal(open.token_kind, "app");
    assert.equal(open.status, 200);
    assert.match(open.response.url, /^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=[0-9a-f-]+&app_id=A0SIGIL0001$/);
    const out = journal.filter((e) => e.kind === "socket" && e.direction === "out");
    assert.equal(out[0].type, "hello");
    // The URL was single-use: connecting with it again is refused.
    const again = new WebSocket(open.response.url);
    const err = await new Promise((resolve) => {
      again.on("unexpected-response", (_req, res) => resolve(res.statusCode));
      again.on("open", () => resolve("open"));
    });
    assert.equal(err, 401);
  }));

test("a DM in: Bolt's listener gets it once, acks it, say()s and reacts; its own message is an event it ignores", () =>
  withFake(async (fake, stops) => {
    const seen = [];
    await boltApp(fake, stops, (app) => {
      app.message(async ({ message, say, client }) => {
        seen.push(message);
        await say(`you said _${message.text}_`);
        await client.reactions.add({ channel: message.channel, timestamp: message.ts, name: "eyes" });
      });
    });
    const { message } = await userSays(fake, "hello bot", { channel: IDS.aliceDm });
    await eventually(async () => (await channelState(fake, IDS.aliceDm)).messages.length === 2, 5000, "the answer");
    const state = await channelState(fake, IDS.aliceDm);
    assert.equal(state.messages[0].ts, message.ts);
    assert.deepEqual(state.messages[0].reactions, [{ name: "eyes", users: [IDS.botUser], count: 1 }]);
    assert.equal(state.messages[1].text, "you said _hello bot_");
    assert.equal(state.messages[1].bot_id, IDS.bot);
    // Two envelopes (the user's message, then the bot's own), both acked on their first attempt; the
    // listener saw only the user's.
    await eventually(async () => (await envelopes(fake)).every((e) => e.state === "acked"), 5000, "all acked");
    const envs = await envelopes(fake);
    assert.equal(envs.length, 2);
    assert.deepEqual(envs.map((e) => e.acked_attempt), [0, 0]);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].channel_type, "im");
    assert.equal(seen[0].user, IDS.alice);
    const post = (await fake.journal({ route: "chat.postMessage" }))[0];
    assert.equal(post.token_kind, "bot");
    assert.equal(post.params.channel, IDS.aliceDm);
  }));

test("a mention in a channel: app_mention (not message: the app subscribes to message.im only), answered in its thread", () =>
  withFake(async (fake, stops) => {
    const mentions = [];
    const messages = [];
    await boltApp(fake, stops, (app) => {
      app.message(async ({ message }) => messages.push(message));
      app.event("app_mention", async ({ event, say }) => {
        mentions.push(event);
        await say({ text: "*on it*", thread_ts: event.ts });
      });
    });
    await userSays(fake, "no mention here");
    const { message } = await userSays(fake, `<@${IDS.botUser}> what time is it?`);
    await eventually(async () => (await channelState(fake, IDS.general)).messages.length === 3, 5000, "the answer");
    const state = await channelState(fake, IDS.general);
    assert.equal(state.messages[2].thread_ts, message.ts);
    assert.equal(state.messages[2].text, "*on it*");
    assert.equal(mentions.length, 1);
    assert.equal(mentions[0].text, `<@${IDS.botUser}> what time is it?`);
    assert.equal(messages.length, 0);
    // With message.channels subscribed, the same mention is also a `message` event (another event_id).
    await fake.admin("POST", "/_fake/config", { subscriptions: ["app_mention", "message.im", "message.channels"] });
    await userSays(fake, `<@${IDS.botUser}> again`);
    await eventually(() => mentions.length === 2 && messages.length === 1, 5000, "both events");
    const envs = await envelopes(fake);
    assert.deepEqual(envs.slice(-2).map((e) => e.event_type).sort(), ["app_mention", "message"]);
    assert.equal(new Set(envs.map((e) => e.event_id)).size, envs.length, "every event has its own event_id");
  }));

test("reactions.add: names without colons, skin tones, custom emoji; invalid_name and already_reacted", () =>
  withFake(async (fake) => {
    const client = web(fake);
    const { message } = await userSays(fake, "react to me");
    const args = { channel: IDS.general, timestamp: message.ts };
    await client.reactions.add({ ...args, name: "thumbsup" });
    await client.reactions.add({ ...args, name: "+1::skin-tone-3" });
    await assert.rejects(client.reactions.add({ ...args, name: ":tada:" }), (e) =>
      e.code === ErrorCode.PlatformError && e.data.error === "invalid_name");
    await assert.rejects(client.reactions.add({ ...args, name: "sigil_logo" }), (e) => e.data.error === "invalid_name");
    await fake.admin("POST", "/_fake/emoji", { name: "sigil_logo" });
    await client.reactions.add({ ...args, name: "sigil_logo" });
    await assert.rejects(client.reactions.add({ ...args, name: "thumbsup" }), (e) => e.data.error === "already_reacted");
    await assert.rejects(client.reactions.add({ ...args, timestamp: "1.000001", name: "eyes" }), (e) =>
      e.data.error === "message_not_found");
    const state = await channelState(fake, IDS.general);
    assert.deepEqual(state.messages[0].reactions.map((r) => r.name), ["thumbsup", "+1::skin-tone-3", "sigil_logo"]);
  }));

test("chat.update, chat.delete, conversations.info and users.info as the Web API client calls them", () =>
  withFake(async (fake) => {
    const client = web(fake);
    const { ts } = await client.chat.postMessage({ channel: IDS.general, text: "draft" });
    const updated = await client.chat.update({ channel: IDS.general, ts, text: "final" });
    assert.equal(updated.text, "final");
    let state = await channelState(fake, IDS.general);
    assert.equal(state.messages[0].text, "final");
    assert.equal(state.messages[0].edits, 1);
    const { message } = await userSays(fake, "not yours");
    await assert.rejects(client.chat.update({ channel: IDS.general, ts: message.ts, text: "x" }), (e) =>
      e.data.error === "cant_update_message");
    await assert.rejects(client.chat.delete({ channel: IDS.general, ts: message.ts }), (e) =>
      e.data.error === "cant_delete_message");
    await client.chat.delete({ channel: IDS.general, ts });
    await assert.rejects(client.chat.delete({ channel: IDS.general, ts }), (e) => e.data.error === "message_not_found");
    state = await channelState(fake, IDS.general);
    assert.deepEqual(state.messages.map((m) => m.text), ["not yours"]);
    const info = await client.conversations.info({ channel: IDS.aliceDm });
    assert.equal(info.channel.is_im, true);
    assert.equal(info.channel.user, IDS.alice);
    assert.equal((await client.conversations.info({ channel: IDS.random })).channel.is_member, false);
    const user = await client.users.info({ user: IDS.alice });
    assert.equal(user.user.real_name, "Alice");
    await assert.rejects(client.users.info({ user: "U0NOSUCH001" }), (e) => e.data.error === "user_not_found");
  }));

test("filesUploadV2: getUploadURLExternal, the bytes to upload_url, completeUploadExternal into a thread", () =>
  withFake(async (fake) => {
    const client = web(fake);
    const { message } = await userSays(fake, "send me the report", { channel: IDS.aliceDm });
    const bytes = Buffer.from("%PDF-1.4\nfake report\n%%EOF\n");
    const result = await client.filesUploadV2({ channel_id: IDS.aliceDm, thread_ts: message.ts, file: bytes,
      filename: "report.pdf", title: "The report", initial_comment: "here it is" });
    assert.equal(result.ok, true);
    const fileId = result.files[0].files[0].id;
    const journal = await fake.journal();
    const routes = journal.filter((e) => e.kind === "api" || e.kind === "upload").map((e) => e.route);
    assert.deepEqual(routes, ["files.getUploadURLExternal", "upload", "files.completeUploadExternal"]);
    const get = journal.find((e) => e.route === "files.getUploadURLExternal");
    assert.equal(get.params.filename, "report.pdf");
    assert.equal(Number(get.params.length), bytes.length);
    const upload = journal.find((e) => e.route === "upload");
    assert.equal(upload.sha256, sha256(bytes));
    assert.equal(upload.length_mismatch, undefined);
    const state = await channelState(fake, IDS.aliceDm);
    const shared = state.messages[1];
    assert.equal(shared.thread_ts, message.ts);
    assert.equal(shared.text, "here it is");
    assert.equal(shared.files[0].id, fileId);
    assert.equal(shared.files[0].title, "The report");
    assert.equal(shared.files[0].mimetype, "application/pdf");
    assert.equal(shared.files[0].sha256, sha256(bytes));
    // url_private: the bytes with the bot token; Slack's sign-in page without it.
    const withToken = await fetch(shared.files[0].url_private, { headers: { Authorization: `Bearer ${DEFAULT_BOT_TOKEN}` } });
    assert.equal(sha256(Buffer.from(await withToken.arrayBuffer())), sha256(bytes));
    const without = await fetch(shared.files[0].url_private);
    assert.equal(without.status, 200);
    assert.match(without.headers.get("content-type"), /text\/html/);
    // A file id completed twice is refused.
    await assert.rejects(client.files.completeUploadExternal({ files: [{ id: fileId }], channel_id: IDS.aliceDm }),
      (e) => e.data.error === "file_not_found");
  }));

test("a user's file: the message event carries files with url_private, downloadable with the bot token", () =>
  withFake(async (fake, stops) => {
    const client = await socketClient(fake, stops);
    const data = Buffer.from("OggS fake voice note");
    await userSays(fake, "", { channel: IDS.aliceDm, files: [{ name: "voice.ogg", data_base64: data.toString("base64") }] });
    await eventually(() => client.received.length === 1, 5000, "the event");
    const event = client.received[0].body.event;
    assert.equal(event.subtype, "file_share");
    assert.equal(event.files[0].mimetype, "audio/ogg");
    const res = await fetch(event.files[0].url_private_download, { headers: { Authorization: `Bearer ${DEFAULT_BOT_TOKEN}` } });
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), data);
  }));

test("429 with Retry-After: the Web API client waits and sends again; one message is posted", () =>
  withFake(async (fake) => {
    const client = web(fake, { retryConfig: FAST_RETRY });
    await fake.admin("POST", "/_fake/faults", { match: "chat.postMessage", kind: "rate_limit", retry_after: 1 });
    const limited = [];
    client.on("rate_limited", (sec) => limited.push(sec));
    const t0 = Date.now();
    const res = await client.chat.postMessage({ channel: IDS.general, text: "after the wait" });
    assert.ok(Date.now() - t0 >= 1000, "waited the Retry-After second");
    assert.deepEqual(limited, [1]);
    const posts = await fake.journal({ route: "chat.postMessage" });
    assert.deepEqual(posts.map((e) => e.status), [429, 200]);
    assert.equal(posts[0].response.error, "ratelimited");
    const state = await channelState(fake, IDS.general);
    assert.deepEqual(state.messages.map((m) => m.ts), [res.ts]);
  }));

test("chat.postMessage's own rate: a burst per channel, then 429 with Retry-After", () =>
  withFake(async (fake) => {
    await fake.admin("POST", "/_fake/config", { post_rate: { per_second: 1, burst: 2 } });
    const client = web(fake, { rejectRateLimitedCalls: true });
    await client.chat.postMessage({ channel: IDS.general, text: "1" });
    await client.chat.postMessage({ channel: IDS.general, text: "2" });
    await assert.rejects(client.chat.postMessage({ channel: IDS.general, text: "3" }), (e) =>
      e.code === ErrorCode.RateLimitedError && e.retryAfter === 1);
    // Another channel has its own bucket.
    await client.chat.postMessage({ channel: IDS.aliceDm, text: "elsewhere" });
  }));

test("errors as Slack answers them: HTTP 200 with ok:false, and HTTP errors for 5xx and unknown methods", () =>
  withFake(async (fake) => {
    const client = web(fake);
    const platform = (code) => (e) => e.code === ErrorCode.PlatformError && e.data.error === code;
    await assert.rejects(client.chat.postMessage({ channel: "C0NOSUCH001", text: "x" }), platform("channel_not_found"));
    await assert.rejects(client.chat.postMessage({ channel: IDS.random, text: "x" }), platform("not_in_channel"));
    await assert.rejects(client.chat.postMessage({ channel: IDS.general, text: "" }), platform("no_text"));
    await assert.rejects(client.chat.postMessage({ channel: IDS.general, text: "x".repeat(40_001) }), platform("msg_too_long"));
    await assert.rejects(web(fake, { retryConfig: NO_RETRY }).apiCall("chat.postMessage", { token: "xoxb-wrong", channel: IDS.general, text: "x" }),
      platform("invalid_auth"));
    await assert.rejects(new WebClient(DEFAULT_APP_TOKEN, { slackApiUrl: apiUrl(fake), logLevel: quiet, retryConfig: NO_RETRY })
      .chat.postMessage({ channel: IDS.general, text: "x" }), platform("not_allowed_token_type"));
    await assert.rejects(client.apiCall("chat.noSuchMethod", {}), (e) => e.code === ErrorCode.HTTPError && e.statusCode === 404);
    await fake.admin("POST", "/_fake/faults", { match: "chat.postMessage", kind: "status", status: 503 });
    await assert.rejects(client.chat.postMessage({ channel: IDS.general, text: "x" }), (e) =>
      e.code === ErrorCode.HTTPError && e.statusCode === 503);
    // With retries, a 5xx is sent again and goes through once.
    await fake.admin("POST", "/_fake/faults", { match: "chat.postMessage", kind: "status", status: 500 });
    await web(fake, { retryConfig: FAST_RETRY }).chat.postMessage({ channel: IDS.general, text: "second try" });
    assert.deepEqual((await channelState(fake, IDS.general)).messages.map((m) => m.text), ["second try"]);
    // A JSON body (Content-Type: application/json) works as well as a form.
    const res = await fetch(`${apiUrl(fake)}chat.postMessage`, { method: "POST",
      headers: { Authorization: `Bearer ${DEFAULT_BOT_TOKEN}`, "Content-Type": "application/json; charset=utf-8" },
      body: JSON.stringify({ channel: IDS.general, text: "as JSON" }) });
    assert.equal((await res.json()).ok, true);
  }));

test("a send that goes through and then times out: the client sees a failure, the channel has the message once", () =>
  withFake(async (fake) => {
    await fake.admin("POST", "/_fake/faults", { match: "chat.postMessage", kind: "timeout" });
    const client = web(fake, { timeout: 300 });
    await assert.rejects(client.chat.postMessage({ channel: IDS.general, text: "in doubt" }), (e) =>
      e.code === ErrorCode.RequestError);
    assert.deepEqual((await channelState(fake, IDS.general)).messages.map((m) => m.text), ["in doubt"]);
    await fake.admin("POST", "/_fake/faults", { match: "chat.postMessage", kind: "drop" });
    await assert.rejects(client.chat.postMessage({ channel: IDS.general, text: "dropped" }), (e) =>
      e.code === ErrorCode.RequestError);
    assert.deepEqual((await channelState(fake, IDS.general)).messages.map((m) => m.text), ["in doubt"]);
  }));

test("@slack/web-api repeats a POST after its own time-out: with retries on, a send that went through is posted twice", () =>
  withFake(async (fake) => {
    await fake.admin("POST", "/_fake/faults", { match: "chat.postMessage", kind: "timeout" });
    const client = web(fake, { timeout: 300, retryConfig: FAST_RETRY });
    await client.chat.postMessage({ channel: IDS.general, text: "said once" });
    // What a user sees: the same text twice (why sigil never resends a send in doubt blindly).
    assert.deepEqual((await channelState(fake, IDS.general)).messages.map((m) => m.text), ["said once", "said once"]);
  }));

test("an envelope not acked in time is sent again with retry_attempt 1 and the same event_id", () =>
  withFake(async (fake, stops) => {
    await fake.admin("POST", "/_fake/config", { ack_timeout_ms: 300 });
    const client = await socketClient(fake, stops, (args) => args.retry_num >= 1);
    await userSays(fake, "ack me late", { channel: IDS.aliceDm });
    await eventually(() => client.received.length === 2, 5000, "the redelivery");
    const [first, second] = client.received;
    assert.equal(first.retry_num, 0);
    assert.equal(second.retry_num, 1);
    assert.equal(second.retry_reason, "timeout");
    assert.equal(second.body.event_id, first.body.event_id);
    await eventually(async () => (await envelopes(fake))[0].state === "acked", 2000, "acked");
    assert.equal((await envelopes(fake))[0].acked_attempt, 1);
    // Acked: never sent again.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(client.received.length, 2);
  }));

test("a dropped socket: Socket Mode reconnects through apps.connections.open and gets the unacked envelope again", () =>
  withFake(async (fake, stops) => {
    await fake.admin("POST", "/_fake/config", { ack_timeout_ms: 60_000 });
    let acking = false;
    const client = await socketClient(fake, stops, () => acking);
    await userSays(fake, "in flight", { channel: IDS.aliceDm });
    await eventually(() => client.received.length === 1, 5000, "the first delivery");
    acking = true;
    await fake.admin("POST", "/_fake/socket/drop", {});
    await eventually(() => client.received.length === 2, 10_000, "the delivery on the new connection");
    assert.equal(client.received[1].retry_num, 1);
    assert.equal(client.received[1].body.event_id, client.received[0].body.event_id);
    const opens = await fake.journal({ route: "apps.connections.open" });
    assert.equal(opens.length, 2);
    await eventually(async () => (await envelopes(fake))[0].state === "acked", 2000, "acked");
  }));

test("disconnect refresh_requested: Bolt reconnects; a message sent meanwhile reaches the listener once", () =>
  withFake(async (fake, stops) => {
    const seen = [];
    await boltApp(fake, stops, (app) => app.message(async ({ message }) => seen.push(message.text)));
    await userSays(fake, "before", { channel: IDS.aliceDm });
    await eventually(() => seen.length === 1, 5000, "before");
    assert.equal((await fake.admin("POST", "/_fake/socket/disconnect", { reason: "refresh_requested" })).sent, 1);
    await userSays(fake, "during", { channel: IDS.aliceDm });
    await eventually(async () => (await fake.journal({ route: "apps.connections.open" })).length === 2, 10_000, "a new URL");
    await eventually(() => seen.length === 2, 10_000, "during");
    await userSays(fake, "after", { channel: IDS.aliceDm });
    await eventually(() => seen.length === 3, 5000, "after");
    assert.deepEqual(seen, ["before", "during", "after"]);
    const journal = await fake.journal();
    const disconnect = journal.find((e) => e.kind === "socket" && e.type === "disconnect");
    assert.ok(disconnect);
    const closes = journal.filter((e) => e.kind === "socket" && e.direction === "close");
    assert.equal(closes[0].code, 1000, "Bolt closed the old connection itself");
  }));
