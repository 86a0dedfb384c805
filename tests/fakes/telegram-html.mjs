// Telegram's parse_mode "HTML", as the Bot API applies it: the supported tags become MessageEntity objects
// (UTF-16 offsets), anything else is refused with the reason Telegram gives after "can't parse entities: ".
// Written from the Bot API's "Formatting options" section and checked against what Telegram's own parser
// (TDLib's parseTextEntities) answers for the inputs in vectors/telegram-html.jsonl (telegram.test.mjs).
//
// parseHtml(text) → { text, entities } or throws HtmlParseError (message = the reason, e.g.
// `Unsupported start tag "p" at byte offset 0`; byte offsets count UTF-8 bytes of the input).

export class HtmlParseError extends Error {}

const TAGS = new Set([
  "a", "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "code", "pre",
  "blockquote", "tg-emoji", "tg-time",
]);

const SIMPLE = {
  b: "bold", strong: "bold", i: "italic", em: "italic", u: "underline", ins: "underline", s: "strikethrough",
  strike: "strikethrough", del: "strikethrough", span: "spoiler", "tg-spoiler": "spoiler", code: "code", pre: "pre",
};

// Among entities over the same span, Telegram lists them in this order.
const PRIORITY = {
  blockquote: 0, expandable_blockquote: 1, pre: 11, code: 20, text_link: 49, text_mention: 49, bold: 90,
  italic: 91, underline: 92, strikethrough: 93, spoiler: 94, date_time: 95, custom_emoji: 99,
};

const NAMED = { lt: "<", gt: ">", amp: "&", quot: '"' };

function isSpace(c) {
  return c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v";
}

function byteOffset(s, i) {
  return Buffer.byteLength(s.slice(0, i), "utf8");
}

// "&..." at s[i] → [decoded string, next index], or null when it is not an entity Telegram knows (then the
// "&" stays as it is).
function decodeEntity(s, i) {
  let j = i + 1;
  if (s[j] === "#") {
    j++;
    let hex = false;
    if (s[j] === "x") {
      hex = true;
      j++;
    }
    const start = j;
    while (j < s.length && (hex ? /[0-9a-fA-F]/ : /[0-9]/).test(s[j])) j++;
    if (j === start) return null;
    const digits = s.slice(start, j).replace(/^0+(?=.)/, "");
    if (digits.length > 8) return null;
    const code = parseInt(digits, hex ? 16 : 10);
    if (code === 0 || code > 0x10ffff) return null;
    if (s[j] === ";") j++;
    // A surrogate code point stays a lone UTF-16 unit here; parseHtml refuses it at the end, as Telegram does.
    return [code >= 0xd800 && code <= 0xdfff ? String.fromCharCode(code) : String.fromCodePoint(code), j];
  }
  const start = j;
  while (j < s.length && /[A-Za-z]/.test(s[j])) j++;
  const decoded = NAMED[s.slice(start, j)];
  if (decoded === undefined) return null;
  if (s[j] === ";") j++;
  return [decoded, j];
}

