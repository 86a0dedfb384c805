// Safe rendering of model text: a small Markdown subset built with DOM APIs only.
//
// Model output is untrusted. Nothing here parses HTML: every piece of text becomes a text node
// (document.createTextNode / textContent), and the only elements made are <pre>, <code>, <strong> and <a>.
// Links get an http(s) URL (or a path on this server) checked with the URL parser, rel="noopener
// noreferrer" and target="_blank". What is recognised:
//   - fenced code blocks (``` or ~~~, 3 or more; an unclosed fence runs to the end, as while streaming);
//   - inline code spans (`code`, ``code with ` inside``);
//   - **bold**;
//   - [text](https://...) links;
//   - bare http(s):// URLs and /pages/... paths (published pages) made clickable.
// Everything else, line breaks included, stays as written (the container uses white-space: pre-wrap).

// One block: {type: "text" | "code", text, lang}.
export function splitBlocks(source) {
  const blocks = [];
  const lines = source.split("\n");
  let text = [];
  let code = null;  // {fence, lines, lang}
  const flushText = () => {
    if (text.length > 0) blocks.push({ type: "text", text: text.join("\n") });
    text = [];
  };
  for (const line of lines) {
    if (code === null) {
      const open = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/.exec(line);
      if (open) {
        flushText();
        code = { fence: open[1], lines: [], lang: open[2] };
      } else {
        text.push(line);
      }
    } else {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close && close[1][0] === code.fence[0] && close[1].length >= code.fence.length) {
        blocks.push({ type: "code", text: code.lines.join("\n"), lang: code.lang });
        code = null;
      } else {
        code.lines.push(line);
      }
    }
  }
  if (code !== null) blocks.push({ type: "code", text: code.lines.join("\n"), lang: code.lang });
  flushText();
  return blocks;
}

// The URL a link may point to, or null: http(s) anywhere, or a path on this server.
export function safeHref(raw, base) {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2048) return null;
  if (!/^(https?:\/\/|\/(?!\/))/i.test(raw)) return null;
  let url;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return url.href;
}

// Inline tokens: code spans, bold, [text](url), bare URLs, /pages/ paths.
const INLINE =
  /(`+)([^`\n]|[^`\n][^\n]*?[^`\n])\1(?!`)|\*\*(?=\S)([^\n]*?\S)\*\*|\[([^\]\n]{1,500})\]\(((?:https?:\/\/|\/)[^\s()]{1,2000})\)|(https?:\/\/[^\s<>"'`]+)|((?:^|(?<=[\s(>]))\/pages\/[A-Za-z0-9._~%\-/]+)/g;

// Trailing punctuation is not part of a bare URL ("see https://x.org/a." links to /a), nor is a closing
// parenthesis that has no opening one inside the URL.
function trimUrl(url) {
  let end = url.length;
  for (;;) {
    const c = url[end - 1];
    if (".,;:!?'\"*_".includes(c)) {
      end -= 1;
    } else if (c === ")") {
      const open = url.slice(0, end).split("(").length - 1;
      const close = url.slice(0, end).split(")").length - 1;
      if (close > open) end -= 1;
      else break;
    } else {
      break;
    }
    if (end === 0) break;
  }
  return url.slice(0, end);
}

function link(doc, href, label) {
  const a = doc.createElement("a");
  a.href = href;
  a.rel = "noopener noreferrer";
  a.target = "_blank";
  a.textContent = label;
  return a;
}

// Appends the inline rendering of text to parent. depth limits nesting (bold inside bold...).
export function appendInline(parent, text, base, depth = 0) {
  const doc = parent.ownerDocument;
  let last = 0;
  INLINE.lastIndex = 0;
  const matches = [...text.matchAll(INLINE)];
  for (const m of matches) {
    let start = m.index;
    let whole = m[0];
    let node = null;
    let tail = "";
    if (m[1] !== undefined) {
      const code = doc.createElement("code");
      let inner = m[2];
      // CommonMark: one space on both sides of a code span is padding.
      if (inner.length > 2 && inner.startsWith(" ") && inner.endsWith(" ") && inner.trim() !== "") {
        inner = inner.slice(1, -1);
      }
      code.textContent = inner;
      node = code;
    } else if (m[3] !== undefined) {
      const strong = doc.createElement("strong");
      if (depth < 2) appendInline(strong, m[3], base, depth + 1);
      else strong.textContent = m[3];
      node = strong;
    } else if (m[4] !== undefined) {
      const href = safeHref(m[5], base);
      if (href !== null) node = link(doc, href, m[4]);
    } else {
      const raw = m[6] !== undefined ? m[6] : m[7];
      const url = trimUrl(raw);
      tail = raw.slice(url.length);
      const href = url.length > 0 ? safeHref(url, base) : null;
      if (href !== null) node = link(doc, href, url);
      whole = raw;
    }
    if (node === null) continue;  // not a safe link: left as text
    if (start > last) parent.appendChild(doc.createTextNode(text.slice(last, start)));
    parent.appendChild(node);
    if (tail.length > 0) parent.appendChild(doc.createTextNode(tail));
    last = start + whole.length;
  }
  if (last < text.length) parent.appendChild(doc.createTextNode(text.slice(last)));
}

// Replaces the children of container with the rendering of source.
export function renderRich(container, source, base) {
  const doc = container.ownerDocument;
  const blocks = splitBlocks(source);
  const frag = doc.createDocumentFragment();
  blocks.forEach((block) => {
    if (block.type === "code") {
      const pre = doc.createElement("pre");
      const code = doc.createElement("code");
      if (/^[A-Za-z0-9_+-]{1,32}$/.test(block.lang)) code.dataset.lang = block.lang;
      code.textContent = block.text;
      pre.appendChild(code);
      frag.appendChild(pre);
    } else {
      const text = block.text;
      if (text.length === 0) return;
      const span = doc.createElement("span");
      span.className = "md";
      appendInline(span, text, base);
      frag.appendChild(span);
    }
  });
  container.replaceChildren(frag);
}

export function formatSize(bytes) {
  const n = Number(bytes);
  if (!Number.isFinite(n) || n < 0) return "";
  if (n < 1024) return `${n} ${n === 1 ? "byte" : "bytes"}`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

export function formatDuration(ms) {
  const s = Math.max(1, Math.round(Number(ms) / 1000));
  if (!Number.isFinite(s)) return "";
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
