// The Telegram fake (telegram.mjs) against the official grammY client (node --test; ctest fakes.telegram).
//
// Each test spawns its own fake as a process, points grammY at it with `client.apiRoot`, and checks both what
// grammY sees (results, GrammyError/HttpError with Telegram's descriptions) and what the fake recorded (its
// journal and its chats as a user would see them). The HTML parser is checked against Telegram's own parser's
// answers (vectors/telegram-html.jsonl, made with TDLib by vectors/gen-telegram-html.py).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import { test } from "node:test";

import { eventually, sdk, startFake } from "./harness.mjs";
import { DEFAULT_TOKEN } from "./telegram.mjs";
import { parseHtml } from "./telegram-html.mjs";

const { Bot, GrammyError, HttpError, InputFile, webhookCallback } = sdk("grammy");

const USER = 1001; // the private chat the admin API creates for the default user Alice

function bot(fake, options = {}) {
  return new Bot(options.token ?? DEFAULT_TOKEN, {
    client: { apiRoot: fake.base, timeoutSeconds: options.timeoutSeconds ?? 10 },
  });
}

async function withFake(fn) {
  const fake = await startFake("telegram.mjs");
  try {
    await fn(fake);
  } catch (e) {
    e.message += `\n--- fake journal ---\n${fake.journalTail()}`;
    throw e;
  } finally {
    await fake.stop();
  }
}

// A user writes to the bot first (a bot can't start a chat), which creates the private chat.
async function userSays(fake, text, extra = {}) {
  return fake.admin("POST", "/_fake/messages", { text, ...extra });
}

async function chat(fake, id = USER) {
  return (await fake.admin("GET", `/_fake/chats/${id}`)).chat;
}

const sha256 = (b) => createHash("sha256").update(b).digest("hex");

// A minimal Ogg Opus stream: an OpusHead page and one audio page whose granule position says 2 s (+ pre-skip).
function oggOpus(seconds) {
  const page = (granule, body) => {
    const h = Buffer.alloc(27);
    h.write("OggS", 0, "latin1");
    h.writeBigInt64LE(BigInt(granule), 6);
    h[26] = 1;
    return Buffer.concat([h, Buffer.from([body.length]), body]);
  };
  const head = Buffer.alloc(19);
  head.write("OpusHead", 0, "latin1");
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(312, 10);
  return Buffer.concat([page(0, head), page(312 + seconds * 48000, Buffer.from("fake opus packet"))]);
}

test("the HTML parser answers every vector as Telegram's own parser (TDLib) does", () => {
  const lines = readFileSync(new URL("./vectors/telegram-html.jsonl", import.meta.url), "utf8").split("\n").filter(Boolean);
  assert.ok(lines.length > 150);
  for (const line of lines) {
    const v = JSON.parse(line);
    let got;
    try {
      const r = parseHtml(v.in);
      const entities = r.entities.map((e) =>
        e.type === "text_mention" ? { offset: e.offset, length: e.length, type: e.type, user_id: e.user.id } : e,
      );
      got = { text: r.text, entities };
    } catch (e) {
      got = { error: e.message };
    }
    assert.deepEqual(got, v.error ? { error: v.error } : { text: v.text, entities: v.entities }, `input ${JSON.stringify(v.in)}`);
  }
});

test("getMe answers the bot; a wrong token is 401 Unauthorized", () =>
  withFake(async (fake) => {
    const me = await bot(fake).api.getMe();
    assert.equal(me.id, 123456789);
    assert.equal(me.is_bot, true);
    assert.equal(me.username, "sigil_test_bot");
    await assert.rejects(bot(fake, { token: "123456789:wrong" }).api.getMe(), (e) => {
      assert.ok(e instanceof GrammyError);
      assert.equal(e.error_code, 401);
      assert.equal(e.description, "Unauthorized");
      return true;
    });
  }));

