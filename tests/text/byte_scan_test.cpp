#include "sigil/text/byte_scan.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace sigil::text {
namespace {

std::size_t naive(const ByteSet& set, std::string_view s, std::size_t from) {
  for (std::size_t i = from; i < s.size(); ++i)
    if (set.contains(static_cast<unsigned char>(s[i]))) return i;
  return ByteSet::npos;
}

TEST(ByteSet, Membership) {
  constexpr ByteSet set{"<[`\n\r~"};
  static_assert(set.size() == 6);
  static_assert(set.contains('<') && set.contains('~') && !set.contains('a'));
  ByteSet dup{"aab"};
  EXPECT_EQ(dup.size(), 2u);
  ByteSet with_nul{std::string_view("\0x", 2)};
  EXPECT_TRUE(with_nul.contains(0));
  EXPECT_EQ(with_nul.find_first(std::string_view("ab\0", 3)), 2u);
  ByteSet high{"\xFF\x80"};
  EXPECT_EQ(high.find_first("abc\x80"), 3u);
}

TEST(ByteSet, EmptySetAndBounds) {
  const ByteSet empty;
  EXPECT_EQ(empty.find_first("abc"), ByteSet::npos);
  const ByteSet set{"c"};
  EXPECT_EQ(set.find_first(""), ByteSet::npos);
  EXPECT_EQ(set.find_first("abc", 3), ByteSet::npos);
  EXPECT_EQ(set.find_first("abc", 100), ByteSet::npos);
  EXPECT_EQ(set.find_first("abc", 2), 2u);
}

// Every set size 1..10, every length 0..100, every start, and the only match at every position.
TEST(ByteSet, ExhaustiveSmall) {
  const std::string needles = "<[`\n\r~*_\x80\xFF";
  for (std::size_t k = 1; k <= needles.size(); ++k) {
    const ByteSet set{std::string_view(needles).substr(0, k)};
    ASSERT_EQ(set.size(), k);
    for (std::size_t len = 0; len <= 100; ++len) {
      std::string buf(len + 64, 'a');
      for (std::size_t off : {0u, 1u, 3u, 17u}) {  // unaligned starts of the buffer itself
        const std::string_view s = std::string_view(buf).substr(off, len);
        for (std::size_t from = 0; from <= len; ++from) ASSERT_EQ(set.find_first(s, from), ByteSet::npos);
        for (std::size_t pos = 0; pos < len; ++pos) {
          buf[off + pos] = needles[pos % k];
          for (std::size_t from : {std::size_t{0}, pos / 2, pos, pos + 1}) {
            if (from > len) continue;
            ASSERT_EQ(set.find_first(s, from), from <= pos ? pos : ByteSet::npos)
                << "k=" << k << " len=" << len << " off=" << off << " pos=" << pos << " from=" << from;
          }
          buf[off + pos] = 'a';
        }
      }
    }
  }
}

TEST(ByteSet, NeighbouringBytesNeverMatch) {
  // Bytes one off from each needle, so a wrong compare would show.
  const ByteSet set{"<[`"};
  std::string s;
  for (int i = 0; i < 300; ++i) s += "=;\\Z_a";
  EXPECT_EQ(set.find_first(s), ByteSet::npos);
  s[257] = '[';
  EXPECT_EQ(set.find_first(s), 257u);
}

TEST(ByteSet, RandomDifferential) {
  std::mt19937 rng(42);
  for (int t = 0; t < 3000; ++t) {
    std::string vals;
    const std::size_t k = 1 + rng() % 10;
    for (std::size_t i = 0; i < k; ++i) vals.push_back(static_cast<char>(rng() % 256));
    const ByteSet set{vals};
    const std::size_t len = rng() % 600;
    std::string s(len, '\0');
    const unsigned density = 1 + rng() % 400;  // from dense hits to long gaps
    for (auto& c : s) {
      c = static_cast<char>(rng() % 256);
      if (set.contains(static_cast<unsigned char>(c)) && rng() % density != 0) c = 'q';
    }
    if (set.contains('q')) continue;
    std::size_t from = len ? rng() % (len + 1) : 0;
    for (int r = 0; r < 4 && from <= len; ++r) {
      const std::size_t got = set.find_first(s, from);
      ASSERT_EQ(got, naive(set, s, from)) << t;
      if (got == ByteSet::npos) break;
      from = got + 1;
    }
  }
}

TEST(ByteSet, LongBuffers) {
  for (std::size_t k = 1; k <= 8; ++k) {
    const ByteSet set{std::string_view("<[`\n\r~*_").substr(0, k)};
    std::string s(1 << 20, 'x');
    EXPECT_EQ(set.find_first(s), ByteSet::npos);
    for (std::size_t pos : {std::size_t{0}, std::size_t{127}, std::size_t{128}, std::size_t{4095},
                            s.size() - 33, s.size() - 1}) {
      s[pos] = '`' == "<[`\n\r~*_"[k - 1] ? '`' : "<[`\n\r~*_"[k - 1];
      EXPECT_EQ(set.find_first(s), pos) << k;
      EXPECT_EQ(set.find_first(s, pos + 1), ByteSet::npos) << k;
      s[pos] = 'x';
    }
  }
}

}  // namespace
}  // namespace sigil::text
