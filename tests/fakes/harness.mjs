// For the fakes' own tests (telegram.test.mjs, discord.test.mjs): spawns a fake as a separate process, the
// way a C++ or Python test will, waits for its `listening <port>` line, and talks to its admin API.
// The official SDKs come from tests/e2e/node_modules (scripts/npm-deps installs them), hence `sdk(name)`.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const e2eRequire = createRequire(path.join(here, "..", "e2e", "package.json"));

// An npm package from tests/e2e, with a clear message when scripts/npm-deps has not been run.
export function sdk(name) {
  try {
    return e2eRequire(name);
  } catch (e) {
    if (e.code === "MODULE_NOT_FOUND") {
      throw new Error(`tests/e2e/node_modules has no ${name}: run scripts/npm-deps (make test does)`);
    }
    throw e;
  }
}

export async function startFake(script, args = []) {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), "sigil-fake-"));
  const child = spawn(process.execPath, [path.join(here, script), "--port", "0", "--state-dir", stateDir, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const port = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 10 s: ${stderr}`)), 10_000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = /^listening (\d+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}) before listening: ${stderr}`)));
  });
  const base = `http://127.0.0.1:${port}`;

  async function admin(method, route, body) {
    const res = await fetch(base + route, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`admin ${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  return {
    port,
    base,
    stateDir,
    admin,
    stderr: () => stderr,
    journal: async (query = {}) => (await admin("GET", `/_fake/journal?${new URLSearchParams(query)}`)).entries,
    // Polls the journal until `predicate(entries)` returns something truthy (returned), or fails after `ms`.
    async waitFor(predicate, { ms = 5000, query = {} } = {}) {
      const deadline = Date.now() + ms;
      for (;;) {
        const entries = (await admin("GET", `/_fake/journal?${new URLSearchParams(query)}`)).entries;
        const hit = predicate(entries);
        if (hit) return hit;
        if (Date.now() > deadline) {
          throw new Error(`journal condition not met within ${ms} ms`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    journalFile: () => readFileSync(path.join(stateDir, "journal.jsonl"), "utf8"),
    // The journal's last entries, each cut to 400 characters: for a failing test's message.
    journalTail: (n = 40) =>
      readFileSync(path.join(stateDir, "journal.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .slice(-n)
        .map((l) => (l.length > 400 ? `${l.slice(0, 400)}…` : l))
        .join("\n"),
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

// Resolves when `check()` returns something truthy (polling every 10 ms), or rejects after `ms`.
export async function eventually(check, ms = 5000, what = "condition") {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