test("bot.start() long-polls, gets injected messages (private and a group mention) once, replies; bot.stop() confirms the offset", () =>
  withFake(async (fake) => {
    await fake.admin("POST", "/_fake/chats", { id: -100500, type: "supergroup", title: "Team" });
    const b = bot(fake);
    const seen = [];
    b.on("message:text", async (ctx) => {
      seen.push({ chat: ctx.chat.id, text: ctx.msg.text, entities: ctx.msg.entities ?? [] });
      await ctx.reply(`<b>echo</b> ${ctx.msg.text.replace(/&/g, "&amp;").replace(/</g, "&lt;")}`, {
        parse_mode: "HTML",
        reply_parameters: { message_id: ctx.msg.message_id },
      });
    });
    const running = b.start({ timeout: 2 });
    // Wait until grammY is parked in a long poll, then inject: the poll must wake up at once.
    await fake.waitFor((es) => es.some((e) => e.route === "deleteWebhook"));
    await userSays(fake, "hello <there>");
    await userSays(fake, "@sigil_test_bot ping", { chat_id: -100500, from: { id: 2002, first_name: "Bob" } });
    await eventually(() => seen.length === 2, 5000, "two messages handled");
    await fake.waitFor((es) => es.filter((e) => e.route === "sendMessage" && e.status === 200).length === 2);
    await b.stop();
    await running;

    assert.deepEqual(seen.map((s) => s.text), ["hello <there>", "@sigil_test_bot ping"]);
    assert.deepEqual(seen[1].entities, [{ offset: 0, length: 15, type: "mention" }]);
    const dm = await chat(fake);
    assert.equal(dm.messages.length, 2);
    assert.equal(dm.messages[1].text, "echo hello <there>");
    assert.deepEqual(dm.messages[1].entities, [{ offset: 0, length: 4, type: "bold" }]);
    assert.equal(dm.messages[1].reply_to_message.message_id, 1);
    assert.equal(dm.messages[1].from.is_bot, true);
    const group = await chat(fake, -100500);
    assert.equal(group.messages[1].reply_to_message.text, "@sigil_test_bot ping");
    // Both updates were confirmed: the last getUpdates (from bot.stop) carried offset = last update_id + 1.
    const polls = (await fake.journal()).filter((e) => e.route === "getUpdates");
    assert.equal(polls.at(-1).params.offset, 10002);
    assert.deepEqual((await fake.admin("GET", "/_fake/state")).pending_updates, []);
    // Each update went out once: no getUpdates answer repeated an update that had been confirmed.
    const delivered = polls.flatMap((e) => (e.response?.result ?? []).map((u) => u.update_id));
    assert.deepEqual([...new Set(delivered)].sort(), [10000, 10001]);
  }));

