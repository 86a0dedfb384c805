// The name table's whole-name lookup (NameTable::match_whole, a perfect hash over the registered names)
// against its trie walk (match): the same count of name bytes and the same value for every input, whatever
// the case, length, prefix or neighbour of the name; and the counts that show which path answered.
#include "parse/name_table.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "parse/name_run.h"
#include "parse/opener_scan.h"
#include "support/run_parse.h"

namespace sigil::parse {
namespace {

constexpr std::string_view kNameAlphabet =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:";
constexpr std::string_view kStops = " \t\n>/=<\"'&\x80\xF0";

// Random text that often starts with a registered name (any case), a prefix of one, or one run on.
std::string random_name_text(std::mt19937_64& rng, const std::vector<std::string>& names) {
  auto below = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::string out;
  const std::size_t shape = below(6);
  if (shape < 4 && !names.empty()) {
    out = names[below(names.size())];
    if (shape == 1) out.resize(below(out.size() + 1));  // a prefix
    if (shape == 2) out += kNameAlphabet[below(kNameAlphabet.size())];
    for (char& c : out)
      if (below(4) == 0 && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  } else {
    const std::size_t n = below(20);
    for (std::size_t i = 0; i < n; ++i) out += kNameAlphabet[below(kNameAlphabet.size())];
  }
  // What stands after the name, then filler up to a random length (short inputs walk the trie).
  out += kStops[below(kStops.size())];
  const std::size_t tail = below(24);
  for (std::size_t i = 0; i < tail; ++i) out += static_cast<char>(32 + below(95));
  return out;
}

// Compares the two lookups over random inputs; returns the inputs looked up whole.
std::size_t expect_same(const NameTable& table, const std::vector<std::string>& names, std::uint64_t seed,
                        int cases) {
  std::mt19937_64 rng(seed);
  std::size_t whole = 0;
  for (int i = 0; i < cases; ++i) {
    const std::string s = random_name_text(rng, names);
    int trie = -2, hashed = -2;
    bool used = false;
    const std::size_t n_trie = table.match(s, &trie);
    const std::size_t n_hash = table.match_whole(s, &hashed, &used);
    EXPECT_EQ(n_trie, n_hash) << s;
    EXPECT_EQ(trie, hashed) << s;
    if (n_trie != n_hash || trie != hashed) break;
    whole += used ? 1 : 0;
  }
  return whole;
}

TEST(NameTable, WholeLookupEqualsTheTrieOverTheRegisteredTags) {
  const NameIndex names{sigil::testing::conformance_registry()};
  ASSERT_TRUE(names.tag_table.whole_ready());
  std::vector<std::string> tags;
  for (const TagName& t : names.tags) tags.push_back(t.name);
  ASSERT_GT(tags.size(), 10u);
  const std::size_t whole = expect_same(names.tag_table, tags, 0x7A619000, 20000);
  EXPECT_GT(whole, 10000u);  // most inputs are long enough to be looked up whole
}

TEST(NameTable, WholeLookupEqualsTheTrieOverRandomTables) {
  std::mt19937_64 rng(0x7A619001);
  std::size_t whole = 0;
  for (int t = 0; t < 200; ++t) {
    const bool fold = t % 2 == 0;
    NameTable table(fold);
    std::vector<std::string> added;
    const std::size_t count = 1 + rng() % 60;
    for (std::size_t i = 0; i < count; ++i) {
      std::string name;
      const std::size_t len = 1 + rng() % 18;  // some past the 15 bytes looked up whole
      for (std::size_t j = 0; j < len; ++j) name += kNameAlphabet[rng() % kNameAlphabet.size()];
      table.add(name, static_cast<int>(i));  // a name added twice keeps its first value, in both lookups
      added.push_back(name);
    }
    table.build();
    EXPECT_TRUE(table.whole_ready());
    whole += expect_same(table, added, 0x7A619100 + static_cast<std::uint64_t>(t), 300);
  }
  EXPECT_GT(whole, 20000u);
}

TEST(NameTable, WhichLookupAnswers) {
  NameTable table(true);
  table.add("react", 1);
  table.add("exactly15_bytes", 2);   // 15 bytes: looked up whole
  table.add("sixteen_bytes_xx", 3);  // 16 bytes: the trie's
  table.add("react", 4);             // a second registration: the first wins
  int found = -2;
  bool whole = false;
  const std::string pad(16, ' ');
  // Before build(): the trie.
  EXPECT_EQ(table.match_whole("react" + pad, &found, &whole), 5u);
  EXPECT_EQ(found, 1);
  EXPECT_FALSE(whole);
  table.build();
  EXPECT_EQ(table.match_whole("ReAcT>" + pad, &found, &whole), 5u);
  EXPECT_EQ(found, 1);
  EXPECT_TRUE(whole);
  whole = false;
  EXPECT_EQ(table.match_whole("EXACTLY15_BYTES" + pad, &found, &whole), 15u);
  EXPECT_EQ(found, 2);
  EXPECT_TRUE(whole);
  whole = false;
  EXPECT_EQ(table.match_whole("sixteen_bytes_xx/" + pad, &found, &whole), 16u);
  EXPECT_EQ(found, 3);
  EXPECT_FALSE(whole);
  EXPECT_EQ(table.match_whole("reac " + pad, &found, &whole), 4u);  // a prefix
  EXPECT_EQ(found, -1);
  EXPECT_EQ(table.match_whole("reacts" + pad, &found, &whole), 6u);  // a longer name
  EXPECT_EQ(found, -1);
  whole = false;
  EXPECT_EQ(table.match_whole("react>", &found, &whole), 5u);  // too few bytes at hand to load: the trie
  EXPECT_EQ(found, 1);
  EXPECT_FALSE(whole);
  NameTable exact(false);  // brackets: case matters
  exact.add("REMEMBER", 7);
  exact.build();
  EXPECT_EQ(exact.match_whole("remember]" + pad, &found, &whole), 8u);
  EXPECT_EQ(found, -1);
  EXPECT_EQ(exact.match_whole("REMEMBER]" + pad, &found, &whole), 8u);
  EXPECT_EQ(found, 7);
}

// name_run16 (16 bytes classed at once) against the byte table kNameBytes: every byte value at every one of
// the 16 positions after name bytes, bytes past the 16th that must not count, and random mixes. Fails if the
// vector class differs from the table for any byte, or if a byte outside p[0, 16) moves the count.
TEST(NameTable, NameRunEqualsTheByteTableForEveryByteAtEveryPosition) {
  for (int b = 0; b < 256; ++b)
    EXPECT_EQ(name_byte_class(static_cast<unsigned char>(b)), kNameBytes[static_cast<std::size_t>(b)]) << b;
  std::array<unsigned char, 32> buf{};
  for (std::size_t j = 0; j < 16; ++j) {
    for (int b = 0; b < 256; ++b) {
      buf.fill('a');
      buf[16] = '>';  // a stop past the 16th byte: not looked at
      buf[j] = static_cast<unsigned char>(b);
      const std::size_t want = kNameBytes[static_cast<std::size_t>(b)] ? 16 : j;
      ASSERT_EQ(name_run16(buf.data()), want) << "byte " << b << " at " << j;
    }
  }
  std::mt19937_64 rng(11);
  const std::string_view mix = "aZ09_-.:/@[`{\x7F\x80\xFF \t\n>=\"";
  for (int round = 0; round < 20000; ++round) {
    for (unsigned char& c : buf) c = static_cast<unsigned char>(mix[rng() % mix.size()]);
    if (round % 3 == 0) {
      for (std::size_t k = 0; k < 16; ++k)
        buf[k] = static_cast<unsigned char>(kNameAlphabet[rng() % kNameAlphabet.size()]);
      buf[rng() % 17] = ' ';
    }
    std::size_t want = 0;
    while (want < 16 && kNameBytes[buf[want]]) ++want;
    ASSERT_EQ(name_run16(buf.data()), want) << round;
  }
}

// directive() reads a spelling's SpellingInfo from the index: it must be the grammar's own object for every
// spelling a tag or a bracket name has (a wrong index would report another action's name, or miss its
// interrupting and inline-result flags).
TEST(NameIndex, SpellingInfosAreTheGrammarsForEveryNamedSpelling) {
  const Grammar& grammar = sigil::testing::conformance_registry();
  const NameIndex names{grammar};
  std::size_t checked = 0;
  auto expect_info = [&](int spelling) {
    if (spelling < 0) return;  // a name without a spelling (a wrapper, a sentinel, a hidden region)
    ASSERT_LT(static_cast<std::size_t>(spelling), names.spelling_infos.size());
    EXPECT_EQ(names.spelling_infos[static_cast<std::size_t>(spelling)], &grammar.spelling(spelling))
        << spelling;
    ++checked;
  };
  for (const TagName& t : names.tags) expect_info(t.spelling);
  for (const BracketName& b : names.brackets) expect_info(b.spelling);
  EXPECT_GT(checked, 20u);
}
}  // namespace
}  // namespace sigil::parse
