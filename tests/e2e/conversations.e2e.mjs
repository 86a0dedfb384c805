// The web chat's list of conversations (run by tests/cli/conversations_page_test.py with --url and
// --token, against a gateway that needs the token): two conversations are listed newest first by their
// first message; switching shows the other's history; a rename is kept across a reload; deleting one
// removes it from the list and from the gateway; deleting the open one moves this page and another page
// showing it to a new conversation.
import assert from "node:assert/strict";
import fs from "node:fs";

import { launchChromium } from "./browser.mjs";

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const url = arg("--url");
const token = arg("--token");
const address = `${url}#access_token=${encodeURIComponent(token)}`;

async function online(page) {
  await page.waitForFunction(() => document.querySelector("#status").dataset.state === "online", null,
                             { timeout: 60_000 });
}

// Sends a message and waits until its turn has ended.
async function send(page, text) {
  const before = await page.locator("#transcript > li.user").count();
  await page.locator("#input").fill(text);
  await page.locator("#input").press("Enter");
  await page.waitForFunction((n) => {
    const items = document.querySelectorAll("#transcript > li.user");
    return items.length > n && items[n].dataset.turn && document.getElementById("typing").hidden;
  }, before);
}

async function openDrawer(page) {
  if (await page.locator("#drawer").isHidden()) await page.locator("#conversations-toggle").click();
  await page.locator("#drawer").waitFor();
}

// The titles the drawer lists once `n` saved conversations are shown.
async function listed(page, n) {
  await page.waitForFunction((k) => document.querySelectorAll("#conversation-list .conv-time").length === k, n,
                             { timeout: 30_000 });
  return page.locator("#conversation-list .conv-title").allInnerTexts();
}

async function apiList() {
  const r = await fetch(new URL("/v1/conversations", url), { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(r.status, 200);
  return (await r.json()).conversations;
}

const { context, profile } = await launchChromium();
try {
  const page = await context.newPage();
  page.on("dialog", (d) => d.accept());
  await page.goto(address);
  await online(page);
  await send(page, "Plan a trip to Rome");
  await page.locator("#new-conversation").click();
  await online(page);
  assert.equal(await page.locator("#transcript > li").count(), 0);
  await send(page, "Second chat about tea");

  await openDrawer(page);
  assert.deepEqual(await listed(page, 2), ["Second chat about tea", "Plan a trip to Rome"]);
  assert.equal(await page.locator("#conversation-list .conv[aria-current] .conv-title").innerText(),
               "Second chat about tea");
  console.log("ok   two conversations listed, newest first, by their first message; the open one marked");

  await page.locator("#conversation-list .conv", { hasText: "Rome" }).locator(".conv-open").click();
  await online(page);
  await page.waitForFunction(() => document.querySelector("#transcript > li.user .text")?.textContent === "Plan a trip to Rome");
  assert.ok(await page.locator("#drawer").isHidden(), "choosing a conversation closes the drawer");
  assert.equal(await page.locator("#transcript > li.user").count(), 1);
  console.log("ok   switching shows the other conversation's history");

  await openDrawer(page);
  await listed(page, 2);
  await page.locator("#conversation-list .conv", { hasText: "Rome" }).locator(".conv-rename").click();
  const input = page.locator("#conversation-list .conv-title-input");
  await input.fill("Rome trip");
  await input.press("Enter");
  await page.waitForFunction(() => [...document.querySelectorAll("#conversation-list .conv-title")].some((t) => t.textContent === "Rome trip"));
  await page.reload();
  await online(page);
  await openDrawer(page);
  // The order is by last message: renaming and opening change neither.
  assert.deepEqual(await listed(page, 2), ["Second chat about tea", "Rome trip"]);
  assert.equal((await apiList()).find((c) => c.title === "Rome trip")?.preview, "Plan a trip to Rome");
  console.log("ok   a rename is kept: after a reload the list and the API show it");

  await page.locator("#conversation-list .conv", { hasText: "tea" }).locator(".conv-delete").click();
  assert.deepEqual(await listed(page, 1), ["Rome trip"]);
  assert.deepEqual((await apiList()).map((c) => c.title), ["Rome trip"]);
  console.log("ok   deleting another conversation removes it from the list and the gateway");

  // A second page showing the same conversation (the same browser remembers the open one).
  const other = await context.newPage();
  await other.goto(address);
  await online(other);
  await other.waitForFunction(() => document.querySelector("#transcript > li.user .text")?.textContent === "Plan a trip to Rome");
  const openBefore = await page.evaluate(() => localStorage.getItem("sigil.conversation.web"));

  await page.locator("#conversation-list .conv", { hasText: "Rome trip" }).locator(".conv-delete").click();
  for (const p of [page, other]) {
    await p.waitForFunction(() => document.querySelectorAll("#transcript > li").length === 0);
    await p.locator("#toast", { hasText: "deleted" }).waitFor();
  }
  assert.notEqual(await page.evaluate(() => localStorage.getItem("sigil.conversation.web")), openBefore);
  assert.deepEqual(await apiList(), []);
  await openDrawer(page);
  await page.waitForFunction(() => document.querySelectorAll("#conversation-list .conv").length === 1 &&
    document.querySelectorAll("#conversation-list .conv-time").length === 0);
  assert.equal(await page.locator("#conversation-list .conv-title").innerText(), "New conversation");
  console.log("ok   deleting the open conversation moves this page and another one showing it to a new one");
} finally {
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
