// What a directive costs the executor, counted (never timed): store calls per burst, allocations per
// directive on the dispatching thread, and the in-memory exactly-once log's answers (the map that replaced
// the once_log table in memory must answer as the table does).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "burst_turn.h"
#include "sigil/exec/executor.h"
#include "sigil/store/sqlite.h"
#include "support/alloc_counter.h"

namespace sigil::exec {
namespace {

using test::kBurst;
// Measured 11.8 on 2026-11-27 (parser, executor and in-memory log together; recorded as the test's
// allocations_per_directive property); the bound leaves a little room.
constexpr double kMaxAllocationsPerDirective = 16;

// The Store calls a turn makes, counted, passed on to a real store.
struct Calls {
  std::atomic<int> begin_many{0}, complete_many{0}, begin_one{0}, complete_one{0};
};

class CountingStore final : public store::Store {
 public:
  CountingStore(store::Store& inner, Calls& calls) : inner_(inner), calls_(calls) {}
  // clang-format off
  store::Status set_item(const store::Scope& s, std::string_view i, std::string_view v, std::optional<store::TimePoint> e, store::TimePoint n) override { return inner_.set_item(s, i, v, e, n); }
  store::Result<std::optional<store::MemoryItem>> get_item(const store::Scope& s, std::string_view i, store::TimePoint n) override { return inner_.get_item(s, i, n); }
  store::Result<bool> delete_item(const store::Scope& s, std::string_view i, store::TimePoint n) override { return inner_.delete_item(s, i, n); }
  store::Result<std::vector<store::MemoryItem>> list_items(const store::Scope& s, store::TimePoint n) override { return inner_.list_items(s, n); }
  store::Result<std::vector<store::MemoryItem>> recent_items(const store::Scope& s, store::TimePoint n, std::size_t l) override { return inner_.recent_items(s, n, l); }
  store::Result<std::size_t> cleanup_expired(const store::Scope& s, store::TimePoint n) override { return inner_.cleanup_expired(s, n); }
  store::Result<bool> remember(const store::Scope& s, std::string_view f, store::TimePoint n) override { return inner_.remember(s, f, n); }
  store::Result<std::size_t> forget(const store::Scope& s, std::string_view f) override { return inner_.forget(s, f); }
  store::Result<store::Correction> correct(const store::Scope& s, std::string_view o, std::string_view f, store::TimePoint n) override { return inner_.correct(s, o, f, n); }
  store::Result<std::vector<store::Fact>> list_facts(const store::Scope& s) override { return inner_.list_facts(s); }
  store::Result<store::RankedFacts> top_facts(const store::Scope& s, std::size_t l) override { return inner_.top_facts(s, l); }
  store::Result<store::ArchiveOutcome> archive_items(const store::Scope& s, std::span<const std::string> i, store::TimePoint n) override { return inner_.archive_items(s, i, n); }
  store::Result<std::int64_t> add_archive_text(const store::Scope& s, std::string_view t, std::string_view x, std::string_view o, store::TimePoint n) override { return inner_.add_archive_text(s, t, x, o, n); }
  store::Result<std::vector<store::ArchiveHit>> search_archive(const store::Scope& s, std::string_view q, int k, double m) override { return inner_.search_archive(s, q, k, m); }
  store::Status set_archive_vector(const store::Scope& s, std::int64_t a, std::string_view m, std::span<const float> v) override { return inner_.set_archive_vector(s, a, m, v); }
  store::Result<std::vector<store::ArchiveHit>> nearest_archive(const store::Scope& s, std::string_view m, std::span<const float> q, int k) override { return inner_.nearest_archive(s, m, q, k); }
  using store::Store::append_message;
  store::Result<std::int64_t> append_message(const store::Scope& s, const store::Message& m) override { return inner_.append_message(s, m); }
  store::Result<std::vector<store::Message>> recent_messages(const store::Scope& s, std::size_t n) override { return inner_.recent_messages(s, n); }
  store::Result<bool> has_platform_message(const store::Scope& s, std::string_view p) override { return inner_.has_platform_message(s, p); }
  store::Result<std::int64_t> append_delivery(const store::Scope& s, std::string_view t, std::string_view j, store::TimePoint a) override { return inner_.append_delivery(s, t, j, a); }
  store::Result<std::vector<store::StoredDelivery>> recent_deliveries(const store::Scope& s, std::size_t n) override { return inner_.recent_deliveries(s, n); }
  store::Result<std::vector<store::MessageHit>> search_messages(const store::Scope& s, std::string_view q, int k) override { return inner_.search_messages(s, q, k); }
  store::Result<std::vector<store::MessageHit>> search_user_messages(const store::Scope& s, std::string_view q, int k) override { return inner_.search_user_messages(s, q, k); }
  store::Result<std::string> add_task(const store::Scope& s, std::string_view i, std::string_view m, store::TimePoint d, store::TimePoint n) override { return inner_.add_task(s, i, m, d, n); }
  store::Result<std::vector<store::ScheduledTask>> list_tasks(const store::Scope& s) override { return inner_.list_tasks(s); }
  store::Result<std::size_t> delete_task(const store::Scope& s, std::string_view i) override { return inner_.delete_task(s, i); }
  store::Result<std::size_t> delete_tasks_due_at(const store::Scope& s, store::TimePoint d) override { return inner_.delete_tasks_due_at(s, d); }
  store::Result<std::vector<store::ScheduledTask>> due_tasks(store::TimePoint n, std::size_t l) override { return inner_.due_tasks(n, l); }
  store::Result<bool> mark_fired(const store::Scope& s, std::string_view i, store::TimePoint a) override { return inner_.mark_fired(s, i, a); }
  store::Result<store::Begun> once_begin(const store::Scope& s, std::string_view k, store::TimePoint n) override { ++calls_.begin_one; return inner_.once_begin(s, k, n); }
  store::Status once_complete(const store::Scope& s, std::string_view k, std::string_view r, store::TimePoint n) override { ++calls_.complete_one; return inner_.once_complete(s, k, r, n); }
  std::vector<store::Result<store::Begun>> once_begin_many(const store::Scope& s, std::span<const std::string> k, store::TimePoint n) override { ++calls_.begin_many; return inner_.once_begin_many(s, k, n); }
  std::vector<store::Status> once_complete_many(const store::Scope& s, std::span<const store::OnceCompletion> d, store::TimePoint n) override { ++calls_.complete_many; return inner_.once_complete_many(s, d, n); }
  bool once_writes_wait_for_disk() const override { return inner_.once_writes_wait_for_disk(); }
  store::Result<store::Page> put_page(const store::Scope& s, std::string_view t, std::string_view h, bool c, store::TimePoint n) override { return inner_.put_page(s, t, h, c, n); }
  store::Result<std::optional<store::Page>> get_page(std::string_view s) override { return inner_.get_page(s); }
  store::Result<std::vector<store::Page>> list_pages(const store::Scope& s) override { return inner_.list_pages(s); }
  store::Status set_setting(const store::Scope& s, std::string_view n, std::string_view v, store::TimePoint t) override { return inner_.set_setting(s, n, v, t); }
  store::Result<std::optional<std::string>> get_setting(const store::Scope& s, std::string_view n) override { return inner_.get_setting(s, n); }
  store::Result<std::vector<store::ConversationSummary>> list_conversations(std::string_view u, std::size_t l) override { return inner_.list_conversations(u, l); }
  store::Result<bool> delete_conversation(const store::Scope& s) override { return inner_.delete_conversation(s); }
  store::Result<bool> record_inbound(const store::InboundRecord& r) override { return inner_.record_inbound(r); }
  store::Status finish_inbound(std::string_view c, std::string_view a, std::string_view k, store::TimePoint n) override { return inner_.finish_inbound(c, a, k, n); }
  store::Result<std::vector<store::InboundRecord>> pending_inbound(std::string_view c, std::string_view a, std::size_t l) override { return inner_.pending_inbound(c, a, l); }
  // clang-format on

