// SqliteStore on disk: WAL, reopening, migrations, and crashes of the process that wrote.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

using namespace std::chrono_literals;

// Most tests open a store file of their own in a fresh folder.
class SqliteDisk : public ::testing::Test {
 protected:
  TempDir dir;
  const std::string path = dir.file("sigil.db");
};

TEST_F(SqliteDisk, WalModeAndSchemaVersion) {
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->set_item(kAlice, "k", "1", std::nullopt, kT0).ok());
    EXPECT_TRUE(std::filesystem::exists(path + "-wal"));  // WAL while open
  }
  EXPECT_EQ(raw_query(path, "PRAGMA journal_mode"), "wal");  // persistent
  EXPECT_EQ(raw_query(path, "SELECT version FROM schema_version"),
            std::to_string(sqlite::SqliteStore::latest_schema_version()));
}

TEST_F(SqliteDisk, DataPersistsAcrossReopen) {
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->set_item(kAlice, "city", R"("Porto")", std::nullopt, kT0).ok());
    ASSERT_TRUE(store->set_item(kAlice, "brief", "1", kT0 + 1min, kT0).ok());
    ASSERT_TRUE(store->remember(kAlice, "likes tea", kT0).ok());
    ASSERT_TRUE(store->add_archive_text(kAlice, "note", "ferry to the islands", "s", kT0).ok());
    ASSERT_TRUE(store->append_message(kAlice, "user", "book the ferry", "t1", kT0).ok());
    ASSERT_TRUE(store->put_page(kAlice, "Plan", "<p>plan</p>", false, kT0).ok());
  }
  {
    auto store = open_or_fail(path);  // migrations already applied: nothing to do
    ASSERT_NE(store, nullptr);
    auto city = store->get_item(kAlice, "city", kT0 + 1h);
    ASSERT_TRUE(city.ok() && city->has_value());
    EXPECT_EQ((*city)->value_json, R"("Porto")");
    EXPECT_FALSE(store->get_item(kAlice, "brief", kT0 + 1h)->has_value());
    EXPECT_EQ(store->list_facts(kAlice)->size(), 1u);
    EXPECT_EQ(store->search_archive(kAlice, "ferry", 5, 0)->size(), 1u);
    EXPECT_EQ(store->search_messages(kAlice, "ferry", 5)->size(), 1u);
    auto pages = store->list_pages(kAlice);
    ASSERT_EQ(pages->size(), 1u);
    // The salt persisted: the same title still names the same page.
    auto again = store->put_page(kAlice, "Plan", "<p>plan 2</p>", false, kT0 + 1h);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->slug, (*pages)[0].slug);
  }
}

TEST_F(SqliteDisk, FutureSchemaVersionIsRefusedUntouched) {
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
  }
  EXPECT_EQ(raw_query(path, "UPDATE schema_version SET version = 999 RETURNING version"), "999");
  auto refused = sqlite::SqliteStore::open(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("999"), std::string::npos) << refused.error();
  EXPECT_NE(refused.error().find("newer"), std::string::npos) << refused.error();
  EXPECT_EQ(raw_query(path, "SELECT version FROM schema_version"), "999");
}

TEST_F(SqliteDisk, OlderDatabaseIsMigratedOnce) {
  // A database at version 0: the version table exists, nothing else does.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE schema_version(id INTEGER PRIMARY KEY CHECK (id = 1), "
                           "version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1, 0);",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  for (int i = 0; i < 2; ++i) {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->remember(kAlice, "fact " + std::to_string(i), kT0).ok());
  }
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->list_facts(kAlice)->size(), 2u);
}

TEST_F(SqliteDisk, NotADatabaseFailsClearly) {
  const std::string garbage = dir.file("garbage.db");
  {
    std::FILE* f = std::fopen(garbage.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("this is not an SQLite database, just text long enough to have a header page......", f);
    std::fclose(f);
  }
  auto opened = sqlite::SqliteStore::open(garbage);
  ASSERT_FALSE(opened.ok());
  EXPECT_FALSE(opened.error().empty());
  auto missing_dir = sqlite::SqliteStore::open(dir.file("no/such/dir/x.db"));
  EXPECT_FALSE(missing_dir.ok());
}

// A database damaged in the middle opens without complaint in SQLite; the store checks every page at start
// (PRAGMA quick_check) and refuses it with a message that names the file and says what to do.
TEST_F(SqliteDisk, ADamagedDatabaseIsRefusedAtStart) {
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    for (int i = 0; i < 400; ++i)
      ASSERT_TRUE(store
                      ->append_message(kAlice, "user", std::string(2000, static_cast<char>('a' + i % 26)),
                                       "t" + std::to_string(i), kT0)
                      .ok());
  }
  // The WAL is checkpointed into the file when the last connection closes.
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 64u * 1024u);
  {
    std::FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fseek(f, static_cast<long>(size / 2 / 4096 * 4096), SEEK_SET), 0);
    const std::string garbage(4096, '\x5a');
    ASSERT_EQ(std::fwrite(garbage.data(), 1, garbage.size(), f), garbage.size());
    std::fclose(f);
  }
  auto damaged = sqlite::SqliteStore::open(path);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.error().find(path + " is damaged"), std::string::npos) << damaged.error();
  EXPECT_NE(damaged.error().find("restore it from a backup"), std::string::npos) << damaged.error();
}

