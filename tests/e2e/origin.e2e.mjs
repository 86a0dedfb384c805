// Loopback is no trust boundary, in a real browser (Debian's Chromium driven by Playwright).
//
// Usage: node origin.e2e.mjs --gateway http://127.0.0.1:PORT --attacker http://127.0.0.2:PORT2
// Run by tests/cli/origin_e2e_test.py, which starts `sigil serve` (page_scripts = true, replay model
// tests/e2e/origin-replay.jsonl) and an attacker's page server on another loopback address.
//
// What it shows (issue 15, "Prove it"):
// - a page of another origin (127.0.0.2) opens the gateway's WebSocket, fetches the history and POSTs a
//   message (text/plain, no-cors: a request browsers send cross-site without asking): each is refused by the
//   server (its refusal counter grows) and no turn runs (sigil_turns_total is unchanged);
// - DNS rebinding: Chromium resolves evil.test to 127.0.0.1 (--host-resolver-rules); the history read through
//   that name is refused with 421;
// - the gateway's own page still works: a message gets its reply;
// - a published page whose scripts the operator allowed runs in an opaque origin: it cannot read the chat's
//   storage, and cannot reach the WebSocket or the history as the gateway's origin.
// Exit code 0 when every check passed.
import assert from "node:assert/strict";
import fs from "node:fs";
import { launchChromium } from "./browser.mjs";

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].slice(2)] = process.argv[i + 1];
const GATEWAY = args.gateway;
const ATTACKER = args.attacker;
const TIMEOUT = 60_000;
const gatewayPort = new URL(GATEWAY).port;

// A request without Origin (this process is no browser page): the server's own view.
async function metric(name) {
  const text = await (await fetch(`${GATEWAY}/metrics`)).text();
  const m = text.match(new RegExp(`^${name} (\\d+)$`, "m"));
  assert.ok(m, `metric ${name} missing`);
  return Number(m[1]);
}

async function historyOf(conversation) {
  const r = await fetch(`${GATEWAY}/v1/conversations/${conversation}/messages?user=web`);
  return (await r.json()).messages;
}

// evil.test resolves to the gateway's address: a rebound name.
const { context, profile } = await launchChromium({ args: ["--host-resolver-rules=MAP evil.test 127.0.0.1"] });
let failures = 0;
async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL ${name}\n     ${e.message}`);
  }
}

try {
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);

  await check("the gateway's own page works", async () => {
    await page.goto(`${GATEWAY}/`);
    await page.waitForSelector("#status[data-state=online]");
    await page.locator("#input").fill("hello there");
    await page.locator("#input").press("Enter");
    const reply = page.locator("#transcript > li.assistant .text", { hasText: "Hello from the gateway's own page." });
    await reply.waitFor();
  });

  await check("a page of another origin reaches nothing, and no turn runs", async () => {
    const turnsBefore = await metric("sigil_turns_total");
    const refusedBefore = await metric("sigil_refused_origin_total");
    const attack = await context.newPage();
    await attack.goto(`${ATTACKER}/attack.html?gateway=127.0.0.1:${gatewayPort}`);
    await attack.waitForFunction(() => window.done === true, null, { timeout: TIMEOUT });
    const out = await attack.evaluate(() => window.results);
    assert.notEqual(out.ws, "open", `the WebSocket opened: ${JSON.stringify(out)}`);
    assert.equal(out.wsMessages, 0, "a frame arrived");
    assert.ok(!String(out.fetch).startsWith("read"), `the history was read: ${JSON.stringify(out)}`);
    await attack.close();
    // Let a turn that was wrongly started show up before counting.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await metric("sigil_turns_total"), turnsBefore, "a turn ran");
    assert.equal((await historyOf("c9")).length, 0, "the attacker's message was stored");
    const refused = (await metric("sigil_refused_origin_total")) - refusedBefore;
    // The WebSocket, the history read and the POST, each refused by the server itself.
    assert.ok(refused >= 3, `the server refused ${refused} requests, expected 3`);
  });

  await check("DNS rebinding: the gateway does not answer to another name", async () => {
    const rebound = await context.newPage();
    const response = await rebound.goto(`http://evil.test:${gatewayPort}/v1/conversations/c1/messages?user=web`);
    assert.equal(response.status(), 421);
    assert.ok(!(await rebound.content()).includes("hello there"), "the history leaked");
    await rebound.close();
  });

  // Publishes a page through the model (replay) from a client without Origin; its link comes back in the
  // reply's clean text (the SSE `text` events).
  async function publish(message) {
    const r = await fetch(`${GATEWAY}/v1/conversations/pub/messages`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: message, user: "web" }),
    });
    const text = (await r.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)).text ?? "")
      .join("");
    const m = text.match(/\/pages\/[A-Za-z0-9_-]+/);
    assert.ok(m, `no page link in: ${text.slice(0, 400)}`);
    return `${GATEWAY}${m[0]}`;
  }

  await check("a published page cannot redirect the browser (meta refresh)", async () => {
    const url = await publish("a redirect page");
    const probe = await context.newPage();
    await probe.goto(url);
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(probe.url(), url, "the page navigated away");
    assert.equal(await probe.locator("#out").innerText(), "stayed");
    await probe.close();
  });

  await check("a published page with scripts runs in an opaque origin", async () => {
    const probe = await context.newPage();
    await probe.goto(await publish("publish the probe"));
    await probe.waitForFunction(() => {
      const t = document.getElementById("out")?.textContent ?? "";
      return t.includes('"ws"') && t.includes('"fetch"');
    }, null, { timeout: TIMEOUT });
    const out = JSON.parse(await probe.locator("#out").innerText());
    assert.equal(out.origin, "null", `the page runs as ${out.origin}`);
    assert.equal(out.storage, "blocked", "the page read the chat's storage");
    assert.notEqual(out.ws, "open", "the page opened the WebSocket");
    assert.ok(!String(out.fetch).startsWith("read"), `the page read the history: ${out.fetch}`);
    await probe.close();
  });
} finally {
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
console.log(failures === 0 ? "origin e2e: all passed" : `origin e2e: ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
