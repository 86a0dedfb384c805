// The JSON-RPC params of the signal-cli fake (signal.mjs), read as signal-cli reads them, with its errors.
//
// signal-cli hands a method's `params` object to the same code as the command line (JsonRpcNamespace):
// camelCase names (`groupId` for --group-id), a list parameter given as one value or an array, under its
// singular or plural name (`recipient` or `recipients`, `attachment` or `attachments`). A wrong JSON type is a
// Java ClassCastException, answered as an internal error (-32603). The command's own checks are user errors
// (-1) with signal-cli's messages. Unknown params are ignored, as signal-cli ignores them.
import { readFileSync } from "node:fs";

import { mimeFor } from "./common.mjs";

// JSON-RPC error codes (JsonRpcResponse.Error, SignalJsonRpcCommandHandler).
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  USER_ERROR: -1,
  IO_ERROR: -3,
  UNTRUSTED_KEY_ERROR: -4,
  RATELIMIT_ERROR: -5,
  CAPTCHA_REJECTED_ERROR: -6,
};

export class RpcError extends Error {
  constructor(code, message, data = null) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

export const userError = (message, data = null) => new RpcError(RPC.USER_ERROR, message, data);

const JAVA_TYPE = { string: "java.lang.String", number: "java.lang.Integer", boolean: "java.lang.Boolean" };
function classCast(value, wanted) {
  const have = Array.isArray(value) ? "java.util.ArrayList" : (JAVA_TYPE[typeof value] ?? "java.util.LinkedHashMap");
  return new RpcError(
    RPC.INTERNAL_ERROR,
    `class ${have} cannot be cast to class ${wanted} (ClassCastException)`,
  );
}

export class Params {
  constructor(params) {
    this.p = params ?? {};
  }

  has(name) {
    return this.p[name] !== undefined && this.p[name] !== null;
  }

  string(name) {
    const v = this.p[name];
    if (v === undefined || v === null) return null;
    if (typeof v !== "string") throw classCast(v, "java.lang.String");
    return v;
  }

  bool(name) {
    const v = this.p[name];
    if (v === undefined || v === null) return false;
    if (typeof v !== "boolean") throw classCast(v, "java.lang.Boolean");
    return v;
  }

  // A timestamp: a JSON integer (Jackson reads those above 2^31 as Long).
  long(name) {
    const v = this.p[name];
    if (v === undefined || v === null) return null;
    if (typeof v !== "number" || !Number.isInteger(v)) throw classCast(v, "java.lang.Long");
    return v;
  }

  // A long the command unboxes without a null check (`final long t = ns.getLong(…)`).
  requiredLong(name) {
    const v = this.long(name);
    if (v === null) {
      throw new RpcError(
        RPC.INTERNAL_ERROR,
        `Cannot invoke "java.lang.Long.longValue()" because the return value of ` +
          `"net.sourceforge.argparse4j.inf.Namespace.getLong(String)" is null (NullPointerException)`,
      );
    }
    return v;
  }

  // A list parameter: one value or an array, under `name` or `name` + "s".
  list(name) {
    for (const key of [name, `${name}s`]) {
      const v = this.p[key];
      if (v === undefined || v === null) continue;
      const items = Array.isArray(v) ? v : [v];
      for (const item of items) if (typeof item !== "string") throw classCast(item, "java.lang.String");
      return items;
    }
    return null;
  }
}

// ------------------------------------------------------------------ recipients

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s) => UUID_RE.test(s);
export const isE164 = (s) => /^\+[1-9]\d{6,14}$/.test(s);

// One RECIPIENT as signal-cli takes it: a phone number, an ACI (a UUID), "PNI:<uuid>" or "u:<username>".
export function parseRecipient(s) {
  if (isUuid(s)) return { uuid: s.toLowerCase() };
  if (s.startsWith("PNI:") && isUuid(s.slice(4))) return { pni: s.slice(4).toLowerCase() };
  if (s.startsWith("u:") && s.length > 2) return { username: s.slice(2) };
  if (isE164(s)) return { number: s };
  throw userError(`Invalid phone number '${s}': The string supplied did not seem to be a phone number.`);
}

