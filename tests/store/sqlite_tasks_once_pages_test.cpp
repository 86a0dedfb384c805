// SqliteStore: scheduled tasks, the exactly-once log, published pages, isolation between users, threads.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

using namespace std::chrono_literals;

class SqliteStoreTasksOncePages : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_or_fail(":memory:");
    ASSERT_NE(store_, nullptr);
  }
  std::vector<std::string> task_ids(const Scope& scope) {
    return picked(store_->list_tasks(scope), [](const ScheduledTask& task) { return task.id; });
  }
  std::vector<std::string> due_ids(TimePoint now, std::size_t limit = 100) {
    return picked(store_->due_tasks(now, limit),
                  [](const ScheduledTask& task) { return task.scope.user_id + "/" + task.id; });
  }

  std::unique_ptr<Store> store_;
  const Scope alice_{"alice", "chat-1"};
  const Scope bob_{"bob", "chat-9"};
};

// ------------------------------------------------------------------------------------------ tasks

TEST_F(SqliteStoreTasksOncePages, TasksAddListDelete) {
  auto first = store_->add_task(alice_, "", "water the plants", kT0 + 2h, kT0);
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(*first, "task-1");
  auto named = store_->add_task(alice_, "standup", "daily standup", kT0 + 1h, kT0);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(*named, "standup");
  auto second = store_->add_task(alice_, "", "call mum", kT0 + 3h, kT0);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, "task-2");

  EXPECT_EQ(task_ids(alice_), (std::vector<std::string>{"standup", "task-1", "task-2"}));  // soonest first
  auto tasks = store_->list_tasks(alice_);
  ASSERT_TRUE(tasks.ok());
  EXPECT_EQ((*tasks)[0].message, "daily standup");
  EXPECT_EQ((*tasks)[0].due_at, kT0 + 1h);
  EXPECT_EQ((*tasks)[0].created_at, kT0);
  EXPECT_EQ((*tasks)[0].scope.user_id, "alice");
  EXPECT_EQ((*tasks)[0].scope.conversation_id, "chat-1");

  EXPECT_FALSE(store_->add_task(alice_, "standup", "again", kT0 + 1h, kT0).ok());  // id taken in this scope
  EXPECT_FALSE(store_->add_task(alice_, "", "  ", kT0 + 1h, kT0).ok());

  EXPECT_EQ(*store_->delete_task(alice_, "standup"), 1u);
  EXPECT_EQ(*store_->delete_task(alice_, "standup"), 0u);
  EXPECT_EQ(*store_->delete_tasks_due_at(alice_, kT0 + 3h + 1ms), 0u);
  EXPECT_EQ(*store_->delete_tasks_due_at(alice_, kT0 + 3h), 1u);
  EXPECT_EQ(task_ids(alice_), (std::vector<std::string>{"task-1"}));
}

// Overall caps per user: a model in a loop cannot fill the disk with pages or tasks; other users are not
// affected, and a page republished under its title (the same slug) still replaces itself.
TEST(SqliteStoreCaps, PagesAndPendingTasksPerUserAreCapped) {
  sqlite::OpenOptions options;
  options.max_pages_per_user = 3;
  options.max_pending_tasks_per_user = 2;
  auto store = open_or_fail(":memory:", options);
  ASSERT_NE(store, nullptr);
  const Scope alice{"alice", "c1"};
  const Scope alice_elsewhere{"alice", "c2"};
  const Scope bob{"bob", "c1"};
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(
        store->put_page(i == 2 ? alice_elsewhere : alice, "page " + std::to_string(i), "<p>x</p>", false, kT0)
            .ok());
  auto over = store->put_page(alice, "page 3", "<p>x</p>", false, kT0);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().find("at most 3 published pages per user"), std::string::npos) << over.error();
  EXPECT_TRUE(store->put_page(alice, "page 0", "<p>new</p>", false, kT0).ok()) << "republishing was refused";
  EXPECT_TRUE(store->put_page(bob, "page 3", "<p>x</p>", false, kT0).ok());

  ASSERT_TRUE(store->add_task(alice, "", "one", kT0 + 1h, kT0).ok());
  ASSERT_TRUE(store->add_task(alice_elsewhere, "", "two", kT0 + 1h, kT0).ok());
  auto task = store->add_task(alice, "", "three", kT0 + 1h, kT0);
  ASSERT_FALSE(task.ok());
  EXPECT_NE(task.error().find("at most 2 pending scheduled tasks per user"), std::string::npos)
      << task.error();
  EXPECT_TRUE(store->add_task(bob, "", "bob's", kT0 + 1h, kT0).ok());
  // A fired task no longer counts.
  auto tasks = store->list_tasks(alice);
  ASSERT_TRUE(tasks.ok());
  ASSERT_TRUE(store->mark_fired(alice, tasks->front().id, kT0 + 2h).ok());
  EXPECT_TRUE(store->add_task(alice, "", "three", kT0 + 3h, kT0).ok());
}

