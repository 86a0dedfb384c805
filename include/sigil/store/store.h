// The Store: everything sigil keeps between turns, behind one interface (SQLite by default, see
// src/store/sqlite/; a networked implementation may come later).
//
// Rules every implementation keeps:
// - Scoped. Every call that touches a user's data takes a Scope, and every row it reads or writes is
//   filtered by the scope's partition: one user's memory, facts, archive, history, tasks, exactly-once log
//   and pages are never visible to another. The only unscoped calls are get_page() (pages are served to
//   anyone holding the unguessable slug) and due_tasks() (the scheduler's sweep over all users).
// - No clock. The store never reads the wall clock: callers pass `now`, so tests control time. Times are
//   kept with millisecond precision (system_clock, truncated toward the past).
// - Expiry on every read. A memory item with expires_at <= now is invisible to get/list/archive/delete
//   whether or not cleanup ran; cleanup only reclaims the space.
// - No exceptions for expected failures: every call returns a Result (see result.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/store/result.h"

namespace sigil::store {

using Clock = std::chrono::system_clock;
using TimePoint = Clock::time_point;

// Memory, facts and the archive belong to the user (shared by all of the user's conversations) unless the
// operator keeps them per conversation. History, tasks, the exactly-once log and pages always belong to the
// pair (user, conversation).
enum class MemoryScope : std::uint8_t { per_user, per_conversation };

struct Scope {
  std::string user_id;          // required, non-empty
  std::string conversation_id;  // may be empty only for per-user memory calls
  MemoryScope memory = MemoryScope::per_user;
};

// ------------------------------------------------------------------------------------------ records

struct MemoryItem {
  std::string item_id;
  std::string value_json;  // any JSON value, as stored (validated on write)
  TimePoint created_at;
  TimePoint updated_at;
  std::optional<TimePoint> expires_at;
};

// A remembered fact. Importance starts at 1 and grows by one (to kMaxFactImportance) each time the same fact
// is remembered again or corrected: what a user had to say twice matters more. updated_at is when that last
// happened (created_at at first).
inline constexpr int kMaxFactImportance = 5;
struct Fact {
  std::int64_t id = 0;
  std::string text;
  TimePoint created_at;
  int importance = 1;
  TimePoint updated_at;
};

// The facts that go first into a model's context, and how many the scope has in all.
struct RankedFacts {
  std::vector<Fact> facts;  // most important first, then most recently updated
  std::size_t total = 0;
};

// The result of correct(): how many facts were replaced (0 or 1).
struct Correction {
  std::size_t replaced = 0;
  std::string old_text;  // the stored fact that was replaced, when replaced == 1
};

struct ArchivedText {
  std::int64_t id = 0;  // the archive entry's id
  std::string text;     // what was archived (the item's value as text)
};

struct ArchiveOutcome {
  std::size_t archived = 0;
  std::vector<std::string> missing;   // ids with no live memory item (never stored, deleted or expired)
  std::vector<ArchivedText> entries;  // the new archive entries, in the order of the ids
};

struct ArchiveHit {
  std::int64_t id = 0;
  std::string title;  // the memory item id for archived items; the caller's title otherwise
  std::string text;
  std::string source;  // "memory" for archived items; the caller's source otherwise
  TimePoint created_at;
  double score = 0;  // in (0, 1], higher is better: see score_from_bm25()
};

// The role of the message that carries a reply's action results back to the model (Message::role).
inline constexpr std::string_view kResultsRole = "results";

struct Message {
  std::int64_t id = 0;
  // "user", "assistant", or kResultsRole (what a reply's actions returned, which the agent sends the model
  // as the user's next message, though no person said it). Stored as given; the searches below return only
  // "user" and "assistant" messages.
  std::string role;
  std::string text;
  std::string turn_id;
  TimePoint at;
  // The scheduled task whose turn this message started (Agent::fire_task); empty for every other message.
  // The origin is data, not a prefix of the text: the agent says it to the model, the pages show it.
  std::string task_id;
  // The chat platform's id of this message in its chat (Telegram's message_id, Discord's message id), so
  // the model can name it (`<react message="…"/>`); empty when the message has none (the web chat, a
  // scheduled task, a results message). Data again: the agent shows it to the model, nothing parses it back.
  std::string platform_id;
};

// What a turn delivered besides its text (a file or voice note with its media link, a reaction, a text
// relayed elsewhere), kept with the history so a chat shows it again after a reload. `json` is the
// delivery as the gateway's clients see it; the store keeps it as given (valid JSON) and does not read it.
struct StoredDelivery {
  std::int64_t id = 0;
  std::string turn_id;
  std::string json;
  TimePoint at;
};

// One conversation of a user, as a list of conversations shows it (list_conversations).
struct ConversationSummary {
  std::string conversation_id;
  std::string title;    // the conversation's "title" setting; empty when none was set
  std::string preview;  // its first user message, first sentence (tier_text level 1); may be empty
  std::size_t messages = 0;
  TimePoint updated_at;  // when its last message was stored
};

struct MessageHit {
  Message message;
  double score = 0;             // as ArchiveHit::score
  std::string conversation_id;  // the conversation the message belongs to
};

struct ScheduledTask {
  Scope scope;  // whose task it is (due_tasks() spans all scopes)
  std::string id;
  std::string message;
  TimePoint due_at;
  TimePoint created_at;
  std::optional<TimePoint> fired_at;
};

// The exactly-once protocol, per directive (spec 12.4):
//   key = once_key(conversation, turn, ordinal, action, canonical args)
//   once_begin(scope, key, now)          <- recorded durably BEFORE the handler runs
//     fresh     -> run the handler, then once_complete(scope, key, result_json, now) AFTER it returns,
//                  failures included (a failure is a result: record it, e.g. {"ok":false,"error":...});
//     completed -> do not run; report result_json as this directive's result;
//     running   -> a duplicate dispatch inside this process: do not run; report it;
//     in_doubt  -> the process died between begin and complete: it may or may not have taken effect, so
//                  it is never run again; the turn report lists it as in doubt. (An operator who decides
//                  to run it once more deletes its row from the once_log table.)
// A scheduled task fired by the scheduler should get a turn id derived from the task id, so the directives
// of that turn keep their keys if the turn is replayed.
//
// The state of an exactly-once key when begin was asked for it.
enum class OnceState : std::uint8_t {
  fresh,      // first time: recorded as begun; run the action, then once_complete()
  running,    // begun by this Store instance and not completed: a duplicate dispatch; do not run it
  in_doubt,   // begun by an earlier process (or another one sharing the DB) and never completed: it may
              // or may not have taken effect; do not re-run actions with external effects, report it
  completed,  // done; result_json holds the recorded result: do not run, reuse the result
};

struct Begun {
  OnceState state = OnceState::fresh;
  std::string result_json;  // for completed
  TimePoint begun_at;       // when it was first begun (now, for fresh)
};

// One key's result, for once_complete_many().
struct OnceCompletion {
  std::string_view key;
  std::string_view result_json;
};

// An inbound chat message as a channel received it (Telegram's update, later Discord's message id):
// recorded before the channel confirms it to the platform, so a redelivery is recognised and a crash
// loses nothing. `payload_json` is what the channel needs to start its turn again (the store does not read
// it); `done` says the turn it started has ended.
struct InboundRecord {
  std::string channel;  // "telegram"
  std::string account;  // the bot's id: one store may serve several bots
  std::string key;      // the platform's unique id of the update ("10001")
  std::string payload_json;
  TimePoint received_at;
  bool done = false;
};

struct Page {
  std::string slug;
  std::string title;
  std::string html;
  bool csp_allows_scripts = false;
  TimePoint created_at;
  TimePoint updated_at;
};

// ------------------------------------------------------------------------------------------ interface

// Thread-safety: every implementation is safe to call from several threads at once.
class Store {
 public:
  virtual ~Store() = default;

