// The web page on a gateway with an API token (run by tests/cli/token_page_test.py with --url and
// --token): without a token the page says one is needed, with a wrong one that it is not accepted, and
// with the right one it connects. Retrying cannot fix the first two, so the page does not retry forever.
import assert from "node:assert/strict";
import fs from "node:fs";

import { launchChromium } from "./browser.mjs";

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const url = arg("--url");
const token = arg("--token");

const { context, profile } = await launchChromium();
try {
  const page = await context.newPage();
  const status = page.locator("#status");

  await page.goto(url);
  await page.waitForFunction(() => /needs an access token/.test(document.querySelector("#status").textContent),
                             null, { timeout: 60_000 });
  assert.equal(await status.getAttribute("data-state"), "offline");
  console.log("ok   no token: the page says the gateway needs one");

  await page.goto(`${url}#access_token=wrong-token`);
  await page.reload();
  await page.waitForFunction(() => /not accepted/.test(document.querySelector("#status").textContent), null,
                             { timeout: 60_000 });
  console.log("ok   a wrong token: the page says it is not accepted");

  await page.goto(`${url}#access_token=${encodeURIComponent(token)}`);
  await page.reload();
  await page.waitForFunction(() => document.querySelector("#status").dataset.state === "online", null,
                             { timeout: 60_000 });
  console.log("ok   the right token: online");
} finally {
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