TEST_F(SqliteStoreTasksOncePages, TasksGeneratedIdsSkipTakenOnes) {
  ASSERT_TRUE(store_->add_task(alice_, "task-1", "mine", kT0 + 1h, kT0).ok());
  auto generated = store_->add_task(alice_, "", "generated", kT0 + 1h, kT0);
  ASSERT_TRUE(generated.ok()) << generated.error();
  EXPECT_EQ(*generated, "task-2");
}

TEST_F(SqliteStoreTasksOncePages, TasksDueAcrossScopesAndFiredOnce) {
  ASSERT_TRUE(store_->add_task(alice_, "a-late", "later", kT0 + 3h, kT0).ok());
  ASSERT_TRUE(store_->add_task(alice_, "a-soon", "soon", kT0 + 1h, kT0).ok());
  ASSERT_TRUE(store_->add_task(bob_, "b-mid", "middle", kT0 + 2h, kT0).ok());

  EXPECT_TRUE(due_ids(kT0).empty());
  EXPECT_EQ(due_ids(kT0 + 1h), (std::vector<std::string>{"alice/a-soon"}));  // due_at <= now
  EXPECT_EQ(due_ids(kT0 + 5h), (std::vector<std::string>{"alice/a-soon", "bob/b-mid", "alice/a-late"}));
  EXPECT_EQ(due_ids(kT0 + 5h, 2).size(), 2u);

  auto due = store_->due_tasks(kT0 + 5h, 10);
  ASSERT_TRUE(due.ok());
  EXPECT_EQ((*due)[1].scope.conversation_id, "chat-9");
  EXPECT_EQ((*due)[1].message, "middle");

  auto fired = store_->mark_fired(bob_, "b-mid", kT0 + 2h);
  ASSERT_TRUE(fired.ok());
  EXPECT_TRUE(*fired);
  EXPECT_FALSE(*store_->mark_fired(bob_, "b-mid", kT0 + 2h));    // only once
  EXPECT_FALSE(*store_->mark_fired(alice_, "b-mid", kT0 + 2h));  // another scope's id
  EXPECT_EQ(due_ids(kT0 + 5h), (std::vector<std::string>{"alice/a-soon", "alice/a-late"}));
  EXPECT_TRUE(task_ids(bob_).empty());
  EXPECT_EQ(*store_->delete_task(bob_, "b-mid"), 0u);  // fired tasks are history, not pending
}

// ------------------------------------------------------------------------------------------ exactly once

TEST_F(SqliteStoreTasksOncePages, OnceBeginCompleteAndReplay) {
  const std::string key = once_key("chat-1", "turn-7", 0, "remember", R"({"fact":"tea"})");
  auto begun = store_->once_begin(alice_, key, kT0);
  ASSERT_TRUE(begun.ok()) << begun.error();
  EXPECT_EQ(begun->state, OnceState::fresh);
  EXPECT_EQ(begun->begun_at, kT0);

  auto duplicate = store_->once_begin(alice_, key, kT0 + 1s);  // same instance, not completed yet
  ASSERT_TRUE(duplicate.ok());
  EXPECT_EQ(duplicate->state, OnceState::running);
  EXPECT_EQ(duplicate->begun_at, kT0);

  ASSERT_TRUE(store_->once_complete(alice_, key, R"({"ok":true,"added":1})", kT0 + 2s).ok());
  auto replay = store_->once_begin(alice_, key, kT0 + 1h);
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->state, OnceState::completed);
  EXPECT_EQ(replay->result_json, R"({"ok":true,"added":1})");

  // A second completion keeps the first result.
  ASSERT_TRUE(store_->once_complete(alice_, key, R"({"ok":false})", kT0 + 3s).ok());
  EXPECT_EQ(store_->once_begin(alice_, key, kT0)->result_json, R"({"ok":true,"added":1})");
  EXPECT_EQ(store_->once_begin(alice_, key, kT0)->state, OnceState::completed);
}

TEST_F(SqliteStoreTasksOncePages, OnceBadInput) {
  const std::string key = once_key("chat-1", "turn-1", 3, "calculate", R"({"expression":"1+1"})");
  ASSERT_EQ(store_->once_begin(alice_, key, kT0)->state, OnceState::fresh);

  EXPECT_FALSE(store_->once_complete(alice_, key, "not json", kT0).ok());
  EXPECT_EQ(store_->once_begin(alice_, key, kT0)->state, OnceState::running);  // unchanged
  EXPECT_FALSE(store_->once_begin(alice_, "", kT0).ok());
  EXPECT_FALSE(store_->once_begin(Scope{"", "x"}, key, kT0).ok());

  // Completing a key never begun records it as completed.
  ASSERT_TRUE(store_->once_complete(alice_, "other-key", "null", kT0).ok());
  auto other = store_->once_begin(alice_, "other-key", kT0);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->state, OnceState::completed);
  EXPECT_EQ(other->result_json, "null");
}

