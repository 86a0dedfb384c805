// The Store's pure helpers: exactly-once keys, FTS query escaping, scores, request-tier texts, Result.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "sigil/store/store.h"

namespace sigil::store {
namespace {

TEST(StoreOnceKey, IsHexSha256AndStable) {
  const std::string key = once_key("conv", "turn-1", 0, "remember", R"({"fact":"tea"})");
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(key, once_key("conv", "turn-1", 0, "remember", R"({"fact":"tea"})"));
}

TEST(StoreOnceKey, EveryFieldCountsAndBoundariesCannotShift) {
  std::set<std::string> keys = {
      once_key("conv", "turn-1", 0, "remember", "{}"),
      once_key("conw", "turn-1", 0, "remember", "{}"),
      once_key("conv", "turn-2", 0, "remember", "{}"),
      once_key("conv", "turn-1", 1, "remember", "{}"),
      once_key("conv", "turn-1", 0, "forget", "{}"),
      once_key("conv", "turn-1", 0, "remember", "[]"),
      // Moving bytes from one field to the next changes the key.
      once_key("ab", "c", 0, "x", "{}"),
      once_key("a", "bc", 0, "x", "{}"),
      once_key("", "", 10, "", ""),
      once_key("", "", 1, "0", ""),
  };
  EXPECT_EQ(keys.size(), 10u);
}

TEST(StoreFtsQuery, EveryWordIsAQuotedPhrase) {
  EXPECT_EQ(fts_match_query("green tea"), R"("green" OR "tea")");
  EXPECT_EQ(fts_match_query(R"(say "hi")"), R"("say" OR """hi""")");
  EXPECT_EQ(fts_match_query("NEAR( a* -x OR col:y"), R"("NEAR(" OR "a*" OR "-x" OR "OR" OR "col:y")");
  EXPECT_EQ(fts_match_query("  \t\n "), "");
  EXPECT_EQ(fts_match_query(""), "");
  EXPECT_EQ(fts_match_query(std::string_view("a\0b", 3)), R"("a" OR "b")");
}

TEST(StoreFtsQuery, KeepsAtMost64Words) {
  std::string query;
  for (int i = 0; i < 200; ++i) query += "w" + std::to_string(i) + " ";
  const std::string match = fts_match_query(query);
  std::size_t ors = 0;
  for (std::size_t at = match.find(" OR "); at != std::string::npos; at = match.find(" OR ", at + 1)) ++ors;
  EXPECT_EQ(ors, 63u);
}

TEST(StoreScore, Bm25MapsIntoZeroOne) {
  EXPECT_DOUBLE_EQ(score_from_bm25(-1.0), 0.5);
  EXPECT_DOUBLE_EQ(score_from_bm25(-3.0), 0.75);
  EXPECT_DOUBLE_EQ(score_from_bm25(-9.0), 0.9);
  EXPECT_GT(score_from_bm25(-1e-6), 0.0);
  EXPECT_LE(score_from_bm25(-1e300), 1.0);
  EXPECT_EQ(score_from_bm25(0.0), 0.0);
  EXPECT_EQ(score_from_bm25(2.0), 0.0);
  EXPECT_EQ(score_from_bm25(std::nan("")), 0.0);
  EXPECT_LT(score_from_bm25(-2.0), score_from_bm25(-2.5));  // lower bm25 is better
}

TEST(StoreTier, LevelsOfDetail) {
  const std::string text =
      "  Paris trip planned. We fly on May 3rd!\nHotel booked.\n\nSecond paragraph here.  ";
  EXPECT_EQ(tier_text(text, 1), "Paris trip planned.");
  EXPECT_EQ(tier_text(text, 0), "Paris trip planned.");
  EXPECT_EQ(tier_text(text, 2), "Paris trip planned. We fly on May 3rd!\nHotel booked.");
  EXPECT_EQ(tier_text(text, 3),
            "Paris trip planned. We fly on May 3rd!\nHotel booked.\n\nSecond paragraph here.");
  EXPECT_EQ(tier_text("Version 3.5 is out", 1), "Version 3.5 is out");
  EXPECT_EQ(tier_text("first line\nsecond line", 1), "first line");
  EXPECT_EQ(tier_text("東京に行きます。明日です。", 1), "東京に行きます。");
  EXPECT_EQ(tier_text("", 1), "");
}

TEST(StoreTier, LongTextsAreCutAtUtf8Boundaries) {
  std::string text;
  for (int i = 0; i < 150; ++i) text += "é";  // 300 bytes, one sentence
  const std::string cut = tier_text(text, 1);
  EXPECT_LE(cut.size(), 200u + 3u);
  ASSERT_GE(cut.size(), 3u);
  EXPECT_EQ(cut.substr(cut.size() - 3), "\u2026");
  const std::string body = cut.substr(0, cut.size() - 3);
  EXPECT_EQ(body.size() % 2, 0u);  // whole "é"s only
  EXPECT_EQ(tier_text(text, 3), text);
}

TEST(StoreResult, ValueOrError) {
  Result<int> good = 42;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 42);
  EXPECT_EQ(good.error(), "");
  Result<int> bad = Error{"nope"};
  EXPECT_FALSE(bad);
  EXPECT_EQ(bad.error(), "nope");
  Status fine;
  EXPECT_TRUE(fine.ok());
  Status failed = Error{"broken"};
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.error(), "broken");
}

}  // namespace
}  // namespace sigil::store
