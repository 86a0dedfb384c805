// SqliteStore: memory items, facts, the archive and conversation history.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "store/store_test_support.h"

namespace sigil::store::testing {
namespace {

using namespace std::chrono_literals;

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_or_fail(":memory:");
    ASSERT_NE(store_, nullptr);
  }

  std::vector<std::string> item_ids(const Scope& scope, TimePoint now) {
    return picked(store_->list_items(scope, now), [](const MemoryItem& item) { return item.item_id; });
  }
  std::vector<std::string> fact_texts(const Scope& scope) {
    return picked(store_->list_facts(scope), [](const Fact& fact) { return fact.text; });
  }
  std::vector<std::string> archive_titles(const Scope& scope, std::string_view query, int top_k = 10,
                                          double min_score = 0) {
    auto hits = store_->search_archive(scope, query, top_k, min_score);
    EXPECT_TRUE(hits.ok()) << query << ": " << hits.error();
    std::vector<std::string> titles;
    if (hits.ok())
      for (const auto& hit : *hits) titles.push_back(hit.title);
    return titles;
  }

  std::unique_ptr<Store> store_;
  const Scope alice_{"alice", "chat-1"};
};

// ------------------------------------------------------------------------------------------ memory items

TEST_F(SqliteStoreTest, MemorySetGetListDelete) {
  ASSERT_TRUE(store_->set_item(alice_, "city", R"("Paris")", std::nullopt, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "budget", R"({"eur": 1200, "flex": true})", std::nullopt, kT0).ok());

  auto city = store_->get_item(alice_, "city", kT0);
  ASSERT_TRUE(city.ok()) << city.error();
  ASSERT_TRUE(city->has_value());
  EXPECT_EQ((*city)->item_id, "city");
  EXPECT_EQ((*city)->value_json, R"("Paris")");
  EXPECT_EQ((*city)->created_at, kT0);
  EXPECT_FALSE((*city)->expires_at.has_value());

  EXPECT_EQ(item_ids(alice_, kT0), (std::vector<std::string>{"budget", "city"}));

  auto missing = store_->get_item(alice_, "nothing", kT0);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());

  auto deleted = store_->delete_item(alice_, "city", kT0);
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(*deleted);
  auto again = store_->delete_item(alice_, "city", kT0);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(item_ids(alice_, kT0), (std::vector<std::string>{"budget"}));
}

TEST_F(SqliteStoreTest, MemoryReplaceKeepsCreatedAtAndUpdatesValue) {
  ASSERT_TRUE(store_->set_item(alice_, "k", "1", std::nullopt, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "k", "[1,2]", kT0 + 1h, kT0 + 5min).ok());
  auto item = store_->get_item(alice_, "k", kT0 + 10min);
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->value_json, "[1,2]");
  EXPECT_EQ((*item)->created_at, kT0);
  EXPECT_EQ((*item)->updated_at, kT0 + 5min);
  EXPECT_EQ((*item)->expires_at, kT0 + 1h);
}

TEST_F(SqliteStoreTest, MemoryRejectsBadInput) {
  EXPECT_FALSE(store_->set_item(alice_, "k", "{not json", std::nullopt, kT0).ok());
  EXPECT_FALSE(store_->set_item(alice_, "k", "", std::nullopt, kT0).ok());
  EXPECT_FALSE(store_->set_item(alice_, "", "1", std::nullopt, kT0).ok());
  EXPECT_FALSE(store_->set_item(alice_, std::string(600, 'k'), "1", std::nullopt, kT0).ok());
  EXPECT_FALSE(store_->set_item(Scope{"", "c"}, "k", "1", std::nullopt, kT0).ok());
  const Status bad = store_->set_item(alice_, "k", "{not json", std::nullopt, kT0);
  EXPECT_NE(bad.error().find("JSON"), std::string::npos) << bad.error();
  EXPECT_TRUE(item_ids(alice_, kT0).empty());
}

