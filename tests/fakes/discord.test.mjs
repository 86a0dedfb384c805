// The Discord fake (discord.mjs) against the official discord.js client (node --test; ctest fakes.discord).
//
// Each test spawns its own fake as a process with a 1 s heartbeat interval and points discord.js at it with
// `rest.api`; discord.js finds the gateway itself through GET /gateway/bot, as it does with Discord. The
// checks look at what discord.js sees (events, results, DiscordAPIError) and at what the fake recorded (its
// journal of REST calls and gateway payloads, and its channels as a user would see them).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { test } from "node:test";

import { DEFAULT_TOKEN, IDS } from "./discord.mjs";
import { eventually, sdk, startFake } from "./harness.mjs";

const { AttachmentBuilder, Client, DiscordAPIError, Events, GatewayIntentBits, MessageFlags } = sdk("discord.js");
const WebSocket = sdk("ws");

const BASE_INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.GuildMessageReactions,
  GatewayIntentBits.DirectMessages];

async function withFake(fn) {
  const fake = await startFake("discord.mjs", ["--heartbeat-ms", "1000"]);
  const clients = [];
  try {
    await fn(fake, clients);
  } catch (e) {
    e.message += `\n--- fake journal ---\n${fake.journalTail(60)}`;
    throw e;
  } finally {
    for (const c of clients) await c.destroy();
    await fake.stop();
  }
}

// A logged-in discord.js client (clientReady seen) that records every messageCreate.
async function connect(fake, clients, { intents = [...BASE_INTENTS, GatewayIntentBits.MessageContent] } = {}) {
  const client = new Client({ intents, rest: { api: `${fake.base}/api`, offset: 0 } });
  clients.push(client);
  client.received = [];
  client.on(Events.MessageCreate, (m) => client.received.push(m));
  const ready = once(client, Events.ClientReady);
  await client.login(DEFAULT_TOKEN);
  await ready;
  return client;
}

async function channelState(fake, id = IDS.general) {
  return (await fake.admin("GET", `/_fake/channels/${id}`)).channel;
}

async function userSays(fake, content, extra = {}) {
  return (await fake.admin("POST", "/_fake/messages", { content, ...extra })).message;
}

const sha256 = (b) => createHash("sha256").update(b).digest("hex");

test("login: GET /gateway/bot, then the gateway it names: HELLO, IDENTIFY, READY, GUILD_CREATE, heartbeats ACKed", () =>
  withFake(async (fake, clients) => {
    const client = await connect(fake, clients);
    assert.equal(client.user.id, IDS.bot);
    assert.equal(client.user.bot, true);
    const guild = client.guilds.cache.get(IDS.guild);
    assert.ok(guild, "the guild from GUILD_CREATE is cached");
    assert.equal(guild.channels.cache.get(IDS.general).name, "general");

    const journal = await fake.journal();
    const rest = journal.filter((e) => e.kind === "rest");
    assert.equal(rest[0].route, "GET /gateway/bot");
    const connectEntry = journal.find((e) => e.kind === "gateway" && e.direction === "connect");
    assert.equal(connectEntry.path, "/gateway");
    assert.deepEqual(connectEntry.query, { v: "10", encoding: "json" });
    const identify = journal.find((e) => e.direction === "in" && e.op === 2);
    assert.equal(identify.intents, client.options.intents.bitfield);
    const out = journal.filter((e) => e.direction === "out").map((e) => e.t ?? `op${e.op}`);
    assert.deepEqual(out.slice(0, 3), ["op10", "READY", "GUILD_CREATE"]);
    // Heartbeats at the 1 s interval the fake asked for, each ACKed.
    await fake.waitFor((es) => es.some((e) => e.direction === "in" && e.op === 1) &&
      es.some((e) => e.direction === "out" && e.op === 11), { ms: 4000 });
    await eventually(() => client.ws.ping >= 0, 4000, "discord.js measured a heartbeat round trip");
  }));

test("a wrong token: REST 401 and discord.js's TokenInvalid; on the gateway, close 4004", () =>
  withFake(async (fake, clients) => {
    const client = new Client({ intents: BASE_INTENTS, rest: { api: `${fake.base}/api` } });
    clients.push(client);
    await assert.rejects(client.login("not.the.token"), (e) => e.code === "TokenInvalid");
    const denied = (await fake.journal({ kind: "rest" })).at(-1);
    assert.equal(denied.status, 401);
    assert.deepEqual(denied.response, { message: "401: Unauthorized", code: 0 });

    const ws = new WebSocket(`ws://127.0.0.1:${fake.port}/gateway?v=10&encoding=json`);
    const hello = JSON.parse((await once(ws, "message"))[0]);
    assert.equal(hello.op, 10);
    assert.equal(hello.d.heartbeat_interval, 1000);
    ws.send(JSON.stringify({ op: 2, d: { token: "wrong", intents: 513, properties: {} } }));
    const [code, reason] = await once(ws, "close");
    assert.equal(code, 4004);
    assert.equal(String(reason), "Authentication failed.");
  }));

