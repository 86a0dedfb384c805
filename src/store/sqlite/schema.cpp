// SqliteStore: the schema and its migrations.
#include <sqlite3.h>

#include <array>
#include <string>
#include <string_view>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

// Versions 1 to 10 indexed the history with a trigger for each append, delete and update; version 11 indexes
// it in batches (sqlite_store.h).
constexpr std::string_view kPerRowHistoryIndex = R"sql(
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
END;
)sql";

// Ordered: migration i takes a database from version i to i + 1. Never edit a released migration; append.
// The meta table holds the page-slug salt and counters; every user-data table has user_id and
// conversation_id, which every query binds.
// Built once, at the first open (migration 1 holds kPerRowHistoryIndex).
constexpr std::size_t kMigrationCount = 11;
const std::array<std::string, kMigrationCount>& migrations() {
  static const std::array<std::string, kMigrationCount> kMigrations = {
      // 1: the first schema.
      R"sql(
CREATE TABLE meta(
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
INSERT INTO meta(key, value) VALUES ('page_salt', lower(hex(randomblob(16)))), ('page_counter', '0'),
                                    ('task_counter', '0');

CREATE TABLE memory_items(
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    item_id         TEXT NOT NULL,
    value_json      TEXT NOT NULL CHECK (json_valid(value_json)),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    expires_at      INTEGER,
    PRIMARY KEY (user_id, conversation_id, item_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX memory_items_expiry ON memory_items(expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE facts(
    id              INTEGER PRIMARY KEY,
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    text            TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    UNIQUE (user_id, conversation_id, text)
) STRICT;

CREATE TABLE archive(
    id              INTEGER PRIMARY KEY,
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    title           TEXT NOT NULL,
    body            TEXT NOT NULL,
    source          TEXT NOT NULL,
    created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX archive_scope ON archive(user_id, conversation_id);
CREATE VIRTUAL TABLE archive_fts USING fts5(
    title, body, content = 'archive', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER archive_fts_insert AFTER INSERT ON archive BEGIN
    INSERT INTO archive_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER archive_fts_delete AFTER DELETE ON archive BEGIN
    INSERT INTO archive_fts(archive_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;
CREATE TRIGGER archive_fts_update AFTER UPDATE ON archive BEGIN
    INSERT INTO archive_fts(archive_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO archive_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;

CREATE TABLE messages(
    id              INTEGER PRIMARY KEY,
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    role            TEXT NOT NULL,
    text            TEXT NOT NULL,
    turn_id         TEXT NOT NULL,
    at              INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_scope ON messages(user_id, conversation_id, id);
CREATE VIRTUAL TABLE messages_fts USING fts5(
    text, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');)sql" +
          std::string(kPerRowHistoryIndex) + R"sql(
CREATE TABLE tasks(
    seq             INTEGER PRIMARY KEY,
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    id              TEXT NOT NULL,
    message         TEXT NOT NULL,
    due_at          INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    fired_at        INTEGER,
    UNIQUE (user_id, conversation_id, id)
) STRICT;
CREATE INDEX tasks_pending ON tasks(due_at) WHERE fired_at IS NULL;

CREATE TABLE once_log(
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    key             TEXT NOT NULL,
    session         TEXT NOT NULL,
    result_json     TEXT CHECK (result_json IS NULL OR json_valid(result_json)),
    begun_at        INTEGER NOT NULL,
    completed_at    INTEGER,
    PRIMARY KEY (user_id, conversation_id, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE pages(
    slug               TEXT PRIMARY KEY,
    user_id            TEXT NOT NULL,
    conversation_id    TEXT NOT NULL,
    title              TEXT NOT NULL,
    html               TEXT NOT NULL,
    csp_allows_scripts INTEGER NOT NULL,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
) STRICT;
CREATE INDEX pages_scope ON pages(user_id, conversation_id);
)sql",
      // 2: per-conversation settings (say mode).
      R"sql(
CREATE TABLE conversation_settings(
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    name            TEXT NOT NULL,
    value           TEXT NOT NULL,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (user_id, conversation_id, name)
) STRICT, WITHOUT ROWID;
)sql",
      // 3: the message count per conversation behind the history cap
      // (OpenOptions::max_messages_per_conversation),
      // kept by triggers: counting the rows on every append would walk the whole history. Existing messages
      // are
      // counted once, here.
      R"sql(
CREATE TABLE message_counts(
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    messages        INTEGER NOT NULL,
    PRIMARY KEY (user_id, conversation_id)
) STRICT, WITHOUT ROWID;
INSERT INTO message_counts(user_id, conversation_id, messages)
    SELECT user_id, conversation_id, count(*) FROM messages GROUP BY user_id, conversation_id;
CREATE TRIGGER messages_count_insert AFTER INSERT ON messages BEGIN
    INSERT INTO message_counts(user_id, conversation_id, messages) VALUES (new.user_id, new.conversation_id, 1)
    ON CONFLICT (user_id, conversation_id) DO UPDATE SET messages = messages + 1;
END;
CREATE TRIGGER messages_count_delete AFTER DELETE ON messages BEGIN
    UPDATE message_counts SET messages = messages - 1
    WHERE user_id = old.user_id AND conversation_id = old.conversation_id;
END;
)sql",
      // 4: what turns delivered besides text (Store::append_delivery), kept with the history: a turn's
      // deliveries go with its last message (the history cap prunes both).
      R"sql(
CREATE TABLE deliveries(
    id              INTEGER PRIMARY KEY,
    user_id         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    turn_id         TEXT NOT NULL,
    json            TEXT NOT NULL CHECK (json_valid(json) AND json_type(json) = 'object'),
    at              INTEGER NOT NULL
) STRICT;
CREATE INDEX deliveries_scope ON deliveries(user_id, conversation_id, id);
CREATE INDEX deliveries_turn ON deliveries(user_id, conversation_id, turn_id);
CREATE TRIGGER messages_deliveries_delete AFTER DELETE ON messages
WHEN NOT EXISTS (SELECT 1 FROM messages WHERE user_id = old.user_id AND conversation_id = old.conversation_id
                 AND turn_id = old.turn_id)
BEGIN
    DELETE FROM deliveries
    WHERE user_id = old.user_id AND conversation_id = old.conversation_id AND turn_id = old.turn_id;
END;
)sql",
      // 5: a message's origin as data (Message::task_id): the scheduled task that started it. Messages stored
      // before kept it as a text prefix "[scheduled task <id>] <message>"; they are moved over once, here
      // (the FTS update trigger re-indexes their text).
      R"sql(
ALTER TABLE messages ADD COLUMN task_id TEXT NOT NULL DEFAULT '';
UPDATE messages
SET task_id = substr(text, 17, instr(text, '] ') - 17), text = substr(text, instr(text, '] ') + 2)
WHERE role = 'user' AND text LIKE '[scheduled task %] %' AND instr(text, '] ') > 17;
)sql",
      // 6: the chat channels' inbound dedupe (Store::record_inbound): an update is recorded before the
      // channel confirms it to the platform; done_at is set when the turn it started has ended, so the turns
      // of updates without it are run again after a crash.
      R"sql(
CREATE TABLE channel_inbound(
    channel     TEXT NOT NULL,
    account     TEXT NOT NULL,
    update_key  TEXT NOT NULL,
    payload     TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    done_at     INTEGER,
    PRIMARY KEY (channel, account, update_key)
) STRICT, WITHOUT ROWID;
CREATE INDEX channel_inbound_pending ON channel_inbound(channel, account, received_at) WHERE done_at IS NULL;
)sql",
      // 7: memory in the model's context (Store::top_facts, recent_items): a fact's importance (it grows each
      // time the fact is remembered again or corrected) and when that last happened; indexes that read the
      // first facts and items of a scope without sorting them all.
      R"sql(
ALTER TABLE facts ADD COLUMN importance INTEGER NOT NULL DEFAULT 1;
ALTER TABLE facts ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
UPDATE facts SET updated_at = created_at;
CREATE INDEX facts_rank ON facts(user_id, conversation_id, importance DESC, updated_at DESC, id DESC);
CREATE INDEX memory_items_recent ON memory_items(user_id, conversation_id, updated_at DESC);
CREATE INDEX messages_user ON messages(user_id, id);
)sql",
      // 8: the archive's vectors (Store::set_archive_vector, nearest_archive): little-endian float32s, one
      // per
      // entry and embeddings model; they go with their entry (the foreign key cascades: PRAGMA foreign_keys
      // is
      // on).
      R"sql(
CREATE TABLE archive_vectors(
    archive_id INTEGER NOT NULL REFERENCES archive(id) ON DELETE CASCADE,
    model      TEXT NOT NULL,
    vector     BLOB NOT NULL,
    PRIMARY KEY (archive_id, model)
) STRICT, WITHOUT ROWID;
)sql",
      // 9: a message's id on its chat platform (Message::platform_id: Telegram's message_id, Discord's
      // message
      // id), so the model can name an earlier message; looked up per conversation (has_platform_message).
      R"sql(
ALTER TABLE messages ADD COLUMN platform_id TEXT NOT NULL DEFAULT '';
CREATE INDEX messages_platform ON messages(user_id, conversation_id, platform_id) WHERE platform_id <> '';
)sql",
      // 10: what a reply's actions returned (the agent's results message) has its own role, kResultsRole.
      // Before, it was stored as a user message; it is told apart as it was then (client_history): a user
      // message of a turn that already had a message. Moved over once, so searches and histories need one
      // rule.
      // (One grouping and one ephemeral index: n log n in the messages, not a scan of the turn per message.)
      R"sql(
UPDATE messages SET role = 'results'
WHERE role = 'user' AND turn_id <> '' AND id NOT IN (
    SELECT min(id) FROM messages WHERE turn_id <> '' GROUP BY user_id, conversation_id, turn_id);
)sql",
      // 11: the history's full-text index is written in batches, off the append's path (messages.cpp,
      // index_pending_messages): FTS5 writes a segment at every savepoint and commit, so indexing each append
      // in its own trigger wrote one segment per message, which automerge then merged again. The insert
      // trigger goes; messages_fts_indexed.up_to is the highest messages.id the index holds, and every row at
      // or below it is indexed (rows above it are pending). The delete and update triggers touch the index
      // only for indexed rows: an external-content FTS5 'delete' of a row it never held corrupts it. A delete
      // that leaves no row at or above the watermark lowers it to the highest id left, since SQLite hands a
      // deleted top id out again (messages.id has no AUTOINCREMENT) and the new row must count as pending.
      // The earlier triggers indexed every row, so the watermark starts at the highest id.
      R"sql(
DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
CREATE TABLE messages_fts_indexed(
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    up_to INTEGER NOT NULL
) STRICT;
INSERT INTO messages_fts_indexed(id, up_to) SELECT 1, coalesce(max(id), 0) FROM messages;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text)
        SELECT 'delete', old.id, old.text WHERE old.id <= (SELECT up_to FROM messages_fts_indexed);
    UPDATE messages_fts_indexed SET up_to = coalesce((SELECT max(id) FROM messages), 0)
        WHERE up_to > coalesce((SELECT max(id) FROM messages), 0);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF id, text ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text)
        SELECT 'delete', old.id, old.text WHERE old.id <= (SELECT up_to FROM messages_fts_indexed);
    INSERT INTO messages_fts(rowid, text)
        SELECT new.id, new.text WHERE new.id <= (SELECT up_to FROM messages_fts_indexed);
END;
)sql",
  };
  return kMigrations;
}

}  // namespace