  // ---- memory items (setMemory, deleteItem, cleanupMemory). Partition: Scope::memory.
  // Inserts or replaces; value_json must be valid JSON. expires_at empty = never expires.
  virtual Status set_item(const Scope& scope, std::string_view item_id, std::string_view value_json,
                          std::optional<TimePoint> expires_at, TimePoint now) = 0;
  virtual Result<std::optional<MemoryItem>> get_item(const Scope& scope, std::string_view item_id,
                                                     TimePoint now) = 0;
  // True when a live item was deleted (an expired one is removed too, but reported as absent).
  virtual Result<bool> delete_item(const Scope& scope, std::string_view item_id, TimePoint now) = 0;
  // Live items ordered by item_id.
  virtual Result<std::vector<MemoryItem>> list_items(const Scope& scope, TimePoint now) = 0;
  // At most `limit` live items, most recently updated first (the model's context).
  virtual Result<std::vector<MemoryItem>> recent_items(const Scope& scope, TimePoint now,
                                                       std::size_t limit) = 0;
  // Deletes the scope's expired items; returns how many.
  virtual Result<std::size_t> cleanup_expired(const Scope& scope, TimePoint now) = 0;

  // ---- facts (remember, forget, correct). Partition: Scope::memory. Texts are trimmed of ASCII
  // whitespace; an empty text is an error.
  // True when added; false when the same text was already stored (its importance then grows, Fact).
  virtual Result<bool> remember(const Scope& scope, std::string_view fact, TimePoint now) = 0;
  // Removes the fact equal to `fact`; if there is none, every fact containing it, ignoring ASCII case.
  // Returns how many were removed.
  virtual Result<std::size_t> forget(const Scope& scope, std::string_view fact) = 0;
  // Replaces the fact matching `old_fact` (same matching as forget) with `new_fact`. Several
  // substring matches and no exact one is an error (ambiguous). No match: nothing changes, replaced == 0
  // (whether to remember new_fact then is the caller's choice).
  virtual Result<Correction> correct(const Scope& scope, std::string_view old_fact, std::string_view new_fact,
                                     TimePoint now) = 0;
  // Oldest first.
  virtual Result<std::vector<Fact>> list_facts(const Scope& scope) = 0;
  // At most `limit` facts, most important first, then most recently updated; with the scope's count.
  virtual Result<RankedFacts> top_facts(const Scope& scope, std::size_t limit) = 0;