test("privileged intents: without MESSAGE_CONTENT guild messages arrive empty (unless they mention the bot); not allowed → 4014", () =>
  withFake(async (fake, clients) => {
    const full = await connect(fake, clients);
    const bare = await connect(fake, clients, { intents: BASE_INTENTS });
    await userSays(fake, "plain words");
    await userSays(fake, `<@${IDS.bot}> are you there?`, { author_id: IDS.bob });
    await eventually(() => full.received.length === 2 && bare.received.length === 2, 5000, "both clients got both");
    assert.deepEqual(full.received.map((m) => m.content), ["plain words", `<@${IDS.bot}> are you there?`]);
    assert.deepEqual(bare.received.map((m) => m.content), ["", `<@${IDS.bot}> are you there?`]);
    assert.equal(full.received[1].author.username, "bob");
    assert.ok(full.received[1].mentions.users.has(IDS.bot));
    assert.equal(full.received[0].guildId, IDS.guild);

    await fake.admin("POST", "/_fake/config", { privileged_intents: { message_content: false } });
    const refused = new Client({ intents: [...BASE_INTENTS, GatewayIntentBits.MessageContent],
      rest: { api: `${fake.base}/api` } });
    clients.push(refused);
    const closed = fake.waitFor((es) => es.find((e) => e.direction === "close" && e.code === 4014));
    refused.login(DEFAULT_TOKEN).catch(() => {});
    const entry = await closed;
    assert.equal(entry.reason, "Disallowed intent(s).");
  }));

test("send, reply, edit, react, typing, delete: results and the channel as a user sees it", () =>
  withFake(async (fake, clients) => {
    const client = await connect(fake, clients);
    const channel = client.channels.cache.get(IDS.general);
    await userSays(fake, "hello bot");
    await eventually(() => client.received.length === 1, 5000, "the user's message");
    const incoming = client.received[0];

    const sent = await channel.send("plain **markdown** reply");
    assert.equal(sent.content, "plain **markdown** reply");
    assert.equal(sent.author.id, IDS.bot);
    const reply = await incoming.reply("a reply");
    assert.equal(reply.reference.messageId, incoming.id);
    await sent.edit("edited text");
    await incoming.react("👍");
    await incoming.react(`sigil:${IDS.emoji}`);
    await channel.sendTyping();
    await assert.rejects(incoming.react("unknown:1234567890"), (e) => {
      assert.ok(e instanceof DiscordAPIError);
      assert.equal(e.code, 10014);
      assert.equal(e.message, "Unknown Emoji");
      return true;
    });
    await assert.rejects(incoming.edit("not mine"), (e) => e instanceof DiscordAPIError && e.code === 50005);
    const doomed = await channel.send("to be deleted");
    await doomed.delete();

    const state = await channelState(fake);
    assert.deepEqual(state.messages.map((m) => m.content), ["hello bot", "edited text", "a reply"]);
    assert.ok(state.messages[1].edited_timestamp);
    assert.deepEqual(state.messages[0].reactions.map((r) => [r.emoji.name, r.count, r.me]),
      [["👍", 1, true], ["sigil", 1, true]]);
    assert.equal(state.messages[2].message_reference.message_id, incoming.id);
    assert.deepEqual(state.deleted, [doomed.id]);
    assert.equal(state.typing.length, 1);
    // The bot sees its own messages on the gateway, as on Discord.
    await eventually(() => client.received.some((m) => m.id === sent.id), 5000, "own MESSAGE_CREATE");
    const routes = (await fake.journal({ kind: "rest" })).map((e) => e.route_template);
    assert.ok(routes.includes("PUT /channels/{channel.id}/messages/{message.id}/reactions/{emoji}/@me"));
    assert.ok(routes.includes("POST /channels/{channel.id}/typing"));
    const reaction = (await fake.journal({ kind: "rest" })).find((e) => e.route.includes("/reactions/"));
    assert.ok(reaction.route.includes(encodeURIComponent("👍")), "the emoji is URL-encoded in the path");
  }));

