// The chat channels' inbound dedupe table (Store::record_inbound, schema v6).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>

#include "sigil/store/sqlite.h"
#include "support/temp_dir.h"

namespace sigil::store {
namespace {

std::unique_ptr<Store> open_at(const std::string& path) {
  auto opened = sqlite::open(path);
  if (!opened.ok()) throw std::runtime_error(opened.error());
  return std::move(opened).value();
}

InboundRecord rec(std::string key, std::string account = "123", std::int64_t at_ms = 1000) {
  InboundRecord r;
  r.channel = "telegram";
  r.account = std::move(account);
  r.key = std::move(key);
  r.payload_json = R"({"text":"hi"})";
  r.received_at = TimePoint{} + std::chrono::milliseconds(at_ms);
  return r;
}

TEST(InboundStore, RecordsOnceAndSaysSoTheSecondTime) {
  auto store = open_at(":memory:");
  auto first = store->record_inbound(rec("10000"));
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_TRUE(*first);
  auto again = store->record_inbound(rec("10000"));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  // Another bot (account) or channel has its own keys.
  EXPECT_TRUE(*store->record_inbound(rec("10000", "456")));
  InboundRecord other = rec("10000");
  other.channel = "discord";
  EXPECT_TRUE(*store->record_inbound(other));
}

TEST(InboundStore, PendingUntilFinishedOldestFirst) {
  auto store = open_at(":memory:");
  ASSERT_TRUE(store->record_inbound(rec("10002", "123", 3000)).ok());
  ASSERT_TRUE(store->record_inbound(rec("10001", "123", 2000)).ok());
  ASSERT_TRUE(store->record_inbound(rec("10009", "456", 1000)).ok());
  auto pending = store->pending_inbound("telegram", "123", 10);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 2u);
  EXPECT_EQ((*pending)[0].key, "10001");
  EXPECT_EQ((*pending)[1].key, "10002");
  EXPECT_EQ((*pending)[0].payload_json, R"({"text":"hi"})");
  ASSERT_TRUE(store->finish_inbound("telegram", "123", "10001", TimePoint{}).ok());
  pending = store->pending_inbound("telegram", "123", 10);
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].key, "10002");
  // Finished stays recorded: a redelivery is still recognised.
  EXPECT_FALSE(*store->record_inbound(rec("10001")));
  EXPECT_TRUE(store->finish_inbound("telegram", "123", "nope", TimePoint{}).ok());
  EXPECT_EQ(store->pending_inbound("telegram", "123", 1)->size(), 1u);
}

TEST(InboundStore, FinishedRecordsAWeekOldAreForgotten) {
  using namespace std::chrono_literals;
  auto store = open_at(":memory:");
  ASSERT_TRUE(*store->record_inbound(rec("1", "123", 0)));
  ASSERT_TRUE(*store->record_inbound(rec("2", "123", 0)));  // never finished: kept, still pending
  ASSERT_TRUE(store->finish_inbound("telegram", "123", "1", TimePoint{} + 1s).ok());
  EXPECT_FALSE(*store->record_inbound(rec("1", "123", 1)));  // a day later it is still known
  InboundRecord later = rec("3", "123", 0);
  later.received_at = TimePoint{} + 8 * 24h;
  ASSERT_TRUE(*store->record_inbound(later));
  ASSERT_TRUE(store->finish_inbound("telegram", "123", "3", later.received_at).ok());
  EXPECT_TRUE(*store->record_inbound(rec("1", "123", 0)));   // pruned
  EXPECT_FALSE(*store->record_inbound(rec("3", "123", 0)));  // recent: kept
  auto pending = store->pending_inbound("telegram", "123", 10);
  ASSERT_EQ(pending->size(), 2u);  // "2" (never finished) and the re-recorded "1"
}

TEST(InboundStore, SurvivesReopening) {
  test::TempDir dir;
  const std::string path = (dir.path() / "sigil.db").string();
  {
    auto store = open_at(path);
    ASSERT_TRUE(*store->record_inbound(rec("77")));
  }
  auto store = open_at(path);
  EXPECT_FALSE(*store->record_inbound(rec("77")));
  EXPECT_EQ(store->pending_inbound("telegram", "123", 10)->size(), 1u);
}

TEST(InboundStore, RefusesEmptyKeys) {
  auto store = open_at(":memory:");
  EXPECT_FALSE(store->record_inbound(rec("")).ok());
}

}  // namespace
}  // namespace sigil::store
