// The memory section of a model call (memory_context.h), over a real SQLite store.
#include "sigil/agent/memory_context.h"

#include <gtest/gtest.h>

#include <string>

#include "store/store_test_support.h"

namespace sigil::agent {
namespace {

using namespace std::chrono_literals;
using store::testing::kT0;

class MemoryContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::testing::open_or_fail(":memory:");
    ASSERT_NE(store_, nullptr);
  }
  MemorySection section(const store::Scope& scope, int tier = 2, store::TimePoint now = kT0 + 1h) {
    auto s = memory_section(*store_, scope, tier, now, config_);
    EXPECT_TRUE(s.ok()) << s.error();
    return s.ok() ? *s : MemorySection{};
  }
  std::unique_ptr<store::Store> store_;
  MemoryContextConfig config_;
  const store::Scope alice_{"alice", "c1", store::MemoryScope::per_user};
  const store::Scope bob_{"bob", "c1", store::MemoryScope::per_user};
};

TEST_F(MemoryContextTest, NothingStoredMeansNoSection) { EXPECT_EQ(section(alice_).text, ""); }

TEST_F(MemoryContextTest, FactsAndLiveItemsOfThisUserOnly) {
  ASSERT_TRUE(store_->remember(alice_, "likes green tea", kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "tz", R"("CET")", std::nullopt, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "trip", R"({"to":"Lisbon"})", kT0 + 2h, kT0).ok());
  ASSERT_TRUE(store_->set_item(alice_, "old", R"("gone")", kT0 + 30min, kT0).ok());  // expired at kT0 + 1h
  ASSERT_TRUE(store_->remember(bob_, "bob hates tea", kT0).ok());
  ASSERT_TRUE(store_->set_item(bob_, "secret", R"("bob's")", std::nullopt, kT0).ok());

  const MemorySection s = section(alice_);
  EXPECT_NE(s.text.find("## Memory"), std::string::npos);
  EXPECT_NE(s.text.find("- likes green tea\n"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("- tz: CET\n"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find(R"(- trip: {"to":"Lisbon"} (until )"), std::string::npos) << s.text;
  EXPECT_EQ(s.text.find("gone"), std::string::npos) << s.text;
  EXPECT_EQ(s.text.find("bob"), std::string::npos) << s.text;
  EXPECT_EQ(s.facts_shown, 1u);
  EXPECT_EQ(s.items_shown, 2u);
  EXPECT_EQ(s.left_out, 0u);
}

TEST_F(MemoryContextTest, TheBudgetHoldsWithTenThousandFacts) {
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_TRUE(store_
                    ->remember(alice_, "fact number " + std::to_string(i) + " about something the user said",
                               kT0 + i * 1ms)
                    .ok());
  }
  ASSERT_TRUE(store_->remember(alice_, "fact number 17 about something the user said", kT0 + 20s).ok());
  for (const int tier : {1, 2, 3}) {
    const MemorySection s = section(alice_, tier);
    const std::size_t budget = tier == 1 ? 2048 : tier == 2 ? 4096 : 8192;
    EXPECT_LE(s.text.size(), budget + 600) << "tier " << tier;  // + the fixed header and closing line
    EXPECT_GT(s.facts_shown, budget / 80) << "tier " << tier;
    EXPECT_EQ(s.facts_shown + s.left_out, 10'000u);
    EXPECT_NE(s.text.find("more stored entries not shown"), std::string::npos);
    // Said twice: first; then the newest.
    const auto first = s.text.find("- fact number 17 ");
    const auto newest = s.text.find("- fact number 9999 ");
    ASSERT_NE(first, std::string::npos);
    ASSERT_NE(newest, std::string::npos);
    EXPECT_LT(first, newest);
    EXPECT_EQ(s.text.find("- fact number 0 "), std::string::npos);
  }
}

TEST_F(MemoryContextTest, TheTierSetsTheDetailOfEachEntry) {
  const std::string note = "Allergic to peanuts. Carries an EpiPen.\n\nPrefers aisle seats on long flights.";
  ASSERT_TRUE(store_->remember(alice_, note, kT0).ok());
  EXPECT_NE(section(alice_, 1).text.find("- Allergic to peanuts.\n"), std::string::npos);
  EXPECT_NE(section(alice_, 2).text.find("- Allergic to peanuts. Carries an EpiPen.\n"), std::string::npos);
  EXPECT_NE(section(alice_, 3).text.find("EpiPen.  Prefers aisle seats"), std::string::npos)
      << section(alice_, 3).text;

  // The conversation's tier: the default until [REQUEST_TIER] keeps another.
  EXPECT_EQ(memory_tier(*store_, alice_, config_), 2);
  ASSERT_TRUE(store_->set_setting(alice_, store::Store::kMemoryTierSetting, "3", kT0).ok());
  EXPECT_EQ(memory_tier(*store_, alice_, config_), 3);
  ASSERT_TRUE(store_->set_setting(alice_, store::Store::kMemoryTierSetting, "9", kT0).ok());
  EXPECT_EQ(memory_tier(*store_, alice_, config_), 2);
}

TEST_F(MemoryContextTest, OneHugeItemDoesNotHideTheFacts) {
  ASSERT_TRUE(store_->remember(alice_, "likes green tea", kT0).ok());
  ASSERT_TRUE(
      store_->set_item(alice_, "notes", "\"" + std::string(60'000, 'x') + "\"", std::nullopt, kT0 + 1s).ok());
  const MemorySection s = section(alice_, 3);
  EXPECT_NE(s.text.find("- likes green tea\n"), std::string::npos);
  EXPECT_EQ(s.items_shown, 1u);
  EXPECT_LE(s.text.size(), 8192u + 600u);
}

TEST_F(MemoryContextTest, DisabledMeansNoSectionAndNoReads) {
  ASSERT_TRUE(store_->remember(alice_, "likes green tea", kT0).ok());
  config_.enabled = false;
  EXPECT_EQ(section(alice_).text, "");
}

}  // namespace
}  // namespace sigil::agent
