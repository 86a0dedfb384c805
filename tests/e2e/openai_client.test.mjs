// The official `openai` npm client against sigil's POST /v1/chat/completions (node --test).
//
// Run by tests/cli/openai_client_test.py, which starts `sigil serve` with a replay model and passes:
//   SIGIL_BASE_URL      http://127.0.0.1:PORT/v1
//   SIGIL_API_KEY       the server's api_token
//   SIGIL_OPENAI_CASES  JSON {name: {prompt, clean}}: the prompt that picks a replay line, and the clean
//                       text its reply must come out as
// Checks: content is exactly the clean text, never markup, streaming and not (also through the client's
// stream helper); deliveries and the turn report in the `sigil` extension; OpenAI-shaped errors raised as
// the client's error classes; a model error mid-stream raised from the iteration; a retried request with
// the same Idempotency-Key runs nothing twice; a 502 is not retried by the client.
import assert from "node:assert/strict";
import { test } from "node:test";

import OpenAI from "openai";

const baseURL = process.env.SIGIL_BASE_URL;
const apiKey = process.env.SIGIL_API_KEY;
const cases = JSON.parse(process.env.SIGIL_OPENAI_CASES ?? "{}");
if (!baseURL || !apiKey || !cases.hello) {
  throw new Error("run through tests/cli/openai_client_test.py (SIGIL_BASE_URL, SIGIL_API_KEY, SIGIL_OPENAI_CASES)");
}

const MODEL = "sigil-test-model";
// Tags and brackets of the directives the replies use; none may ever reach the content.
const MARKUP = /<\/?(react|voice|file|send-file|remember|think|setMemory|scheduleTask|actions)\b|\[[A-Z_]+:/;

function client(options = {}) {
  return new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 120_000, ...options });
}

function messages(prompt) {
  return [
    { role: "system", content: "You are a test." },
    { role: "user", content: prompt },
  ];
}

function results(report) {
  return report.calls.flatMap((c) => c.results);
}