test("a message over 2000 code points is DiscordAPIError 50035 with Discord's error tree; 2000 astral code points pass", () =>
  withFake(async (fake, clients) => {
    const client = await connect(fake, clients);
    const channel = client.channels.cache.get(IDS.general);
    await assert.rejects(channel.send("x".repeat(2001)), (e) => {
      assert.ok(e instanceof DiscordAPIError);
      assert.equal(e.code, 50035);
      assert.equal(e.status, 400);
      assert.deepEqual(e.rawError.errors, {
        content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] },
      });
      assert.match(e.message, /content\[BASE_TYPE_MAX_LENGTH\]: Must be 2000 or fewer in length\./);
      return true;
    });
    const astral = await channel.send("😀".repeat(2000)); // 4000 UTF-16 units, 2000 code points
    assert.equal([...astral.content].length, 2000);
    await assert.rejects(channel.send({ content: "" }), (e) => e instanceof Error);
  }));

test("attachments: AttachmentBuilder uploads as multipart payload_json + files[n]; a voice message carries duration and waveform", () =>
  withFake(async (fake, clients) => {
    const client = await connect(fake, clients);
    const channel = client.channels.cache.get(IDS.general);
    const report = Buffer.from("# report\n\nall good\n");
    const sent = await channel.send({ content: "the report", files: [new AttachmentBuilder(report, { name: "report.md" })] });
    assert.equal(sent.attachments.size, 1);
    const attachment = sent.attachments.first();
    assert.equal(attachment.name, "report.md");
    assert.equal(attachment.size, report.length);
    const download = await fetch(attachment.url);
    assert.equal(sha256(Buffer.from(await download.arrayBuffer())), sha256(report));

    const ogg = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(60, 1)]);
    const voice = await channel.send({
      files: [{ attachment: ogg, name: "voice-message.ogg", contentType: "audio/ogg", duration: 2.5, waveform: "AAAA" }],
      flags: MessageFlags.IsVoiceMessage,
    });
    assert.ok(voice.flags.has(MessageFlags.IsVoiceMessage));
    assert.equal(voice.attachments.first().duration, 2.5);
    assert.equal(voice.attachments.first().waveform, "AAAA");
    // Voice messages take no text.
    await assert.rejects(
      channel.send({ content: "words", files: [{ attachment: ogg, name: "v.ogg", contentType: "audio/ogg", duration: 1,
        waveform: "AA" }], flags: MessageFlags.IsVoiceMessage }),
      (e) => e instanceof DiscordAPIError && e.code === 50159);

    const posts = (await fake.journal({ kind: "rest" })).filter((e) => e.route_template === "POST /channels/{channel.id}/messages");
    assert.deepEqual(posts[0].files.map((f) => [f.field, f.filename, f.size, f.sha256]),
      [["files[0]", "report.md", report.length, sha256(report)]]);
    assert.equal(posts[0].body.content, "the report");
    assert.deepEqual(posts[1].body.attachments[0], { id: "0", duration_secs: 2.5, waveform: "AAAA" });
    assert.equal(posts[1].body.flags, MessageFlags.IsVoiceMessage);
  }));

test("nonce + enforce_nonce: a repeated send (by the app, or by @discordjs/rest after its time-out) returns the first message", () =>
  withFake(async (fake, clients) => {
    const client = await connect(fake, clients);
    const channel = client.channels.cache.get(IDS.general);
    const first = await channel.send({ content: "once", nonce: "sigil-outbox-42", enforceNonce: true });
    const again = await channel.send({ content: "once", nonce: "sigil-outbox-42", enforceNonce: true });
    assert.equal(again.id, first.id);
    assert.equal(first.nonce, "sigil-outbox-42");
    assert.deepEqual((await channelState(fake)).messages.map((m) => m.content), ["once"]);

    // The send goes through but its answer is late: @discordjs/rest gives up after its `timeout` and sends
    // the same POST again by itself. Without a nonce that is a second message; with nonce + enforce_nonce
    // Discord hands back the first one.
    const hasty = new Client({ intents: BASE_INTENTS, rest: { api: `${fake.base}/api`, offset: 0, timeout: 300 } });
    clients.push(hasty);
    hasty.rest.setToken(DEFAULT_TOKEN);
    const route = `/channels/${IDS.general}/messages`;
    await fake.admin("POST", "/_fake/faults", { match: "POST /channels/*/messages", kind: "timeout" });
    await hasty.rest.post(route, { body: { content: "twice?" } });
    await fake.admin("POST", "/_fake/faults", { match: "POST /channels/*/messages", kind: "timeout" });
    const kept = await hasty.rest.post(route, { body: { content: "exactly once", nonce: "sigil-outbox-43", enforce_nonce: true } });
    assert.equal(kept.content, "exactly once");
    assert.deepEqual((await channelState(fake)).messages.map((m) => m.content), ["once", "twice?", "twice?", "exactly once"]);
    const posts = (await fake.journal({ kind: "rest" })).filter((e) => e.route_template === "POST /channels/{channel.id}/messages");
    assert.deepEqual(posts.slice(2).map((e) => [e.body.content, e.status, e.fault ?? null]), [
      ["twice?", 200, "timeout"], ["twice?", 200, null],
      ["exactly once", 200, "timeout"], ["exactly once", 200, null],
    ]);
    assert.equal(posts[5].response.id, posts[4].response.id, "the repeated nonce got the first message back");
  }));

