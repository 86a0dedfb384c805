// The gateway's plain helpers: rate limiter, media store, conversation hub, client history, frames.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "deliver/fake_channel.h"
#include "server/client_history.h"
#include "server/conversation_hub.h"
#include "server/media_store.h"
#include "server/mime_types.h"
#include "server/rate_limiter.h"
#include "server/ws_frames.h"
#include "sigil/store/sha256.h"
#include "store/store_test_support.h"
#include "support/expect_each.h"

namespace sigil::server {
namespace {

using namespace std::chrono_literals;

TEST(RateLimiterTest, BurstThenRefillPerUser) {
  RateLimiter::Clock::time_point now{};
  RateLimiter limiter(60, 3, [&now] { return now; });  // one token a second, burst 3
  EXPECT_EQ(limiter.take("a"), 0);
  EXPECT_EQ(limiter.take("a"), 0);
  EXPECT_EQ(limiter.take("a"), 0);
  const double wait = limiter.take("a");
  EXPECT_GT(wait, 0.9);
  EXPECT_LE(wait, 1.0);
  EXPECT_EQ(limiter.take("b"), 0);  // another user's bucket is full
  now += 500ms;
  EXPECT_GT(limiter.take("a"), 0.4);
  now += 600ms;
  EXPECT_EQ(limiter.take("a"), 0);
  EXPECT_GT(limiter.take("a"), 0);
  now += 1h;  // refills only up to the burst
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.take("a"), 0);
  EXPECT_GT(limiter.take("a"), 0);
}

TEST(RateLimiterTest, ZeroRateIsUnlimited) {
  RateLimiter limiter(0, 1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(limiter.take("a"), 0);
  EXPECT_EQ(limiter.tracked(), 0u);
}

// A payload of `bytes` held in memory (deliver/'s test double); `fail`: every read fails.
deliver::testing::MemoryPayload string_payload(std::string bytes, std::string name, std::string mime = "",
                                               bool fail = false) {
  deliver::testing::MemoryPayload p(std::move(name), std::move(bytes), std::move(mime));
  p.fail_reads = fail;
  return p;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(MediaStoreTest, ValidHashIsExactly64LowercaseHex) {
  EXPECT_TRUE(MediaStore::valid_hash(std::string(64, 'a')));
  EXPECT_TRUE(MediaStore::valid_hash(store::sha256_hex("x")));
  EXPECT_FALSE(MediaStore::valid_hash(std::string(64, 'A')));
  EXPECT_FALSE(MediaStore::valid_hash(std::string(63, 'a')));
  EXPECT_FALSE(MediaStore::valid_hash(std::string(65, 'a')));
  EXPECT_FALSE(MediaStore::valid_hash(std::string(62, 'a') + ".."));
  EXPECT_FALSE(MediaStore::valid_hash(""));
}

TEST(MediaStoreTest, MemoryKeepsTheBytesAndDropsTheOldestPastTheLimit) {
  MediaStore media("", 100);
  auto a = media.put(string_payload(std::string(40, 'a'), "a.txt"), false);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->sha256, store::sha256_hex(std::string(40, 'a')));
  EXPECT_EQ(a->size, 40u);
  EXPECT_EQ(a->mime, "text/plain; charset=utf-8");
  EXPECT_FALSE(a->inline_disposition);
  auto found = media.find(a->sha256);
  ASSERT_TRUE(found);
  EXPECT_EQ(*found->bytes, std::string(40, 'a'));
  EXPECT_EQ(found->info.name, "a.txt");

  auto b = media.put(string_payload(std::string(40, 'b'), "b.ogg", "audio/ogg"), true);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->inline_disposition);
  auto c = media.put(string_payload(std::string(40, 'c'), "c.bin"), false);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(media.find(a->sha256));  // oldest dropped
  EXPECT_TRUE(media.find(b->sha256));
  EXPECT_TRUE(media.find(c->sha256));

  auto huge = media.put(string_payload(std::string(101, 'h'), "h.bin"), false);
  EXPECT_FALSE(huge.ok());
  EXPECT_FALSE(media.put(string_payload("x", "x", "", true), false).ok());
}

TEST(MediaStoreTest, AMissingFolderIsCreated) {
  store::testing::TempDir dir;
  MediaStore media(dir.file("data/media"));
  auto info = media.put(string_payload("abc", "a.txt"), false);
  ASSERT_TRUE(info.ok()) << info.error();
  EXPECT_TRUE(media.find(info->sha256));
}

TEST(MediaStoreTest, VoiceIsAlwaysAudio) {
  MediaStore media("");
  auto v = media.put(string_payload("abc", "note.html", "text/html"), true);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->mime.rfind("audio/", 0), 0u);
}

