// The signal-cli fake (signal.mjs) against signal-cli's own documentation (node --test; ctest fakes.signal).
//
// signal-cli's HTTP JSON-RPC interface has no official client library (npm `signal-sdk` is a small third-party
// package), so nothing official can be pointed at the fake. What proves it instead: every request/response
// example of signal-cli-jsonrpc(5) sent as written and its documented answer checked, the parameters and
// errors of signal-cli(1) for the methods sigil uses, the HTTP endpoints' status codes as signal-cli's
// HttpServerHandler sends them, the SSE stream's wire format (ServerSentEventSender), the receive modes, and
// the faults. Plain HTTP (Node's fetch and http), as any client speaks to signal-cli.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { test } from "node:test";

import { eventually, startFake } from "./harness.mjs";
import { IDS } from "./signal.mjs";

const ALICE = IDS.alice.number;
const BOB = IDS.bob.number;

async function withFake(args, fn) {
  if (typeof args === "function") [args, fn] = [[], args];
  const fake = await startFake("signal.mjs", args);
  const streams = [];
  try {
    await fn(fake, streams);
  } catch (e) {
    e.message += `\n--- fake journal ---\n${fake.journalTail(60)}`;
    throw e;
  } finally {
    for (const s of streams) s.close();
    await fake.stop();
  }
}