  // ---- archive (archiveItems, searchArchive, SEARCH_EPISODIC). Partition: Scope::memory.
  // Moves live memory items into the archive (title = item id, text = the value: a JSON string's
  // contents, else the JSON text), in one transaction.
  virtual Result<ArchiveOutcome> archive_items(const Scope& scope, std::span<const std::string> item_ids,
                                               TimePoint now) = 0;
  // Adds a text to the archive; returns its id. (No production caller today: archive_items is the only
  // writer; tests use this to seed the archive with other sources.)
  virtual Result<std::int64_t> add_archive_text(const Scope& scope, std::string_view title,
                                                std::string_view text, std::string_view source,
                                                TimePoint now) = 0;
  // Full-text search: the query's words (any of them; see fts_match_query()) ranked by BM25, best first, at
  // most top_k hits with score >= min_score. top_k <= 0 returns nothing; min_score must be in [0, 1].
  virtual Result<std::vector<ArchiveHit>> search_archive(const Scope& scope, std::string_view query,
                                                         int top_k, double min_score) = 0;
  // The semantic half of the archive (an embeddings model's vectors, one per entry and model). Keeps the
  // vector of an entry of the scope (replacing one of the same model); an empty vector or a non-finite
  // value is an error.
  virtual Status set_archive_vector(const Scope& scope, std::int64_t archive_id, std::string_view model,
                                    std::span<const float> vector) = 0;
  // The scope's entries whose `model` vectors are nearest to `query` by cosine similarity, best first, at
  // most top_k; score = the cosine clamped into [0, 1]. Entries without a vector of that model (or of
  // another length) are not candidates. Brute force over the scope's vectors: fine for thousands.
  virtual Result<std::vector<ArchiveHit>> nearest_archive(const Scope& scope, std::string_view model,
                                                          std::span<const float> query, int top_k) = 0;

