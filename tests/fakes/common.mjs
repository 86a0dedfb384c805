// What the channel fakes (telegram.mjs, discord.mjs) share: command-line options, the journal of every call
// (in memory and as JSONL in --state-dir), fault injection, request bodies (JSON, form-urlencoded,
// multipart/form-data), a WebSocket server (RFC 6455, text frames, no extensions) and the admin API's plumbing.
// Node built-ins only, so a C++ or Python test can spawn a fake without tests/e2e/node_modules.
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";

// ------------------------------------------------------------------ options

// --port N (0 = any free port), --host H (127.0.0.1), --state-dir DIR (journal.jsonl goes there; no file
// when absent) and the fake's own options, named with their default values in `defaults` (a number default
// makes the option a number).
export function parseOptions(argv, defaults = {}) {
  const options = { port: 0, host: "127.0.0.1", "state-dir": null, ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${arg}`);
    let name = arg.slice(2);
    let value;
    const eq = name.indexOf("=");
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    } else {
      value = argv[++i];
    }
    if (!(name in options)) throw new Error(`unknown option --${name}`);
    if (value === undefined) throw new Error(`--${name} needs a value`);
    options[name] = typeof defaults[name] === "number" || name === "port" ? Number(value) : value;
  }
  return options;
}

// ------------------------------------------------------------------ journal

// Every call the fake receives (and, for the Discord gateway, every payload in and out), in order. Kept in
// memory for GET /_fake/journal and appended to <state-dir>/journal.jsonl so a failing test can show it.
export class Journal {
  constructor(stateDir) {
    this.entries = [];
    this.seq = 0;
    this.file = null;
    if (stateDir) {
      mkdirSync(stateDir, { recursive: true });
      this.file = path.join(stateDir, "journal.jsonl");
      writeFileSync(this.file, "");
    }
  }

  record(entry) {
    const full = { seq: ++this.seq, time: new Date().toISOString(), t_ms: Date.now(), ...entry };
    this.entries.push(full);
    if (this.file) appendFileSync(this.file, JSON.stringify(full) + "\n");
    return full;
  }

  // since: entries with seq > since; kind / route: only those (route glob as in Faults).
  list({ since = 0, kind, route } = {}) {
    return this.entries.filter(
      (e) => e.seq > since && (!kind || e.kind === kind) && (!route || routeMatches(route, e.route ?? "")),
    );
  }
}

// ------------------------------------------------------------------ faults

// A fault applies to the next `times` calls whose route matches `match`: a Telegram method name
// (case-insensitive) or a Discord route "POST /channels/*/messages" where * is one path segment, or "*".
// kind:
//   rate_limit        429 with retry_after (seconds; Discord: a float, Telegram: an integer)
//   status            the given `status` (e.g. 500, 502, 503) with the platform's error body, or `body`
//   drop              the socket is destroyed before anything is done: nothing happened
//   drop_after_send   the call takes effect (message stored, update dispatched), then the socket is destroyed
//   timeout           the call takes effect, then the answer is held back `delay_ms` (absent: never answered;
//                     the connection stays open until the client gives up)
export const FAULT_KINDS = new Set(["rate_limit", "status", "drop", "drop_after_send", "timeout"]);

export function routeMatches(pattern, route) {
  if (pattern === "*") return true;
  const p = pattern.trim().split(/\s+|\//).filter(Boolean);
  const r = route.trim().split(/\s+|\//).filter(Boolean);
  if (p.length !== r.length) return false;
  return p.every((part, i) => part === "*" || part.toLowerCase() === r[i].toLowerCase());
}

export class Faults {
  // extraKinds: a fake's own fault kinds beside FAULT_KINDS (signal.mjs: rpc_error).
  constructor(extraKinds = []) {
    this.pending = [];
    this.nextId = 1;
    this.kinds = new Set([...FAULT_KINDS, ...extraKinds]);
  }

  add(spec) {
    if (!spec || typeof spec.match !== "string" || !spec.match) throw new Error("a fault needs `match`");
    if (!this.kinds.has(spec.kind)) throw new Error(`unknown fault kind ${spec.kind}`);
    if (spec.kind === "status" && !(spec.status >= 400 && spec.status <= 599)) {
      throw new Error("a status fault needs `status` 400..599");
    }
    const fault = { id: this.nextId++, times: 1, ...spec };
    this.pending.push(fault);
    return fault;
  }

  // The fault for this call, if any (counts it down).
  take(route) {
    const fault = this.pending.find((f) => f.times > 0 && routeMatches(f.match, route));
    if (!fault) return null;
    fault.times -= 1;
    if (fault.times <= 0) this.pending = this.pending.filter((f) => f !== fault);
    return fault;
  }

  clear() {
    this.pending = [];
  }
}

// ------------------------------------------------------------------ bodies

export class BodyTooLarge extends Error {}

export function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    let failed = false;
    req.on("data", (chunk) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new BodyTooLarge(`body over ${limit} bytes`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => failed || resolve(Buffer.concat(chunks)));
    req.on("error", (e) => failed || reject(e));
  });
}

export function sha256(buf) {
  return createHash("sha256").update(buf).digest("hex");
}

// content-type parameters: "multipart/form-data; boundary=x" → {type, params}
export function parseContentType(header = "") {
  const [type, ...rest] = header.split(";");
  const params = {};
  for (const p of rest) {
    const eq = p.indexOf("=");
    if (eq < 0) continue;
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    params[p.slice(0, eq).trim().toLowerCase()] = v;
  }
  return { type: type.trim().toLowerCase(), params };
}

// A multipart/form-data body (RFC 7578) → {fields: {name: string}, files: [{field, filename, contentType,
// data}]}. A part with a filename is a file; a part without one is a field (its bytes as UTF-8).
export function parseMultipart(buf, boundary) {
  const fields = {};
  const files = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let pos = buf.indexOf(delimiter);
  if (pos < 0) throw new Error("multipart body without its boundary");
  for (;;) {
    pos += delimiter.length;
    if (buf[pos] === 0x2d && buf[pos + 1] === 0x2d) break; // "--": the closing delimiter
    if (buf[pos] === 0x0d && buf[pos + 1] === 0x0a) pos += 2;
    const headerEnd = buf.indexOf("\r\n\r\n", pos);
    if (headerEnd < 0) throw new Error("multipart part without a header end");
    const headers = {};
    for (const line of buf.subarray(pos, headerEnd).toString("utf8").split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const next = buf.indexOf(Buffer.from(`\r\n--${boundary}`), headerEnd + 4);
    if (next < 0) throw new Error("multipart part without a closing boundary");
    const data = buf.subarray(headerEnd + 4, next);
    const disposition = parseDisposition(headers["content-disposition"] ?? "");
    if (disposition.name === undefined) throw new Error("multipart part without a name");
    if (disposition.filename !== undefined) {
      files.push({
        field: disposition.name,
        filename: disposition.filename,
        contentType: headers["content-type"] ?? "application/octet-stream",
        data: Buffer.from(data),
      });
    } else {
      fields[disposition.name] = data.toString("utf8");
    }
    pos = next + 2;
  }
  return { fields, files };
}

function parseDisposition(value) {
  const out = {};
  const re = /;\s*([A-Za-z*]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  let m;
  while ((m = re.exec(value))) {
    const key = m[1].toLowerCase();
    let v = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3].trim();
    if (key === "filename*") {
      const q = v.indexOf("''");
      out.filename = decodeURIComponent(q >= 0 ? v.slice(q + 2) : v);
    } else if (!(key === "filename" && out.filename !== undefined)) {
      out[key] = v;
    }
  }
  return out;
}

// Any request body → {fields, files, json}: json is the parsed JSON body (or null), fields the form fields.
export function parseBody(contentTypeHeader, buf) {
  const { type, params } = parseContentType(contentTypeHeader);
  if (buf.length === 0) return { fields: {}, files: [], json: null, type };
  if (type === "application/json") return { fields: {}, files: [], json: JSON.parse(buf.toString("utf8")), type };
  if (type === "application/x-www-form-urlencoded") {
    return { fields: Object.fromEntries(new URLSearchParams(buf.toString("utf8"))), files: [], json: null, type };
  }
  if (type === "multipart/form-data") {
    if (!params.boundary) throw new Error("multipart/form-data without a boundary");
    return { ...parseMultipart(buf, params.boundary), json: null, type };
  }
  return { fields: {}, files: [], json: null, type, unparsed: true };
}

export function fileSummary(file) {
  return {
    field: file.field,
    filename: file.filename,
    content_type: file.contentType,
    size: file.data.length,
    sha256: sha256(file.data),
  };
}

// ------------------------------------------------------------------ media types

export function sniffMime(b, fallback) {
  if (b.length >= 4 && b.toString("latin1", 0, 4) === "OggS") return "audio/ogg";
  if (b.length >= 3 && (b.toString("latin1", 0, 3) === "ID3" || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0))) {
    return "audio/mpeg";
  }
  if (b.length >= 12 && b.toString("latin1", 4, 8) === "ftyp") {
    return b.toString("latin1", 8, 11) === "M4A" ? "audio/mp4" : "video/mp4";
  }
  if (b.length >= 4 && b.readUInt32BE(0) === 0x89504e47) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8) return "image/jpeg";
  if (b.length >= 5 && b.toString("latin1", 0, 5) === "%PDF-") return "application/pdf";
  return fallback;
}

const EXT_MIME = {
  txt: "text/plain", md: "text/markdown", pdf: "application/pdf", json: "application/json", csv: "text/csv",
  html: "text/html", zip: "application/zip", png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg",
  gif: "image/gif", webp: "image/webp", ogg: "audio/ogg", oga: "audio/ogg", opus: "audio/ogg", mp3: "audio/mpeg",
  m4a: "audio/mp4", wav: "audio/x-wav", mp4: "video/mp4", webm: "video/webm",
};

// A file's media type as the platforms derive it: from the file name's extension, else the part's
// Content-Type, else the first bytes.
export function mimeFor(name, data, partType) {
  const ext = (name ?? "").split(".").pop().toLowerCase();
  const fromPart = partType && partType !== "application/octet-stream" ? partType : undefined;
  return EXT_MIME[ext] ?? fromPart ?? sniffMime(data, "application/octet-stream");
}

// ------------------------------------------------------------------ text

export function utf16Length(s) {
  return s.length;
}

export function codePointLength(s) {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function randomToken(bytes = 12) {
  return randomBytes(bytes).toString("base64url");
}

// ------------------------------------------------------------------ HTTP

export function sendJson(res, status, body, headers = {}) {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, {
    ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

// Starts the HTTP server (with the WebSocket upgrade handler, if any) and prints `listening <port>` once
// ready, the line a spawning test waits for.
// `onPort(port)` runs before the line is printed (a fake that hands out its own URLs needs the port).
export function listen({ host, port, onRequest, onUpgrade, onPort }) {
  const server = http.createServer((req, res) => {
    onRequest(req, res).catch((e) => {
      process.stderr.write(`fake: ${req.method} ${req.url}: ${e.stack ?? e}\n`);
      if (!res.headersSent) sendJson(res, 500, { error: String(e.message ?? e) });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 60_000;
  // Long polls and held-back answers may take minutes; the client decides when to give up.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  if (onUpgrade) server.on("upgrade", onUpgrade);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      onPort?.(actual);
      process.stdout.write(`listening ${actual}\n`);
      resolve({ server, port: actual });
    });
  });
}

// Admin API plumbing: the JSON body of an admin request (empty → {}).
export async function adminJson(req) {
  const buf = await readBody(req, 64 * 1024 * 1024);
  if (buf.length === 0) return {};
  return JSON.parse(buf.toString("utf8"));
}

// Routes shared by every fake: journal, faults, health. Returns true when handled.
export function commonAdmin(req, res, url, body, { journal, faults }) {
  const p = url.pathname;
  if (req.method === "GET" && p === "/_fake/health") {
    sendJson(res, 200, { ok: true });
    return true;
  }
  if (req.method === "GET" && p === "/_fake/journal") {
    const since = Number(url.searchParams.get("since") ?? 0);
    const kind = url.searchParams.get("kind") ?? undefined;
    const route = url.searchParams.get("route") ?? undefined;
    sendJson(res, 200, { entries: journal.list({ since, kind, route }), last_seq: journal.seq });
    return true;
  }
  if (req.method === "POST" && p === "/_fake/faults") {
    try {
      const specs = Array.isArray(body) ? body : [body];
      sendJson(res, 200, { faults: specs.map((s) => faults.add(s)) });
    } catch (e) {
      sendJson(res, 400, { error: e.message });
    }
    return true;
  }
  if (req.method === "GET" && p === "/_fake/faults") {
    sendJson(res, 200, { faults: faults.pending });
    return true;
  }
  if (req.method === "DELETE" && p === "/_fake/faults") {
    faults.clear();
    sendJson(res, 200, { ok: true });
    return true;
  }
  return false;
}

// The admin API of a fake: the JSON body, the routes every fake shares (commonAdmin), then the fake's own:
// `own(body, path)` answers and returns true, or returns false for a route it does not have (404). What it
// throws is answered with statusOf(error) (400 unless the fake says otherwise).
export async function serveAdmin(req, res, url, fake, own, statusOf = () => 400) {
  let body;
  try {
    body = req.method === "GET" ? {} : await adminJson(req);
  } catch (e) {
    sendJson(res, 400, { error: `bad JSON: ${e.message}` });
    return;
  }
  if (commonAdmin(req, res, url, body, fake)) return;
  try {
    if (!(await own(body, url.pathname))) sendJson(res, 404, { error: `no admin route ${req.method} ${url.pathname}` });
  } catch (e) {
    sendJson(res, statusOf(e), { error: e.message });
  }
}

// A platform request's body, read (at most maxBytes) and parsed (JSON, form or multipart); null when it was
// too large (413) or could not be parsed (400), which is answered and journalled here with the platform's
// error body for that status (errorBody(status)).
export async function readParsedBody(req, res, maxBytes, finish, errorBody) {
  const refuse = (status) => {
    const body = errorBody(status);
    finish(status, body);
    sendJson(res, status, body);
    return null;
  };
  let raw;
  try {
    raw = await readBody(req, maxBytes);
  } catch (e) {
    if (!(e instanceof BodyTooLarge)) throw e;
    return refuse(413);
  }
  try {
    return parseBody(req.headers["content-type"], raw);
  } catch {
    return refuse(400);
  }
}

// A chat's stored messages, [id, stored] in order, as a user sees them now: view(stored) of each one not
// deleted, and the ids of the deleted ones.
export function shownAndDeleted(entries, view) {
  const messages = [];
  const deleted = [];
  for (const [id, stored] of entries) {
    if (stored.deleted) deleted.push(id);
    else messages.push(view(stored));
  }
  return { messages, deleted };
}

// The fault set for this call, if any, noted in its journal entry; a "drop" is carried out here (the entry
// finished without an answer, the connection closed), and the caller only returns.
export function takeFault(faults, key, entry, req, finish) {
  const fault = faults.take(key);
  if (!fault) return null;
  entry.fault = fault.kind;
  if (fault.kind === "drop") {
    finish(null, null);
    req.socket.destroy();
  }
  return fault;
}

// Sends a held-back or normal answer according to a fault of kind drop_after_send or timeout.
export function answerAfterFault(fault, req, res, answer) {
  if (!fault || (fault.kind !== "drop_after_send" && fault.kind !== "timeout")) {
    answer();
    return;
  }
  if (fault.kind === "drop_after_send") {
    req.socket.destroy();
    return;
  }
  if (fault.delay_ms === undefined || fault.delay_ms === null) return; // held until the client gives up
  const timer = setTimeout(() => {
    if (!req.socket.destroyed) answer();
  }, fault.delay_ms);
  req.socket.once("close", () => clearTimeout(timer));
}

// ------------------------------------------------------------------ WebSocket (RFC 6455)

const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

// One accepted WebSocket connection: text and binary messages in (`onmessage(data: string|Buffer)`), text
// out (`send`), close frames both ways (`close(code, reason)`, `onclose(code, reason)`), and `terminate()`
// (the TCP connection destroyed without a close frame: the client sees 1006, as after a network failure).
export class WebSocketConnection {
  constructor(socket, head) {
    this.socket = socket;
    this.buffer = head && head.length ? Buffer.from(head) : Buffer.alloc(0);
    this.fragments = null;
    this.fragmentOpcode = 0;
    this.closed = false;
    this.closeSent = false;
    this.onmessage = () => {};
    this.onclose = () => {};
    socket.setNoDelay(true);
    socket.on("data", (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    socket.on("close", () => this.finish(1006, ""));
    socket.on("error", () => {});
    if (this.buffer.length) setImmediate(() => this.drain());
  }

  // Answers the upgrade request; returns a connection, or null after answering 400.
  static accept(req, socket, head) {
    const key = req.headers["sec-websocket-key"];
    if ((req.headers.upgrade ?? "").toLowerCase() !== "websocket" || !key) {
      socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return null;
    }
    const accept = createHash("sha1").update(key + WS_GUID).digest("base64");
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    return new WebSocketConnection(socket, head);
  }

  drain() {
    while (!this.closed) {
      const b = this.buffer;
      if (b.length < 2) return;
      const fin = (b[0] & 0x80) !== 0;
      const opcode = b[0] & 0x0f;
      const masked = (b[1] & 0x80) !== 0;
      let len = b[1] & 0x7f;
      let off = 2;
      if (len === 126) {
        if (b.length < 4) return;
        len = b.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (b.length < 10) return;
        len = Number(b.readBigUInt64BE(2));
        off = 10;
      }
      if (!masked) {
        this.close(1002, "client frames must be masked");
        return;
      }
      if (b.length < off + 4 + len) return;
      const mask = b.subarray(off, off + 4);
      const payload = Buffer.from(b.subarray(off + 4, off + 4 + len));
      for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
      this.buffer = b.subarray(off + 4 + len);
      this.frame(fin, opcode, payload);
    }
  }

  frame(fin, opcode, payload) {
    if (opcode === 0x8) {
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      const reason = payload.length > 2 ? payload.subarray(2).toString("utf8") : "";
      if (!this.closeSent) this.writeFrame(0x8, payload.length >= 2 ? payload.subarray(0, 2) : Buffer.alloc(0));
      this.closeSent = true;
      this.socket.end();
      this.finish(code, reason);
      return;
    }
    if (opcode === 0x9) {
      this.writeFrame(0xa, payload);
      return;
    }
    if (opcode === 0xa) return;
    if (opcode === 0x1 || opcode === 0x2) {
      this.fragments = [payload];
      this.fragmentOpcode = opcode;
    } else if (opcode === 0x0 && this.fragments) {
      this.fragments.push(payload);
    } else {
      this.close(1002, "unexpected opcode");
      return;
    }
    if (!fin) return;
    const data = Buffer.concat(this.fragments);
    const text = this.fragmentOpcode === 0x1;
    this.fragments = null;
    this.onmessage(text ? data.toString("utf8") : data, !text);
  }

  writeFrame(opcode, payload) {
    if (this.socket.destroyed) return;
    let header;
    if (payload.length < 126) {
      header = Buffer.from([0x80 | opcode, payload.length]);
    } else if (payload.length < 65536) {
      header = Buffer.alloc(4);
      header[0] = 0x80 | opcode;
      header[1] = 126;
      header.writeUInt16BE(payload.length, 2);
    } else {
      header = Buffer.alloc(10);
      header[0] = 0x80 | opcode;
      header[1] = 127;
      header.writeBigUInt64BE(BigInt(payload.length), 2);
    }
    this.socket.write(Buffer.concat([header, payload]));
  }

  send(text) {
    if (this.closed || this.closeSent) return false;
    this.writeFrame(0x1, Buffer.from(text, "utf8"));
    return true;
  }

  // A close frame with code and reason; the connection ends when the client answers (or after 1 s).
  close(code, reason = "") {
    if (this.closed || this.closeSent) return;
    const r = Buffer.from(reason, "utf8").subarray(0, 123);
    const payload = Buffer.alloc(2 + r.length);
    payload.writeUInt16BE(code, 0);
    r.copy(payload, 2);
    this.writeFrame(0x8, payload);
    this.closeSent = true;
    this.closeCode = code;
    const timer = setTimeout(() => this.socket.destroy(), 1000);
    timer.unref();
  }

  terminate() {
    this.socket.destroy();
  }

  finish(code, reason) {
    if (this.closed) return;
    this.closed = true;
    this.onclose(this.closeCode ?? code, reason);
  }
}