TEST(MediaStoreTest, DirectoryKeepsFilesAndMetadataAcrossInstances) {
  store::testing::TempDir dir;
  const std::string bytes(200 * 1024, '\x07');
  std::string hash;
  {
    MediaStore media(dir.path().string());
    auto info = media.put(string_payload(bytes, "report.pdf", "application/pdf"), false);
    ASSERT_TRUE(info.ok()) << info.error();
    hash = info->sha256;
  }
  MediaStore again(dir.path().string());
  auto found = again.find(hash);
  ASSERT_TRUE(found);
  EXPECT_EQ(read_file(found->file), bytes);
  EXPECT_EQ(found->info.name, "report.pdf");
  EXPECT_EQ(found->info.mime, "application/pdf");
  EXPECT_FALSE(found->info.inline_disposition);
  EXPECT_FALSE(again.find(std::string(64, '0')));
  EXPECT_FALSE(again.find("../" + hash));
  // No temporary file is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string().find("incoming"), std::string::npos) << entry.path();
}

// A later delivery of the same bytes (another user's, as a voice note, under another name) never renames or
// retypes an earlier link: each (bytes, name) link keeps what it was first delivered as.
TEST(MediaStoreTest, EachLinkKeepsItsOwnNameAndType) {
  for (const bool on_disk : {false, true}) {
    store::testing::TempDir dir;
    MediaStore media(on_disk ? dir.path().string() : std::string());
    const std::string bytes = "the same bytes";
    auto file = media.put(string_payload(bytes, "report.pdf", "application/pdf"), false);
    ASSERT_TRUE(file.ok()) << file.error();
    auto voice = media.put(string_payload(bytes, "evil.html", "text/html"), true);
    ASSERT_TRUE(voice.ok()) << voice.error();
    ASSERT_EQ(file->sha256, voice->sha256);
    auto again = media.put(string_payload(bytes, "report.pdf", "text/html"), true);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->mime, "application/pdf") << "an existing link was retyped";
    EXPECT_FALSE(again->inline_disposition);

    auto first = media.find(file->sha256, "report.pdf");
    ASSERT_TRUE(first);
    EXPECT_EQ(first->info.name, "report.pdf");
    EXPECT_EQ(first->info.mime, "application/pdf");
    EXPECT_FALSE(first->info.inline_disposition);
    auto second = media.find(file->sha256, "evil.html");
    ASSERT_TRUE(second);
    EXPECT_EQ(second->info.mime.rfind("audio/", 0), 0u);
    EXPECT_TRUE(second->info.inline_disposition);
    // A name no delivery had: typed by that name, never inline.
    auto other = media.find(file->sha256, "x.txt");
    ASSERT_TRUE(other);
    EXPECT_EQ(other->info.name, "x.txt");
    EXPECT_FALSE(other->info.inline_disposition);
    // Without a name: the first delivery.
    EXPECT_EQ(media.find(file->sha256)->info.name, "report.pdf");
  }
}

TEST(MediaStoreTest, TheMediaFolderHasACap) {
  store::testing::TempDir dir;
  MediaStore media(dir.path().string(), MediaStore::kDefaultMemoryLimit, 100);
  auto first = media.put(string_payload(std::string(60, 'a'), "a.bin"), false);
  ASSERT_TRUE(first.ok()) << first.error();
  auto second = media.put(string_payload(std::string(60, 'b'), "b.bin"), false);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().find("the media folder is full"), std::string::npos) << second.error();
  // The same bytes again take no room.
  EXPECT_TRUE(media.put(string_payload(std::string(60, 'a'), "again.bin"), false).ok());
  // What is in the folder counts after a restart too.
  MediaStore again(dir.path().string(), MediaStore::kDefaultMemoryLimit, 100);
  EXPECT_FALSE(again.put(string_payload(std::string(60, 'c'), "c.bin"), false).ok());
}

// A frame that says one word: {"w": word}.
channels::web::SharedFrame word_frame(const char* word) {
  return std::make_shared<const channels::web::WebFrame>(boost::json::object{{"w", word}});
}

class RecordingWatcher final : public Watcher {
 public:
  void send(channels::web::SharedFrame frame) override { frames.push_back(channels::web::serialize(*frame)); }
  std::vector<std::string> frames;
};

TEST(ConversationHubTest, BroadcastReachesLiveWatchersOfThatConversationOnly) {
  ConversationHub hub;
  auto a = std::make_shared<RecordingWatcher>();
  auto b = std::make_shared<RecordingWatcher>();
  auto other = std::make_shared<RecordingWatcher>();
  hub.watch("u", "c", a);
  hub.watch("u", "c", b);
  hub.watch("u", "d", other);
  EXPECT_EQ(hub.broadcast("u", "c", word_frame("one")), 2u);
  EXPECT_EQ(a->frames, std::vector<std::string>{R"({"w":"one"})"});
  EXPECT_EQ(b->frames, std::vector<std::string>{R"({"w":"one"})"});
  EXPECT_TRUE(other->frames.empty());
  EXPECT_TRUE(hub.watched("u", "c"));
  EXPECT_FALSE(hub.watched("v", "c"));

  b.reset();  // gone without unwatch
  EXPECT_EQ(hub.broadcast("u", "c", word_frame("two")), 1u);
  hub.unwatch("u", "c", a.get());
  EXPECT_EQ(hub.broadcast("u", "c", word_frame("three")), 0u);
  EXPECT_EQ(hub.conversations(), 1u);  // only "d" is left

  hub.close();
  EXPECT_EQ(hub.broadcast("u", "d", word_frame("late")), 0u);
  EXPECT_TRUE(other->frames.empty());
  hub.watch("u", "d", other);
  EXPECT_EQ(hub.conversations(), 0u);
}