// A group id: base64 of 32 bytes (v2 groups; 16 for the old v1 groups).
export function parseGroupId(s) {
  const bytes = Buffer.from(s, "base64");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(s) || ![16, 32].includes(bytes.length)) {
    throw userError(`Invalid group id: Invalid group id length: ${bytes.length}`);
  }
  return bytes.toString("base64");
}

// ------------------------------------------------------------------ text

export const STYLES = new Set(["NONE", "ITALIC", "BOLD", "SPOILER", "STRIKETHROUGH", "MONOSPACE"]);

// --text-style "start:length:STYLE" (UTF-16 code units).
export function parseTextStyles(strings) {
  return (strings ?? []).map((s) => {
    const m = /^(\d+):(\d+):(.+)$/.exec(s);
    if (!m) throw userError(`Invalid textStyle syntax (${s}) expected 'start:length:STYLE'`);
    if (!STYLES.has(m[3])) throw userError(`Invalid style: ${m[3]}`);
    return { style: m[3], start: Number(m[1]), length: Number(m[2]) };
  });
}

// --mention "start:length:RECIPIENT".
export function parseMentions(strings) {
  return (strings ?? []).map((s) => {
    const m = /^(\d+):(\d+):(.+)$/.exec(s);
    if (!m) throw userError(`Invalid mention syntax (${s}) expected 'start:length:recipientNumber'`);
    return { start: Number(m[1]), length: Number(m[2]), recipient: parseRecipient(m[3]) };
  });
}

// What a user's app shows of styled text: each range's text (UTF-16 slices) and any range outside the body.
export function styledView(body, styles) {
  return styles.map((s) => ({
    style: s.style,
    text: body.slice(s.start, s.start + s.length),
    ...(s.start + s.length > body.length ? { out_of_range: true } : {}),
    // A range that starts or ends inside a surrogate pair splits a character.
    ...(splitsPair(body, s.start) || splitsPair(body, s.start + s.length) ? { splits_character: true } : {}),
  }));
}

function splitsPair(s, i) {
  if (i <= 0 || i >= s.length) return false;
  const before = s.charCodeAt(i - 1);
  return before >= 0xd800 && before <= 0xdbff;
}

// signal-cli's splitByByteLength: the longest prefix of at most `limit` UTF-8 bytes that ends on a whole
// code point.
export function trimToBytes(text, limit) {
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > limit) break;
    bytes += n;
    end += ch.length;
  }
  return text.slice(0, end);
}

// ------------------------------------------------------------------ attachments

// --attachment: a file path, or an RFC 2397 data URI `data:<MIME>[;filename=<NAME>];base64,<DATA>`.
// A file that cannot be read, or a malformed data URI, fails the send the way signal-cli fails it
// (AttachmentInvalidException, answered as an unexpected error).
export function readAttachment(spec) {
  const fail = (why) =>
    new RpcError(
      RPC.INTERNAL_ERROR,
      `Failed to send message: ${spec.length > 80 ? `${spec.slice(0, 80)}…` : spec}: ${why} (AttachmentInvalidException) (UnexpectedErrorException)`,
    );
  if (spec.startsWith("data:")) {
    const m = /^data:([^;,]+)((?:;[^;,=]+=[^;,]*)*)(;base64)?,(.*)$/s.exec(spec);
    if (!m) throw fail("Invalid data URI");
    const attrs = Object.fromEntries(
      m[2]
        .split(";")
        .filter(Boolean)
        .map((kv) => kv.split("=")),
    );
    const data = m[3] ? Buffer.from(m[4], "base64") : Buffer.from(decodeURIComponent(m[4]));
    return { contentType: m[1], filename: attrs.filename ?? null, data, source: "data-uri" };
  }
  let data;
  try {
    data = readFileSync(spec);
  } catch (e) {
    throw fail(e.code === "ENOENT" ? "No such file or directory" : e.message);
  }
  const filename = spec.split("/").pop();
  return { contentType: mimeFor(filename, data), filename, data, source: "path", path: spec };
}
