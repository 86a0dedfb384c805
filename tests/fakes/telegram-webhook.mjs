// The Telegram fake's (telegram.mjs) webhook side: delivering its queued updates one at a time to the URL
// setWebhook gave, with X-Telegram-Bot-Api-Secret-Token, keeping an update until a 2xx answer (retried every
// webhookRetryMs) and running a webhook reply; and the admin API's hand-made POSTs (right, wrong or missing
// secret; a redelivery of an update delivered before).
import { randomToken } from "./common.mjs";

const now = () => Math.floor(Date.now() / 1000);

// What Telegram's getWebhookInfo says when the POST never got an answer.
const connectionError = (e) =>
  e.cause?.code === "ECONNREFUSED" ? "Connection refused" : String(e.cause?.message ?? e.message);

export async function deliverWebhook(fake) {
  if (fake.webhook.busy) return;
  fake.webhook.busy = true;
  try {
    while (fake.webhook.url && fake.updates.length) {
      const update = fake.updates[0];
      const url = fake.webhook.url;
      const headers = { "Content-Type": "application/json" };
      if (fake.webhook.secret) headers["X-Telegram-Bot-Api-Secret-Token"] = fake.webhook.secret;
      let status = null;
      let error = null;
      let reply = null;
      try {
        const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(update) });
        status = res.status;
        const body = await res.text();
        if (res.ok && body && (res.headers.get("content-type") ?? "").includes("json")) reply = JSON.parse(body);
        if (!res.ok) error = `Wrong response from the webhook: ${res.status} ${res.statusText}`;
      } catch (e) {
        error = connectionError(e);
      }
      fake.journal.record({ kind: "webhook", url, update_id: update.update_id, status, error });
      if (error) {
        fake.webhook.lastErrorDate = now();
        fake.webhook.lastErrorMessage = error;
        await new Promise((r) => setTimeout(r, fake.webhookRetryMs));
        continue;
      }
      if (fake.updates[0] === update) fake.updates.shift();
      fake.delivered.set(update.update_id, update);
      // A webhook reply: the answer body may be one Bot API call, run without an answer to the caller.
      if (reply && typeof reply.method === "string") {
        const method = fake.methods.get(reply.method.toLowerCase());
        let outcome;
        try {
          outcome = { ok: true, result: await fake.call(method, reply, [], null) };
        } catch (e) {
          outcome = { ok: false, error_code: e.code ?? 500, description: e.message };
        }
        fake.journal.record({ kind: "api", route: method ?? reply.method, via: "webhook_reply", params: reply,
          status: outcome.ok ? 200 : outcome.error_code, response: outcome });
      }
    }
  } finally {
    fake.webhook.busy = false;
  }
}

// Admin: one POST to the webhook URL now, outside the delivery queue, as Telegram (or someone else) might
// send it: `update_id` of an update delivered before (a redelivery), or `update` (given the next update_id
// unless it has one); `secret` "right" (default), "missing", "wrong" or the header's exact value.
export async function postToWebhook(fake, { update_id: again, update, secret = "right", url = fake.webhook.url }) {
  if (!url) throw new Error("no webhook is set (setWebhook) and no url given");
  let body = again !== undefined ? fake.delivered.get(Number(again)) : update;
  if (!body) throw new Error(again !== undefined ? `update ${again} was never delivered` : "give update or update_id");
  if (body.update_id === undefined) body = { update_id: fake.nextUpdateId++, ...body };
  const headers = { "Content-Type": "application/json" };
  if (secret === "right" && fake.webhook.secret) headers["X-Telegram-Bot-Api-Secret-Token"] = fake.webhook.secret;
  else if (secret === "wrong") headers["X-Telegram-Bot-Api-Secret-Token"] = `wrong-${randomToken(8)}`;
  else if (secret !== "missing" && secret !== "right") headers["X-Telegram-Bot-Api-Secret-Token"] = String(secret);
  let status = null;
  let error = null;
  let text = "";
  try {
    const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
    status = res.status;
    text = await res.text();
  } catch (e) {
    error = connectionError(e);
  }
  fake.journal.record({ kind: "webhook", url, update_id: body.update_id, status, error, manual: true, secret });
  return { update_id: body.update_id, status, body: text, error };
}
