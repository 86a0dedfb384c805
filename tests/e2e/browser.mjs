// Debian's Chromium for the browser tests, started the way this machine needs it: headless, as root (no
// sandbox), with nothing that reaches out to the network on its own, in a fresh profile folder.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

// Returns { context, profile }; remove `profile` when done.
export async function launchChromium({ args = [], ...options } = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "sigil-e2e-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...args,
    ],
    ...options,
  });
  return { context, profile };
}
