// The receive side of the signal-cli fake (signal.mjs): what `signal-cli -a ACCOUNT daemon --http` does with a
// message that reaches the account, and the Server-Sent Events stream GET /api/v1/events that hands it on.
//
// What signal-cli does (HttpServerHandler, ServerSentEventSender, ManagerImpl, DaemonCommand):
// - Each GET /api/v1/events is a receive handler. Every received message goes to every open stream as
//   `event:receive\ndata:{"envelope":…,"account":"+…"}\n\n` (one data line, no id). Every 15 s a stream that
//   had nothing gets a keep-alive comment line `:\n`.
// - --receive-mode on-start (the default): signal-cli receives from Signal from start-up on, whether or not a
//   stream is open (its stdout handler keeps the receive thread going). A message that arrives while no
//   stream is open is acknowledged to Signal and printed to stdout: an HTTP client never sees it (lost).
// - --receive-mode on-connection (and manual): the stdout handler is weak; signal-cli receives only while a
//   stream (or a `receive` call) is there. Messages that arrive meanwhile wait on Signal's server and come when
//   the next stream opens.
// - manual: the JSON-RPC method `receive` {timeout (s, default 3), maxMessages} fetches waiting messages,
//   refused with "Receive command cannot be used if messages are already being received." while a stream is
//   open (signal-cli is receiving then).
//
// The faults a test injects (admin API):
// - drop: every open stream's TCP connection is destroyed (the client sees the stream end).
// - silence: every open stream stays open but gets nothing more, not even keep-alives: the peers' top Signal
//   bug (the stream is dead while sends work). With `lose: false` (default) signal-cli's receive has stalled:
//   messages wait on Signal's server until a fresh stream opens. With `lose: true` they are written into the
//   dead connection and are gone (what a half-open TCP connection does to messages signal-cli already took).

// A stream as signal-cli writes it.
class EventStream {
  constructor(id, res, journal) {
    this.id = id;
    this.res = res;
    this.journal = journal;
    this.silenced = false;
    this.lose = false;
    this.open = true;
    this.delivered = 0;
    this.opened_ms = Date.now();
  }

  write(text) {
    if (!this.open || this.res.destroyed) return false;
    this.res.write(text);
    return true;
  }

  // One received message: `event:receive` and one data line of JSON (signal-cli's ObjectMapper writes no
  // newlines inside).
  send(payload) {
    this.delivered += 1;
    return this.write(`event:receive\ndata:${JSON.stringify(payload)}\n\n`);
  }

  keepAlive() {
    return this.write(":\n");
  }

  view() {
    return { id: this.id, open: this.open, silenced: this.silenced, delivered: this.delivered, opened_ms: this.opened_ms };
  }
}

export class SignalEvents {
  constructor({ journal, account, receiveMode = "on-start", keepAliveMs = 15_000 }) {
    if (!["on-start", "on-connection", "manual"].includes(receiveMode)) {
      throw new Error(`--receive-mode must be on-start, on-connection or manual (got ${receiveMode})`);
    }
    this.journal = journal;
    this.account = account;
    this.receiveMode = receiveMode;
    this.keepAliveMs = keepAliveMs;
    this.streams = [];
    this.nextStream = 1;
    this.waiting = []; // messages still on Signal's server: not yet received by signal-cli
    this.lost = []; // messages signal-cli received with no stream to hand them to (on-start) or into a dead one
    this.timer = setInterval(() => this.tick(), Math.max(50, Math.min(this.keepAliveMs, 1000)));
    this.timer.unref();
    this.pollers = [];
  }

  live() {
    return this.streams.filter((s) => s.open && !s.silenced);
  }

  // GET /api/v1/events (the path, method and Host checks are signal.mjs's).
  open(req, res) {
    const stream = new EventStream(this.nextStream++, res, this.journal);
    // signal-cli answers 200 with a chunked text/event-stream and flushes the headers at once.
    res.writeHead(200, { "Content-Type": "text/event-stream", "Transfer-Encoding": "chunked" });
    res.flushHeaders();
    stream.lastWrite = Date.now();
    this.streams.push(stream);
    const close = () => {
      if (!stream.open) return;
      stream.open = false;
      this.journal.record({ kind: "events", route: "GET /api/v1/events", event: "closed", stream: stream.id });
    };
    req.socket.once("close", close);
    res.once("close", close);
    this.journal.record({ kind: "events", route: "GET /api/v1/events", event: "opened", stream: stream.id });
    // A fresh stream restarts signal-cli's receive: what waited on the server comes now.
    this.flushWaiting();
  }