// POST /api/v1/rpc with a JSON body (an object, an array, or raw text): {status, body (parsed or null), text}.
async function rpcRaw(fake, body, headers = {}) {
  const res = await fetch(`${fake.base}/api/v1/rpc`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

let nextId = 1;
async function call(fake, method, params) {
  const id = nextId++;
  const { status, body } = await rpcRaw(fake, { jsonrpc: "2.0", method, ...(params ? { params } : {}), id });
  assert.equal(status, 200);
  assert.equal(body.jsonrpc, "2.0");
  assert.equal(body.id, id);
  return body;
}

async function ok(fake, method, params) {
  const body = await call(fake, method, params);
  assert.equal(body.error, undefined, `${method} failed: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function fails(fake, method, params, code, message) {
  const body = await call(fake, method, params);
  assert.ok(body.error, `${method} should fail, got ${JSON.stringify(body.result)}`);
  assert.equal(body.result, undefined);
  assert.equal(body.error.code, code);
  if (message instanceof RegExp) assert.match(body.error.message, message);
  else if (message !== undefined) assert.equal(body.error.message, message);
  return body.error;
}

// GET /api/v1/events as an SSE client reads it: the raw text, the parsed events, keep-alive comments.
function openEvents(fake, streams) {
  return new Promise((resolve, reject) => {
    const req = http.get(`${fake.base}/api/v1/events`, (res) => {
      const s = { status: res.statusCode, headers: res.headers, raw: "", events: [], comments: 0, ended: false };
      s.close = () => req.destroy();
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk) => {
        s.raw += chunk;
        buffer += chunk;
        for (;;) {
          const nl = buffer.indexOf("\n");
          if (nl < 0) break;
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line === "") {
            if (s.pending) s.events.push(s.pending);
            s.pending = null;
          } else if (line.startsWith(":")) s.comments += 1;
          else {
            s.pending ??= { event: null, data: [] };
            const [field, ...rest] = line.split(":");
            const value = rest.join(":");
            if (field === "event") s.pending.event = value;
            if (field === "data") s.pending.data.push(value);
          }
        }
      });
      res.on("close", () => (s.ended = true));
      streams.push(s);
      resolve(s);
    });
    req.on("error", reject);
  });
}

const received = (s) => s.events.filter((e) => e.event === "receive").map((e) => JSON.parse(e.data.join("\n")));
const chat = (fake, key) => fake.admin("GET", `/_fake/chats/${encodeURIComponent(key)}`);
const inject = (fake, spec) => fake.admin("POST", "/_fake/messages", spec);

// ------------------------------------------------------------------ signal-cli-jsonrpc(5)'s examples

test("man page: listGroups with a string id answers the documented group shape", async () => {
  await withFake(async (fake) => {
    const { body } = await rpcRaw(fake, '{"jsonrpc":"2.0","method":"listGroups","id":"my special mark"}');
    assert.equal(body.id, "my special mark");
    const group = body.result.find((g) => g.id === IDS.group);
    for (const field of ["id", "name", "description", "isMember", "isBlocked", "members", "pendingMembers", "requestingMembers", "admins", "groupInviteLink"]) {
      assert.ok(field in group, `listGroups lacks ${field}`);
    }
    assert.equal(group.name, "Sigil Test");
    assert.equal(group.isMember, true);
    assert.ok(group.members.some((m) => m.number === IDS.account));
    // Group ids are base64 of 32 bytes, as in the example ("Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI=").
    assert.equal(Buffer.from(group.id, "base64").length, 32);
    // The -g filter.
    const only = await ok(fake, "listGroups", { groupId: IDS.leftGroup });
    assert.deepEqual(only.map((g) => [g.name, g.isMember]), [["Left Behind", false]]);
  });
});

test("man page: send to a recipient and to a group returns {timestamp}; the message reaches the chat", async () => {
  await withFake(async (fake) => {
    const one = await rpcRaw(fake, `{"jsonrpc":"2.0","method":"send","params":{"recipient":["${ALICE}"],"message":"MESSAGE"},"id":4}`);
    assert.equal(one.body.id, 4);
    assert.equal(typeof one.body.result.timestamp, "number");
    assert.deepEqual(one.body.result.results, [
      { recipientAddress: { uuid: IDS.alice.uuid, number: ALICE, username: null }, type: "SUCCESS" },
    ]);
    const group = await rpcRaw(fake, `{"jsonrpc":"2.0","method":"send","params":{"groupId":"${IDS.group}","message":"MESSAGE"},"id":4}`);
    assert.ok(group.body.result.timestamp > one.body.result.timestamp, "timestamps are unique and increasing");
    assert.deepEqual(group.body.result.results.map((r) => [r.recipientAddress.number, r.groupId, r.type]), [
      [ALICE, IDS.group, "SUCCESS"],
      [BOB, IDS.group, "SUCCESS"],
    ]);
    assert.deepEqual((await chat(fake, ALICE)).messages.map((m) => [m.timestamp, m.body]), [[one.body.result.timestamp, "MESSAGE"]]);
    assert.deepEqual((await chat(fake, `group:${IDS.group}`)).messages.map((m) => m.body), ["MESSAGE"]);
  });
});

test("man page: {\"jsonrpc\":\"2.0\"} answers the documented error; methods the fake lacks are -32601", async () => {
  await withFake(async (fake) => {
    const { status, text } = await rpcRaw(fake, '{"jsonrpc":"2.0"}');
    assert.equal(status, 200);
    assert.deepEqual(JSON.parse(text), {
      jsonrpc: "2.0",
      error: { code: -32600, message: "method field must be set", data: null },
      id: null,
    });
    // updateGroup and sendSyncRequest are documented examples sigil does not use: the fake answers them as
    // signal-cli answers a method it does not have, never with a made-up success.
    await fails(fake, "updateGroup", { groupId: IDS.group, name: "x" }, -32601, "Method not implemented");
    await fails(fake, "sendSyncRequest", undefined, -32601, "Method not implemented");
    // subscribeReceive exists only on signal-cli's socket/stdin interfaces, not on HTTP.
    await fails(fake, "subscribeReceive", undefined, -32601, "Method not implemented");
  });
});

test("man page: a received message on GET /api/v1/events has the documented envelope", async () => {
  await withFake(async (fake, streams) => {
    const s = await openEvents(fake, streams);
    assert.equal(s.status, 200);
    assert.match(s.headers["content-type"], /^text\/event-stream/);
    const { envelope } = await inject(fake, { from: "alice", text: "foobar" });
    await eventually(() => received(s).length === 1, 3000, "the event");
    assert.match(s.raw, /^event:receive\ndata:\{.*\}\n\n$/s);
    const [event] = received(s);
    assert.equal(event.account, IDS.account);
    const e = event.envelope;
    assert.deepEqual(e, envelope);
    assert.equal(e.source, ALICE);
    assert.equal(e.sourceNumber, ALICE);
    assert.equal(e.sourceUuid, IDS.alice.uuid);
    assert.equal(e.sourceName, "Alice");
    assert.equal(e.sourceDevice, 1);
    assert.equal(e.dataMessage.timestamp, e.timestamp);
    assert.equal(e.dataMessage.message, "foobar");
    assert.equal(e.dataMessage.expiresInSeconds, 0);
    assert.equal(e.dataMessage.viewOnce, false);
  });
});

// ------------------------------------------------------------------ HTTP and JSON-RPC framing

test("HTTP: check, 404, 405, 415, 421 for a foreign Host, parse errors, batches, notifications (201)", async () => {
  await withFake(async (fake) => {
    assert.equal((await fetch(`${fake.base}/api/v1/check`)).status, 200);
    assert.equal((await fetch(`${fake.base}/api/v1/nothing`)).status, 404);
    assert.equal((await fetch(`${fake.base}/api/v1/rpc/x`, { method: "POST" })).status, 404);
    assert.equal((await fetch(`${fake.base}/api/v1/rpc`)).status, 405);
    assert.equal((await fetch(`${fake.base}/api/v1/events`, { method: "POST" })).status, 405);
    const plain = await fetch(`${fake.base}/api/v1/rpc`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "{}" });
    assert.equal(plain.status, 415);
    const foreign = await new Promise((resolve) => {
      http
        .request(`${fake.base}/api/v1/rpc`, { method: "POST", headers: { Host: "evil.example", "Content-Type": "application/json" } }, (res) => resolve(res.statusCode))
        .end("{}");
    });
    assert.equal(foreign, 421);

    const parse = await rpcRaw(fake, "{nope");
    assert.equal(parse.body.error.code, -32700);
    assert.equal(parse.body.id, null);
    assert.deepEqual((await rpcRaw(fake, "[]")).body.error, { code: -32600, message: "invalid request", data: null });
    assert.equal((await rpcRaw(fake, "42")).body.error.message, "unexpected type: NUMBER");
    assert.equal((await rpcRaw(fake, { jsonrpc: "1.0", method: "listGroups", id: 1 })).body.error.message, "only jsonrpc version 2.0 is supported");
    const arrayParams = await rpcRaw(fake, { jsonrpc: "2.0", method: "send", params: [ALICE], id: 9 });
    assert.equal(arrayParams.body.error.code, -32600);
    assert.equal(arrayParams.body.id, 9);

    // A notification (no id) runs and is not answered.
    const note = await rpcRaw(fake, { jsonrpc: "2.0", method: "send", params: { recipient: ALICE, message: "note" } });
    assert.equal(note.status, 201);
    assert.equal(note.text, "");
    assert.deepEqual((await chat(fake, ALICE)).messages.map((m) => m.body), ["note"]);

    // A batch: an answer per request with an id, in one array.
    const batch = await rpcRaw(fake, [
      { jsonrpc: "2.0", method: "send", params: { recipient: [ALICE], message: "one" }, id: "a" },
      { jsonrpc: "2.0", method: "sendTyping", params: { recipient: [ALICE] } },
      { jsonrpc: "2.0", method: "nope", id: "b" },
      7,
    ]);
    assert.equal(batch.status, 200);
    const byId = Object.fromEntries(batch.body.filter((r) => r.id !== null).map((r) => [r.id, r]));
    assert.equal(typeof byId.a.result.timestamp, "number");
    assert.equal(byId.b.error.code, -32601);
    assert.ok(batch.body.some((r) => r.id === null && r.error.code === -32600), "the non-object is answered");
    assert.equal(batch.body.length, 3);
    const onlyNotes = await rpcRaw(fake, [{ jsonrpc: "2.0", method: "sendTyping", params: { recipient: [ALICE], stop: true } }]);
    assert.equal(onlyNotes.status, 201);
    assert.deepEqual((await chat(fake, ALICE)).typing.typing, false);
  });
});

// ------------------------------------------------------------------ send and its parameters

test("send: textStyle ranges in UTF-16 units, mentions, quotes, and signal-cli's parameter errors", async () => {
  await withFake(async (fake) => {
    // "😀" is two UTF-16 units: "bold" starts at 6.
    const text = "hi 😀 bold 𝔘 mono";
    const r = await ok(fake, "send", { recipient: ALICE, message: text, textStyle: ["6:4:BOLD", "11:2:ITALIC", "14:4:MONOSPACE"] });
    const [m] = (await chat(fake, ALICE)).messages;
    assert.equal(m.timestamp, r.timestamp);
    assert.deepEqual(m.styled.map((s) => [s.style, s.text]), [["BOLD", "bold"], ["ITALIC", "𝔘"], ["MONOSPACE", "mono"]]);
    assert.ok(m.styled.every((s) => !s.splits_character && !s.out_of_range));
    // A range in code points instead of UTF-16 units lands wrong, and the fake shows it.
    await ok(fake, "send", { recipient: ALICE, message: "😀 x", textStyles: ["1:2:BOLD"] });
    const wrong = (await chat(fake, ALICE)).messages[1].styled[0];
    assert.equal(wrong.splits_character, true);

    await fails(fake, "send", { recipient: ALICE, message: "x", textStyle: "0:1" }, -1, "Invalid textStyle syntax (0:1) expected 'start:length:STYLE'");
    await fails(fake, "send", { recipient: ALICE, message: "x", textStyle: "0:1:UNDERLINE" }, -1, "Invalid style: UNDERLINE");
    await fails(fake, "send", { recipient: ALICE, message: "x", mention: "0:1" }, -1, "Invalid mention syntax (0:1) expected 'start:length:recipientNumber'");
    await fails(fake, "send", { recipient: ALICE, message: "x", quoteTimestamp: r.timestamp }, -1, "Quote author parameter is missing");
    await fails(fake, "send", { recipient: ALICE, message: "" }, -1, "Sending empty message is not allowed, either a message, attachment or sticker must be given.");
    await fails(fake, "send", { message: "x" }, -1, "No recipients given");
    await fails(fake, "send", { recipient: "alice", message: "x" }, -1, /^Invalid phone number 'alice'/);
    await fails(fake, "send", { recipient: ALICE, message: 5 }, -32603, /ClassCastException/);
    await fails(fake, "send", { recipient: ALICE, message: "x", quoteTimestamp: "1" }, -32603, /ClassCastException/);

    const quoted = await ok(fake, "send", { recipient: ALICE, message: "re", quoteTimestamp: r.timestamp, quoteAuthor: IDS.account, mention: `0:2:${ALICE}` });
    const q = (await chat(fake, ALICE)).messages.find((x) => x.timestamp === quoted.timestamp);
    assert.equal(q.quote.id, r.timestamp);
    assert.deepEqual(q.mentions[0], { start: 0, length: 2, recipient: { number: ALICE } });
  });
});

test("send: unregistered users, unknown groups and groups the account left fail as signal-cli fails them", async () => {
  await withFake(async (fake) => {
    const e = await fails(fake, "send", { recipient: IDS.unregistered, message: "x" }, -1, "Failed to send message");
    assert.equal(typeof e.data.response.timestamp, "number");
    assert.deepEqual(e.data.response.results, [
      { recipientAddress: { uuid: null, number: IDS.unregistered, username: null }, type: "UNREGISTERED_FAILURE" },
    ]);
    // With one good recipient the send succeeds and the bad one shows in results.
    const mixed = await ok(fake, "send", { recipient: [ALICE, IDS.unregistered], message: "x" });
    assert.deepEqual(mixed.results.map((r) => r.type), ["SUCCESS", "UNREGISTERED_FAILURE"]);
    const unknown = Buffer.alloc(32, 7).toString("base64");
    await fails(fake, "send", { groupId: unknown, message: "x" }, -1, `Group not found: ${unknown}`);
    await fails(fake, "send", { groupId: IDS.leftGroup, message: "x" }, -1, `User is not a member in group: Left Behind (${IDS.leftGroup})`);
    await fails(fake, "send", { groupId: "abc", message: "x" }, -1, /^Invalid group id/);
    // An ACI works as a recipient.
    await ok(fake, "send", { recipient: IDS.bob.uuid, message: "by uuid" });
    assert.deepEqual((await chat(fake, BOB)).messages.map((m) => m.body), ["by uuid"]);
  });
});

test("send: bodies over 2000 UTF-8 bytes become 2000 bytes + a text/x-signal-plain attachment, as signal-cli does", async () => {
  await withFake(async (fake) => {
    const exact = "é".repeat(1000); // 2000 bytes
    await ok(fake, "send", { recipient: ALICE, message: exact });
    const long = "é".repeat(1000) + "!";
    await ok(fake, "send", { recipient: ALICE, message: long });
    const [a, b] = (await chat(fake, ALICE)).messages;
    assert.equal(a.long_text, false);
    assert.equal(a.body_bytes, 2000);
    assert.equal(b.long_text, true);
    assert.equal(b.body, exact);
    assert.equal(b.full_text, long);
    assert.equal(b.attachments[0].contentType, "text/x-signal-plain");
    assert.equal(b.attachments[0].size, Buffer.byteLength(long));
    // Never split inside a character: 😀 is 4 bytes, 1999 + 4 > 2000.
    await ok(fake, "send", { recipient: ALICE, message: `${"a".repeat(1999)}😀` });
    const c = (await chat(fake, ALICE)).messages[2];
    assert.equal(c.body, "a".repeat(1999));
  });
});

test("send: attachments from a path or a data URI, voice notes; a missing file fails the send", async () => {
  await withFake(async (fake) => {
    const file = path.join(fake.stateDir, "note.ogg");
    writeFileSync(file, Buffer.from("OggS fake opus"));
    const png = Buffer.from("89504e470d0a1a0a", "hex");
    const r = await ok(fake, "send", {
      recipient: ALICE,
      message: "files",
      attachments: [file, `data:image/png;filename=dot.png;base64,${png.toString("base64")}`],
      voiceNote: true,
    });
    const [m] = (await chat(fake, ALICE)).messages;
    assert.equal(m.timestamp, r.timestamp);
    assert.equal(m.voiceNote, true);
    assert.deepEqual(m.attachments.map((a) => [a.contentType, a.filename, a.size]), [
      ["audio/ogg", "note.ogg", 14],
      ["image/png", "dot.png", 8],
    ]);
    const stored = await fake.admin("GET", `/_fake/attachments/${encodeURIComponent(m.attachments[1].id)}`);
    assert.equal(stored.data_base64, png.toString("base64"));
    // An attachment alone is a message.
    await ok(fake, "send", { recipient: ALICE, attachment: file });
    const err = await fails(fake, "send", { recipient: ALICE, message: "x", attachment: "/nonexistent/file.png" }, -32603);
    assert.match(err.message, /^Failed to send message: \/nonexistent\/file\.png: .*\(AttachmentInvalidException\)/);
    assert.equal((await chat(fake, ALICE)).messages.length, 2, "a failed send stores nothing");
  });
});

test("edits by editTimestamp, remoteDelete, sendReaction (add, replace, remove), sendTyping", async () => {
  await withFake(async (fake) => {
    const sent = await ok(fake, "send", { recipient: ALICE, message: "draft" });
    const edit = await ok(fake, "send", { recipient: ALICE, message: "final **", textStyle: "0:5:BOLD", editTimestamp: sent.timestamp });
    assert.ok(edit.timestamp > sent.timestamp);
    let [m] = (await chat(fake, ALICE)).messages;
    assert.equal(m.timestamp, sent.timestamp, "an edit changes the message, not the list");
    assert.equal(m.body, "final **");
    assert.equal(m.edited, true);
    assert.deepEqual(m.styled, [{ style: "BOLD", text: "final" }]);
    // An edit of a message the chat does not have is carried by Signal and shown by no one.
    await ok(fake, "send", { recipient: ALICE, message: "ghost", editTimestamp: 12345678901 });
    assert.equal((await chat(fake, ALICE)).messages.length, 1);
    assert.ok((await fake.journal({ kind: "rpc" })).some((e) => e.edit_target_missing));

    const { envelope } = await inject(fake, { from: "alice", text: "hello" });
    await ok(fake, "sendReaction", { recipient: ALICE, emoji: "👍", targetAuthor: ALICE, targetTimestamp: envelope.timestamp });
    await ok(fake, "sendReaction", { recipient: ALICE, emoji: "🎉", targetAuthor: ALICE, targetTimestamp: envelope.timestamp });
    let theirs = (await chat(fake, ALICE)).messages.find((x) => x.timestamp === envelope.timestamp);
    assert.deepEqual(theirs.reactions.map((x) => x.emoji), ["🎉"], "one reaction per reactor: the new one replaces");
    // targetAuthor defaults to the single recipient.
    await ok(fake, "sendReaction", { recipient: ALICE, emoji: "🎉", targetTimestamp: envelope.timestamp, remove: true });
    theirs = (await chat(fake, ALICE)).messages.find((x) => x.timestamp === envelope.timestamp);
    assert.deepEqual(theirs.reactions, []);
    await fails(fake, "sendReaction", { recipient: ALICE, emoji: "👍", targetAuthor: ALICE }, -32603, /NullPointerException/);
    await fails(fake, "sendReaction", { recipient: ALICE, targetAuthor: ALICE, targetTimestamp: envelope.timestamp }, -32603, /NullPointerException/);

    await ok(fake, "remoteDelete", { recipient: ALICE, targetTimestamp: sent.timestamp });
    m = (await chat(fake, ALICE)).messages[0];
    assert.equal(m.deleted, true);
    await fails(fake, "remoteDelete", { recipient: ALICE }, -32603, /NullPointerException/);

    const typing = await ok(fake, "sendTyping", { groupId: IDS.group });
    assert.equal(typing.results.length, 2);
    assert.equal((await chat(fake, `group:${IDS.group}`)).typing.typing, true);
    await fails(fake, "sendTyping", { groupId: IDS.leftGroup }, -1, /^Failed to send to group: User is not a member/);
    await fails(fake, "sendTyping", {}, -1, "No recipients given");
  });
});

// ------------------------------------------------------------------ receiving

test("receive: group messages with a mention of the account, attachments (getAttachment), reactions, receipts, sync", async () => {
  await withFake(async (fake, streams) => {
    const s = await openEvents(fake, streams);
    const bytes = Buffer.from("a picture, honestly");
    const { envelope } = await inject(fake, {
      from: "bob",
      group: IDS.group,
      text: "look",
      mention_bot: true,
      attachments: [{ filename: "pic.jpg", content_type: "image/jpeg", data_base64: bytes.toString("base64") }],
    });
    await fake.admin("POST", "/_fake/reactions", { from: "alice", emoji: "❤️", target_author: IDS.account, target_timestamp: 111 });
    await fake.admin("POST", "/_fake/envelopes", { type: "receipt", from: "alice", timestamps: [111] });
    await fake.admin("POST", "/_fake/envelopes", { type: "sync", destination: "alice", text: "from my phone" });
    await eventually(() => received(s).length === 4, 3000, "four events");
    const [msg, reaction, receipt, sync] = received(s).map((e) => e.envelope);
    assert.deepEqual(msg.dataMessage.groupInfo, { groupId: IDS.group, groupName: "Sigil Test", revision: 1, type: "DELIVER" });
    assert.equal(msg.dataMessage.message, "\uFFFC look");
    assert.deepEqual(msg.dataMessage.mentions, [{ name: IDS.account, number: IDS.account, uuid: IDS.accountUuid, start: 0, length: 1 }]);
    const [att] = msg.dataMessage.attachments;
    assert.equal(att.contentType, "image/jpeg");
    assert.equal(att.filename, "pic.jpg");
    assert.equal(att.size, bytes.length);
    const got = await ok(fake, "getAttachment", { id: att.id, groupId: IDS.group });
    assert.equal(Buffer.from(got.data, "base64").toString(), bytes.toString());
    await fails(fake, "getAttachment", { id: "nope.jpg", recipient: ALICE }, -1, "Could not find attachment with ID: nope.jpg");
    await fails(fake, "getAttachment", { recipient: ALICE }, -1, "Missing attachment id parameter");
    assert.equal(envelope.timestamp, msg.timestamp);
    assert.deepEqual(reaction.dataMessage.reaction, {
      emoji: "❤️",
      targetAuthor: IDS.account,
      targetAuthorNumber: IDS.account,
      targetAuthorUuid: IDS.accountUuid,
      targetSentTimestamp: 111,
      isRemove: false,
    });
    assert.equal(reaction.dataMessage.message, null);
    assert.deepEqual(receipt.receiptMessage.timestamps, [111]);
    assert.equal(receipt.dataMessage, undefined);
    assert.equal(sync.sourceNumber, IDS.account);
    assert.equal(sync.syncMessage.sentMessage.message, "from my phone");
  });
});

test("receive mode on-start: a message with no stream open is lost to HTTP clients; keep-alives every --keepalive-ms", async () => {
  await withFake(["--keepalive-ms", "200"], async (fake, streams) => {
    const lost = await inject(fake, { from: "alice", text: "nobody listening" });
    assert.equal(lost.delivery.state, "lost");
    const s = await openEvents(fake, streams);
    await eventually(() => s.comments >= 2, 3000, "two keep-alives");
    assert.match(s.raw, /^(:\n)+$/);
    await inject(fake, { from: "alice", text: "now" });
    await eventually(() => received(s).length === 1, 3000, "the event");
    assert.equal(received(s)[0].envelope.dataMessage.message, "now");
    // Two streams each get every message.
    const t = await openEvents(fake, streams);
    await inject(fake, { from: "alice", text: "both" });
    await eventually(() => received(s).length === 2 && received(t).length === 1, 3000, "both streams");
    await fails(fake, "receive", { timeout: 0.1 }, -1, "Receive command cannot be used if messages are already being received.");
  });
});

test("receive mode on-connection: messages wait on the server and come with the next stream, after a drop too", async () => {
  await withFake(["--receive-mode", "on-connection"], async (fake, streams) => {
    const waiting = await inject(fake, { from: "alice", text: "early" });
    assert.equal(waiting.delivery.state, "waiting");
    const s = await openEvents(fake, streams);
    await eventually(() => received(s).length === 1, 3000, "the waiting message");
    assert.equal(received(s)[0].envelope.dataMessage.message, "early");
    await fake.admin("POST", "/_fake/events/drop");
    await eventually(() => s.ended, 3000, "the dropped stream ends");
    await inject(fake, { from: "alice", text: "during the drop" });
    const t = await openEvents(fake, streams);
    await eventually(() => received(t).length === 1, 3000, "the message sent during the drop");
    assert.equal(received(t)[0].envelope.dataMessage.message, "during the drop");
    const view = await fake.admin("GET", "/_fake/events");
    assert.deepEqual(view.lost, []);
  });
});

test("a silent stream: nothing more, not even keep-alives, while sends work; held or lost as asked", async () => {
  await withFake(["--receive-mode", "on-connection", "--keepalive-ms", "100"], async (fake, streams) => {
    const s = await openEvents(fake, streams);
    await fake.admin("POST", "/_fake/events/silence", { lose: false });
    const comments = s.comments;
    await inject(fake, { from: "alice", text: "held" });
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(received(s).length, 0);
    assert.equal(s.comments, comments, "no keep-alive on a silent stream");
    assert.equal(s.ended, false, "the silent stream stays open");
    await ok(fake, "send", { recipient: ALICE, message: "sends still work" });
    const t = await openEvents(fake, streams);
    await eventually(() => received(t).length === 1, 3000, "the held message on a fresh stream");
    assert.equal(received(t)[0].envelope.dataMessage.message, "held");

    t.close();
    s.close();
    const u = await openEvents(fake, streams);
    await fake.admin("POST", "/_fake/events/silence", { lose: true });
    const gone = await inject(fake, { from: "alice", text: "into the void" });
    assert.equal(gone.delivery.state, "lost");
    assert.equal(received(u).length, 0);
  });
});

test("receive mode manual: the receive method returns waiting messages (timeout, maxMessages)", async () => {
  await withFake(["--receive-mode", "manual"], async (fake) => {
    assert.deepEqual(await ok(fake, "receive", { timeout: 0.1 }), []);
    for (const text of ["a", "b", "c"]) await inject(fake, { from: "alice", text });
    const first = await ok(fake, "receive", { maxMessages: 2 });
    assert.deepEqual(first.map((x) => x.envelope.dataMessage.message), ["a", "b"]);
    assert.equal(first[0].account, IDS.account);
    const rest = await ok(fake, "receive", {});
    assert.deepEqual(rest.map((x) => x.envelope.dataMessage.message), ["c"]);
    // A long poll wakes when a message comes.
    const poll = ok(fake, "receive", { timeout: 5 });
    await new Promise((r) => setTimeout(r, 100));
    await inject(fake, { from: "bob", text: "d" });
    assert.deepEqual((await poll).map((x) => x.envelope.sourceNumber), [BOB]);
  });
});

// ------------------------------------------------------------------ faults

test("faults: JSON-RPC error, signal-cli's rate-limit failure, 5xx, a dropped request, sent-then-dropped, sent-then-timed-out", async () => {
  await withFake(async (fake) => {
    await fake.admin("POST", "/_fake/faults", { match: "send", kind: "rpc_error", code: -3, message: "Failed to send message: timeout (IOException)" });
    await fails(fake, "send", { recipient: ALICE, message: "1" }, -3, "Failed to send message: timeout (IOException)");

    await fake.admin("POST", "/_fake/faults", { match: "send", kind: "rate_limit", retry_after: 7 });
    const e = await fails(fake, "send", { recipient: ALICE, message: "2" }, -5, "Failed to send message due to rate limiting");
    assert.deepEqual(e.data.response.results.map((r) => [r.type, r.retryAfterSeconds]), [["RATE_LIMIT_FAILURE", 7]]);
    assert.equal((await chat(fake, ALICE)).messages.length, 0, "nothing went out");

    await fake.admin("POST", "/_fake/faults", { match: "send", kind: "status", status: 503 });
    const five = await rpcRaw(fake, { jsonrpc: "2.0", method: "send", params: { recipient: ALICE, message: "3" }, id: 1 });
    assert.equal(five.status, 503);

    await fake.admin("POST", "/_fake/faults", { match: "send", kind: "drop" });
    await assert.rejects(rpcRaw(fake, { jsonrpc: "2.0", method: "send", params: { recipient: ALICE, message: "4" }, id: 1 }));
    assert.equal((await chat(fake, ALICE)).messages.length, 0, "a dropped request did nothing");

    await fake.admin("POST", "/_fake/faults", { match: "send", kind: "drop_after_send" });
    await assert.rejects(rpcRaw(fake, { jsonrpc: "2.0", method: "send", params: { recipient: ALICE, message: "5" }, id: 1 }));
    assert.deepEqual((await chat(fake, ALICE)).messages.map((m) => m.body), ["5"], "sent, though the answer was lost");

    await fake.admin("POST", "/_fake/faults", { match: "send", kind: "timeout" });
    await assert.rejects(
      fetch(`${fake.base}/api/v1/rpc`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", method: "send", params: { recipient: ALICE, message: "6" }, id: 1 }),
        signal: AbortSignal.timeout(300),
      }),
    );
    assert.deepEqual((await chat(fake, ALICE)).messages.map((m) => m.body), ["5", "6"], "sent, then never answered");
    // Other methods are untouched by a fault on send.
    await ok(fake, "listGroups");
    const faulted = (await fake.journal({ kind: "rpc" })).filter((x) => x.fault).map((x) => x.fault);
    assert.deepEqual(faulted, ["rpc_error", "rate_limit", "status", "drop", "drop_after_send", "timeout"]);
  });
});
