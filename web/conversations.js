// The list of past conversations in a drawer: switch, rename, delete (docs/web-chat.md). It talks HTTP to
// the gateway (GET /v1/conversations, PUT .../settings {"title"}, DELETE /v1/conversations/{id}); the chat
// itself stays on the WebSocket (app.js). Titles and previews are model or user text: text nodes only.

const MAX_TITLE_BYTES = 200;

// opts: { user, accessToken, current(): the open conversation's id, open(id): show another one,
//         startNew(): begin a new conversation, toast(text) }
export function conversationList(opts) {
  const drawer = document.getElementById("drawer");
  const list = document.getElementById("conversation-list");
  const toggle = document.getElementById("conversations-toggle");
  const close = document.getElementById("drawer-close");
  const status = document.getElementById("conversation-list-status");
  let loaded = [];
  let generation = 0;  // answers to an older refresh are dropped

  function headers(extra = {}) {
    return opts.accessToken ? { ...extra, Authorization: `Bearer ${opts.accessToken}` } : extra;
  }

  function url(path, query = {}) {
    return `${path}?${new URLSearchParams({ user: opts.user, ...query })}`;
  }

  async function failure(r) {
    try {
      const body = await r.json();
      if (typeof body?.error === "string") return body.error;
    } catch {
      // not JSON
    }
    return `HTTP ${r.status}`;
  }

  function when(ms) {
    const d = new Date(ms);
    const today = new Date();
    if (d.toDateString() === today.toDateString()) {
      return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    }
    return d.toLocaleDateString([], { month: "short", day: "numeric" });
  }

  function item(c) {
    const li = document.createElement("li");
    li.className = "conv";
    li.dataset.id = c.id;
    if (c.id === opts.current()) li.setAttribute("aria-current", "true");
    const open = document.createElement("button");
    open.type = "button";
    open.className = "conv-open";
    const title = document.createElement("span");
    title.className = "conv-title";
    title.textContent = c.title || c.preview || (c.saved ? "Untitled" : "New conversation");
    open.title = title.textContent;
    open.appendChild(title);
    if (c.saved) {
      const time = document.createElement("span");
      time.className = "conv-time";
      time.textContent = when(c.updated_at_ms);
      open.appendChild(time);
    }
    open.addEventListener("click", () => {
      if (c.id !== opts.current()) opts.open(c.id);
      hide();
    });
    li.appendChild(open);
    if (c.saved) {
      li.appendChild(action("Rename", "✎", () => rename(li, c)));
      li.appendChild(action("Delete", "🗑", () => remove(c)));
    }
    return li;
  }

  function action(label, icon, run) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = `conv-action conv-${label.toLowerCase()}`;
    b.textContent = icon;
    b.title = label;
    b.setAttribute("aria-label", label);
    b.addEventListener("click", run);
    return b;
  }

  function render() {
    const current = opts.current();
    const shown = loaded.map((c) => ({ ...c, saved: true }));
    if (!shown.some((c) => c.id === current)) shown.unshift({ id: current, title: "", preview: "", saved: false });
    list.replaceChildren(...shown.map(item));
  }

  async function refresh() {
    const mine = ++generation;
    try {
      const r = await fetch(url("/v1/conversations"), { headers: headers(), cache: "no-store" });
      if (mine !== generation) return;
      if (!r.ok) {
        status.textContent = `The list could not be loaded: ${await failure(r)}`;
        status.hidden = false;
        return;
      }
      const body = await r.json();
      if (mine !== generation) return;
      loaded = Array.isArray(body.conversations) ? body.conversations : [];
      status.hidden = true;
    } catch {
      if (mine !== generation) return;
      status.textContent = "The list could not be loaded: the gateway is not reachable.";
      status.hidden = false;
    }
    render();
  }

  function rename(li, c) {
    const open = li.querySelector(".conv-open");
    const input = document.createElement("input");
    input.className = "conv-title-input";
    input.value = c.title || c.preview || "";
    input.maxLength = MAX_TITLE_BYTES;
    input.setAttribute("aria-label", "Conversation title");
    let done = false;
    const finish = async (save) => {
      if (done) return;
      done = true;
      const title = input.value.trim();
      if (save && title !== (c.title || "")) {
        if (new TextEncoder().encode(title).length > MAX_TITLE_BYTES) {
          opts.toast("That title is too long.");
        } else {
          const r = await fetch(url(`/v1/conversations/${encodeURIComponent(c.id)}/settings`), {
            method: "PUT",
            headers: headers({ "Content-Type": "application/json" }),
            body: JSON.stringify({ title }),
          }).catch(() => null);
          if (!r || !r.ok) opts.toast(`Not renamed: ${r ? await failure(r) : "the gateway is not reachable"}`);
        }
      }
      await refresh();
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        finish(true);
      } else if (e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        finish(false);
      }
    });
    input.addEventListener("blur", () => finish(true));
    open.replaceWith(input);
    input.focus();
    input.select();
  }

  async function remove(c) {
    const name = c.title || c.preview || "this conversation";
    if (!confirm(`Delete “${name}”? Its messages, files and reminders are removed for good.`)) return;
    const r = await fetch(url(`/v1/conversations/${encodeURIComponent(c.id)}`), {
      method: "DELETE",
      headers: headers(),
    }).catch(() => null);
    if (!r || !r.ok) {
      opts.toast(`Not deleted: ${r ? await failure(r) : "the gateway is not reachable"}`);
    } else {
      opts.toast("Conversation deleted.");
      // The "deleted" frame may have moved this page on already (then the id is no longer current).
      if (c.id === opts.current()) opts.startNew();
    }
    await refresh();
  }

  function show() {
    drawer.hidden = false;
    toggle.setAttribute("aria-expanded", "true");
    render();
    refresh();
    (list.querySelector("[aria-current] .conv-open") ?? close).focus();
  }

  function hide() {
    if (drawer.hidden) return;
    drawer.hidden = true;
    toggle.setAttribute("aria-expanded", "false");
  }

  toggle.addEventListener("click", () => (drawer.hidden ? show() : hide()));
  document.getElementById("drawer-new").addEventListener("click", () => {
    hide();
    opts.startNew();
  });
  close.addEventListener("click", hide);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") hide();
  });

  return {
    // The list changed (a turn ended, the conversation changed): refresh what is shown, if it is shown.
    changed() {
      if (!drawer.hidden) refresh();
    },
  };
}
