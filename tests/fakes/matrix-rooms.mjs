// The Matrix fake's world (matrix.mjs): users, rooms, their events in one stream ordering, memberships,
// invites, relations (reactions, edits), redaction, and what GET /sync and GET /messages return from it.
// Written from the Matrix client-server API (v1.11); no HTTP here.
import { randomBytes } from "node:crypto";

export const SERVER_NAME = "sigil.test";
// Events over 65,536 bytes (as JSON, the whole event) are refused by homeservers: M_TOO_LARGE.
export const EVENT_LIMIT = 65_536;

export class MatrixError extends Error {
  constructor(status, errcode, error, extra = {}) {
    super(error);
    this.status = status;
    this.errcode = errcode;
    this.extra = extra;
  }
}

// Room v10 event ids: "$" + 43 characters of unpadded URL-safe base64 (a reference hash).
export const newEventId = () => `$${randomBytes(32).toString("base64url")}`;

// The redaction algorithm (room v11): what of an event's content survives a redaction.
const KEPT_CONTENT = {
  "m.room.member": ["membership", "join_authorised_via_users_server"],
  "m.room.create": null, // all of it
  "m.room.join_rules": ["join_rule", "allow"],
  "m.room.power_levels": ["ban", "events", "events_default", "invite", "kick", "redact", "state_default", "users",
    "users_default"],
  "m.room.history_visibility": ["history_visibility"],
  "m.room.redaction": ["redacts"],
};

export class Rooms {
  constructor(botUserId) {
    this.bot = botUserId;
    this.pos = 0; // the stream position of the newest event
    this.stream = []; // every event in order: {pos, event, roomId}
    this.rooms = new Map();
    this.waiters = new Set(); // long-polling syncs, woken by a new event
  }

  // ---------------------------------------------------------------- rooms and members

  createRoom({ room_id, name, creator = this.bot, members = [], encrypted = false, direct = false, invite = [] }) {
    const roomId = room_id ?? `!${randomBytes(9).toString("base64url")}:${SERVER_NAME}`;
    if (this.rooms.has(roomId)) throw new MatrixError(400, "M_ROOM_IN_USE", "Room alias already taken");
    const room = { roomId, name: name ?? null, encrypted, direct, membership: new Map(), events: [],
      byId: new Map(), typing: new Map(), bot_is_moderator: false };
    this.rooms.set(roomId, room);
    this.append(room, creator, "m.room.create", { room_version: "10", creator }, "");
    this.setMember(room, creator, "join");
    this.append(room, creator, "m.room.power_levels", { users: { [creator]: 100 }, users_default: 0, events_default: 0,
      state_default: 50, redact: 50, ban: 50, kick: 50, invite: 0, events: {} }, "");
    this.append(room, creator, "m.room.join_rules", { join_rule: "invite" }, "");
    if (name) this.append(room, creator, "m.room.name", { name }, "");
    if (encrypted) this.append(room, creator, "m.room.encryption", { algorithm: "m.megolm.v1.aes-sha2" }, "");
    for (const m of members) if (m !== creator) this.setMember(room, m, "join");
    for (const m of invite) this.setMember(room, m, "invite", creator);
    return room;
  }

  room(roomId) {
    const room = this.rooms.get(roomId);
    // Synapse answers a room the user cannot see with 403, whether or not it exists.
    if (!room) throw new MatrixError(403, "M_FORBIDDEN", `User is not in room ${roomId}`);
    return room;
  }

  membership(room, userId) {
    return room.membership.get(userId) ?? "leave";
  }

  mustBeJoined(room, userId) {
    if (this.membership(room, userId) !== "join") {
      throw new MatrixError(403, "M_FORBIDDEN", `User ${userId} not in room ${room.roomId}`);
    }
  }

  setMember(room, userId, membership, sender = userId) {
    room.membership.set(userId, membership);
    const content = { membership, displayname: userId.slice(1).split(":")[0] };
    if (room.direct && membership === "invite") content.is_direct = true;
    return this.append(room, sender, "m.room.member", content, userId);
  }