TEST_F(SqliteDisk, ADatabaseTruncatedToZeroIsRefusedAndANewPathWorks) {
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->remember(kAlice, "likes tea", kT0).ok());
  }
  std::filesystem::resize_file(path, 0);
  auto truncated = sqlite::SqliteStore::open(path);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().find("is empty (0 bytes)"), std::string::npos) << truncated.error();
  EXPECT_EQ(std::filesystem::file_size(path), 0u) << "the refused file was written to";
  // Where there is no file, a new database is made, as always.
  auto fresh = sqlite::SqliteStore::open(dir.file("new.db"));
  ASSERT_TRUE(fresh.ok()) << fresh.error();
}

TEST_F(SqliteDisk, ExactlyOnceAcrossReopen) {
  const std::string done = once_key("chat-1", "turn-1", 0, "send-message", R"({"text":"hi"})");
  const std::string cut = once_key("chat-1", "turn-1", 1, "send-message", R"({"text":"bye"})");
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    ASSERT_EQ(store->once_begin(kAlice, done, kT0)->state, OnceState::fresh);
    ASSERT_TRUE(store->once_complete(kAlice, done, R"({"sent":true})", kT0 + 1s).ok());
    ASSERT_EQ(store->once_begin(kAlice, cut, kT0 + 2s)->state, OnceState::fresh);
    // closed here with `cut` never completed: the process "crashed" mid-action
  }
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  auto replay_done = store->once_begin(kAlice, done, kT0 + 1h);
  ASSERT_TRUE(replay_done.ok());
  EXPECT_EQ(replay_done->state, OnceState::completed);
  EXPECT_EQ(replay_done->result_json, R"({"sent":true})");

  auto replay_cut = store->once_begin(kAlice, cut, kT0 + 1h);
  ASSERT_TRUE(replay_cut.ok());
  EXPECT_EQ(replay_cut->state, OnceState::in_doubt);
  EXPECT_EQ(replay_cut->begun_at, kT0 + 2s);
  EXPECT_EQ(store->once_begin(kAlice, cut, kT0 + 2h)->state, OnceState::in_doubt);  // and stays so
}

TEST_F(SqliteDisk, ScheduledTasksSurviveRestartAndMissedOnesFireOnce) {
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->add_task(kAlice, "", "stretch", kT0 + 1h, kT0).ok());
    ASSERT_TRUE(store->add_task(kAlice, "", "sleep", kT0 + 10h, kT0).ok());
  }
  // Down from kT0 to kT0 + 5h: on start, the missed task is due once.
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    auto due = store->due_tasks(kT0 + 5h, 10);
    ASSERT_TRUE(due.ok());
    ASSERT_EQ(due->size(), 1u);
    EXPECT_EQ((*due)[0].message, "stretch");
    EXPECT_TRUE(*store->mark_fired((*due)[0].scope, (*due)[0].id, kT0 + 5h));
  }
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    EXPECT_TRUE(store->due_tasks(kT0 + 5h, 10)->empty());
    auto later = store->due_tasks(kT0 + 11h, 10);
    ASSERT_EQ(later->size(), 1u);
    EXPECT_EQ((*later)[0].message, "sleep");
    EXPECT_EQ(store->list_tasks(kAlice)->size(), 1u);
    auto next = store->add_task(kAlice, "", "more", kT0 + 20h, kT0);
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(*next, "task-3");  // the id counter persisted too
  }
}

// ------------------------------------------------------------------------------------------ crashes

enum class ChildEnd { exit_without_close, wait_for_sigkill };