async function turnsTotal() {
  const res = await fetch(baseURL.replace(/\/v1$/, "") + "/metrics", {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  assert.equal(res.status, 200);
  const m = /^sigil_turns_total (\d+)$/m.exec(await res.text());
  assert.ok(m, "sigil_turns_total in /metrics");
  return Number(m[1]);
}

test("models.list() and models.retrieve() see the gateway's one model; an unknown one is NotFound", async () => {
  const ids = [];
  for await (const model of client().models.list()) ids.push(model.id);
  assert.deepEqual(ids, ["sigil"]);
  const model = await client().models.retrieve("sigil");
  assert.equal(model.object, "model");
  assert.equal(model.owned_by, "sigil");
  assert.ok(Number.isInteger(model.created) && model.created > 1_600_000_000);
  await assert.rejects(client().models.retrieve("gpt-4o"), (e) => e instanceof OpenAI.NotFoundError);
  // Without the token: the client's AuthenticationError.
  await assert.rejects(client({ apiKey: "wrong" }).models.list(), (e) => e instanceof OpenAI.AuthenticationError);
});

test("non-streaming: the content is the clean text; deliveries and results are in the extension", async () => {
  const completion = await client().chat.completions.create({ model: MODEL, messages: messages(cases.hello.prompt) });
  assert.equal(completion.object, "chat.completion");
  assert.match(completion.id, /^chatcmpl-/);
  assert.equal(completion.model, MODEL);
  assert.equal(completion.choices.length, 1);
  const choice = completion.choices[0];
  assert.equal(choice.message.role, "assistant");
  assert.equal(choice.message.content, cases.hello.clean);
  assert.doesNotMatch(choice.message.content, MARKUP);
  assert.equal(choice.finish_reason, "stop");
  assert.equal(completion.usage, null);

  const report = completion.sigil;
  assert.equal(report.status, "ok");
  assert.equal(`chatcmpl-${report.turn_id}`, completion.id);
  const deliveries = report.calls.flatMap((c) => c.deliveries);
  assert.ok(deliveries.some((d) => d.op === "reaction" && d.emoji === "👍"), JSON.stringify(deliveries));
  assert.ok(results(report).some((r) => r.action === "remember" && r.status === "ok"), JSON.stringify(report));
});

test("streaming: role first, clean text deltas, deliveries as choice-less chunks, finish, report", async () => {
  const stream = await client().chat.completions.create({
    model: MODEL,
    messages: messages(cases.hello.prompt),
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = "";
  let role = null;
  let finish = null;
  let report = null;
  let reactionBeforeText = false;
  const deliveries = [];
  const ids = new Set();
  for await (const chunk of stream) {
    assert.equal(chunk.object, "chat.completion.chunk");
    ids.add(chunk.id);
    assert.equal(chunk.usage, null);
    if (chunk.choices.length === 0) {
      assert.ok(chunk.sigil, JSON.stringify(chunk));
      if (chunk.sigil.delivery) {
        deliveries.push(chunk.sigil.delivery);
        if (chunk.sigil.delivery.op === "reaction" && content === "") reactionBeforeText = true;
      } else {
        report = chunk.sigil;
      }
      continue;
    }
    const { delta, finish_reason } = chunk.choices[0];
    if (delta.role) role = delta.role;
    if (delta.content) {
      assert.doesNotMatch(delta.content, MARKUP);
      content += delta.content;
    }
    if (finish_reason) finish = finish_reason;
  }
  assert.equal(ids.size, 1);
  assert.equal(role, "assistant");
  assert.equal(content, cases.hello.clean);
  assert.equal(finish, "stop");
  assert.ok(reactionBeforeText, `the reaction comes before the text: ${JSON.stringify(deliveries)}`);
  assert.ok(report && report.status === "ok", JSON.stringify(report));
  assert.ok(results(report).some((r) => r.action === "remember"));
});

test("the client's stream helper assembles the same clean answer", async () => {
  const runner = client().chat.completions.stream({ model: MODEL, messages: messages(cases.hello.prompt) });
  let deltas = "";
  runner.on("content", (delta) => {
    deltas += delta;
  });
  const final = await runner.finalChatCompletion();
  assert.equal(final.choices[0].message.content, cases.hello.clean);
  assert.equal(deltas, cases.hello.clean);
  assert.equal(final.choices[0].finish_reason, "stop");
});

test("every model call of a turn is in the content, separated by a blank line", async () => {
  const completion = await client().chat.completions.create({ model: MODEL, messages: messages(cases.search.prompt) });
  assert.equal(completion.choices[0].message.content, cases.search.clean);
  assert.equal(completion.sigil.calls.length, 2);
  const stream = await client().chat.completions.create({
    model: MODEL,
    messages: messages(cases.search.prompt),
    stream: true,
  });
  let content = "";
  for await (const chunk of stream) content += chunk.choices[0]?.delta?.content ?? "";
  assert.equal(content, cases.search.clean);
});

test("caller-defined tools and n > 1 are refused with OpenAI's error shape", async () => {
  await assert.rejects(
    client().chat.completions.create({
      model: MODEL,
      messages: messages(cases.hello.prompt),
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }],
    }),
    (e) => {
      assert.ok(e instanceof OpenAI.BadRequestError, String(e));
      assert.equal(e.status, 400);
      assert.equal(e.param, "tools");
      assert.equal(e.code, "unsupported_parameter");
      assert.match(e.message, /sigil runs its own actions/);
      return true;
    },
  );
  await assert.rejects(
    client().chat.completions.create({ model: MODEL, messages: messages(cases.hello.prompt), n: 2 }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === "n",
  );
  await assert.rejects(
    client({ apiKey: "wrong-key" }).chat.completions.create({ model: MODEL, messages: messages(cases.hello.prompt) }),
    (e) => e instanceof OpenAI.AuthenticationError && e.status === 401,
  );
});

test("a model error mid-stream is raised from the iteration, after the text that came", async () => {
  const stream = await client().chat.completions.create({
    model: MODEL,
    messages: messages(cases.partial.prompt),
    stream: true,
  });
  let content = "";
  await assert.rejects(
    (async () => {
      for await (const chunk of stream) content += chunk.choices[0]?.delta?.content ?? "";
    })(),
    (e) => {
      assert.ok(e instanceof OpenAI.APIError, String(e));
      assert.match(e.message, /connection reset/);
      return true;
    },
  );
  assert.equal(content, cases.partial.clean);
});

test("a model error before any text is a 502 that the client does not retry", async () => {
  const before = await turnsTotal();
  await assert.rejects(
    // Default retries on: the server's X-Should-Retry: false must stop them.
    client({ maxRetries: 2 }).chat.completions.create({ model: MODEL, messages: messages(cases.fail.prompt) }),
    (e) => {
      assert.ok(e instanceof OpenAI.InternalServerError, String(e));
      assert.equal(e.status, 502);
      assert.equal(e.code, "model_error");
      return true;
    },
  );
  assert.equal(await turnsTotal(), before + 1);
});

test("a request retried with the same Idempotency-Key runs its directives once", async () => {
  const key = `order-${process.pid}-${Date.now()}`;
  const ask = (stream) =>
    client().chat.completions.create(
      { model: MODEL, messages: messages(cases.schedule.prompt), ...(stream ? { stream: true } : {}) },
      { headers: { "Idempotency-Key": key } },
    );
  const first = await ask(false);
  const second = await ask(false);
  assert.equal(first.id, second.id);
  assert.equal(first.choices[0].message.content, cases.schedule.clean);
  assert.equal(second.choices[0].message.content, cases.schedule.clean);
  const status = (c) => results(c.sigil).find((r) => r.action === "scheduleTask")?.status;
  assert.equal(status(first), "ok");
  assert.equal(status(second), "duplicate");

  let report = null;
  for await (const chunk of await ask(true)) if (chunk.choices.length === 0 && !chunk.sigil.delivery) report = chunk.sigil;
  assert.equal(results(report).find((r) => r.action === "scheduleTask")?.status, "duplicate");
});
