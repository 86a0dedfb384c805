// Stage 1: every kernel gives the scalar kernel's output on the same bytes, and the scalar kernel agrees
// with the independent UTF-8 decoder (text::detail::utf8_scan) and with a byte-at-a-time index.
#include "sigil/text/stage1.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sigil/text/utf8.h"

namespace sigil::text::stage1 {
namespace {

struct Output {
  std::vector<BlockMasks> masks;
  Utf8Check check;
};

Output run(Kernel k, std::string_view s) {
  Output o;
  o.masks.resize(blocks_for(s.size()));
  o.check = scan(k, s, o.masks.data());
  return o;
}

std::vector<Kernel> supported() {
  std::vector<Kernel> v;
  for (Kernel k : kAllKernels)
    if (kernel_supported(k)) v.push_back(k);
  return v;
}

// The index a byte at a time, straight from the header's definition.
std::vector<BlockMasks> naive_masks(std::string_view s) {
  std::vector<BlockMasks> m(blocks_for(s.size()));
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::uint64_t bit = std::uint64_t{1} << (i % kBlock);
    BlockMasks& x = m[i / kBlock];
    if (b == '<') x.lt |= bit;
    if (b == '[') x.bracket |= bit;
    if (b == '\n') x.newline |= bit;
    if (b == '`') x.backtick |= bit;
  }
  return m;
}

// Checks one input against everything: kernels equal, scalar equal to the references.
void check_all(std::string_view s) {
  SCOPED_TRACE(::testing::Message() << "size " << s.size());
  const Output ref = run(Kernel::Scalar, s);
  ASSERT_EQ(ref.masks, naive_masks(s));
  // The UTF-8 verdict against the independent decoder.
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const text::detail::Utf8Scan whole = text::detail::utf8_scan(p, s.size());
  const bool valid = whole.valid == s.size();
  EXPECT_EQ(all_valid(ref.check, s.size()), valid);
  if (whole.incomplete) {
    EXPECT_TRUE(ref.check.tail_open);
  }
  if (!valid) {
    // Restarting the precise scan where the check says gives the same first ill-formed unit.
    const std::size_t q = restart_point(s, ref.check);
    ASSERT_LE(q, whole.valid);
    EXPECT_TRUE(text::is_valid_utf8(s.substr(0, q)));
    const text::detail::Utf8Scan rest = text::detail::utf8_scan(p + q, s.size() - q);
    EXPECT_EQ(q + rest.valid, whole.valid);
    EXPECT_EQ(rest.bad, whole.bad);
    EXPECT_EQ(rest.incomplete, whole.incomplete);
  }
  for (Kernel k : supported()) {
    SCOPED_TRACE(kernel_name(k));
    const Output o = run(k, s);
    EXPECT_EQ(o.masks, ref.masks);
    EXPECT_EQ(o.check, ref.check);
    std::vector<BlockMasks> only(blocks_for(s.size()));
    index(k, s, only.data());
    EXPECT_EQ(only, ref.masks);
    EXPECT_EQ(validate(k, s), ref.check);
  }
}

TEST(Stage1, KernelsAvailableHere) {
  EXPECT_TRUE(kernel_supported(Kernel::Scalar));
  EXPECT_TRUE(kernel_supported(best_kernel()));
#if defined(__x86_64__)
  EXPECT_TRUE(kernel_supported(Kernel::Sse2));
#endif
  for (Kernel k : kAllKernels)
    std::printf("stage 1 kernel %s: %s\n", kernel_name(k).data(), kernel_supported(k) ? "runs" : "not here");
}

TEST(Stage1, EmptyAndTiny) {
  check_all("");
  check_all("a");
  check_all("<");
  check_all("\xC3");
  check_all("\xC3\xA9");
  check_all("\x80");
  EXPECT_EQ(validate(Kernel::Scalar, ""), (Utf8Check{0, false}));
}

TEST(Stage1, MasksOfEveryClassAtEveryOffset) {
  for (char c : std::string("<[\n`\"\xE9")) {
    for (std::size_t len : {63u, 64u, 65u, 127u, 128u, 200u}) {
      for (std::size_t at = 0; at < len; ++at) {
        std::string s(len, 'x');
        s[at] = c;
        check_all(s);
      }
    }
  }
}

// Every class of ill-formed input, placed so that it straddles a 64-byte block boundary at every offset
// and sits at the very end, in ASCII and in multi-byte text.
TEST(Stage1, AdversarialUtf8AcrossBlockBoundaries) {
  const std::vector<std::string> pieces = {
      // well-formed, 2, 3 and 4 bytes, the edges of each range
      "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xED\x9F\xBF", "\xEE\x80\x80", "\xEF\xBF\xBF",
      "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF", "\xF3\xBF\xBF\xBF",
      // overlongs
      "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF",
      // surrogates
      "\xED\xA0\x80", "\xED\xBF\xBF", "\xED\xB0\x80",
      // above U+10FFFF, never-lead bytes
      "\xF4\x90\x80\x80", "\xF4\xBF\xBF\xBF", "\xF5\x80\x80\x80", "\xF7\xBF\xBF\xBF", "\xF8\x88\x80\x80\x80",
      "\xFF", "\xFE", "\xC0", "\xC1",
      // lone or excess continuation bytes
      "\x80", "\xBF", "\xC3\xA9\x80", "\xE2\x82\xAC\xAC", "\xF0\x9F\x98\x80\x80",
      // truncated sequences followed by ASCII or by another lead
      "\xC3", "\xE2\x82", "\xE2", "\xF0\x9F\x98", "\xF0\x9F", "\xF0", "\xE2\x82\xC3\xA9",
      "\xF0\x9F\xE2\x82\xAC", "\xC3\xC3\xA9"};
  const std::vector<std::string> fills = {"a", "\xC3\xA9", "\xE2\x82\xAC", "<"};
  for (const std::string& fill : fills) {
    for (const std::string& piece : pieces) {
      for (std::size_t start : {0u, 1u, 58u, 59u, 60u, 61u, 62u, 63u, 64u, 65u, 124u, 125u, 126u, 127u}) {
        std::string s;
        while (s.size() < start) s += fill;
        s += piece;
        check_all(s);  // the piece at the end: truncated ones leave the tail open
        std::string longer = s;
        while (longer.size() < start + 140) longer += fill;
        check_all(longer);
      }
    }
  }
}

// Every pair of bytes, and every triple from a set of representative bytes, between ASCII.
TEST(Stage1, ExhaustiveShortSequences) {
  for (unsigned a = 0x80; a < 0x100; ++a)
    for (unsigned b = 0; b < 0x100; ++b) {
      std::string s(62, 'x');
      s += static_cast<char>(a);
      s += static_cast<char>(b);
      s += "yz";
      const Utf8Check c = validate(Kernel::Scalar, s);
      ASSERT_EQ(all_valid(c, s.size()), text::is_valid_utf8(s)) << std::hex << a << " " << b;
      for (Kernel k : supported()) ASSERT_EQ(validate(k, s), c) << kernel_name(k);
    }
  const unsigned char reps[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFF};
  for (unsigned char a : reps)
    for (unsigned char b : reps)
      for (unsigned char c : reps)
        for (unsigned char d : reps) {
          std::string s(61, 'x');
          s += static_cast<char>(a);
          s += static_cast<char>(b);
          s += static_cast<char>(c);
          s += static_cast<char>(d);
          s += 'y';
          const Utf8Check got = validate(Kernel::Scalar, s);
          ASSERT_EQ(all_valid(got, s.size()), text::is_valid_utf8(s));
          for (Kernel k : supported()) ASSERT_EQ(validate(k, s), got) << kernel_name(k);
        }
}

std::string random_text(std::mt19937& rng, std::size_t n, int flavour) {
  static const std::vector<std::string> atoms = {
      "a",           "b", " ", "<", "[", "\n", "`", "\"", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
      "\xED\x9F\xBF"};
  std::string s;
  while (s.size() < n) {
    if (flavour == 0) {
      s += static_cast<char>(rng() & 0xFF);  // anything
    } else {
      s += atoms[rng() % atoms.size()];
      if (flavour == 2 && rng() % 97 == 0) s += static_cast<char>(0x80 + rng() % 0x80);  // a stray byte
    }
  }
  s.resize(n);  // may cut a sequence: an open tail
  return s;
}

TEST(Stage1, RandomInputsEveryKernelEqualsScalar) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 3000; ++round) {
    const std::size_t n = round < 1500 ? rng() % 300 : rng() % 5000;
    check_all(random_text(rng, n, round % 3));
  }
}