  join(roomIdOrAlias, userId) {
    const room = this.rooms.get(roomIdOrAlias);
    if (!room) throw new MatrixError(404, "M_NOT_FOUND", "No known servers");
    const now = this.membership(room, userId);
    if (now === "join") return room;
    if (now !== "invite") throw new MatrixError(403, "M_FORBIDDEN", "You are not invited to this room.");
    this.setMember(room, userId, "join");
    return room;
  }

  // ---------------------------------------------------------------- events

  // Appends an event to the room and the stream, wakes waiting syncs; returns the event.
  append(room, sender, type, content, stateKey, extra = {}) {
    const event = { type, sender, content, event_id: newEventId(), origin_server_ts: Date.now(), room_id: room.roomId,
      unsigned: {} };
    if (stateKey !== undefined) event.state_key = stateKey;
    Object.assign(event, extra.fields ?? {});
    const size = Buffer.byteLength(JSON.stringify(event));
    if (size > EVENT_LIMIT) throw new MatrixError(413, "M_TOO_LARGE", "event too large");
    const stored = { pos: ++this.pos, event, roomId: room.roomId, txn: extra.txn ?? null, reactions: new Map(),
      edits: [], redacted_by: null };
    room.events.push(stored);
    room.byId.set(event.event_id, stored);
    this.stream.push(stored);
    this.relate(room, stored);
    for (const wake of this.waiters) wake();
    return event;
  }

  eventIn(room, eventId) {
    const stored = room.byId.get(eventId);
    if (!stored) throw new MatrixError(404, "M_NOT_FOUND", "Event not found.");
    return stored;
  }

  // Relations as a user's client applies them: an annotation counts under its key; an edit applies only when
  // it comes from the original's sender in the same room (clients must ignore others).
  relate(room, stored) {
    const rel = stored.event.content?.["m.relates_to"];
    if (!rel || typeof rel !== "object") return;
    const target = room.byId.get(rel.event_id);
    if (!target) return;
    if (rel.rel_type === "m.annotation" && stored.event.type === "m.reaction") {
      const senders = target.reactions.get(rel.key) ?? new Map();
      senders.set(stored.event.sender, stored.event.event_id);
      target.reactions.set(rel.key, senders);
    } else if (rel.rel_type === "m.replace") {
      const valid = target.event.sender === stored.event.sender && target.event.type === stored.event.type &&
        typeof stored.event.content["m.new_content"] === "object";
      if (valid) target.edits.push(stored.event.event_id);
      else stored.invalid_edit = true;
    }
  }

  // A user's reaction with this key on that event, if any (Synapse refuses a second: M_DUPLICATE_ANNOTATION).
  duplicateAnnotation(room, sender, content) {
    const rel = content?.["m.relates_to"];
    if (rel?.rel_type !== "m.annotation") return false;
    const target = room.byId.get(rel.event_id);
    return Boolean(target?.reactions.get(rel.key)?.has(sender));
  }

  redact(room, sender, eventId, reason, txn) {
    const target = this.eventIn(room, eventId);
    const own = target.event.sender === sender;
    if (!own && !room.bot_is_moderator) {
      throw new MatrixError(403, "M_FORBIDDEN", "You don't have permission to redact events");
    }
    const content = reason === undefined ? {} : { reason };
    const redaction = this.append(room, sender, "m.room.redaction", { ...content, redacts: eventId }, undefined,
      { fields: { redacts: eventId }, txn });
    if (!target.redacted_by) {
      target.redacted_by = redaction.event_id;
      const keep = KEPT_CONTENT[target.event.type];
      const old = target.event.content;
      target.event.content = keep === null ? old : Object.fromEntries((keep ?? []).filter((k) => k in old).map((k) => [k, old[k]]));
      target.event.unsigned.redacted_because = redaction;
      const rel = old?.["m.relates_to"];
      const annotated = rel?.rel_type === "m.annotation" ? room.byId.get(rel.event_id) : null;
      const senders = annotated?.reactions.get(rel.key);
      if (senders?.get(target.event.sender) === eventId) {
        senders.delete(target.event.sender);
        if (senders.size === 0) annotated.reactions.delete(rel.key);
      }
    }
    return redaction;
  }

  // ---------------------------------------------------------------- sync