  // ---- conversation history (request-tier; the agent's context). Partition: (user, conversation).
  // Appends `message` (its id is ignored; the new id is returned). Beyond the history cap the oldest
  // messages go in the same transaction.
  virtual Result<std::int64_t> append_message(const Scope& scope, const Message& message) = 0;
  // A message no scheduled task started.
  Result<std::int64_t> append_message(const Scope& scope, std::string_view role, std::string_view text,
                                      std::string_view turn_id, TimePoint at) {
    return append_message(scope,
                          Message{0, std::string(role), std::string(text), std::string(turn_id), at, {}, {}});
  }
  // The last n messages, oldest first.
  virtual Result<std::vector<Message>> recent_messages(const Scope& scope, std::size_t n) = 0;
  // Whether the conversation's history (what the history cap kept) holds a message with this platform id
  // (Message::platform_id). An empty id is never held.
  virtual Result<bool> has_platform_message(const Scope& scope, std::string_view platform_id) = 0;
  // Keeps a delivery of a turn with the history. It goes when its turn's last message leaves the history
  // (the history cap prunes both). `json` must be a JSON object.
  virtual Result<std::int64_t> append_delivery(const Scope& scope, std::string_view turn_id,
                                               std::string_view json, TimePoint at) = 0;
  // The last n deliveries, oldest first.
  virtual Result<std::vector<StoredDelivery>> recent_deliveries(const Scope& scope, std::size_t n) = 0;
  // Full-text search over the history, best first (same query rules as search_archive): what the user and
  // the model said, never a results message (kResultsRole).
  virtual Result<std::vector<MessageHit>> search_messages(const Scope& scope, std::string_view query,
                                                          int top_k) = 0;
  // The same over every conversation of the scope's user (SEARCH_EPISODIC: past conversations).
  virtual Result<std::vector<MessageHit>> search_user_messages(const Scope& scope, std::string_view query,
                                                               int top_k) = 0;

  // ---- scheduled tasks (scheduleTask, getScheduledTasks, deleteScheduledTask, the scheduler).
  // Partition: (user, conversation).
  // Adds a pending task and returns its id: `id` when given (an id already used in this scope is an
  // error), else a generated "task-<n>".
  virtual Result<std::string> add_task(const Scope& scope, std::string_view id, std::string_view message,
                                       TimePoint due_at, TimePoint now) = 0;
  // Pending (not fired) tasks, soonest first.
  virtual Result<std::vector<ScheduledTask>> list_tasks(const Scope& scope) = 0;
  // Deletes a pending task by id; returns how many (0 or 1).
  virtual Result<std::size_t> delete_task(const Scope& scope, std::string_view id) = 0;
  // Deletes the scope's pending tasks due exactly at due_at (millisecond precision); returns how many.
  virtual Result<std::size_t> delete_tasks_due_at(const Scope& scope, TimePoint due_at) = 0;
  // Pending tasks of every scope with due_at <= now, soonest first, at most `limit`. A task stays here
  // until mark_fired(): after a restart, tasks missed during downtime come back once. (The returned
  // scope's `memory` is per_user: the agent applies its own policy.)
  // Scheduler recipe: on start and at each wake-up, for every due task start a turn whose turn id is
  // derived from the task id ("task:" + id), then mark_fired(). A crash between the two fires it again
  // on restart, as the same turn: its directives' exactly-once keys make that harmless.
  virtual Result<std::vector<ScheduledTask>> due_tasks(TimePoint now, std::size_t limit) = 0;
  // Records that a task fired; it is never returned by due_tasks() or list_tasks() again. True when it
  // was pending.
  virtual Result<bool> mark_fired(const Scope& scope, std::string_view id, TimePoint at) = 0;

