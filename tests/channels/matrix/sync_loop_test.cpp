// Matrix's /sync loop (channels/matrix/sync_loop.h) against the Matrix fake as a real process: the token kept
// only after a batch is recorded, a long poll dropped and resumed, a `limited` gap filled from /messages,
// history not answered, invites joined only from allowed users: 0 lost and 0 duplicate events.
#include "sigil/channels/matrix/sync_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "channels/matrix/matrix_fake.h"

namespace sigil::channels::matrix {
namespace {

using testing::kAlice;
using testing::kBot;
using testing::kDm;
using testing::kToken;

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds within = std::chrono::seconds(10)) {
  const auto end = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

class MatrixSyncLoopTest : public testing::MatrixFakeTest {
 protected:
  void TearDown() override { loop.reset(); }

  // A loop (its own ClientApi) over the recorded events and the kept token of this test.
  void start(std::vector<std::string> allowed = {}) {
    ApiOptions ao;
    ao.retry_pause = std::chrono::milliseconds(20);
    loop.reset();
    api = std::make_unique<ClientApi>(*http, fake.url(), kToken, ao);
    SyncOptions so;
    so.poll_timeout = std::chrono::milliseconds(2000);
    so.max_backoff = std::chrono::milliseconds(200);
    so.user_id = kBot;
    so.policy.allowed_users = std::move(allowed);
    SyncLoop::Callbacks cb;
    cb.on_events = [this](const std::vector<InboundEvent>& events) {
      std::lock_guard lock(mu);
      if (refuse > 0) {
        --refuse;
        return false;
      }
      for (const InboundEvent& e : events) {
        if (e.sender == kBot) continue;
        if (!recorded.insert(e.event_id).second) ++duplicates;
        order.push_back(e);
      }
      return true;
    };
    cb.seen = [this](const std::string& id) {
      std::lock_guard lock(mu);
      return recorded.count(id) > 0;
    };
    cb.load_since = [this] {
      std::lock_guard lock(mu);
      return kept;
    };
    cb.save_since = [this](const std::string& token) {
      std::lock_guard lock(mu);
      kept = token;
      ++saves;
      return true;
    };
    loop = std::make_unique<SyncLoop>(*api, so, cb);
    loop->start();
  }
  std::size_t count() {
    std::lock_guard lock(mu);
    return order.size();
  }
  bool synced() {
    return eventually([&] { return loop->state().batches > 0; });
  }

  std::unique_ptr<ClientApi> api;
  std::unique_ptr<SyncLoop> loop;
  std::mutex mu;
  std::set<std::string> recorded;
  std::vector<InboundEvent> order;
  int duplicates = 0, refuse = 0, saves = 0;
  std::string kept;
};

TEST_F(MatrixSyncLoopTest, HistoryIsNotAnsweredNewMessagesAre) {
  fake.user_message("before sigil started");
  start();
  ASSERT_TRUE(synced());
  EXPECT_EQ(loop->bot_user(), kBot);
  const std::string id = fake.user_message("hello sigil");
  ASSERT_TRUE(eventually([&] { return count() == 1; }));
  std::lock_guard lock(mu);
  EXPECT_EQ(order[0].event_id, id);
  EXPECT_EQ(order[0].body, "hello sigil");
  EXPECT_EQ(order[0].room_members, 2);  // the DM: a room of two
  EXPECT_FALSE(kept.empty());
}

TEST_F(MatrixSyncLoopTest, TheTokenIsKeptOnlyAfterTheBatchIsRecorded) {
  start();
  ASSERT_TRUE(synced());
  std::string before;
  {
    std::lock_guard lock(mu);
    before = kept;
    refuse = 2;  // the store fails twice
  }
  const std::string id = fake.user_message("record me");
  ASSERT_TRUE(eventually([&] { return count() == 1; }));
  EXPECT_GE(loop->state().unrecorded, 2u);
  std::lock_guard lock(mu);
  EXPECT_EQ(order[0].event_id, id);
  EXPECT_NE(kept, before);
  EXPECT_EQ(duplicates, 0);
}

TEST_F(MatrixSyncLoopTest, ADroppedLongPollIsResumedWithNothingLost) {
  start();
  ASSERT_TRUE(synced());
  ASSERT_TRUE(
      eventually([&] { return fake.admin("POST", "/_fake/sync/drop").at("dropped").as_int64() > 0; }));
  for (int i = 0; i < 5; ++i) fake.user_message("after the drop " + std::to_string(i));
  ASSERT_TRUE(eventually([&] { return count() == 5; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(count(), 5u);
  EXPECT_EQ(duplicates, 0);
}

TEST_F(MatrixSyncLoopTest, ALimitedGapIsFilledFromMessagesInOrder) {
  start();
  ASSERT_TRUE(synced());
  loop.reset();  // sigil is down; the token stays kept
  std::vector<std::string> ids;
  for (int i = 0; i < 130; ++i) ids.push_back(fake.user_message("while down " + std::to_string(i)));
  start();
  ASSERT_TRUE(eventually([&] { return count() >= 130; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_GE(loop->state().gaps, 1u);
  std::lock_guard lock(mu);
  ASSERT_EQ(order.size(), 130u);
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(order[i].event_id, ids[i]) << i;
  EXPECT_EQ(duplicates, 0);
}

TEST_F(MatrixSyncLoopTest, InvitesAreJoinedOnlyFromAllowedUsers) {
  fake.admin("POST", "/_fake/users", R"({"user_id":"@mallory:sigil.test"})");
  start({kAlice});
  ASSERT_TRUE(synced());
  const auto alices = fake.admin("POST", "/_fake/invites", R"({"from":"@alice:sigil.test","name":"plans"})");
  const auto mallorys =
      fake.admin("POST", "/_fake/invites", R"({"from":"@mallory:sigil.test","name":"spam"})");
  const std::string room(alices.at("room_id").as_string());
  ASSERT_TRUE(eventually([&] { return loop->state().joins == 1; }));
  const auto members =
      fake.admin("GET", "/_fake/rooms/" + net::percent_encode(room)).at("room").at("members");
  EXPECT_EQ(members.at(kBot).as_string(), "join");
  const std::string spam(mallorys.at("room_id").as_string());
  const auto other = fake.admin("GET", "/_fake/rooms/" + net::percent_encode(spam)).at("room").at("members");
  EXPECT_EQ(other.at(kBot).as_string(), "invite");
}

TEST_F(MatrixSyncLoopTest, EncryptedEventsArriveAsEncrypted) {
  start();
  ASSERT_TRUE(synced());
  fake.user_message("secret words", testing::kSecret);
  ASSERT_TRUE(eventually([&] { return count() == 1; }));
  std::lock_guard lock(mu);
  EXPECT_TRUE(order[0].encrypted());
  EXPECT_EQ(order[0].body, "");
}

TEST_F(MatrixSyncLoopTest, AWrongTokenEndsTheLoop) {
  ApiOptions ao;
  api = std::make_unique<ClientApi>(*http, fake.url(), "syt_wrong", ao);
  loop = std::make_unique<SyncLoop>(*api, SyncOptions{}, SyncLoop::Callbacks{});
  loop->start();
  ASSERT_TRUE(eventually([&] { return loop->state().fatal; }));
  EXPECT_NE(loop->state().last_error.find("M_UNKNOWN_TOKEN"), std::string::npos);
}

}  // namespace
}  // namespace sigil::channels::matrix
