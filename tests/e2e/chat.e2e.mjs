// The web chat page end to end, in Debian's Chromium driven by Playwright (playwright-core).
//
// Usage: node chat.e2e.mjs --url http://127.0.0.1:PORT/ --files DIR --screenshot OUT.png
//        node chat.e2e.mjs --url ... --demo --screenshot OUT.png     (docs/screenshot.png: the demo script)
// Run by tests/cli/web_e2e_test.py against `sigil serve` with tests/e2e/e2e.toml and chat-replay.jsonl
// (a replay model that streams replies full of markup, cut into awkward tokens). DIR is the send-file folder.
//
// What it shows (issue 4, "Prove it"):
// - while each reply streams, every state of the transcript (a MutationObserver records each change,
//   and a timer polls in between) is free of markup: no tag, bracket directive, JSON body, comment,
//   sentinel or hidden-region text is ever visible, not even for one frame;
// - a reaction appears on the user message of its turn, and on no other;
// - a file downloads with exactly the bytes of the file in the send-file folder; an image shows inline;
// - a voice note is an <audio> element whose source is a valid Ogg file, and it plays;
// - <no-reply/> leaves no assistant message (its reaction still shows); a late NO_REPLY line removes the
//   text it followed;
// - the history comes back after a reload, still without markup; the page works 360 px wide;
// - "New conversation" starts an empty one; links from model text are safe (rel=noopener, no javascript:);
// - it saves a screenshot.
// Exit code 0 when every check passed; each failure prints what was seen.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { launchChromium } from "./browser.mjs";

const args = parseArgs(process.argv.slice(2));
const BASE = args.url;
const TIMEOUT = 60_000;  // per wait: generous, the machine may be loaded (ASan build, 2 cores)

function parseArgs(argv) {
  const out = { demo: false };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === "--demo") out.demo = true;
    else if (a.startsWith("--")) out[a.slice(2)] = argv[++i];
  }
  if (!out.url || !out.screenshot || (!out.demo && !out.files)) {
    console.error("usage: chat.e2e.mjs --url URL (--files DIR | --demo) --screenshot OUT.png");
    process.exit(2);
  }
  return out;
}