test("getUpdates keeps unconfirmed updates, drops update_id < offset, honours limit and a negative offset", () =>
  withFake(async (fake) => {
    const api = bot(fake).api;
    for (const t of ["a", "b", "c"]) await userSays(fake, t);
    assert.deepEqual((await api.getUpdates({ limit: 2 })).map((u) => u.message.text), ["a", "b"]);
    assert.deepEqual((await api.getUpdates()).map((u) => u.update_id), [10000, 10001, 10002]);
    assert.deepEqual((await api.getUpdates({ offset: 10001 })).map((u) => u.message.text), ["b", "c"]);
    assert.deepEqual((await api.getUpdates({ offset: -1 })).map((u) => u.message.text), ["c"]);
    // Reactions to messages are not sent unless allowed_updates asks for them, as on Telegram.
    const reaction = { chat: { id: USER, type: "private", first_name: "Alice" }, message_id: 1, date: 1,
      user: { id: USER, is_bot: false, first_name: "Alice" }, old_reaction: [], new_reaction: [{ type: "emoji", emoji: "👍" }] };
    assert.equal((await fake.admin("POST", "/_fake/updates", { message_reaction: reaction })).update, null);
    await api.getUpdates({ offset: 10003, allowed_updates: ["message", "message_reaction"] });
    const allowed = (await fake.admin("POST", "/_fake/updates", { message_reaction: reaction })).update;
    assert.deepEqual((await api.getUpdates({ offset: 10003 })).map((u) => Object.keys(u)), [["update_id", "message_reaction"]]);
    await api.getUpdates({ offset: allowed.update_id + 1, allowed_updates: [] });
    // Two pollers at once: the older one is told it was terminated by the other.
    const older = api.getUpdates({ offset: allowed.update_id + 1, timeout: 5 });
    older.catch(() => {}); // checked below
    await eventually(async () => (await fake.admin("GET", "/_fake/state")).polling, 5000, "the first poll waiting");
    const newer = api.getUpdates({ offset: allowed.update_id + 1, timeout: 1 });
    await assert.rejects(older, (e) => {
      assert.ok(e instanceof GrammyError);
      assert.equal(e.error_code, 409);
      assert.equal(e.description, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running");
      return true;
    });
    assert.deepEqual(await newer, []);
    // A long poll with nothing to get returns [] after its timeout.
    const started = Date.now();
    assert.deepEqual(await api.getUpdates({ offset: allowed.update_id + 1, timeout: 1 }), []);
    assert.ok(Date.now() - started >= 900);
  }));

test("sendMessage: bad HTML is refused with Telegram's description; length counts UTF-16 units after parsing", () =>
  withFake(async (fake) => {
    await userSays(fake, "hi");
    const api = bot(fake).api;
    const refusal = async (promise, description) =>
      assert.rejects(promise, (e) => {
        assert.ok(e instanceof GrammyError, String(e));
        assert.equal(e.error_code, 400);
        assert.equal(e.description, description);
        return true;
      });
    await refusal(api.sendMessage(USER, "<p>para</p>", { parse_mode: "HTML" }),
      'Bad Request: can\'t parse entities: Unsupported start tag "p" at byte offset 0');
    await refusal(api.sendMessage(USER, "<b>bold <i>both</b></i>", { parse_mode: "HTML" }),
      'Bad Request: can\'t parse entities: Unmatched end tag at byte offset 15, expected "</i>", found "</b>"');
    await refusal(api.sendMessage(USER, "1 < 2", { parse_mode: "HTML" }),
      'Bad Request: can\'t parse entities: Unsupported start tag "" at byte offset 2');
    await refusal(api.sendMessage(-42, "x"), "Bad Request: chat not found");
    await refusal(api.sendMessage(USER, "😀".repeat(2049)), "Bad Request: message is too long");
    await refusal(api.sendMessage(USER, "<b></b>", { parse_mode: "HTML" }), "Bad Request: message text is empty");
    await refusal(api.sendMessage(USER, "x", { reply_parameters: { message_id: 99 } }),
      "Bad Request: message to be replied not found");
    // 4096 units after parsing is fine even though the HTML is longer.
    const long = await api.sendMessage(USER, `<b>${"a".repeat(4092)}</b> &amp;&lt;&gt;`, { parse_mode: "HTML" });
    assert.equal(long.text.length, 4096);
    const astral = await api.sendMessage(USER, "😀".repeat(2048));
    assert.equal(astral.text.length, 4096);
    const m = await api.sendMessage(USER, '<a href="https://example.com/x">link</a> and <tg-spoiler>s</tg-spoiler>', {
      parse_mode: "HTML",
    });
    assert.deepEqual(m.entities, [
      { offset: 0, length: 4, type: "text_link", url: "https://example.com/x" },
      { offset: 9, length: 1, type: "spoiler" },
    ]);
    assert.equal(m.chat.type, "private");
    assert.ok(m.message_id > long.message_id && Math.abs(m.date - Date.now() / 1000) < 5);
  }));

test("editMessageText and deleteMessage change what the user sees; not-modified and not-found are refused", () =>
  withFake(async (fake) => {
    await userSays(fake, "hi");
    const api = bot(fake).api;
    const m = await api.sendMessage(USER, "draft");
    const edited = await api.editMessageText(USER, m.message_id, "<i>final</i>", { parse_mode: "HTML" });
    assert.equal(edited.text, "final");
    assert.ok(edited.edit_date >= m.date);
    await assert.rejects(api.editMessageText(USER, m.message_id, "<i>final</i>", { parse_mode: "HTML" }), (e) =>
      e instanceof GrammyError && e.description.startsWith("Bad Request: message is not modified"));
    await assert.rejects(api.editMessageText(USER, 1, "x"), (e) =>
      e instanceof GrammyError && e.description === "Bad Request: message can't be edited");
    let state = await chat(fake);
    assert.deepEqual(state.messages.map((x) => x.text), ["hi", "final"]);
    assert.equal(state.messages[1].edits, 1);
    assert.equal(await api.deleteMessage(USER, m.message_id), true);
    await assert.rejects(api.deleteMessage(USER, m.message_id), (e) =>
      e instanceof GrammyError && e.description === "Bad Request: message to delete not found");
    await assert.rejects(api.editMessageText(USER, m.message_id, "again"), (e) =>
      e instanceof GrammyError && e.description === "Bad Request: message to edit not found");
    state = await chat(fake);
    assert.deepEqual(state.messages.map((x) => x.text), ["hi"]);
    assert.deepEqual(state.deleted, [m.message_id]);
  }));

test("setMessageReaction: one emoji of Telegram's set; others, U+FE0F forms, two at once and a chat's limits are REACTION_INVALID", () =>
  withFake(async (fake) => {
    const { message } = await userSays(fake, "nice");
    const api = bot(fake).api;
    assert.equal(await api.setMessageReaction(USER, message.message_id, [{ type: "emoji", emoji: "👍" }]), true);
    const invalid = (reaction, description = "Bad Request: REACTION_INVALID") =>
      assert.rejects(api.setMessageReaction(USER, message.message_id, reaction), (e) => {
        assert.ok(e instanceof GrammyError);
        assert.equal(e.description, description);
        return true;
      });
    await invalid([{ type: "emoji", emoji: "🐸" }]);
    await invalid([{ type: "emoji", emoji: "❤️" }]); // with U+FE0F: Telegram wants "❤"
    await invalid([{ type: "emoji", emoji: "👍" }, { type: "emoji", emoji: "🔥" }], "Bad Request: REACTIONS_TOO_MUCH");
    await assert.rejects(api.setMessageReaction(USER, 77, [{ type: "emoji", emoji: "👍" }]), (e) =>
      e instanceof GrammyError && e.description === "Bad Request: MESSAGE_ID_INVALID");
    assert.deepEqual((await chat(fake)).messages[0].reactions, [{ type: "emoji", emoji: "👍" }]);
    // A group that allows only some reactions.
    await fake.admin("POST", "/_fake/chats", { id: -100600, type: "supergroup", title: "Strict", available_reactions: ["👍"] });
    const g = await userSays(fake, "hello group", { chat_id: -100600 });
    await assert.rejects(api.setMessageReaction(-100600, g.message.message_id, [{ type: "emoji", emoji: "🔥" }]), (e) =>
      e instanceof GrammyError && e.description === "Bad Request: REACTION_INVALID");
    assert.equal(await api.setMessageReaction(-100600, g.message.message_id, [{ type: "emoji", emoji: "👍" }]), true);
    assert.deepEqual((await api.getChat(-100600)).available_reactions, [{ type: "emoji", emoji: "👍" }]);
    // An empty list takes the reaction back.
    assert.equal(await api.setMessageReaction(USER, message.message_id, []), true);
    assert.deepEqual((await chat(fake)).messages[0].reactions, []);
  }));

test("sendVoice/sendDocument upload InputFile buffers as multipart; the journal has their sha256; getFile downloads them", () =>
  withFake(async (fake) => {
    await userSays(fake, "send me things");
    const api = bot(fake).api;
    const voiceBytes = oggOpus(2);
    const voice = await api.sendVoice(USER, new InputFile(voiceBytes, "reply.ogg"), {
      caption: "<b>listen</b>",
      parse_mode: "HTML",
    });
    assert.equal(voice.voice.mime_type, "audio/ogg");
    assert.equal(voice.voice.duration, 2);
    assert.equal(voice.voice.file_size, voiceBytes.length);
    assert.equal(voice.caption, "listen");
    assert.deepEqual(voice.caption_entities, [{ offset: 0, length: 6, type: "bold" }]);
    const docBytes = Buffer.from("# notes\n\nsigil was here\n");
    const doc = await api.sendDocument(USER, new InputFile(docBytes, "notes.md"));
    assert.equal(doc.document.file_name, "notes.md");
    assert.equal(doc.document.mime_type, "text/markdown");

    const uploads = (await fake.journal()).filter((e) => e.files?.length).flatMap((e) => e.files);
    assert.deepEqual(uploads.map((f) => [f.filename, f.size, f.sha256]), [
      ["reply.ogg", voiceBytes.length, sha256(voiceBytes)],
      ["notes.md", docBytes.length, sha256(docBytes)],
    ]);
    const file = await api.getFile(voice.voice.file_id);
    const res = await fetch(`${fake.base}/file/bot${DEFAULT_TOKEN}/${file.file_path}`);
    assert.equal(sha256(Buffer.from(await res.arrayBuffer())), sha256(voiceBytes));
    // Sent again by file_id: no upload, same file.
    const again = await api.sendVoice(USER, voice.voice.file_id);
    assert.equal(again.voice.file_unique_id, voice.voice.file_unique_id);
    // A too-long caption, a chat that forbids voice notes, a user who blocked the bot.
    await assert.rejects(api.sendDocument(USER, new InputFile(docBytes, "n.md"), { caption: "x".repeat(1025) }), (e) =>
      e instanceof GrammyError && e.description === "Bad Request: message caption is too long");
    await fake.admin("POST", "/_fake/chats", { id: USER, voice_forbidden: true });
    await assert.rejects(api.sendVoice(USER, new InputFile(voiceBytes, "v.ogg")), (e) =>
      e instanceof GrammyError && e.error_code === 400 && e.description === "Bad Request: VOICE_MESSAGES_FORBIDDEN");
    // The fallback sigil will use: the same bytes as an audio file.
    const audio = await api.sendAudio(USER, new InputFile(voiceBytes, "reply.ogg"));
    assert.equal(audio.audio.file_name, "reply.ogg");
    await fake.admin("POST", "/_fake/chats", { id: USER, blocked: true });
    await assert.rejects(api.sendMessage(USER, "still there?"), (e) =>
      e instanceof GrammyError && e.error_code === 403 && e.description === "Forbidden: bot was blocked by the user");
    const state = await chat(fake);
    assert.deepEqual(state.messages.map((m) => Object.keys(m).find((k) => ["text", "voice", "document", "audio"].includes(k))),
      ["text", "voice", "document", "voice", "audio"]);
  }));

test("sendChatAction records typing; sendMessageDraft records the streamed drafts", () =>
  withFake(async (fake) => {
    await userSays(fake, "think");
    const api = bot(fake).api;
    assert.equal(await api.sendChatAction(USER, "typing"), true);
    await assert.rejects(api.sendChatAction(USER, "dancing"), (e) =>
      e instanceof GrammyError && e.description === "Bad Request: wrong parameter action in request");
    assert.equal(await api.sendMessageDraft(USER, 7, ""), true);
    assert.equal(await api.sendMessageDraft(USER, 7, "<b>Hel</b>", { parse_mode: "HTML" }), true);
    const state = await chat(fake);
    assert.deepEqual(state.actions.map((a) => a.action), ["typing"]);
    assert.deepEqual(state.drafts.map((d) => [d.draft_id, d.text]), [[7, ""], [7, "Hel"]]);
    assert.deepEqual(state.drafts[1].entities, [{ offset: 0, length: 3, type: "bold" }]);
  }));

test("forum topics: a topic's messages carry message_thread_id and is_topic_message; the General topic (1) cannot be named", () =>
  withFake(async (fake) => {
    const forum = -100555;
    await fake.admin("POST", "/_fake/chats", { id: forum, type: "supergroup", title: "Forum", is_forum: true, topics: [5] });
    const inTopic = await userSays(fake, "in the topic", { chat_id: forum, message_thread_id: 5 });
    assert.equal(inTopic.message.message_thread_id, 5);
    assert.equal(inTopic.message.is_topic_message, true);
    const inGeneral = await userSays(fake, "in General", { chat_id: forum, message_thread_id: 1 });
    assert.equal(inGeneral.message.message_thread_id, undefined);
    assert.equal(inGeneral.message.is_topic_message, undefined);
    const api = bot(fake).api;
    const sent = await api.sendMessage(forum, "answer", { message_thread_id: 5 });
    assert.equal(sent.message_thread_id, 5);
    assert.equal(sent.is_topic_message, true);
    assert.equal(await api.sendChatAction(forum, "typing", { message_thread_id: 5 }), true);
    const general = await api.sendMessage(forum, "to General");
    assert.equal(general.message_thread_id, undefined);
    for (const thread of [1, 6]) {
      await assert.rejects(api.sendMessage(forum, "x", { message_thread_id: thread }), (e) =>
        e instanceof GrammyError && e.description === "Bad Request: message thread not found");
      await assert.rejects(api.sendChatAction(forum, "typing", { message_thread_id: thread }), (e) =>
        e instanceof GrammyError && e.description === "Bad Request: message thread not found");
    }
  }));

test("faults: 429 with retry_after, a 502, a dropped connection, and a send that went through but never answered", () =>
  withFake(async (fake) => {
    await userSays(fake, "hi");
    const api = bot(fake).api;
    await fake.admin("POST", "/_fake/faults", { match: "sendMessage", kind: "rate_limit", retry_after: 3 });
    await assert.rejects(api.sendMessage(USER, "one"), (e) => {
      assert.ok(e instanceof GrammyError);
      assert.equal(e.error_code, 429);
      assert.equal(e.description, "Too Many Requests: retry after 3");
      assert.deepEqual(e.parameters, { retry_after: 3 });
      return true;
    });
    await fake.admin("POST", "/_fake/faults", { match: "sendMessage", kind: "status", status: 502 });
    await assert.rejects(api.sendMessage(USER, "two"), (e) => e instanceof GrammyError && e.error_code === 502);
    await fake.admin("POST", "/_fake/faults", { match: "sendMessage", kind: "drop" });
    await assert.rejects(api.sendMessage(USER, "three"), (e) => e instanceof HttpError);
    // None of those three reached the chat.
    assert.deepEqual((await chat(fake)).messages.map((m) => m.text), ["hi"]);

    // The send goes through, the answer never comes: grammY times out, the user has the message.
    await fake.admin("POST", "/_fake/faults", { match: "sendMessage", kind: "timeout" });
    await assert.rejects(bot(fake, { timeoutSeconds: 1 }).api.sendMessage(USER, "four"), (e) => e instanceof HttpError);
    assert.deepEqual((await chat(fake)).messages.map((m) => m.text), ["hi", "four"]);
    // The send goes through, then the connection drops: an HttpError, and the user has the message.
    await fake.admin("POST", "/_fake/faults", { match: "sendMessage", kind: "drop_after_send" });
    await assert.rejects(api.sendMessage(USER, "four and a half"), (e) => e instanceof HttpError);
    assert.deepEqual((await chat(fake)).messages.map((m) => m.text), ["hi", "four", "four and a half"]);
    // Delayed instead of lost: the answer comes after delay_ms.
    await fake.admin("POST", "/_fake/faults", { match: "sendMessage", kind: "timeout", delay_ms: 300 });
    const started = Date.now();
    assert.equal((await api.sendMessage(USER, "five")).text, "five");
    assert.ok(Date.now() - started >= 280);
    const journal = await fake.journal({ route: "sendMessage" });
    assert.deepEqual(journal.map((e) => [e.status, e.fault ?? null]),
      [[429, "rate_limit"], [502, "status"], [null, "drop"], [200, "timeout"], [200, "drop_after_send"],
        [200, "timeout"]]);
  }));

test("a user sends a photo and a document: the update has Telegram's photo sizes and document; getFile and the download give the bytes", () =>
  withFake(async (fake) => {
    const b = bot(fake);
    const got = [];
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DwHwyBDAYGBgYGBgYA0N8H+X4CN2IAAAAASUVORK5CYII=",
      "base64");
    const doc = Buffer.from("a,b\n1,2\n");
    await userSays(fake, "look at this", { file: { kind: "photo", name: "cat.png", data_base64: png.toString("base64") } });
    await userSays(fake, "", { file: { kind: "document", name: "table.csv", data_base64: doc.toString("base64") } });
    const updates = await b.api.getUpdates({ timeout: 0 });
    for (const u of updates) got.push(u.message);
    assert.equal(got.length, 2);
    const [photoMsg, docMsg] = got;
    assert.equal(photoMsg.caption, "look at this");
    assert.equal(photoMsg.text, undefined);
    const largest = photoMsg.photo[photoMsg.photo.length - 1];
    assert.deepEqual([largest.width, largest.height, largest.file_size], [2, 2, png.length]);
    assert.equal(docMsg.document.file_name, "table.csv");
    assert.equal(docMsg.document.mime_type, "text/csv");
    for (const [fileId, bytes] of [[largest.file_id, png], [docMsg.document.file_id, doc]]) {
      const file = await b.api.getFile(fileId);
      assert.equal(file.file_size, bytes.length);
      const res = await fetch(`${fake.base}/file/bot${DEFAULT_TOKEN}/${file.file_path}`);
      assert.equal(sha256(Buffer.from(await res.arrayBuffer())), sha256(bytes));
    }
  }));