 private:
  store::Store& inner_;
  Calls& calls_;
};

struct BurstCost {
  std::uint64_t allocations = 0;  // on the dispatching thread, parse + execute + finish
  TurnReport report;
};

BurstCost run_burst(store::Store& store, const HandlerTable& handlers, const std::string& turn) {
  const std::string reply = test::burst_reply();
  BurstCost cost;
  const testing::AllocationCount count;
  cost.report = test::run_burst(store, handlers, {"alice", "conv-1", turn}, reply);
  cost.allocations = count.count();
  return cost;
}

HandlerTable quick_remember() {
  HandlerTable handlers;
  handlers.add("remember", [](const Directive&, ActionContext&) { return HandlerResult::ok("ok"); });
  handlers.set_quick("remember");
  return handlers;
}

// A burst of 100 quick directives in memory: one store call begins all their keys and one completes them
// (not 200 calls), everything runs on this thread, and the allocations stay a small, fixed number per
// directive.
TEST(ExecCost, ABurstInMemoryCostsTwoStoreCallsAndFewAllocationsPerDirective) {
  auto opened = store::sqlite::open(":memory:");
  ASSERT_TRUE(opened.ok()) << opened.error();
  Calls calls;
  CountingStore store(**opened, calls);
  const HandlerTable handlers = quick_remember();
  (void)run_burst(store, handlers, "warm-up");  // first statements, first pages
  calls.begin_many = calls.complete_many = 0;

  const BurstCost cost = run_burst(store, handlers, "turn-1");
  ASSERT_EQ(cost.report.results.size(), static_cast<std::size_t>(kBurst));
  for (const ResultEntry& r : cost.report.results) EXPECT_EQ(r.status, ResultStatus::Ok) << r.message;
  EXPECT_EQ(calls.begin_many.load(), 1);
  EXPECT_EQ(calls.complete_many.load(), 1);
  EXPECT_EQ(calls.begin_one.load() + calls.complete_one.load(), 0);
  const double per_directive = static_cast<double>(cost.allocations) / kBurst;
  RecordProperty("allocations_per_directive", std::to_string(per_directive));
  EXPECT_LE(per_directive, kMaxAllocationsPerDirective) << cost.allocations << " allocations for " << kBurst;
}

// The in-memory log answers as the table does: the same turn again is all duplicates with the stored
// results, another turn's keys are fresh, a key begun and not completed is running (not in doubt: nothing
// in memory outlives this instance), and a result that is not JSON is refused.
TEST(ExecCost, TheInMemoryLogAnswersAsTheTableDoes) {
  auto opened = store::sqlite::open(":memory:");
  ASSERT_TRUE(opened.ok()) << opened.error();
  store::Store& store = **opened;
  const HandlerTable handlers = quick_remember();
  (void)run_burst(store, handlers, "turn-1");
  const BurstCost again = run_burst(store, handlers, "turn-1");
  for (const ResultEntry& r : again.report.results) {
    EXPECT_EQ(r.status, ResultStatus::Duplicate);
    EXPECT_EQ(r.message, "ok");
  }
  const BurstCost other = run_burst(store, handlers, "turn-2");
  for (const ResultEntry& r : other.report.results) EXPECT_EQ(r.status, ResultStatus::Ok);

  const store::Scope scope{"alice", "conv-1", store::MemoryScope::per_user};
  const auto t0 = store::Clock::now();
  ASSERT_EQ(store.once_begin(scope, "k-open", t0)->state, store::OnceState::fresh);
  EXPECT_EQ(store.once_begin(scope, "k-open", t0)->state, store::OnceState::running);
  EXPECT_EQ(store.once_begin(store::Scope{"bob", "conv-1"}, "k-open", t0)->state, store::OnceState::fresh);
  EXPECT_FALSE(store.once_complete(scope, "k-open", "not json", t0).ok());
  ASSERT_TRUE(store.once_complete(scope, "k-open", R"({"n":1})", t0).ok());
  ASSERT_TRUE(store.once_complete(scope, "k-open", R"({"n":2})", t0).ok());  // the first result stays
  auto done = store.once_begin(scope, "k-open", t0);
  ASSERT_EQ(done->state, store::OnceState::completed);
  EXPECT_EQ(done->result_json, R"({"n":1})");
  ASSERT_TRUE(store.once_complete(scope, "k-never-begun", "[]", t0).ok());
  EXPECT_EQ(store.once_begin(scope, "k-never-begun", t0)->state, store::OnceState::completed);
}

}  // namespace
}  // namespace sigil::exec