// What must never be visible. Tag-shaped text of any name (the replies write none outside directives),
// bracket directives, JSON bodies, comments, sentinels and what stood inside <think>.
const FORBIDDEN = [
  /<\/?[A-Za-z!][\w.:-]*/,  // <react, </file>, <no-reply, <think, <!--, <actions ...
  /<\//,
  /\[[A-Z_]{3,}[:\]]/,  // [REMEMBER:, [CALCULATE:, [SEARCH_EPISODIC: ...
  /\{"itemId"/,
  /"value"\s*:/,
  /NO_REPLY|NO_MESSAGE|no-reply|no_reply/,
  /SECRET-THOUGHT|wants the tour/,  // the text inside the reply's <think> region
  /HIDDEN-THOUGHT/,  // text outside the say blocks of a say-mode reply
  /emoji=/,
  /-->/,
];

// Runs in the page before its own scripts: records every state of the transcript's text.
function installRecorder(patterns) {
  const res = patterns.map((p) => new RegExp(p));
  const rec = { samples: 0, violations: [], last: "" };
  window.__sigilRecorder = rec;
  // Keeps the page's WebSockets reachable, so the test can drop the connection.
  const NativeWebSocket = window.WebSocket;
  window.__sigilSockets = [];
  window.WebSocket = class extends NativeWebSocket {
    constructor(...a) {
      super(...a);
      window.__sigilSockets.push(this);
    }
  };
  const check = (why) => {
    const t = document.getElementById("transcript");
    if (!t) return;
    // textContent: also what CSS hides. Attributes a user can see (title, alt) too.
    let text = t.textContent;
    for (const e of t.querySelectorAll("[title],[alt],[aria-label]")) {
      text += `\n${e.getAttribute("title") ?? ""} ${e.getAttribute("alt") ?? ""} ${e.getAttribute("aria-label") ?? ""}`;
    }
    rec.samples += 1;
    if (text === rec.last) return;
    rec.last = text;
    for (const re of res) {
      if (re.test(text) && rec.violations.length < 20) rec.violations.push({ why, pattern: String(re), text });
    }
  };
  const start = () => {
    const t = document.getElementById("transcript");
    if (!t) return setTimeout(start, 5);
    new MutationObserver(() => check("mutation")).observe(t, {
      childList: true,
      subtree: true,
      characterData: true,
      attributes: true,
    });
    setInterval(() => check("poll"), 10);
    check("start");
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
}

let failures = 0;
async function check(name, fn) {
  const started = Date.now();
  try {
    await fn();
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
  }
}

async function launch(width = 1000, height = 900) {
  const { context, profile } = await launchChromium({
    viewport: { width, height },
    acceptDownloads: true,
    timeout: TIMEOUT,
  });
  context.setDefaultTimeout(TIMEOUT);
  await context.addInitScript(installRecorder, FORBIDDEN.map((r) => r.source));
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (e) => {
    failures += 1;
    console.log(`FAIL page error: ${e.message}`);
  });
  page.on("console", (m) => {
    if (m.type() === "error") console.log(`page console error: ${m.text()}`);
  });
  return { context, page, profile };
}

async function open(page) {
  await page.goto(BASE);
  await page.waitForSelector("#status[data-state=online]");
}

// Sends a message with the keyboard and waits until its turn has ended (the typing indicator goes away
// once no turn runs and no message waits for its turn). Returns the user message's <li> and turn id.
async function send(page, text) {
  const before = await page.locator("#transcript > li.user").count();
  await page.locator("#input").fill(text);
  await page.locator("#input").press("Enter");
  const li = page.locator("#transcript > li.user").nth(before);
  await li.waitFor();
  assert.equal(await li.locator(".text").innerText(), text, "the user's message appears at once");
  await page.waitForFunction((n) => {
    const items = document.querySelectorAll("#transcript > li.user");
    return items.length > n && items[n].dataset.turn && document.getElementById("typing").hidden;
  }, before);
  const turn = await li.getAttribute("data-turn");
  return { li, turn };
}

async function recorder(page) {
  return page.evaluate(() => ({
    samples: window.__sigilRecorder.samples,
    violations: window.__sigilRecorder.violations,
  }));
}

async function assertNoMarkupSeen(page, what) {
  const r = await recorder(page);
  assert.ok(r.samples > 0, "the recorder sampled the transcript");
  assert.deepEqual(r.violations, [], `${what}: markup was visible`);
  return r.samples;
}

function assistantOf(page, turn) {
  return page.locator(`#transcript > li.assistant[data-turn="${turn}"]`);
}

async function reactionsOf(li) {
  return li.locator(":scope > .meta .reaction").allInnerTexts();
}

// The whole conversation in one picture: the window is made as tall as the page (a full-page capture
// would leave the sticky composer in the middle), then restored.
async function screenshot(page, file) {
  // Voice players show their length once their metadata is in.
  await page
    .waitForFunction(() => [...document.querySelectorAll("audio")].every((a) => a.readyState >= 1), null, {
      timeout: 20_000,
    })
    .catch(() => console.log("     (an audio element had no metadata yet for the screenshot)"));
  const size = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: size.width, height: Math.min(Math.max(height, size.height), 4000) });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file });
  await page.setViewportSize(size);
}

// ---------------------------------------------------------------- the test