  // A message reaches the account (the admin API's inject).
  arrive(envelope) {
    const payload = { envelope, account: this.account };
    const receiving = this.receiveMode === "on-start" || this.streams.some((s) => s.open);
    const live = this.live();
    if (!receiving || (live.length === 0 && this.streams.some((s) => s.open && s.silenced && !s.lose))) {
      // Not received yet (no handler in on-connection/manual mode, or signal-cli's receive has stalled).
      this.waiting.push(payload);
      this.journal.record({ kind: "receive", event: "waiting", timestamp: envelope.timestamp });
      this.wakePollers();
      return { state: "waiting" };
    }
    return this.deliver(payload);
  }

  deliver(payload) {
    const live = this.live();
    const dead = this.streams.filter((s) => s.open && s.silenced && s.lose);
    if (live.length === 0) {
      this.lost.push(payload);
      const why = dead.length ? "written into a silent stream" : "no stream open (receive mode on-start)";
      this.journal.record({ kind: "receive", event: "lost", why, timestamp: payload.envelope.timestamp });
      return { state: "lost", why };
    }
    for (const s of live) {
      s.send(payload);
      s.lastWrite = Date.now();
    }
    this.journal.record({
      kind: "receive",
      event: "delivered",
      timestamp: payload.envelope.timestamp,
      streams: live.map((s) => s.id),
    });
    return { state: "delivered", streams: live.map((s) => s.id) };
  }

  flushWaiting() {
    if (this.live().length === 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const payload of waiting) this.deliver(payload);
  }

  tick() {
    const now = Date.now();
    for (const s of this.streams) {
      if (!s.open || s.silenced) continue;
      if (now - s.lastWrite >= this.keepAliveMs) {
        s.keepAlive();
        s.lastWrite = now;
      }
    }
    this.streams = this.streams.filter((s) => s.open || now - s.opened_ms < 60_000);
  }

  drop() {
    const dropped = this.streams.filter((s) => s.open);
    for (const s of dropped) {
      s.open = false;
      s.res.socket?.destroy();
    }
    this.journal.record({ kind: "events", event: "dropped", streams: dropped.map((s) => s.id) });
    return dropped.map((s) => s.id);
  }

  silence({ lose = false } = {}) {
    const silenced = this.streams.filter((s) => s.open && !s.silenced);
    for (const s of silenced) {
      s.silenced = true;
      s.lose = Boolean(lose);
    }
    this.journal.record({ kind: "events", event: "silenced", lose: Boolean(lose), streams: silenced.map((s) => s.id) });
    return silenced.map((s) => s.id);
  }

  // JSON-RPC `receive` (manual mode): waits up to `timeout` seconds (negative: no limit) for up to
  // `maxMessages` (negative or absent: all) waiting messages. Throws signal-cli's refusal while receiving.
  async receive({ timeout = 3.0, maxMessages = -1 } = {}) {
    if (this.receiveMode === "on-start" || this.streams.some((s) => s.open)) {
      const e = new Error("Receive command cannot be used if messages are already being received.");
      e.rpcCode = -1;
      throw e;
    }
    const limit = maxMessages < 0 ? Infinity : maxMessages;
    const deadline = timeout < 0 ? Infinity : Date.now() + timeout * 1000;
    const taken = [];
    for (;;) {
      while (this.waiting.length && taken.length < limit) taken.push(this.waiting.shift());
      // signal-cli returns once it has what was waiting (or maxMessages of it), or when the timeout ends.
      if (taken.length > 0 || Date.now() >= deadline) return taken;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, Math.min(deadline - Date.now(), 2_147_000_000));
        this.pollers.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  wakePollers() {
    const pollers = this.pollers;
    this.pollers = [];
    for (const wake of pollers) wake();
  }

  view() {
    return {
      receive_mode: this.receiveMode,
      streams: this.streams.map((s) => s.view()),
      waiting: this.waiting.length,
      lost: this.lost.map((p) => p.envelope.timestamp),
    };
  }
}
