// Store::once_begin_many / once_complete_many (spec 12.4, group commit): one answer per key, in order, the
// same answers as one call per key, a bad key failing alone, and in a file one fsync for a whole batch.
#include <string>
#include <vector>

#include "../support/counting_vfs.h"
#include "store_test_support.h"

namespace sigil::store::testing {
namespace {

const Scope kScope{"alice", "conv-1", MemoryScope::per_user};

std::string key(int i) {
  return once_key("conv-1", "turn-1", static_cast<std::uint32_t>(i), "remember", "{}");
}

TEST(OnceMany, AnswersEachKeyInOrderAsSingleCallsWould) {
  for (const bool in_file : {false, true}) {
    TempDir dir;
    auto store = open_or_fail(in_file ? dir.file("s.db") : ":memory:");
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->once_complete(kScope, key(1), R"({"ok":true})", kT0).ok());
    ASSERT_TRUE(store->once_begin(kScope, key(2), kT0).ok());
    const std::vector<std::string> keys = {key(0), key(1), key(2), "", key(3)};
    auto begun = store->once_begin_many(kScope, keys, kT0);
    ASSERT_EQ(begun.size(), keys.size());
    ASSERT_TRUE(begun[0].ok());
    EXPECT_EQ(begun[0]->state, OnceState::fresh);
    ASSERT_TRUE(begun[1].ok());
    EXPECT_EQ(begun[1]->state, OnceState::completed);
    EXPECT_EQ(begun[1]->result_json, R"({"ok":true})");
    ASSERT_TRUE(begun[2].ok());
    EXPECT_EQ(begun[2]->state, OnceState::running);
    EXPECT_FALSE(begun[3].ok()) << "an empty key is refused alone";
    ASSERT_TRUE(begun[4].ok());
    EXPECT_EQ(begun[4]->state, OnceState::fresh);

    const std::string k0 = key(0), k3 = key(3);  // OnceCompletion only views its key
    const std::vector<OnceCompletion> done = {{k0, R"({"ok":true})"}, {k3, "not json"}};
    auto completed = store->once_complete_many(kScope, done, kT0);
    ASSERT_EQ(completed.size(), 2u);
    EXPECT_TRUE(completed[0].ok());
    EXPECT_FALSE(completed[1].ok()) << "a result that is not JSON is refused";
    auto again = store->once_begin(kScope, key(0), kT0);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->state, OnceState::completed);
  }
}

TEST(OnceMany, ABatchOfAHundredKeysIsOneCommitInAFile) {
  TempDir dir;
  test::CountingVfs vfs;
  auto store = open_or_fail(dir.file("s.db"));
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->once_writes_wait_for_disk());
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) keys.push_back(key(i));
  const int before = vfs.syncs();
  auto begun = store->once_begin_many(kScope, keys, kT0);
  const int syncs = vfs.syncs() - before;
  for (const auto& b : begun) EXPECT_TRUE(b.ok() && b->state == OnceState::fresh);
  EXPECT_GE(syncs, 1) << "synchronous=FULL: the batch is flushed before the call returns";
  EXPECT_LE(syncs, 2) << "one commit for the batch (plus at most a checkpoint)";

  auto memory = open_or_fail(":memory:");
  ASSERT_TRUE(memory);
  EXPECT_FALSE(memory->once_writes_wait_for_disk());
}

}  // namespace
}  // namespace sigil::store::testing