async function main() {
  const { context, page, profile } = await launch();
  try {
    await open(page);
    const hello = await page.evaluate(() => ({
      banner: !document.getElementById("replay-banner").hidden,
      bannerText: document.getElementById("replay-banner").textContent.trim(),
      model: document.getElementById("model").textContent,
      conversation: Object.entries(localStorage).find(([k]) => k.startsWith("sigil.conversation."))?.[1],
    }));

    if (args.demo) return await demo(page);

    await check("hello: the replay banner and the model label show; a conversation id is stored", async () => {
      assert.ok(hello.banner, "banner shown");
      assert.equal(hello.bannerText, "Replay model: scripted demo replies, no real model");
      assert.match(hello.model, /replay/i);
      assert.match(hello.conversation ?? "", /^[A-Za-z0-9._-]{1,128}$/);
    });

    await check("the recorder sees markup when there is some (the checks below can fail)", async () => {
      const seen = await page.evaluate(async () => {
        const li = document.createElement("li");
        li.textContent = 'x <react emoji="thumbsup"/> y';
        document.getElementById("transcript").appendChild(li);
        await new Promise((r) => setTimeout(r, 50));
        li.remove();
        await new Promise((r) => setTimeout(r, 50));
        const v = window.__sigilRecorder.violations.splice(0);
        return v.map((x) => x.pattern);
      });
      assert.ok(seen.length > 0, "the injected markup was recorded");
      assert.deepEqual((await recorder(page)).violations, []);
    });

    const turns = {};
    await check("a message that schedules a task gets its answer (the task fires a minute later)", async () => {
      const { li, turn } = await send(page, "Please remind me to stretch in a minute");
      turns.remind = { li, turn, at: Date.now() };
      assert.equal(await assistantOf(page, turn).locator(".text").innerText(), "I will remind you in a minute.");
      await assertNoMarkupSeen(page, "the scheduling turn");
    });

    await check("a reply full of markup streams in without one visible byte of it", async () => {
      const { li, turn } = await send(page, "Please give me the markup tour");
      turns.tour = { li, turn };
      const a = assistantOf(page, turn);
      await a.waitFor();
      const text = await a.locator(".text").allInnerTexts();
      const all = text.join("\n");
      for (const want of [
        "Here is the tour.",
        "I'll remember that.",
        "Six times seven is 42, and this sentence was in a say tag still shows.",
        "End of the tour.",
      ]) {
        assert.ok(all.includes(want), `reply has ${JSON.stringify(want)}: ${JSON.stringify(all)}`);
      }
      assert.equal(await a.locator("strong").innerText(), "that", "**that** is bold");
      assert.equal(await a.locator("pre code").innerText(), "let total = 6 * 7;", "the code block");
      const links = await a.locator("a").evaluateAll((as) =>
        as.map((x) => ({ href: x.getAttribute("href"), text: x.textContent, rel: x.rel, target: x.target })),
      );
      assert.deepEqual(
        links.map((l) => l.text),
        ["https://example.org/guide", "/pages/tour-demo"],
        JSON.stringify(links),
      );
      for (const l of links) {
        assert.equal(l.rel, "noopener noreferrer");
        assert.equal(l.target, "_blank");
      }
      assert.equal(links[1].href, new URL("/pages/tour-demo", BASE).href, "a published page link");
      const samples = await assertNoMarkupSeen(page, "the markup tour");
      console.log(`     ${samples} samples of the transcript so far`);
    });

    await check("the reaction of that turn sits on its user message", async () => {
      assert.deepEqual(await reactionsOf(turns.tour.li), ["👍"]);
      assert.deepEqual(await reactionsOf(assistantOf(page, turns.tour.turn)), []);
    });

    await check("a file downloads with exactly the bytes of the file in the send-file folder", async () => {
      const { li, turn } = await send(page, "Could you send the report?");
      turns.report = { li, turn };
      const a = assistantOf(page, turn);
      const link = a.locator("a.file-link", { hasText: "report.pdf" });
      await link.waitFor();
      assert.equal(await link.getAttribute("download"), "report.pdf");
      const expected = fs.readFileSync(path.join(args.files, "report.pdf"));
      assert.match(await link.locator(".file-size").innerText(), /KB$/);
      const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
      assert.equal(download.suggestedFilename(), "report.pdf");
      const got = fs.readFileSync(await download.path());
      assert.equal(got.length, expected.length, "download size");
      assert.ok(got.equals(expected), "download bytes");
      // The reaction (":thumbsup:" resolved) is on this turn's message; the text around the file shows.
      assert.deepEqual(await reactionsOf(li), ["👍"]);
      const text = (await a.locator(".text").allInnerTexts()).join("\n");
      assert.ok(text.includes("Of course here it is:"), text);
      assert.ok(text.includes("That is all."), text);
      await assertNoMarkupSeen(page, "the file turn");
    });

    await check("an image file shows inline with its caption", async () => {
      const a = assistantOf(page, turns.report.turn);
      const img = a.locator(".attachment img");
      await img.waitFor();
      assert.equal(await img.getAttribute("alt"), "One pixel");
      await page.waitForFunction(
        (t) => {
          const i = document.querySelector(`li.assistant[data-turn="${t}"] .attachment img`);
          return i && i.complete && i.naturalWidth > 0;
        },
        turns.report.turn,
      );
      // Order as in the reply: text, file, text, image, text.
      const kinds = await a.locator(":scope > .bubble > *").evaluateAll((xs) =>
        xs.map((x) => (x.classList.contains("text") ? "text" : x.querySelector("img") ? "image" : "file")),
      );
      assert.deepEqual(kinds, ["text", "file", "text", "image", "text"]);
    });

    await check("a voice note is an <audio> with a valid Ogg source, and it plays", async () => {
      const { li, turn } = await send(page, "Now a voice note please");
      turns.voice = { li, turn };
      const a = assistantOf(page, turn);
      const audio = a.locator("audio");
      await audio.waitFor();
      assert.equal(await audio.locator("source").getAttribute("type"), "audio/ogg");
      const src = await audio.locator("source").evaluate((s) => s.src);
      assert.match(src, /\/media\/[0-9a-f]{64}\/[^/]+$/);
      const head = await page.evaluate(async (u) => {
        const r = await fetch(u);
        const b = new Uint8Array(await r.arrayBuffer());
        return {
          status: r.status,
          type: r.headers.get("content-type"),
          magic: String.fromCharCode(...b.slice(0, 4)),
          size: b.length,
        };
      }, src);
      assert.equal(head.status, 200);
      assert.equal(head.magic, "OggS", "an Ogg file");
      assert.match(head.type ?? "", /^audio\/ogg/);
      assert.ok(head.size > 100);
      // A click on the element is the user gesture autoplay rules ask for; then play().
      await audio.click();
      const played = await audio.evaluate(async (el) => {
        await el.play();
        await new Promise((resolve, reject) => {
          const t = setTimeout(() => reject(new Error(`no progress: currentTime ${el.currentTime}`)), 30000);
          const tick = () => {
            if (el.currentTime > 0) {
              clearTimeout(t);
              resolve();
            } else {
              setTimeout(tick, 20);
            }
          };
          tick();
        });
        const r = { duration: el.duration, currentTime: el.currentTime, error: el.error && el.error.code };
        el.pause();
        return r;
      });
      assert.equal(played.error, null);
      assert.ok(played.duration > 0, `duration ${played.duration}`);
      assert.ok(played.currentTime > 0);
      const text = (await a.locator(".text").allInnerTexts()).join("\n");
      assert.ok(text.includes("Listen to this:") && text.includes("That was a voice note."), text);
      assert.deepEqual(await reactionsOf(li), [], "no reaction on this turn");
      await assertNoMarkupSeen(page, "the voice turn");
    });

    await check("<no-reply/> shows no assistant message; its reaction still shows", async () => {
      const { li, turn } = await send(page, "Please stay silent now");
      turns.silent = { li, turn };
      assert.equal(await assistantOf(page, turn).count(), 0, "no assistant bubble");
      assert.deepEqual(await reactionsOf(li), ["👀"]);
      await assertNoMarkupSeen(page, "the silent turn");
    });

    await check("a late NO_REPLY takes back the text it followed", async () => {
      const { turn } = await send(page, "Oh, never mind that");
      turns.neverMind = { turn };
      assert.equal(await assistantOf(page, turn).count(), 0, "the shown text was removed");
      await assertNoMarkupSeen(page, "the late-silence turn");
    });

    await check("say mode: a switch of the conversation; only say blocks show, each its own paragraph", async () => {
      const toggle = page.locator("#say-mode");
      assert.equal(await toggle.isChecked(), false, "off until chosen");
      await toggle.check();
      await page.waitForFunction(() => !document.getElementById("say-mode").disabled);
      assert.equal(await toggle.isChecked(), true, "the server confirmed it");
      const { turn } = await send(page, "Say mode please");
      const paragraphs = await assistantOf(page, turn).locator(".bubble > .text").allInnerTexts();
      assert.deepEqual(paragraphs, ["First block.", "Second block."]);
      await assertNoMarkupSeen(page, "the say-mode turn");
      await toggle.uncheck();
      await page.waitForFunction(() => {
        const t = document.getElementById("say-mode");
        return !t.disabled && !t.checked;
      });
    });

    await check("reactions are on the right messages only", async () => {
      const all = await page.locator("#transcript > li").evaluateAll((lis) =>
        lis.map((l) => [l.dataset.role, l.querySelector(".text")?.textContent ?? "", l.querySelectorAll(".reaction").length]),
      );
      const want = {
        "Please remind me to stretch in a minute": 0,
        "Please give me the markup tour": 1,
        "Could you send the report?": 1,
        "Now a voice note please": 0,
        "Please stay silent now": 1,
        "Oh, never mind that": 0,
        "Say mode please": 0,
      };
      for (const [role, text, n] of all) {
        if (role === "assistant") assert.equal(n, 0, `no reaction on an answer: ${JSON.stringify(all)}`);
        else assert.equal(n, want[text], `reactions on ${JSON.stringify(text)}: ${JSON.stringify(all)}`);
      }
    });

    await check("model text cannot inject markup or script links (render.js in the page)", async () => {
      const out = await page.evaluate(async () => {
        const { renderRich } = await import("/assets/render.js");
        const box = document.createElement("div");
        renderRich(
          box,
          '<img src=x onerror="window.__pwned=1"> [x](javascript:alert(1)) [y](//evil.example/) ' +
            "**<b>b</b>** `<i>` http://ok.example/a). <script>window.__pwned=2</script>",
          location.href,
        );
        return {
          tags: [...box.querySelectorAll("*")].map((e) => e.tagName.toLowerCase()),
          hrefs: [...box.querySelectorAll("a")].map((a) => a.getAttribute("href")),
          text: box.textContent,
          pwned: window.__pwned ?? null,
        };
      });
      assert.equal(out.pwned, null);
      assert.deepEqual([...new Set(out.tags)].sort(), ["a", "code", "span", "strong"]);
      assert.deepEqual(out.hrefs, ["http://ok.example/a"]);
      assert.ok(out.text.startsWith("<img src=x"), out.text);
    });

    await check("the scheduled task's answer arrives later as a new message marked Scheduled", async () => {
      // The task is due a minute after it was scheduled; the scheduler may start it a little later.
      const left = Math.max(0, 60_000 - (Date.now() - turns.remind.at));
      const s = page.locator("#transcript > li.assistant.scheduled");
      await s.waitFor({ timeout: left + 120_000 });
      await page.waitForFunction(() => document.getElementById("typing").hidden);
      assert.equal(await s.count(), 1);
      assert.equal(await s.locator(".text").innerText(), "Time to stretch, as you asked a minute ago.");
      assert.equal(await s.locator(".scheduled-tag").textContent(), "Scheduled");
      assert.match((await s.locator(".scheduled-tag").getAttribute("title")) ?? "", /Stretch reminder/);
      const order = await page.locator("#transcript > li").evaluateAll((lis, t) => {
        const i = lis.findIndex((l) => l.classList.contains("assistant") && l.dataset.turn === t);
        const j = lis.findIndex((l) => l.classList.contains("scheduled"));
        return [i, j];
      }, turns.remind.turn);
      assert.ok(order[0] >= 0 && order[1] > order[0], `it comes after the answer that scheduled it: ${order}`);
      await assertNoMarkupSeen(page, "the scheduled turn");
    });

    await check("Stop cancels a running turn: the reply stops, with a note", async () => {
      const before = await page.locator("#transcript > li.user").count();
      await page.locator("#input").fill("Tell me a long story");
      await page.locator("#input").press("Enter");
      const li = page.locator("#transcript > li.user").nth(before);
      await page.waitForFunction((n) => document.querySelectorAll("#transcript > li.user")[n]?.dataset.turn, before);
      const turn = await li.getAttribute("data-turn");
      const a = assistantOf(page, turn);
      await a.locator(".text").waitFor();
      assert.ok(await page.locator("#stop").isVisible(), "Stop shows while the turn runs");
      await page.locator("#stop").click();
      await page.waitForFunction(() => document.getElementById("typing").hidden);
      assert.ok(await page.locator("#stop").isHidden());
      const text = await a.locator(".text").innerText();
      assert.ok(text.startsWith("Once upon a time"), text);
      assert.ok(!text.includes("The end."), "the reply was cut short");
      assert.equal(await a.locator(".note").innerText(), "Stopped.");
      await assertNoMarkupSeen(page, "the stopped turn");
    });

    await check("Shift+Enter makes a new line; Enter sends", async () => {
      await page.locator("#input").fill("");
      await page.locator("#input").pressSequentially("line one");
      await page.locator("#input").press("Shift+Enter");
      await page.locator("#input").pressSequentially("line two");
      assert.equal(await page.locator("#input").inputValue(), "line one\nline two");
      const { turn } = await send(page, "x");  // fill() replaces the draft
      await assistantOf(page, turn).waitFor();
      assert.equal(await assistantOf(page, turn).locator(".text").innerText(), "Noted.");
    });

    await check("a dropped connection comes back on its own; nothing is shown twice", async () => {
      const before = await page.locator("#transcript > li").count();
      await page.evaluate(() => window.__sigilSockets.at(-1).close());
      await page.waitForFunction(() => document.getElementById("status").dataset.state !== "online");
      await page.waitForFunction(() => document.getElementById("status").dataset.state === "online");
      assert.equal(await page.evaluate(() => window.__sigilSockets.length), 2, "one new connection");
      assert.equal(await page.locator("#transcript > li").count(), before, "the history merged, not repeated");
      const { turn } = await send(page, "still there?");
      assert.equal(await assistantOf(page, turn).locator(".text").innerText(), "Noted.");
    });

    // The screenshot shows the live conversation (after a reload only its text would be there).
    await screenshot(page, args.screenshot);

    await check("after a reload the history shows, without markup", async () => {
      await page.reload();
      await page.waitForSelector("#status[data-state=online]");
      await page.waitForFunction(() => document.querySelectorAll("#transcript > li.user").length >= 10);
      const users = await page.locator("#transcript > li.user .text").allInnerTexts();
      assert.deepEqual(users, [
        "Please remind me to stretch in a minute",
        "Please give me the markup tour",
        "Could you send the report?",
        "Now a voice note please",
        "Please stay silent now",
        "Oh, never mind that",
        "Say mode please",
        "Tell me a long story",
        "x",
        "still there?",
      ]);
      assert.equal(await assistantOf(page, turns.silent.turn).count(), 0, "none for the silent turn");
      assert.equal(await assistantOf(page, turns.neverMind.turn).count(), 0, "none for the late-silent turn");
      for (const t of ["remind", "tour", "report", "voice"]) {
        assert.equal(await assistantOf(page, turns[t].turn).count(), 1, `the answer of ${t}`);
      }
      const scheduled = page.locator("#transcript > li.assistant.scheduled");
      assert.equal(await scheduled.count(), 1, "the scheduled answer, marked");
      assert.equal(await scheduled.locator(".text").innerText(), "Time to stretch, as you asked a minute ago.");
      const text = await page.locator("#transcript").innerText();
      assert.ok(text.includes("Six times seven is 42"), text);
      await assertNoMarkupSeen(page, "the history");
    });

    await check("after the reload the file, the voice note (playable) and the reactions are there again", async () => {
      const users = page.locator("#transcript > li.user");
      const byText = (t) => users.filter({ has: page.locator(".text", { hasText: t }) }).first();
      assert.deepEqual(await reactionsOf(byText("Please give me the markup tour")), ["👍"]);
      assert.deepEqual(await reactionsOf(byText("Could you send the report?")), ["👍"]);
      assert.deepEqual(await reactionsOf(byText("Please stay silent now")), ["👀"]);
      const link = assistantOf(page, turns.report.turn).locator("a.file-link", { hasText: "report.pdf" });
      await link.waitFor();
      const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
      const expected = fs.readFileSync(path.join(args.files, "report.pdf"));
      assert.ok(fs.readFileSync(await download.path()).equals(expected), "the file's bytes after a reload");
      const audio = assistantOf(page, turns.voice.turn).locator("audio");
      await audio.waitFor();
      const src = await audio.locator("source").evaluate((s) => s.src);
      const magic = await page.evaluate(async (u) => {
        const b = new Uint8Array(await (await fetch(u)).arrayBuffer());
        return String.fromCharCode(...b.slice(0, 4));
      }, src);
      assert.equal(magic, "OggS", "the voice note's Ogg bytes after a reload");
      await audio.click();
      const played = await audio.evaluate(async (el) => {
        await el.play();
        const start = Date.now();
        while (el.currentTime === 0 && Date.now() - start < 30000) await new Promise((r) => setTimeout(r, 20));
        const r = { currentTime: el.currentTime, error: el.error && el.error.code };
        el.pause();
        return r;
      });
      assert.equal(played.error, null);
      assert.ok(played.currentTime > 0, "the voice note plays after a reload");
      await assertNoMarkupSeen(page, "the history's deliveries");
    });

    await check("at 360 px wide nothing overflows sideways and the composer is usable", async () => {
      await page.setViewportSize({ width: 360, height: 740 });
      const m = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        width: document.documentElement.clientWidth,
        send: document.getElementById("send").getBoundingClientRect().right,
        inputWidth: document.getElementById("input").getBoundingClientRect().width,
      }));
      assert.ok(m.scroll <= m.width, `page is ${m.scroll} px wide in a ${m.width} px window`);
      assert.ok(m.send <= 360, `send button ends at ${m.send}`);
      assert.ok(m.inputWidth > 150, `input ${m.inputWidth} px`);
      await page.screenshot({ path: args.screenshot.replace(/\.png$/, "-360.png"), fullPage: false });
      await page.setViewportSize({ width: 1000, height: 900 });
    });

    await check("New conversation starts an empty conversation with a new id", async () => {
      const before = await page.evaluate(() => localStorage.getItem("sigil.conversation.web"));
      await page.locator("#new-conversation").click();
      await page.waitForSelector("#status[data-state=online]");
      await page.waitForFunction(() => document.querySelectorAll("#transcript > li").length === 0);
      const after = await page.evaluate(() => localStorage.getItem("sigil.conversation.web"));
      assert.notEqual(after, before);
      assert.ok(await page.locator("#empty-hint").isVisible());
    });

    const r = await recorder(page);
    console.log(`transcript samples in the last page load: ${r.samples}`);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

// The demo script (examples/demo-replay.jsonl) for docs/screenshot.png: send its prompts, wait for each
// turn, and take the screenshot once a reaction, a file and a voice note show.
async function demo(page) {
  const prompts = (args.prompts ?? "").split("|").filter(Boolean);
  for (const p of prompts) await send(page, p);
  await check("the demo shows a reaction, a file and a voice note", async () => {
    await page.locator("#transcript .reaction").first().waitFor();
    await page.locator("#transcript a.file-link").first().waitFor();
    await page.locator("#transcript audio").first().waitFor();
    await assertNoMarkupSeen(page, "the demo");
  });
  await screenshot(page, args.screenshot);
}

main()
  .catch((e) => {
    failures += 1;
    console.log(`FAIL ${e && e.stack ? e.stack : e}`);
  })
  .finally(() => {
    console.log(failures === 0 ? "web e2e: all checks passed" : `web e2e: ${failures} check(s) failed`);
    process.exitCode = failures === 0 ? 0 : 1;
  });