// The parser's inline mask storage is not zeroed before a window is scanned into it (MaskBuffer::resize):
// every kernel must assign every field of every block of the window, whatever the storage held. Storage
// filled with ones and with a pattern, sizes around the small path and the block edges, every kernel, the
// fused scan and the index alone: the same masks as the definition. Fails if a kernel leaves a bit of a
// block's storage as it was (an OR into it, a tail block skipped).
TEST(Stage1, EveryKernelWritesEveryBlockWhateverTheStorageHeld) {
  std::mt19937 rng(99);
  std::size_t blocks_checked = 0;
  for (int round = 0; round < 600; ++round) {
    const std::size_t n = round < 400 ? static_cast<std::size_t>(round % 200) : rng() % 3000;
    const std::string s = random_text(rng, n, round % 3);
    const std::vector<BlockMasks> want = naive_masks(s);
    if (want.empty()) continue;  // no block to write (and no storage to fill)
    for (Kernel k : kAllKernels) {
      if (!kernel_supported(k)) continue;
      for (const int fill : {0xFF, 0xA5}) {
        SCOPED_TRACE(::testing::Message() << kernel_name(k) << " size " << n << " fill " << fill);
        std::vector<BlockMasks> got(want.size());
        std::memset(static_cast<void*>(got.data()), fill, got.size() * sizeof(BlockMasks));
        scan(k, s, got.data());
        ASSERT_EQ(got, want) << "masks are written whatever the UTF-8 verdict";
        std::memset(static_cast<void*>(got.data()), fill, got.size() * sizeof(BlockMasks));
        index(k, s, got.data());
        ASSERT_EQ(got, want);
        blocks_checked += want.size();
      }
    }
  }
  EXPECT_GT(blocks_checked, 10000u);
}