  // ---- exactly-once log. Partition: (user, conversation). Keys come from once_key().
  // Records the key as begun BEFORE the action runs (durably, see the implementation), or reports
  // that it was already begun or completed.
  virtual Result<Begun> once_begin(const Scope& scope, std::string_view key, TimePoint now) = 0;
  // Records the result AFTER the action ran. Completing a key twice keeps the first result. Completing a
  // key never begun records it as completed.
  virtual Status once_complete(const Scope& scope, std::string_view key, std::string_view result_json,
                               TimePoint now) = 0;
  // once_begin() for each key, in order, one answer per key; an implementation may write them together
  // (one transaction, one flush: group commit). Each answer is as durable when this returns as
  // once_begin()'s, so an action may start as soon as its own key is fresh here (12.4).
  virtual std::vector<Result<Begun>> once_begin_many(const Scope& scope, std::span<const std::string> keys,
                                                     TimePoint now);
  // once_complete() for each, in order, one status each; may be written together as once_begin_many().
  virtual std::vector<Status> once_complete_many(const Scope& scope, std::span<const OnceCompletion> done,
                                                 TimePoint now);
  // True when an exactly-once write waits for the disk (an fsync): the executor keeps such writes off the
  // thread that streams a reply's text. False for a store in memory, whose writes are cheap.
  virtual bool once_writes_wait_for_disk() const { return true; }

  // ---- published pages (publishWebPage). Partition: (user, conversation), except get_page.
  // Publishes a page. The slug is stable and unguessable: a digest of a random per-database salt, the
  // scope and either the title or a per-database counter, as 20 hex digits, after the title's ASCII
  // letters and digits (lowercased, other runs as one '-', at most 40) when there are any:
  // "holiday-plan-3f9c…", or "page-3f9c…" without a title. With a title, the same scope and title always
  // give the same slug, so republishing replaces the page (created_at kept); without one, every call
  // makes a new page. The title is the caller's choice (e.g. the HTML's <title>).
  virtual Result<Page> put_page(const Scope& scope, std::string_view title, std::string_view html,
                                bool csp_allows_scripts, TimePoint now) = 0;
  virtual Result<std::optional<Page>> get_page(std::string_view slug) = 0;
  // The scope's pages, oldest first. (No production caller today; tests check what was published.)
  virtual Result<std::vector<Page>> list_pages(const Scope& scope) = 0;

  // ---- conversation settings (say mode, spec 6.1). Partition: (user, conversation).
  // A small name -> text map per conversation; set_setting inserts or replaces. get_setting of a name
  // never set is an empty optional (the caller's default applies).
  virtual Status set_setting(const Scope& scope, std::string_view name, std::string_view value,
                             TimePoint now) = 0;
  virtual Result<std::optional<std::string>> get_setting(const Scope& scope, std::string_view name) = 0;
  // The settings other layers share (one home for each name): the conversation's memory detail level, "1" to
  // "3", written by [REQUEST_TIER] and read when the agent builds the memory section of a model call.
  static constexpr std::string_view kMemoryTierSetting = "memory_tier";

  // ---- channels' inbound dedupe. Partition: (channel, account).
  // Records an inbound update once: true when it is new (recorded now), false when it was recorded
  // before (a redelivery: start nothing). Durable when it returns (the channel confirms it after).
  virtual Result<bool> record_inbound(const InboundRecord& record) = 0;
  // The turn the update started has ended. Recording an unknown key does nothing. Finished records received
  // more than 7 days before `now` are deleted then (Telegram redelivers an update for at most 24 hours).
  virtual Status finish_inbound(std::string_view channel, std::string_view account, std::string_view key,
                                TimePoint now) = 0;
  // Recorded updates whose turn never ended (the process stopped or died during it), oldest first, at most
  // `limit`: the channel runs their turns again (with the same turn ids) at start.
  virtual Result<std::vector<InboundRecord>> pending_inbound(std::string_view channel,
                                                             std::string_view account, std::size_t limit) = 0;

