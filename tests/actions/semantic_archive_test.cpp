// The archive's semantic half: archived texts get vectors, searchArchive ranks by words and meaning together
// (hybrid_score), and falls back to keywords when the embeddings model is missing or failing.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "memory_test_support.h"
#include "sigil/actions/archive.h"
#include "sigil/actions/memory.h"

namespace sigil::actions {
namespace {

using namespace testing;

// A tiny embeddings model: each word maps to a concept axis, so words of one meaning share a direction
// ("advertising" and "promotion" are both marketing) while sharing no letters.
std::vector<float> meaning(const std::string& text) {
  static const std::map<std::string, int> kAxis = {{"advertising", 0}, {"promotion", 0}, {"marketing", 0},
                                                   {"ideas", 1},       {"plan", 1},      {"tea", 2},
                                                   {"green", 2},       {"cat", 3},       {"dog", 3}};
  std::vector<float> v(5, 0.0f);
  v[4] = 0.05f;  // every text a little alike
  std::string word;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c =
        i < text.size() ? static_cast<char>(std::tolower(static_cast<unsigned char>(text[i]))) : ' ';
    if (std::isalpha(static_cast<unsigned char>(c))) {
      word += c;
      continue;
    }
    if (auto it = kAxis.find(word); it != kAxis.end()) v[static_cast<std::size_t>(it->second)] += 1.0f;
    word.clear();
  }
  return v;
}

class SemanticArchive : public ::testing::Test {
 protected:
  SemanticArchive() {
    ArchiveConfig config;
    ArchiveConfig::Embeddings e;
    e.model = "toy";
    e.embed = [this](const std::vector<std::string>& texts)
        -> sigil::Result<std::vector<std::vector<float>>, std::string> {
      ++calls;
      if (failing) return Failure{std::string("embeddings: HTTP 500: overloaded")};
      std::vector<std::vector<float>> out;
      for (const std::string& t : texts) out.push_back(meaning(t));
      if (not_a_number) out.front().front() = NAN;  // the model answered, but the store refuses the vector
      return out;
    };
    e.available = [this] { return available; };
    config.embeddings = std::move(e);
    add_memory_handlers(h.handlers);
    add_archive_handlers(h.handlers, config);
  }

  void archive(std::string_view id, std::string_view text) {
    HandlerResult r =
        h.run("setMemory", R"({"itemId":")" + std::string(id) + R"(","value":")" + std::string(text) + "\"}");
    ASSERT_TRUE(is_ok(r)) << r.message;
    r = h.run("archiveItems", R"({"items":[")" + std::string(id) + R"("]})");
    ASSERT_TRUE(is_ok(r)) << r.message;
    last_archive_message = r.message;
  }

  HandlerResult search(std::string_view query) {
    return h.run("searchArchive", R"({"query":")" + std::string(query) + R"("})");
  }

  Harness h;
  int calls = 0;
  bool failing = false;
  bool not_a_number = false;
  bool available = true;
  std::string last_archive_message;
};

TEST_F(SemanticArchive, AQueryFindsATextOfTheSameMeaningWithNoWordInCommon) {
  archive("ads", "promotion plan for the spring fair");
  archive("drink", "green tea, no sugar");
  EXPECT_EQ(calls, 2);
  const HandlerResult r = search("advertising ideas");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.result.at("mode").as_string(), "hybrid");
  const auto& hits = r.result.at("hits").as_array();
  ASSERT_FALSE(hits.empty()) << r.message;
  EXPECT_EQ(hits[0].at("title").as_string(), "ads") << r.message;
  EXPECT_GT(hits[0].at("score").as_double(), 0.5);
  if (hits.size() > 1) {
    EXPECT_LT(hits[1].at("score").as_double(), hits[0].at("score").as_double());
  }

  // Keywords alone miss it: the same search with the model gone.
  available = false;
  const HandlerResult k = search("advertising ideas");
  ASSERT_TRUE(is_ok(k)) << k.message;
  EXPECT_EQ(k.result.at("mode").as_string(), "keyword");
  EXPECT_TRUE(k.result.at("hits").as_array().empty()) << k.message;
}

TEST_F(SemanticArchive, AnExactWordStillLiftsAHit) {
  archive("a", "marketing ideas for tea");
  archive("b", "promotion plan");
  const HandlerResult r = search("tea promotion");
  ASSERT_TRUE(is_ok(r)) << r.message;
  const auto& hits = r.result.at("hits").as_array();
  ASSERT_EQ(hits.size(), 2u) << r.message;
  for (const auto& hit : hits) {
    const double s = hit.at("score").as_double();
    EXPECT_GT(s, 0.0);
    EXPECT_LE(s, 1.0);
  }
}