// Expiry holds on every read without cleanup ever running.
TEST_F(SqliteStoreTest, MemoryExpiredItemsAreInvisibleToEveryRead) {
  ASSERT_TRUE(store_->set_item(alice_, "short", R"("soon gone")", kT0 + 1min, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "other", R"("also gone")", kT0 + 1min, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "forever", "true", std::nullopt, kT0).ok());

  auto before = store_->get_item(alice_, "short", kT0 + 30s);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(before->has_value());

  const TimePoint later = kT0 + 2min;
  auto after = store_->get_item(alice_, "short", later);
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
  EXPECT_FALSE(store_->get_item(alice_, "short", kT0 + 1min)->has_value());  // expires_at itself is expired
  EXPECT_EQ(item_ids(alice_, later), (std::vector<std::string>{"forever"}));

  auto archived = store_->archive_items(alice_, std::vector<std::string>{"short"}, later);
  ASSERT_TRUE(archived.ok());
  EXPECT_EQ(archived->archived, 0u);
  EXPECT_EQ(archived->missing, (std::vector<std::string>{"short"}));

  auto deleted = store_->delete_item(alice_, "short", later);  // removed, but reported as absent
  ASSERT_TRUE(deleted.ok());
  EXPECT_FALSE(*deleted);

  // Setting an expired id again starts a new item.
  ASSERT_TRUE(store_->set_item(alice_, "other", R"("back")", std::nullopt, later).ok());
  auto back = store_->get_item(alice_, "other", later);
  ASSERT_TRUE(back.ok() && back->has_value());
  EXPECT_EQ((*back)->created_at, later);
  EXPECT_EQ((*back)->value_json, R"("back")");
}

TEST_F(SqliteStoreTest, MemoryCleanupRemovesOnlyExpired) {
  const Scope bob{"bob", "chat-1"};
  ASSERT_TRUE(store_->set_item(alice_, "a1", "1", kT0 + 1min, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "a2", "2", kT0 + 1h, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "a3", "3", std::nullopt, kT0).ok());
  ASSERT_TRUE(store_->set_item(bob, "b1", "1", kT0 + 1min, kT0).ok());

  auto cleaned = store_->cleanup_expired(alice_, kT0 + 2min);
  ASSERT_TRUE(cleaned.ok());
  EXPECT_EQ(*cleaned, 1u);
  EXPECT_EQ(item_ids(alice_, kT0), (std::vector<std::string>{"a2", "a3"}));  // a1's row is really gone
  EXPECT_EQ(item_ids(bob, kT0), (std::vector<std::string>{"b1"}));           // bob's untouched
}

TEST_F(SqliteStoreTest, MemoryPerUserOrPerConversation) {
  const Scope chat2{"alice", "chat-2"};
  ASSERT_TRUE(store_->set_item(alice_, "shared", "1", std::nullopt, kT0).ok());
  EXPECT_EQ(item_ids(chat2, kT0), (std::vector<std::string>{"shared"}));  // per user by default

  Scope own1 = alice_;
  own1.memory = MemoryScope::per_conversation;
  Scope own2 = chat2;
  own2.memory = MemoryScope::per_conversation;
  ASSERT_TRUE(store_->set_item(own1, "private", "2", std::nullopt, kT0).ok());
  EXPECT_EQ(item_ids(own1, kT0), (std::vector<std::string>{"private"}));
  EXPECT_TRUE(item_ids(own2, kT0).empty());
  EXPECT_EQ(item_ids(alice_, kT0), (std::vector<std::string>{"shared"}));

  ASSERT_TRUE(store_->remember(own1, "only in chat 1", kT0).ok());
  EXPECT_TRUE(fact_texts(own2).empty());
  EXPECT_TRUE(fact_texts(alice_).empty());
}

// ------------------------------------------------------------------------------------------ facts

TEST_F(SqliteStoreTest, FactsRememberTrimsAndDeduplicates) {
  auto added = store_->remember(alice_, "  likes green tea \n", kT0);
  ASSERT_TRUE(added.ok());
  EXPECT_TRUE(*added);
  auto again = store_->remember(alice_, "likes green tea", kT0 + 1s);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  ASSERT_TRUE(store_->remember(alice_, "lives in Lyon", kT0 + 2s).ok());
  EXPECT_FALSE(store_->remember(alice_, "   ", kT0).ok());

  auto facts = store_->list_facts(alice_);
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->size(), 2u);
  EXPECT_EQ((*facts)[0].text, "likes green tea");
  EXPECT_EQ((*facts)[0].created_at, kT0);
  EXPECT_EQ((*facts)[1].text, "lives in Lyon");
}