function decodeEntities(s) {
  let out = "";
  for (let i = 0; i < s.length; ) {
    if (s[i] === "&") {
      const d = decodeEntity(s, i);
      if (d) {
        out += d[0];
        i = d[1];
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

const ATTR_NAME = /[A-Za-z0-9:_.-]/;
const BARE_VALUE = /[A-Za-z0-9.-]/;

// The URL an <a href> points to, as Telegram normalizes it, or null when Telegram drops the link (the text
// stays, without an entity).
export function normalizeUrl(href) {
  if (!href) return null;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(href);
  let rest;
  let proto;
  if (scheme) {
    proto = scheme[1].toLowerCase();
    if (proto === "tg") return href;
    if (proto !== "http" && proto !== "https" && proto !== "ton") return null;
    rest = href.slice(scheme[0].length);
  } else {
    if (href.startsWith("/")) return null;
    proto = "http";
    rest = href;
  }
  const end = rest.search(/[/?#]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  let tail = end < 0 ? "" : rest.slice(end);
  const at = authority.lastIndexOf("@");
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : "";
  const hostport = at >= 0 ? authority.slice(at + 1) : authority;
  const m = /^([^:]*)(:\d+)?$/.exec(hostport);
  if (!m) return null;
  const host = m[1].toLowerCase();
  if (!host || /\s/.test(host)) return null;
  if (proto !== "ton") {
    const labels = host.split(".");
    if (labels.length < 2 || labels.some((l) => l === "")) return null;
  }
  if (!tail.startsWith("/")) tail = "/" + tail;
  return `${proto}://${userinfo}${host}${m[2] ?? ""}${tail.replace(/ /g, "%20")}`;
}

export function parseHtml(input) {
  let out = "";
  const stack = [];
  const entities = [];
  let order = 0;
  const fail = (reason) => {
    throw new HtmlParseError(reason);
  };
  const n = input.length;
  let i = 0;
  while (i < n) {
    const c = input[i];
    if (c === "&") {
      const d = decodeEntity(input, i);
      if (d) {
        out += d[0];
        i = d[1];
      } else {
        out += c;
        i++;
      }
      continue;
    }
    if (c !== "<") {
      out += c;
      i++;
      continue;
    }
    const tagStart = i;
    i++;
    if (i >= n) fail(`Unclosed start tag at byte offset ${byteOffset(input, tagStart)}`);
    if (input[i] === "/") {
      // End tag.
      if (stack.length === 0) fail(`Unexpected end tag at byte offset ${byteOffset(input, tagStart)}`);
      i++;
      const nameStart = i;
      while (i < n && input[i] !== ">" && !isSpace(input[i])) i++;
      const name = input.slice(nameStart, i).toLowerCase();
      while (i < n && isSpace(input[i])) i++;
      if (input[i] !== ">") fail(`Unclosed end tag at byte offset ${byteOffset(input, tagStart)}`);
      i++;
      const open = stack.pop();
      if (name !== "" && name !== open.name) {
        fail(
          `Unmatched end tag at byte offset ${byteOffset(input, tagStart)}, expected "</${open.name}>", ` +
            `found "</${name}>"`,
        );
      }
      closeTag(open, out.length, stack, entities, () => order++);
      continue;
    }
    // Start tag.
    const nameStart = i;
    while (i < n && input[i] !== ">" && !isSpace(input[i])) i++;
    if (i >= n) fail(`Unclosed start tag at byte offset ${byteOffset(input, tagStart)}`);
    const name = input.slice(nameStart, i).toLowerCase();
    if (!TAGS.has(name)) fail(`Unsupported start tag "${name}" at byte offset ${byteOffset(input, tagStart)}`);
    const attrs = {};
    for (;;) {
      while (i < n && isSpace(input[i])) i++;
      if (i >= n) fail(`Unclosed start tag at byte offset ${byteOffset(input, tagStart)}`);
      if (input[i] === ">") {
        i++;
        break;
      }
      const attrStart = i;
      while (i < n && ATTR_NAME.test(input[i])) i++;
      if (i === attrStart) {
        fail(`Empty attribute name in the tag "${name}" at byte offset ${byteOffset(input, tagStart)}`);
      }
      const attr = input.slice(attrStart, i).toLowerCase();
      let value = "";
      if (input[i] === "=") {
        i++;
        if (i >= n) fail(`Unclosed start tag at byte offset ${byteOffset(input, tagStart)}`);
        if (input[i] === '"' || input[i] === "'") {
          const close = input.indexOf(input[i], i + 1);
          if (close < 0) fail(`Unclosed start tag at byte offset ${byteOffset(input, tagStart)}`);
          value = decodeEntities(input.slice(i + 1, close));
          i = close + 1;
        } else {
          const valueStart = i;
          while (i < n && BARE_VALUE.test(input[i])) i++;
          if (i >= n) fail(`Unclosed start tag at byte offset ${byteOffset(input, tagStart)}`);
          if (input[i] !== ">" && !isSpace(input[i])) {
            fail(`Unexpected end of name token at byte offset ${byteOffset(input, valueStart)}`);
          }
          value = input.slice(valueStart, i);
        }
      }
      if (!(attr in attrs)) attrs[attr] = value;
    }
    if (name === "span" && attrs.class !== "tg-spoiler") {
      fail(`Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(input, tagStart)}`);
    }
    if (name === "tg-emoji" && !/^[0-9]+$/.test(attrs["emoji-id"] ?? "")) {
      fail("Invalid custom emoji identifier specified");
    }
    stack.push({ name, attrs, start: out.length, languageChild: null });
  }
  if (stack.length) fail(`Can't find end tag corresponding to start tag "${stack[stack.length - 1].name}"`);
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(out)) {
    fail(
      "Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate " +
        "code units",
    );
  }
  entities.sort(
    (a, b) =>
      a.entity.offset - b.entity.offset ||
      b.entity.length - a.entity.length ||
      PRIORITY[a.entity.type] - PRIORITY[b.entity.type] ||
      a.order - b.order,
  );
  return { text: out, entities: entities.map((e) => e.entity) };
}

function closeTag(open, end, stack, entities, nextOrder) {
  const offset = open.start;
  const length = end - open.start;
  const parent = stack[stack.length - 1];
  const add = (entity) => {
    const item = { entity: { offset, length, ...entity }, order: nextOrder() };
    entities.push(item);
    return item;
  };
  if (length === 0) return;
  switch (open.name) {
    case "a": {
      const href = open.attrs.href ?? "";
      const mention = /^tg:\/\/user\?id=([0-9]+)$/i.exec(href);
      if (mention) {
        add({ type: "text_mention", user: { id: Number(mention[1]), is_bot: false, first_name: "" } });
      } else {
        const url = normalizeUrl(href);
        if (url) add({ type: "text_link", url });
      }
      return;
    }
    case "blockquote":
      add({ type: "expandable" in open.attrs ? "expandable_blockquote" : "blockquote" });
      return;
    case "tg-emoji":
      add({ type: "custom_emoji", custom_emoji_id: open.attrs["emoji-id"] });
      return;
    case "tg-time": {
      if (!/^-?[0-9]+$/.test(open.attrs.unix ?? "")) return;
      const entity = { type: "date_time", unix_time: Number(open.attrs.unix) };
      if (open.attrs.format) entity.date_time_format = open.attrs.format;
      add(entity);
      return;
    }
    case "code": {
      const item = add({ type: "code" });
      const cls = open.attrs.class ?? "";
      if (parent?.name === "pre" && parent.start === offset && cls.startsWith("language-")) {
        parent.languageChild = { item, language: cls.slice("language-".length), end };
      }
      return;
    }
    case "pre": {
      const child = open.languageChild;
      if (child && child.end === end) {
        entities.splice(entities.indexOf(child.item), 1);
        add({ type: "pre", language: child.language });
      } else {
        add({ type: "pre" });
      }
      return;
    }
    default:
      add({ type: SIMPLE[open.name] });
  }
}