// Streamed pieces of up to 32 bytes take the small path in every kernel but the scalar one: every size
// around it, every flavour, against the scalar kernel.
TEST(Stage1, SmallPiecesEveryKernelEqualsScalar) {
  std::mt19937 rng(77);
  for (std::size_t n = 0; n <= 40; ++n)
    for (int round = 0; round < 300; ++round) check_all(random_text(rng, n, round % 3));
}

// Windows of 33-64 bytes (the AVX2 kernel's one-block path, scan_block_avx2) and the short last block of
// longer windows (read through LastBlock: loads that end at the window's last byte, no padded copy), each in
// a heap buffer of exactly its size: every kernel equals the scalar one, and under AddressSanitizer (the
// test preset) a load one byte past the end, or before the start, fails the test.
TEST(Stage1, ShortWindowsAndLastBlocksReadOnlyTheirBytes) {
  std::mt19937 rng(2111);
  for (std::size_t n = 0; n <= 200; ++n)
    for (int round = 0; round < 24; ++round) {
      const std::string text = random_text(rng, n, round % 3);
      const std::unique_ptr<char[]> exact(new char[text.size()]);
      std::memcpy(exact.get(), text.data(), text.size());
      check_all(std::string_view(exact.get(), text.size()));
    }
}

TEST(Stage1, RestartPointIsAUnitBoundaryBeforeTheError) {
  std::string s;
  for (int i = 0; i < 40; ++i) s += "\xF0\x9F\x98\x80";  // 160 bytes of 4-byte sequences
  for (std::size_t at = 0; at < s.size(); ++at) {
    std::string bad = s;
    bad[at] = '\xFF';
    const Utf8Check c = validate(Kernel::Scalar, bad);
    ASSERT_FALSE(all_valid(c, bad.size()));
    const std::size_t q = restart_point(bad, c);
    EXPECT_EQ(q % 4, 0u);
    EXPECT_LE(q, at);
    EXPECT_GE(q + 64 + 8, at) << "the precise scan starts at most about a block before the error";
  }
}

}  // namespace
// MaskView::find_run_end against its definition, byte by byte: views at every alignment of random text of
// line breaks, backticks and letters, from every place.
TEST(Stage1, FindRunEndIsTheFirstRunEndOrStop) {
  std::mt19937 rng(5);
  const char alphabet[] = {'\n', '\n', '`', 'a', 'b', 'c', 'd', 'e'};
  for (int round = 0; round < 300; ++round) {
    std::string buf(1 + rng() % 300, 'a');
    for (char& c : buf) c = rng() % 4 == 0 ? alphabet[rng() % 8] : 'x';
    std::vector<BlockMasks> masks(blocks_for(buf.size()));
    scan(buf, masks.data());
    const std::size_t offset = rng() % buf.size();
    const std::size_t size = rng() % (buf.size() - offset + 1);
    const std::string_view s = std::string_view(buf).substr(offset, size);
    const MaskView view(masks.data(), offset, size);
    for (std::size_t from = 0; from <= size; ++from) {
      std::size_t want = size;
      for (std::size_t p = from; p < size && want == size; ++p)
        if (s[p] == '`' || (p > from && s[p - 1] == '\n' && s[p] != '\n')) want = p;
      ASSERT_EQ(view.find_run_end(kNewlines, kBackticks, from), want) << offset << " " << size << " " << from;
      std::size_t lines = size;
      for (std::size_t p = from + 1; p < size && lines == size; ++p)
        if (s[p - 1] == '\n' && s[p] != '\n') lines = p;
      ASSERT_EQ(view.find_run_end(kNewlines, kNothing, from), lines) << offset << " " << size << " " << from;
    }
  }
}

}  // namespace sigil::text::stage1