// ------------------------------------------------------------------------------------------ pages

TEST_F(SqliteStoreTasksOncePages, PagesSlugsAreStableAndUnguessable) {
  auto first = store_->put_page(alice_, "Holiday Plan: Lisbon!", "<h1>v1</h1>", false, kT0);
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->slug.rfind("holiday-plan-lisbon-", 0), 0u) << first->slug;
  EXPECT_EQ(first->slug.size(), std::string("holiday-plan-lisbon-").size() + 20);
  EXPECT_EQ(first->created_at, kT0);

  auto again = store_->put_page(alice_, "Holiday Plan: Lisbon!", "<h1>v2</h1>", true, kT0 + 1h);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->slug, first->slug);  // same scope and title: the same page
  EXPECT_EQ(again->created_at, kT0);
  EXPECT_EQ(again->updated_at, kT0 + 1h);

  auto served = store_->get_page(first->slug);
  ASSERT_TRUE(served.ok() && served->has_value());
  EXPECT_EQ((*served)->html, "<h1>v2</h1>");
  EXPECT_TRUE((*served)->csp_allows_scripts);
  EXPECT_EQ((*served)->title, "Holiday Plan: Lisbon!");

  auto bobs = store_->put_page(bob_, "Holiday Plan: Lisbon!", "<p>bob</p>", false, kT0);
  ASSERT_TRUE(bobs.ok());
  EXPECT_NE(bobs->slug, first->slug);  // another scope, another page

  auto untitled1 = store_->put_page(alice_, "", "<p>a</p>", false, kT0);
  auto untitled2 = store_->put_page(alice_, "  ", "<p>a</p>", false, kT0);
  ASSERT_TRUE(untitled1.ok() && untitled2.ok());
  EXPECT_EQ(untitled1->slug.rfind("page-", 0), 0u);
  EXPECT_NE(untitled1->slug, untitled2->slug);
  auto symbols = store_->put_page(alice_, "東京!!", "<p>x</p>", false, kT0);
  ASSERT_TRUE(symbols.ok());
  EXPECT_EQ(symbols->slug.rfind("page-", 0), 0u);
  EXPECT_FALSE(store_->put_page(alice_, "t", " ", false, kT0).ok());

  EXPECT_EQ(store_->list_pages(alice_)->size(), 4u);
  EXPECT_EQ(store_->list_pages(bob_)->size(), 1u);
  EXPECT_FALSE(store_->get_page("no-such-page")->has_value());
}

TEST_F(SqliteStoreTasksOncePages, PagesSlugsDifferBetweenDatabases) {
  auto other = open_or_fail(":memory:");
  ASSERT_NE(other, nullptr);
  auto here = store_->put_page(alice_, "Same", "<p/>", false, kT0);
  auto there = other->put_page(alice_, "Same", "<p/>", false, kT0);
  ASSERT_TRUE(here.ok() && there.ok());
  EXPECT_NE(here->slug, there->slug);  // the per-database salt: slugs cannot be computed from the title
}

// ------------------------------------------------------------------------------------------ isolation