TEST(ClientHistoryTest, KeepsTheUsersOwnMessagesAndRepliesOnly) {
  store::testing::TempDir dir;
  auto store = store::testing::open_or_fail(dir.file("h.db"));
  ASSERT_TRUE(store::testing::append_history(*store, {"u", "c"},
                                             {{"user", "hi", "t1"},
                                              {"assistant", "call 1", "t1"},
                                              {"user", "results", "t1"},
                                              {"assistant", "call 2", "t1"},
                                              {"system", "note", "t1"},
                                              {"user", "again", "t2"}}));
  auto all = client_history(*store, "u", "c");
  ASSERT_TRUE(all.ok());
  const boost::json::array* history = &all->messages;
  ASSERT_EQ(history->size(), 4u) << boost::json::serialize(*history);
  EXPECT_EQ((*history)[0].at("text"), "hi");
  EXPECT_EQ((*history)[1].at("text"), "call 1");
  EXPECT_EQ((*history)[2].at("text"), "call 2");
  EXPECT_EQ((*history)[3].at("text"), "again");
  EXPECT_EQ((*history)[3].at("turn"), "t2");
  EXPECT_FALSE(all->more);
  // The window is the last `limit` stored messages.
  auto last = client_history(*store, "u", "c", HistoryWindow{1, 0, 0});
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->messages.size(), 1u);
  EXPECT_EQ(last->messages[0].at("text"), "again");
  EXPECT_TRUE(last->more);
}

// Megabytes stored in a conversation never make a megabyte greeting: newest first within the byte budget,
// a long text cut at a character boundary and marked, "more" set.
TEST(ClientHistoryTest, StaysWithinItsByteBounds) {
  store::testing::TempDir dir;
  auto store = store::testing::open_or_fail(dir.file("h.db"));
  const auto now = store::Clock::now();
  const store::Scope scope{"u", "c"};
  const std::string big(100'000, 'x');
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(store->append_message(scope, "user", big, "t" + std::to_string(i), now).ok());
  ASSERT_TRUE(
      store->append_message(scope, "user", std::string(10, 'a') + "\xC3\xA9" + "zz", "t10", now).ok());
  auto h = client_history(*store, "u", "c", HistoryWindow{50, 30'000, 16'000});
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->more);
  ASSERT_EQ(h->messages.size(), 2u);
  EXPECT_EQ(h->messages[1].at("turn"), "t10");
  EXPECT_FALSE(h->messages[1].as_object().contains("truncated"));
  EXPECT_EQ(h->messages[0].at("text").as_string().size(), 16'000u);
  EXPECT_EQ(h->messages[0].at("truncated"), true);
  std::size_t total = 0;
  for (const auto& m : h->messages) total += m.at("text").as_string().size();
  EXPECT_LE(total, 30'000u);
  // The newest message alone over the budget: its beginning, never half a character.
  auto tiny = client_history(*store, "u", "c", HistoryWindow{50, 11, 0});
  ASSERT_TRUE(tiny.ok());
  ASSERT_EQ(tiny->messages.size(), 1u);
  EXPECT_EQ(tiny->messages[0].at("text").as_string(), std::string(10, 'a'));
  EXPECT_EQ(tiny->messages[0].at("truncated"), true);
}

TEST(WsFramesTest, MediaUrlsPercentEncodeTheName) {
  MediaInfo info;
  info.sha256 = std::string(64, 'f');
  info.name = "my report/ä.pdf";
  EXPECT_EQ(media_url(info), "/media/" + std::string(64, 'f') + "/my%20report%2F%C3%A4.pdf");
}

TEST(MimeTypesTest, ByExtension) {
  test::expect_each(mime_for_name,
                    {
                        {"index.html", "text/html; charset=utf-8"},
                        {"app.JS", "text/javascript; charset=utf-8"},
                        {"style.css", "text/css; charset=utf-8"},
                        {"a/b.svg", "image/svg+xml"},
                        {"noext", "application/octet-stream"},
                        {"x.unknown", "application/octet-stream"},
                        // The one table (text/media_types.h): send-file's extensions are the
                        // gateway's too, and ".opus" is Ogg Opus.
                        {"note.opus", "audio/ogg; codecs=opus"},
                        {"photo.HEIC", "image/heic"},
                        {"notes.txt", "text/plain; charset=utf-8"},
                        {"data.json", "application/json"},      // no charset: not a text/ type
                        {".html", "application/octet-stream"},  // a leading dot is no extension
                    });
}

}  // namespace
}  // namespace sigil::server