TEST_F(SemanticArchive, AFailingModelLeavesKeywordSearchWorking) {
  failing = true;
  archive("drink", "green tea, no sugar");
  EXPECT_NE(last_archive_message.find("found by keywords only (embeddings: HTTP 500: overloaded)"),
            std::string::npos)
      << last_archive_message;
  const HandlerResult r = search("tea");
  ASSERT_TRUE(is_ok(r)) << r.message;
  EXPECT_EQ(r.result.at("mode").as_string(), "keyword");
  ASSERT_EQ(r.result.at("hits").as_array().size(), 1u);
  // The model back: the entry archived without a vector is still found by its words.
  failing = false;
  const HandlerResult again = search("tea");
  EXPECT_EQ(again.result.at("mode").as_string(), "hybrid");
  ASSERT_EQ(again.result.at("hits").as_array().size(), 1u) << again.message;
}

TEST_F(SemanticArchive, AVectorTheStoreRefusesLeavesTheEntryFoundByKeywords) {
  not_a_number = true;
  archive("drink", "green tea, no sugar");
  EXPECT_NE(last_archive_message.find("found by keywords only ("), std::string::npos) << last_archive_message;
  EXPECT_EQ(last_archive_message.find("embeddings:"), std::string::npos) << last_archive_message;
  not_a_number = false;
  const HandlerResult r = search("tea");
  ASSERT_TRUE(is_ok(r)) << r.message;
  ASSERT_EQ(r.result.at("hits").as_array().size(), 1u) << r.message;
  EXPECT_EQ(r.result.at("hits").as_array()[0].at("title").as_string(), "drink");
}

TEST_F(SemanticArchive, VectorsStayWithTheirUserAndGoWithTheirEntry) {
  archive("ads", "promotion plan");
  const store::Scope alice{kAlice.user, kAlice.conversation, store::MemoryScope::per_user};
  const store::Scope bob{"bob", kAlice.conversation, store::MemoryScope::per_user};
  const std::vector<float> q = meaning("advertising");
  auto mine = h.store->nearest_archive(alice, "toy", q, 5);
  ASSERT_TRUE(mine.ok()) << mine.error();
  ASSERT_EQ(mine->size(), 1u);
  EXPECT_GT(mine->front().score, 0.6);  // "promotion plan" against "advertising": one shared axis of two
  auto theirs = h.store->nearest_archive(bob, "toy", q, 5);
  ASSERT_TRUE(theirs.ok());
  EXPECT_TRUE(theirs->empty());
  // Another model's vectors, or another length, are not candidates; another user's entry cannot get one.
  EXPECT_TRUE(h.store->nearest_archive(alice, "other", q, 5)->empty());
  EXPECT_TRUE(h.store->nearest_archive(alice, "toy", std::vector<float>{1, 0}, 5)->empty());
  EXPECT_FALSE(h.store->set_archive_vector(bob, mine->front().id, "toy", q).ok());
  EXPECT_FALSE(h.store->set_archive_vector(alice, mine->front().id, "toy", std::vector<float>{}).ok());
  EXPECT_FALSE(h.store->set_archive_vector(alice, mine->front().id, "toy", std::vector<float>{NAN}).ok());
  // An entry that goes takes its vector along (the foreign key cascades; without it the delete would fail).
  const store::Scope kept_here{kAlice.user, kAlice.conversation, store::MemoryScope::per_conversation};
  auto id = h.store->add_archive_text(kept_here, "note", "promotion plan", "note", kT0);
  ASSERT_TRUE(id.ok()) << id.error();
  ASSERT_TRUE(h.store->set_archive_vector(kept_here, *id, "toy", q).ok());
  EXPECT_EQ(h.store->nearest_archive(kept_here, "toy", q, 5)->size(), 1u);
  auto deleted = h.store->delete_conversation(kept_here);
  ASSERT_TRUE(deleted.ok()) << deleted.error();
  EXPECT_TRUE(h.store->nearest_archive(kept_here, "toy", q, 5)->empty());
  EXPECT_EQ(h.store->nearest_archive(alice, "toy", q, 5)->size(), 1u);  // per-user memory stays
}

}  // namespace
}  // namespace sigil::actions