TEST_F(SqliteStoreTest, FactsForgetExactFirstThenSubstringIgnoringCase) {
  for (const char* fact : {"likes tea", "likes green tea", "Tea lover", "drives a car"})
    ASSERT_TRUE(store_->remember(alice_, fact, kT0).ok());

  auto exact = store_->forget(alice_, "likes tea");  // exact: only that one, not "likes green tea"
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(*exact, 1u);
  EXPECT_EQ(fact_texts(alice_), (std::vector<std::string>{"likes green tea", "Tea lover", "drives a car"}));

  auto substring = store_->forget(alice_, " TEA ");
  ASSERT_TRUE(substring.ok());
  EXPECT_EQ(*substring, 2u);
  EXPECT_EQ(fact_texts(alice_), (std::vector<std::string>{"drives a car"}));

  auto none = store_->forget(alice_, "bicycle");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 0u);
  EXPECT_FALSE(store_->forget(alice_, "").ok());
  // LIKE wildcards are plain characters.
  auto wildcard = store_->forget(alice_, "%");
  ASSERT_TRUE(wildcard.ok());
  EXPECT_EQ(*wildcard, 0u);
}

TEST_F(SqliteStoreTest, FactsCorrect) {
  for (const char* fact : {"lives in Lyon", "likes tea", "likes green tea"})
    ASSERT_TRUE(store_->remember(alice_, fact, kT0).ok());

  auto by_substring = store_->correct(alice_, "LYON", "lives in Paris", kT0);
  ASSERT_TRUE(by_substring.ok()) << by_substring.error();
  EXPECT_EQ(by_substring->replaced, 1u);
  EXPECT_EQ(by_substring->old_text, "lives in Lyon");
  EXPECT_EQ(fact_texts(alice_), (std::vector<std::string>{"lives in Paris", "likes tea", "likes green tea"}));

  auto exact = store_->correct(alice_, "likes tea", "likes black tea", kT0);  // exact wins over 2 substrings
  ASSERT_TRUE(exact.ok()) << exact.error();
  EXPECT_EQ(exact->replaced, 1u);

  auto ambiguous = store_->correct(alice_, "tea", "likes coffee", kT0);
  EXPECT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.error().find("2 facts"), std::string::npos) << ambiguous.error();

  auto none = store_->correct(alice_, "bicycle", "rides a bike", kT0);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->replaced, 0u);

  // Correcting into a fact that already exists merges the two.
  auto merged = store_->correct(alice_, "black", "likes green tea", kT0);
  ASSERT_TRUE(merged.ok()) << merged.error();
  EXPECT_EQ(merged->replaced, 1u);
  EXPECT_EQ(fact_texts(alice_), (std::vector<std::string>{"lives in Paris", "likes green tea"}));
  EXPECT_FALSE(store_->correct(alice_, "", "x", kT0).ok());
  EXPECT_FALSE(store_->correct(alice_, "x", " ", kT0).ok());
}

// ------------------------------------------------------------------------------------------ archive

TEST_F(SqliteStoreTest, ArchiveItemsMovesLiveItemsInOneGo) {
  ASSERT_TRUE(store_->set_item(alice_, "trip", R"("Flight to Lisbon on Friday")", std::nullopt, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "prefs", R"({"seat":"window"})", std::nullopt, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "keep", "1", std::nullopt, kT0).ok());

  const std::vector<std::string> ids = {"trip", "prefs", "ghost", "trip"};
  auto outcome = store_->archive_items(alice_, ids, kT0 + 1min);
  ASSERT_TRUE(outcome.ok()) << outcome.error();
  EXPECT_EQ(outcome->archived, 2u);
  EXPECT_EQ(outcome->missing, (std::vector<std::string>{"ghost"}));
  EXPECT_EQ(item_ids(alice_, kT0 + 1min), (std::vector<std::string>{"keep"}));

  auto hits = store_->search_archive(alice_, "lisbon", 10, 0);
  ASSERT_TRUE(hits.ok()) << hits.error();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].title, "trip");
  EXPECT_EQ((*hits)[0].text, "Flight to Lisbon on Friday");  // a JSON string is archived as its text
  EXPECT_EQ((*hits)[0].source, "memory");
  EXPECT_EQ((*hits)[0].created_at, kT0 + 1min);

  EXPECT_EQ(archive_titles(alice_, "window"), (std::vector<std::string>{"prefs"}));  // JSON kept as text
  EXPECT_EQ(archive_titles(alice_, "prefs"), (std::vector<std::string>{"prefs"}));   // titles are searched
}