  // An event as `userId`'s client gets it: unsigned.transaction_id only for the access token that sent it.
  view(stored, token) {
    const event = structuredClone(stored.event);
    event.unsigned.age = Date.now() - event.origin_server_ts;
    if (stored.txn && stored.txn.token === token) event.unsigned.transaction_id = stored.txn.txnId;
    return event;
  }

  // The rooms part of a /sync answer for `userId` after stream position `since` (null: an initial sync).
  // Joined rooms: their new timeline events, at most `limit` (the newest; `limited` with a prev_batch when more
  // came), and on an initial sync or a new join the room's state. Invites: the stripped state of the invite.
  syncRooms(userId, token, since, limit) {
    const join = {};
    const invite = {};
    const leave = {};
    for (const room of this.rooms.values()) {
      const membership = this.membership(room, userId);
      const fresh = room.events.filter((s) => since === null || s.pos > since);
      if (membership === "invite") {
        const invitedAt = [...room.events].reverse().find((s) => s.event.type === "m.room.member" && s.event.state_key === userId);
        if (since !== null && invitedAt.pos <= since) continue;
        const stripped = room.events
          .filter((s) => s.event.state_key !== undefined && ["m.room.create", "m.room.name", "m.room.join_rules",
            "m.room.encryption", "m.room.member"].includes(s.event.type))
          .filter((s) => s.event.type !== "m.room.member" || s.event.state_key === userId ||
            s.event.state_key === invitedAt.event.sender)
          .map((s) => ({ type: s.event.type, state_key: s.event.state_key, sender: s.event.sender,
            content: s.event.content }));
        invite[room.roomId] = { invite_state: { events: stripped } };
        continue;
      }
      if (membership !== "join") {
        if (since !== null && fresh.some((s) => s.event.state_key === userId)) {
          leave[room.roomId] = { timeline: { events: [], limited: false }, state: { events: [] } };
        }
        continue;
      }
      const joinedNow = since !== null && fresh.some((s) => s.event.type === "m.room.member" && s.event.state_key === userId);
      const typing = [...room.typing.entries()].filter(([, until]) => until > Date.now()).map(([u]) => u);
      if (fresh.length === 0) continue;
      const timeline = fresh.slice(-limit);
      const limited = timeline.length < fresh.length;
      const entry = {
        timeline: { events: timeline.map((s) => this.view(s, token)), limited,
          prev_batch: `t${(timeline[0]?.pos ?? this.pos + 1) - 1}` },
        state: { events: [] },
        ephemeral: { events: [{ type: "m.typing", content: { user_ids: typing } }] },
        account_data: { events: [] },
        unread_notifications: { notification_count: 0, highlight_count: 0 },
        summary: {},
      };
      if (since === null || joinedNow || limited) {
        // The state before the timeline, as of its first event.
        const before = timeline[0]?.pos ?? Infinity;
        const state = new Map();
        for (const s of room.events) {
          if (s.pos >= before || s.event.state_key === undefined) continue;
          state.set(`${s.event.type}\0${s.event.state_key}`, s);
        }
        entry.state.events = [...state.values()].map((s) => this.view(s, token));
      }
      join[room.roomId] = entry;
    }
    return { join, invite, leave, knock: {} };
  }

  // GET /rooms/{roomId}/messages backwards from a prev_batch token "t<pos>": events at or before pos.
  messages(room, from, dir, limit) {
    const m = /^[ts](\d+)$/.exec(from ?? "");
    const at = m ? Number(m[1]) : this.pos;
    if (dir === "f") {
      const chunk = room.events.filter((s) => s.pos > at).slice(0, limit);
      return { chunk, end: chunk.length ? `t${chunk[chunk.length - 1].pos}` : undefined, start: `t${at}` };
    }
    const chunk = room.events.filter((s) => s.pos <= at).slice(-limit).reverse();
    const last = chunk[chunk.length - 1];
    return { chunk, start: `t${at}`, end: last && last.pos > 1 ? `t${last.pos - 1}` : undefined };
  }

  // Typing notices are ephemeral: the room's m.typing rides along with its next timeline events (a typing
  // change alone does not end a long poll here; Synapse would send it at once).
  setTyping(room, userId, typing, timeoutMs) {
    if (typing) room.typing.set(userId, Date.now() + Math.min(timeoutMs ?? 30_000, 120_000));
    else room.typing.delete(userId);
  }
}