// A child process records begin (and, if `complete`, completion) for `key`, then ends without closing the
// store: _exit(0), or it tells the parent through `ready` and waits to be killed. Returns its wait status.
int run_child(const std::string& path, const std::string& key, bool complete, ChildEnd end,
              const sqlite::OpenOptions& options = {}) {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    close(ready[0]);
    auto opened = sqlite::SqliteStore::open(path, options);
    if (!opened.ok()) _exit(10);
    Store* store = opened.value().release();  // never closed
    auto begun = store->once_begin(kAlice, key, kT0);
    if (!begun.ok() || begun->state != OnceState::fresh) _exit(11);
    if (complete && !store->once_complete(kAlice, key, R"({"charged":42})", kT0 + 1s).ok()) _exit(12);
    if (end == ChildEnd::exit_without_close) _exit(0);
    if (write(ready[1], "x", 1) != 1) _exit(13);
    for (;;) pause();
  }
  close(ready[1]);
  if (end == ChildEnd::wait_for_sigkill) {
    char byte = 0;
    if (read(ready[0], &byte, 1) == 1) kill(pid, SIGKILL);
  }
  close(ready[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(SqliteCrash, ExitWithoutCloseKeepsCompletedKey) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  const std::string key = once_key("chat-1", "turn-9", 0, "send-message", "{}");
  const int status = run_child(path, key, true, ChildEnd::exit_without_close);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  auto begun = store->once_begin(kAlice, key, kT0 + 1h);
  ASSERT_TRUE(begun.ok()) << begun.error();
  EXPECT_EQ(begun->state, OnceState::completed);
  EXPECT_EQ(begun->result_json, R"({"charged":42})");
}

TEST(SqliteCrash, SigkillRightAfterCompleteKeepsCompletedKey) {
  for (const bool sync_once_log : {true, false}) {
    TempDir dir;
    const std::string path = dir.file("sigil.db");
    const std::string key = once_key("chat-1", "turn-9", 1, "send-message", "{}");
    sqlite::OpenOptions options;
    options.sync_once_log = sync_once_log;
    const int status = run_child(path, key, true, ChildEnd::wait_for_sigkill, options);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
    auto store = open_or_fail(path, options);
    ASSERT_NE(store, nullptr);
    auto begun = store->once_begin(kAlice, key, kT0 + 1h);
    ASSERT_TRUE(begun.ok()) << begun.error();
    EXPECT_EQ(begun->state, OnceState::completed) << "sync_once_log " << sync_once_log;
    EXPECT_EQ(begun->result_json, R"({"charged":42})");
  }
}

TEST(SqliteCrash, SigkillMidActionLeavesKeyInDoubt) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  const std::string key = once_key("chat-1", "turn-9", 2, "send-message", "{}");
  const int status = run_child(path, key, false, ChildEnd::wait_for_sigkill);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  auto begun = store->once_begin(kAlice, key, kT0 + 1h);
  ASSERT_TRUE(begun.ok()) << begun.error();
  EXPECT_EQ(begun->state, OnceState::in_doubt);  // replaying the turn does not run it again
}

TEST_F(SqliteDisk, ConversationSettingsPersistPerConversation) {
  const Scope other_chat{"alice", "chat-2"};
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    EXPECT_FALSE(store->get_setting(kAlice, "say_mode")->has_value());  // never set
    ASSERT_TRUE(store->set_setting(kAlice, "say_mode", "true", kT0).ok());
    ASSERT_TRUE(store->set_setting(kAlice, "say_mode", "false", kT0 + 1s).ok());  // replaces
    ASSERT_TRUE(store->set_setting(other_chat, "say_mode", "true", kT0).ok());
    EXPECT_FALSE(store->set_setting(Scope{"", "chat-1"}, "say_mode", "true", kT0).ok());  // no user
  }
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->get_setting(kAlice, "say_mode")->value_or("?"), "false");
  EXPECT_EQ(store->get_setting(other_chat, "say_mode")->value_or("?"), "true");
  EXPECT_FALSE(store->get_setting(kBob, "say_mode")->has_value());  // another user's chat of the same id
}

TEST_F(SqliteDisk, SchemaVersionOneGainsConversationSettings) {
  {
    auto store = open_or_fail(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->append_message(kAlice, "user", "hello", "t1", kT0).ok());
  }
  // What a database made by the first release looks like: version 1, no settings table (nor what version 3
  // added).
  EXPECT_EQ(raw_query(path, "DROP TABLE conversation_settings"), "");
  EXPECT_EQ(raw_exec(path, kDropSchemaVersion3), "");
  EXPECT_EQ(raw_query(path, "UPDATE schema_version SET version = 1 RETURNING version"), "1");
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(raw_query(path, "SELECT version FROM schema_version"),
            std::to_string(sqlite::SqliteStore::latest_schema_version()));
  ASSERT_TRUE(store->set_setting(kAlice, "say_mode", "true", kT0).ok());
  EXPECT_EQ(store->get_setting(kAlice, "say_mode")->value_or("?"), "true");
  EXPECT_EQ(store->recent_messages(kAlice, 5)->size(), 1u);  // old data kept
}