TEST_F(SqliteStoreTest, ArchiveSearchRanksTopKAndMinScore) {
  // Filler texts keep the query words rare, so their IDF is positive.
  for (int i = 0; i < 12; ++i)
    ASSERT_TRUE(store_
                    ->add_archive_text(alice_, "filler" + std::to_string(i),
                                       "unrelated note number " + std::to_string(i), "test", kT0)
                    .ok());
  ASSERT_TRUE(store_
                  ->add_archive_text(alice_, "once",
                                     "we talked about tea once, among other things "
                                     "like the weather and the train schedule",
                                     "chat", kT0)
                  .ok());
  ASSERT_TRUE(
      store_->add_archive_text(alice_, "lots", "tea tea tea: green tea, black tea", "chat", kT0).ok());
  ASSERT_TRUE(store_->add_archive_text(alice_, "both", "green tea in Kyoto", "chat", kT0).ok());

  auto hits = store_->search_archive(alice_, "green tea", 10, 0);
  ASSERT_TRUE(hits.ok()) << hits.error();
  ASSERT_EQ(hits->size(), 3u);
  EXPECT_EQ((*hits)[2].title, "once");  // one mention in a long text ranks last
  for (std::size_t i = 0; i < hits->size(); ++i) {
    EXPECT_GT((*hits)[i].score, 0.0);
    EXPECT_LE((*hits)[i].score, 1.0);
    if (i > 0) {
      EXPECT_GE((*hits)[i - 1].score, (*hits)[i].score);
    }
  }

  EXPECT_EQ(archive_titles(alice_, "green tea", 2).size(), 2u);
  EXPECT_TRUE(archive_titles(alice_, "green tea", 0).empty());
  EXPECT_TRUE(archive_titles(alice_, "green tea", -3).empty());

  // min_score sits between the second and third hits: only the first two pass.
  const double between = ((*hits)[1].score + (*hits)[2].score) / 2;
  ASSERT_LT((*hits)[2].score, (*hits)[1].score);
  EXPECT_EQ(archive_titles(alice_, "green tea", 10, between).size(), 2u);
  EXPECT_TRUE(archive_titles(alice_, "green tea", 10, 1.0).empty());

  EXPECT_FALSE(store_->search_archive(alice_, "tea", 10, -0.1).ok());
  EXPECT_FALSE(store_->search_archive(alice_, "tea", 10, 1.5).ok());
  EXPECT_FALSE(store_->search_archive(alice_, "tea", 10, std::nan("")).ok());
  EXPECT_TRUE(archive_titles(alice_, "   ").empty());
  EXPECT_FALSE(store_->add_archive_text(alice_, "t", "  ", "s", kT0).ok());
}