int SqliteStore::latest_schema_version() noexcept { return static_cast<int>(kMigrationCount); }

std::string_view SqliteStore::per_row_history_index() noexcept { return kPerRowHistoryIndex; }

Status SqliteStore::migrate(const std::string& path) {
  const int latest = latest_schema_version();
  for (;;) {
    // Reading the version under the write lock: two processes opening a new file migrate it once.
    Transaction tx(db_);
    STORE_TRY(tx.begin());
    STORE_TRY(
        exec("CREATE TABLE IF NOT EXISTS schema_version("
             "id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)"));
    STORE_TRY(exec("INSERT OR IGNORE INTO schema_version(id, version) VALUES (1, 0)"));
    std::int64_t version = 0;
    {
      STORE_STMT(q, "SELECT version FROM schema_version WHERE id = 1");
      STORE_STEP(row, q);
      if (row) version = q.integer(0);
    }
    if (version > latest || version < 0)
      return Error{"sqlite store: " + path + " has schema version " + std::to_string(version) +
                   ", newer than this build's " + std::to_string(latest) +
                   ": refusing to open it (upgrade sigil)"};
    if (version == latest) return tx.commit();
    char* message = nullptr;
    if (sqlite3_exec(db_, migrations()[static_cast<std::size_t>(version)].c_str(), nullptr, nullptr,
                     &message) != SQLITE_OK) {
      Error error{"sqlite store: migration to version " + std::to_string(version + 1) +
                  " failed: " + (message ? message : sqlite3_errmsg(db_))};
      sqlite3_free(message);
      return error;
    }
    {
      STORE_STMT(q, "UPDATE schema_version SET version = ?1 WHERE id = 1");
      STORE_TRY(q.bind_int(1, version + 1).run());
    }
    STORE_TRY(tx.commit());
  }
}

}  // namespace sigil::store::sqlite