test("the fake drops the socket: discord.js RESUMEs on resume_gateway_url and gets the messages sent meanwhile exactly once", () =>
  withFake(async (fake, clients) => {
    const client = await connect(fake, clients);
    await userSays(fake, "before");
    await eventually(() => client.received.length === 1, 5000, "first message");
    const { sessions } = await fake.admin("GET", "/_fake/gateway/sessions");
    assert.equal(sessions.length, 1);

    const resumed = once(client, Events.ShardResume);
    await fake.admin("POST", "/_fake/gateway/drop", {});
    // discord.js waits before it reconnects; these arrive while it has no connection.
    const during = [await userSays(fake, "during 1"), await userSays(fake, "during 2")];
    await resumed;
    await userSays(fake, "after");
    await eventually(() => client.received.length === 4, 5000, "all four messages");
    assert.deepEqual(client.received.map((m) => m.content), ["before", "during 1", "during 2", "after"]);
    assert.equal(new Set(client.received.map((m) => m.id)).size, 4, "no message twice");

    const journal = await fake.journal({ kind: "gateway" });
    const resume = journal.find((e) => e.direction === "in" && e.op === 6);
    assert.equal(resume.resume_session_id, sessions[0].session_id);
    const resumeConn = journal.find((e) => e.direction === "connect" && e.conn === resume.conn);
    assert.equal(resumeConn.path, "/gateway-resume");
    const replayed = journal.filter((e) => e.replay).map((e) => e.message_id);
    assert.deepEqual(replayed, during.map((m) => m.id));
    assert.equal(journal.filter((e) => e.direction === "in" && e.op === 2).length, 1, "no second IDENTIFY");
    const after = (await fake.admin("GET", "/_fake/gateway/sessions")).sessions;
    assert.deepEqual(after.map((s) => [s.connected, s.resumes]), [[true, 1]]);
  }));

test("op 7 RECONNECT makes discord.js resume; op 9 INVALID SESSION (not resumable) makes it identify anew", () =>
  withFake(async (fake, clients) => {
    const client = await connect(fake, clients);
    let resumed = once(client, Events.ShardResume);
    await fake.admin("POST", "/_fake/gateway/reconnect", {});
    await resumed;
    await userSays(fake, "after reconnect");
    await eventually(() => client.received.length === 1, 5000, "message after op 7");

    await fake.admin("POST", "/_fake/gateway/invalidate", { resumable: false });
    await fake.waitFor((es) => es.filter((e) => e.direction === "in" && e.op === 2).length === 2, { ms: 8000 });
    await fake.waitFor((es) => es.filter((e) => e.t === "READY").length === 2, { ms: 8000 });
    await userSays(fake, "after new session");
    await eventually(() => client.received.length === 2, 8000, "message after op 9");
    const sessions = (await fake.admin("GET", "/_fake/gateway/sessions")).sessions;
    assert.deepEqual(sessions.map((s) => [s.invalid, s.connected]), [[true, false], [false, true]]);
  }));

test("a 429 is waited out by @discordjs/rest itself: the journal shows the retry after Retry-After", () =>
  withFake(async (fake, clients) => {
    const client = await connect(fake, clients);
    const channel = client.channels.cache.get(IDS.general);
    const limited = [];
    client.rest.on("rateLimited", (info) => limited.push(info));
    await fake.admin("POST", "/_fake/faults", { match: "POST /channels/*/messages", kind: "rate_limit", retry_after: 0.25 });
    const sent = await channel.send("patience");
    assert.equal(sent.content, "patience");
    const posts = (await fake.journal({ kind: "rest" })).filter((e) => e.route_template === "POST /channels/{channel.id}/messages");
    assert.deepEqual(posts.map((e) => e.status), [429, 200]);
    assert.deepEqual(posts[0].response, { message: "You are being rate limited.", retry_after: 0.25, global: false });
    // Retry-After says 1 (whole seconds); X-RateLimit-Reset-After says 0.250, and that is what discord.js waits.
    assert.ok(posts[1].t_ms - posts[0].t_ms >= 240, `retried after ${posts[1].t_ms - posts[0].t_ms} ms`);
    assert.equal(limited.length, 1);
    assert.equal(limited[0].global, false);
    assert.equal((await channelState(fake)).messages.length, 1, "one message, not two");

    // A 5xx is retried by @discordjs/rest too (it has retries: 3).
    await fake.admin("POST", "/_fake/faults", { match: "POST /channels/*/messages", kind: "status", status: 502 });
    assert.equal((await channel.send("after a 502")).content, "after a 502");
  }));