test("webhook: setWebhook with secret_token; the fake POSTs updates with the header to grammY's webhookCallback; getUpdates is 409", () =>
  withFake(async (fake) => {
    const b = bot(fake);
    const texts = [];
    b.on("message:text", (ctx) => {
      texts.push(ctx.msg.text);
    });
    await b.init();
    const secret = "s3cr3t_TOKEN-1";
    const server = http.createServer(webhookCallback(b, "http", { secretToken: secret }));
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const hook = `http://127.0.0.1:${server.address().port}/hook`;
    try {
      assert.equal(await b.api.setWebhook(hook, { secret_token: secret }), true);
      await assert.rejects(b.api.getUpdates(), (e) => {
        assert.ok(e instanceof GrammyError);
        assert.equal(e.error_code, 409);
        assert.equal(e.description,
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
        return true;
      });
      await userSays(fake, "via webhook");
      await eventually(() => texts.length === 1, 5000, "webhook update handled");
      assert.deepEqual(texts, ["via webhook"]);
      await fake.waitFor((es) => es.some((e) => e.kind === "webhook" && e.status === 200));
      const info = await b.api.getWebhookInfo();
      assert.equal(info.url, hook);
      assert.equal(info.pending_update_count, 0);

      // A wrong secret: grammY answers 401, the fake keeps the update and reports the error.
      await b.api.setWebhook(hook, { secret_token: "other" });
      await userSays(fake, "refused");
      await fake.waitFor((es) => es.some((e) => e.kind === "webhook" && e.status === 401));
      const failing = await b.api.getWebhookInfo();
      assert.equal(failing.pending_update_count, 1);
      assert.equal(failing.last_error_message, "Wrong response from the webhook: 401 Unauthorized");
      // Fixed secret: the kept update arrives.
      await b.api.setWebhook(hook, { secret_token: secret });
      await eventually(() => texts.length === 2, 5000, "kept update delivered");
      assert.deepEqual(texts, ["via webhook", "refused"]);
      // The admin POST (tests of a receiver's checks): a missing or wrong secret is refused by grammY (401),
      // a redelivery of an update delivered before reaches the handler again, with the same update_id.
      const first = (await fake.journal()).find((e) => e.kind === "webhook" && e.status === 200).update_id;
      for (const secret of ["missing", "wrong"]) {
        const r = await fake.admin("POST", "/_fake/webhook/post", { update_id: first, secret });
        assert.equal(r.status, 401, `secret ${secret}`);
      }
      assert.deepEqual(texts, ["via webhook", "refused"]);
      const again = await fake.admin("POST", "/_fake/webhook/post", { update_id: first });
      assert.deepEqual([again.status, again.update_id], [200, first]);
      assert.deepEqual(texts, ["via webhook", "refused", "via webhook"]);
      assert.equal(await b.api.deleteWebhook(), true);
      assert.deepEqual(await b.api.getUpdates({ timeout: 0 }), []);
    } finally {
      server.close();
    }
  }));