// Whatever the query, it never fails and never acts as FTS5 syntax.
TEST_F(SqliteStoreTest, ArchiveHostileQueriesAreInert) {
  ASSERT_TRUE(store_->add_archive_text(alice_, "alpha", "alpha beta", "s", kT0).ok());
  ASSERT_TRUE(store_->add_archive_text(alice_, "gamma", "gamma delta", "s", kT0).ok());
  ASSERT_TRUE(store_->add_archive_text(alice_, "cafe", "un café crème à Paris", "s", kT0).ok());
  ASSERT_TRUE(store_->add_archive_text(alice_, "japan", "東京 の 天気", "s", kT0).ok());
  for (int i = 0; i < 8; ++i)
    ASSERT_TRUE(store_->add_archive_text(alice_, "n" + std::to_string(i), "note", "s", kT0).ok());

  using Titles = std::vector<std::string>;
  const std::string nul_query("alpha\0beta", 10);
  const std::string invalid_utf8 = "\xff\xfe alpha \xc3";
  std::string huge;
  for (int i = 0; i < 5000; ++i) huge += "zz" + std::to_string(i) + " ";
  const std::pair<std::string, Titles> cases[] = {
      {"\"", {}},
      {"\"\"\"", {}},
      {"*", {}},
      {"alph*", {}},  // no prefix search
      {"NEAR(", {}},
      {"NEAR(alpha gamma)", {"gamma"}},  // the phrases "near alpha" and "gamma", not a NEAR group
      {"OR", {}},
      {"AND", {}},
      {"NOT alpha", {"alpha"}},  // NOT is a word here
      {"-alpha", {"alpha"}},     // not a negation
      {"title:gamma", {}},       // no column filter: the phrase "title gamma" is nowhere
      {"{title body}: alpha", {"alpha"}},
      {"^alpha", {"alpha"}},
      {"alpha + gamma", {"alpha", "gamma"}},
      {"(alpha", {"alpha"}},
      {"')--; DROP TABLE archive;", {}},
      {"cafe", {"cafe"}},  // diacritics folded
      {"CRÈME", {"cafe"}},
      {"東京", {"japan"}},
      {"🙂", {}},
      {nul_query, {"alpha"}},
      {invalid_utf8, {"alpha"}},
      {huge, {}},
  };
  for (const auto& [query, expected] : cases) {
    Titles titles = archive_titles(alice_, query);
    std::sort(titles.begin(), titles.end());
    EXPECT_EQ(titles, expected) << "query: " << query.substr(0, 40);
  }
  // The store still works afterwards (nothing was dropped).
  EXPECT_EQ(archive_titles(alice_, "delta"), (Titles{"gamma"}));
}

// ------------------------------------------------------------------------------------------ history

TEST_F(SqliteStoreTest, HistoryAppendRecentAndSearch) {
  const char* texts[] = {"Plan a trip to Rome. We need hotels.", "Sure, here are three hotels in Rome.",
                         "What about the weather?", "Sunny all week."};
  for (int i = 0; i < 4; ++i) {
    auto id = store_->append_message(alice_, i % 2 == 0 ? "user" : "assistant", texts[i],
                                     "turn-" + std::to_string(i / 2), kT0 + std::chrono::seconds(i));
    ASSERT_TRUE(id.ok()) << id.error();
  }
  auto recent = store_->recent_messages(alice_, 3);
  ASSERT_TRUE(recent.ok()) << recent.error();
  ASSERT_EQ(recent->size(), 3u);
  EXPECT_EQ((*recent)[0].text, texts[1]);  // oldest of the last three first
  EXPECT_EQ((*recent)[2].text, texts[3]);
  EXPECT_EQ((*recent)[2].role, "assistant");
  EXPECT_EQ((*recent)[2].turn_id, "turn-1");
  EXPECT_EQ((*recent)[2].at, kT0 + 3s);
  EXPECT_EQ(store_->recent_messages(alice_, 100)->size(), 4u);
  EXPECT_TRUE(store_->recent_messages(alice_, 0)->empty());
  EXPECT_TRUE(store_->recent_messages(Scope{"alice", "chat-2"}, 10)->empty());  // history is per conversation

  auto found = store_->search_messages(alice_, "hotels rome", 10);
  ASSERT_TRUE(found.ok()) << found.error();
  ASSERT_EQ(found->size(), 2u);
  for (const auto& hit : *found) {
    EXPECT_GT(hit.score, 0.0);
    EXPECT_NE(hit.message.text.find("Rome"), std::string::npos);
  }
  EXPECT_EQ(tier_text(found->back().message.text, 1).empty(), false);
  EXPECT_TRUE(store_->search_messages(alice_, "NEAR(\"", 10)->empty());
  EXPECT_TRUE(store_->search_messages(alice_, "rome", 0)->empty());
}

}  // namespace
}  // namespace sigil::store::testing