  // ---- conversations as a whole. Partition: the user; (user, conversation) for delete.
  // The user's conversations that have messages, the most recently updated first, at most `limit`.
  virtual Result<std::vector<ConversationSummary>> list_conversations(std::string_view user_id,
                                                                      std::size_t limit) = 0;
  // Deletes everything kept for the conversation, in one transaction: its messages and deliveries, its
  // settings, its scheduled tasks (so no reminder brings it back), and memory kept per conversation
  // (items, facts, archive). Kept: its published pages (their links may have been shared; they are
  // public until deleted on their own) and its exactly-once log (a retried request must still not repeat
  // an action). True when anything was deleted.
  virtual Result<bool> delete_conversation(const Scope& scope) = 0;

  // ---- reads together (use ReadsTogether below). The reads this thread makes between begin_reads() and
  // the matching end_reads() may share one snapshot (one read transaction): each then sees the store as
  // it was at the first of them, without later writes, this thread's own included, so a caller writes
  // nothing in between. Other threads' reads of the same store may wait until end_reads(). What it saves
  // (SQLite, file): a read transaction's shared-memory locks (three fcntl calls) and the pages another
  // connection's commit made stale, read again once instead of once per read. Nests; no-ops by default.
  virtual void begin_reads() {}
  virtual void end_reads() noexcept {}
};

// The reads made on this thread while it lives share one snapshot of `store` (Store::begin_reads()).
class ReadsTogether {
 public:
  explicit ReadsTogether(Store& store) : store_(store) { store_.begin_reads(); }
  ~ReadsTogether() { store_.end_reads(); }
  ReadsTogether(const ReadsTogether&) = delete;
  ReadsTogether& operator=(const ReadsTogether&) = delete;

 private:
  Store& store_;
};

// ------------------------------------------------------------------------------------------ helpers

// The exactly-once key of a directive: lowercase hex SHA-256 of the fields, each length-prefixed so no two
// different tuples share an encoding. normalized_args_json must be canonical (the caller's job: keys
// sorted, no insignificant whitespace, numbers as validated), or equal directives get different keys.
std::string once_key(std::string_view conversation_id, std::string_view turn_id, std::uint32_t ordinal,
                     std::string_view action, std::string_view normalized_args_json);

// BM25 (FTS5's bm25(): negative, lower is better) to a score in (0, 1], higher is better:
//   s = max(0, -bm25);  score = s / (1 + s)
// so bm25 = -1 gives 0.5, -3 gives 0.75, -9 gives 0.9. A match always has s > 0 (FTS5 floors the IDF
// at 1e-6), so its score is > 0; scores are comparable across queries, unlike a per-query
// normalisation. Words found in most archived texts weigh almost nothing: in a tiny archive, scores are
// low, so a high min_score may find nothing there.
double score_from_bm25(double bm25);

// The FTS5 MATCH expression for a user's query: the query is split at whitespace, each word becomes a
// quoted phrase (quotes inside doubled), and phrases are joined with OR, so nothing the user (or model)
// writes is FTS syntax: `NEAR(`, `*`, `-x`, `col:`, `AND` are all plain words. At most 64 words are kept.
// Empty when the query has no words (search then returns nothing).
std::string fts_match_query(std::string_view query);

// request-tier texts, made without a model: level 1 the first sentence (one line, at most 200 bytes),
// level 2 the first paragraph (at most 2000 bytes), level 3 (or more) the full text. Cuts never split a
// UTF-8 sequence; a cut text ends with "…". Levels below 1 count as 1.
std::string tier_text(std::string_view text, int level);

}  // namespace sigil::store