// Two users with the same item ids, facts, texts, task ids and keys never see each other's.
TEST_F(SqliteStoreTasksOncePages, IsolationTwoUsersSameIds) {
  const Scope alice_same_chat{"alice", "shared-chat"};
  const Scope bob_same_chat{"bob", "shared-chat"};
  for (const Scope* s : {&alice_same_chat, &bob_same_chat}) {
    const std::string who = s->user_id;
    ASSERT_TRUE(store_->set_item(*s, "secret", "\"" + who + "'s secret\"", std::nullopt, kT0).ok());
    ASSERT_TRUE(store_->set_item(*s, "only-" + who, "1", std::nullopt, kT0).ok());
    ASSERT_TRUE(store_->remember(*s, who + " likes tea", kT0).ok());
    ASSERT_TRUE(store_->add_archive_text(*s, who, who + " diary: zebra crossing", "s", kT0).ok());
    ASSERT_TRUE(store_->append_message(*s, "user", who + " says zebra", "t1", kT0).ok());
    ASSERT_TRUE(store_->add_task(*s, "task-x", who + " reminder", kT0 + 1h, kT0).ok());
    ASSERT_TRUE(store_->once_begin(*s, "key-1", kT0).ok());
  }
  ASSERT_TRUE(store_->once_complete(alice_same_chat, "key-1", R"("alice")", kT0).ok());

  for (const Scope* s : {&alice_same_chat, &bob_same_chat}) {
    const std::string who = s->user_id;
    const std::string other = who == "alice" ? "bob" : "alice";
    auto secret = store_->get_item(*s, "secret", kT0);
    ASSERT_TRUE(secret.ok() && secret->has_value());
    EXPECT_EQ((*secret)->value_json, "\"" + who + "'s secret\"");
    EXPECT_FALSE(store_->get_item(*s, "only-" + other, kT0)->has_value());
    auto items = store_->list_items(*s, kT0);
    ASSERT_EQ(items->size(), 2u);

    auto facts = store_->list_facts(*s);
    ASSERT_EQ(facts->size(), 1u);
    EXPECT_EQ((*facts)[0].text, who + " likes tea");

    auto hits = store_->search_archive(*s, "zebra diary " + other, 10, 0);
    ASSERT_TRUE(hits.ok());
    ASSERT_EQ(hits->size(), 1u);
    EXPECT_EQ((*hits)[0].title, who);

    auto messages = store_->search_messages(*s, "zebra", 10);
    ASSERT_EQ(messages->size(), 1u);
    EXPECT_EQ((*messages)[0].message.text, who + " says zebra");
    ASSERT_EQ(store_->recent_messages(*s, 10)->size(), 1u);

    auto tasks = store_->list_tasks(*s);
    ASSERT_EQ(tasks->size(), 1u);
    EXPECT_EQ((*tasks)[0].message, who + " reminder");
  }
  // Completion is per scope: bob's identical key is still his own, running.
  EXPECT_EQ(store_->once_begin(alice_same_chat, "key-1", kT0)->state, OnceState::completed);
  EXPECT_EQ(store_->once_begin(bob_same_chat, "key-1", kT0)->state, OnceState::running);

  // Bob's changes never reach alice's rows.
  EXPECT_EQ(*store_->forget(bob_same_chat, "likes tea"), 1u);
  EXPECT_EQ(store_->list_facts(alice_same_chat)->size(), 1u);
  EXPECT_TRUE(*store_->delete_item(bob_same_chat, "secret", kT0));
  EXPECT_TRUE(store_->get_item(alice_same_chat, "secret", kT0)->has_value());
  EXPECT_EQ(*store_->delete_task(bob_same_chat, "task-x"), 1u);
  EXPECT_EQ(store_->list_tasks(alice_same_chat)->size(), 1u);
  auto moved = store_->archive_items(bob_same_chat, std::vector<std::string>{"only-alice"}, kT0);
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(moved->archived, 0u);
  EXPECT_TRUE(store_->get_item(alice_same_chat, "only-alice", kT0)->has_value());
  EXPECT_EQ(*store_->cleanup_expired(bob_same_chat, kT0 + 1000h), 0u);
}

// A user id and conversation id that concatenate alike stay apart.
TEST_F(SqliteStoreTasksOncePages, IsolationScopeFieldsDoNotRunTogether) {
  const Scope a{"ab", "c"};
  const Scope b{"a", "bc"};
  Scope a_conv = a;
  a_conv.memory = MemoryScope::per_conversation;
  Scope b_conv = b;
  b_conv.memory = MemoryScope::per_conversation;
  ASSERT_TRUE(store_->set_item(a_conv, "k", "1", std::nullopt, kT0).ok());
  EXPECT_FALSE(store_->get_item(b_conv, "k", kT0)->has_value());
  ASSERT_TRUE(store_->append_message(a, "user", "hello", "t", kT0).ok());
  EXPECT_TRUE(store_->recent_messages(b, 10)->empty());
}

// ------------------------------------------------------------------------------------------ threads

TEST_F(SqliteStoreTasksOncePages, ThreadsShareOneStore) {
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([this, t] {
      const Scope scope{"user-" + std::to_string(t), "c"};
      for (int i = 0; i < 50; ++i) {
        const std::string id = std::to_string(i);
        EXPECT_TRUE(store_->set_item(scope, id, id, std::nullopt, kT0).ok());
        EXPECT_TRUE(store_->remember(scope, "fact " + id, kT0).ok());
        auto begun = store_->once_begin(scope, "k" + id, kT0);
        EXPECT_TRUE(begun.ok() && begun->state == OnceState::fresh);
        EXPECT_TRUE(store_->once_complete(scope, "k" + id, "1", kT0).ok());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) {
    const Scope scope{"user-" + std::to_string(t), "c"};
    EXPECT_EQ(store_->list_items(scope, kT0)->size(), 50u);
    EXPECT_EQ(store_->list_facts(scope)->size(), 50u);
  }
}

}  // namespace
}  // namespace sigil::store::testing