namespace sigil::text::stage1 {

// MaskView::none against the bytes: views of every size at every alignment over one to four blocks, with
// the selected bytes (line breaks, backticks) now and then, right at the view's ends among them.
TEST(Stage1, NoneSaysNoSelectedByteInTheView) {
  std::mt19937 rng(6);
  std::uint64_t said_none = 0, said_some = 0;
  for (int round = 0; round < 400; ++round) {
    std::string buf(1 + rng() % 256, 'x');
    for (char& c : buf)
      if (rng() % 40 == 0) c = rng() % 2 == 0 ? '\n' : '`';
    std::vector<BlockMasks> masks(blocks_for(buf.size()));
    scan(buf, masks.data());
    for (int v = 0; v < 40; ++v) {
      const std::size_t offset = rng() % (buf.size() + 1);
      const std::size_t size = rng() % (buf.size() - offset + 1);
      const std::string_view s = std::string_view(buf).substr(offset, size);
      const MaskView view(masks.data(), offset, size);
      const bool lines = s.find('\n') == std::string_view::npos;
      const bool either = s.find_first_of("\n`") == std::string_view::npos;
      ASSERT_EQ(view.none(kNewlines), lines) << offset << " " << size;
      ASSERT_EQ(view.none(kBackticksOrNewlines), either) << offset << " " << size;
      ASSERT_EQ(view.none(kNewlines), view.find(kNewlines, 0) == size) << offset << " " << size;
      (either ? said_none : said_some) += 1;
    }
  }
  EXPECT_GT(said_none, 2000u);
  EXPECT_GT(said_some, 2000u);
}

}  // namespace sigil::text::stage1
