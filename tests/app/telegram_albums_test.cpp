// An album's items gathered into one turn (app/telegram_albums.h): waits are for events, never asserts on
// time.
#include "app/telegram_albums.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace sigil::app {
namespace {

using namespace std::chrono_literals;
namespace tg = channels::telegram;

tg::InboundMessage item(std::int64_t update_id, std::int64_t chat_id, std::string group) {
  tg::InboundMessage m;
  m.update_id = update_id;
  m.chat_id = chat_id;
  m.media_group_id = std::move(group);
  return m;
}

std::vector<std::int64_t> ids(const TelegramAlbums::Items& items) {
  std::vector<std::int64_t> out;
  for (const auto& m : items) out.push_back(m.update_id);
  return out;
}

struct Runs {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::vector<std::int64_t>> albums;
  void add(const TelegramAlbums::Items& items) {
    std::lock_guard lock(mu);
    albums.push_back(ids(items));
    cv.notify_all();
  }
  bool wait_for(std::size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 30s, [&] { return albums.size() >= n; });
  }
};

TEST(TelegramAlbums, EachAlbumRunsOnceWithItsItemsInOrder) {
  Runs runs;
  TelegramAlbums albums(100ms, [&](const TelegramAlbums::Items& items) { runs.add(items); });
  albums.add(item(1, 7, "a"));
  albums.add(item(2, 8, "a"));  // another chat's album of the same id
  albums.add(item(3, 7, "a"));
  EXPECT_TRUE(albums.gathering(7, "a"));
  EXPECT_FALSE(albums.gathering(7, "b"));
  ASSERT_TRUE(runs.wait_for(2));
  albums.stop();
  std::lock_guard lock(runs.mu);
  ASSERT_EQ(runs.albums.size(), 2u);
  EXPECT_TRUE(
      (runs.albums[0] == std::vector<std::int64_t>{1, 3} && runs.albums[1] == std::vector<std::int64_t>{2}) ||
      (runs.albums[1] == std::vector<std::int64_t>{1, 3} && runs.albums[0] == std::vector<std::int64_t>{2}));
  EXPECT_FALSE(albums.gathering(7, "a"));
}

TEST(TelegramAlbums, TenItemsRunAtOnce) {
  Runs runs;
  // A quiet time no test waits for: the tenth item must not wait for it.
  TelegramAlbums albums(std::chrono::hours(1), [&](const TelegramAlbums::Items& items) { runs.add(items); });
  for (std::int64_t i = 1; i <= static_cast<std::int64_t>(kMostAlbumItems); ++i)
    albums.add(item(i, 7, "big"));
  ASSERT_TRUE(runs.wait_for(1));
  std::lock_guard lock(runs.mu);
  EXPECT_EQ(runs.albums[0].size(), kMostAlbumItems);
}

TEST(TelegramAlbums, StoppedBeforeItIsWholeRunsNothing) {
  Runs runs;
  {
    TelegramAlbums albums(std::chrono::hours(1),
                          [&](const TelegramAlbums::Items& items) { runs.add(items); });
    albums.add(item(1, 7, "a"));
  }  // the items stay unfinished in the store; the next start resumes them
  std::lock_guard lock(runs.mu);
  EXPECT_TRUE(runs.albums.empty());
}

TEST(TelegramAlbums, PendingRecordsAreGroupedAtTheirFirstItem) {
  std::vector<tg::InboundMessage> pending{item(1, 7, ""), item(2, 7, "a"), item(3, 7, ""), item(4, 7, "a"),
                                          item(5, 8, "a")};
  const auto turns = albums_of(std::move(pending));
  ASSERT_EQ(turns.size(), 4u);
  EXPECT_EQ(ids(turns[0]), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(ids(turns[1]), (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(ids(turns[2]), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(ids(turns[3]), (std::vector<std::int64_t>{5}));
}

}  // namespace
}  // namespace sigil::app