TEST_F(SqliteDisk, SchemaVersionFourMovesTheScheduledTaskPrefixIntoItsField) {
  // Version 4 kept a scheduled task's message as "[scheduled task <id>] <message>".
  EXPECT_EQ(
      make_old_history(path, kDropSchemaVersion5, 4,
                       "('alice', 'chat-1', 'user', '[scheduled task task-3] remind me about tea', 't1', 1),"
                       "('alice', 'chat-1', 'assistant', '[scheduled task task-3] quoted', 't1', 2),"
                       "('alice', 'chat-1', 'user', '[scheduled task ] no id', 't2', 3),"
                       "('alice', 'chat-1', 'user', 'plain', 't3', 4);"),
      "");
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  auto history = store->recent_messages(kAlice, 10);
  ASSERT_TRUE(history.ok()) << history.error();
  ASSERT_EQ(history->size(), 4u);
  EXPECT_EQ((*history)[0].text, "remind me about tea");
  EXPECT_EQ((*history)[0].task_id, "task-3");
  EXPECT_EQ((*history)[1].text, "[scheduled task task-3] quoted");  // only user messages had the prefix
  EXPECT_EQ((*history)[1].task_id, "");
  EXPECT_EQ((*history)[2].text, "[scheduled task ] no id");
  EXPECT_EQ((*history)[3].task_id, "");
  // The moved text is what the search index holds now.
  EXPECT_EQ(
      picked(store->search_messages(kAlice, "tea", 5), [](const MessageHit& h) { return h.message.task_id; }),
      std::vector<std::string>{"task-3"});
  EXPECT_TRUE(store->search_messages(kAlice, "scheduled", 5)->size() == 2u);
}

TEST_F(SqliteDisk, AMessageKeepsTheTaskThatStartedIt) {
  auto store = open_or_fail(":memory:");
  ASSERT_NE(store, nullptr);
  Message m{0, "user", "stretch", "task:task-1", kT0, "task-1", {}};
  ASSERT_TRUE(store->append_message(kAlice, m).ok());
  ASSERT_TRUE(store->append_message(kAlice, "assistant", "done", "task:task-1", kT0).ok());
  auto history = store->recent_messages(kAlice, 10);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].task_id, "task-1");
  EXPECT_EQ((*history)[0].text, "stretch");
  EXPECT_EQ((*history)[1].task_id, "");
}

TEST_F(SqliteDisk, AMessageKeepsItsPlatformIdAndTheConversationCanBeAskedForIt) {
  auto store = open_or_fail(":memory:");
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->append_message(kAlice, Message{0, "user", "hello", "tg-1", kT0, {}, "17"}).ok());
  ASSERT_TRUE(store->append_message(kAlice, "assistant", "hi", "tg-1", kT0).ok());
  ASSERT_TRUE(store->append_message(kBob, Message{0, "user", "hey", "tg-2", kT0, {}, "18"}).ok());
  auto history = store->recent_messages(kAlice, 10);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].platform_id, "17");
  EXPECT_EQ((*history)[1].platform_id, "");
  EXPECT_EQ(picked(store->search_messages(kAlice, "hello", 5),
                   [](const MessageHit& h) { return h.message.platform_id; }),
            std::vector<std::string>{"17"});
  EXPECT_TRUE(*store->has_platform_message(kAlice, "17"));
  EXPECT_FALSE(*store->has_platform_message(kAlice, "18"));  // bob's, another scope
  EXPECT_FALSE(*store->has_platform_message(kAlice, ""));    // the assistant's message has none
  EXPECT_TRUE(*store->has_platform_message(kBob, "18"));
}

TEST_F(SqliteDisk, SchemaVersionEightGainsPlatformIdsAndKeepsItsMessages) {
  EXPECT_EQ(make_old_history(path, kDropSchemaVersion9, 8, "('alice', 'chat-1', 'user', 'old', 't1', 1);"),
            "");
  auto store = open_or_fail(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(raw_query(path, "SELECT version FROM schema_version"),
            std::to_string(sqlite::SqliteStore::latest_schema_version()));
  auto history = store->recent_messages(kAlice, 10);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].text, "old");
  EXPECT_EQ((*history)[0].platform_id, "");
  ASSERT_TRUE(store->append_message(kAlice, Message{0, "user", "new", "t2", kT0, {}, "42"}).ok());
  EXPECT_TRUE(*store->has_platform_message(kAlice, "42"));
}

}  // namespace
}  // namespace sigil::store::testing
