#include "sigil/text/utf8.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace sigil::text {
namespace {

using Reps = std::vector<std::pair<std::uint64_t, std::uint32_t>>;  // (out_offset, in_len)

std::string unhex(std::string_view h) {
  std::string out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  return out;
}

// A deliberately naive decoder written straight from Unicode Table 3-7, independent of the one under test.
std::string reference(std::string_view in, Reps* reps = nullptr,
                      std::vector<std::uint64_t>* in_of_out = nullptr) {
  std::string out;
  const auto* s = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t n = in.size();
  std::size_t i = 0;
  auto emit = [&](std::string_view bytes, std::size_t at) {
    for (char c : bytes) {
      out.push_back(c);
      if (in_of_out) in_of_out->push_back(at);
    }
  };
  while (i < n) {
    const unsigned b = s[i];
    if (b < 0x80) {
      emit(in.substr(i, 1), i);
      ++i;
      continue;
    }
    unsigned need = 0, lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF)
      need = 1;
    else if (b == 0xE0)
      need = 2, lo = 0xA0;
    else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF)
      need = 2;
    else if (b == 0xED)
      need = 2, hi = 0x9F;
    else if (b == 0xF0)
      need = 3, lo = 0x90;
    else if (b >= 0xF1 && b <= 0xF3)
      need = 3;
    else if (b == 0xF4)
      need = 3, hi = 0x8F;
    std::size_t j = 1;
    if (need != 0) {
      for (; j <= need && i + j < n; ++j) {
        const unsigned c = s[i + j];
        const unsigned l = j == 1 ? lo : 0x80, h = j == 1 ? hi : 0xBF;
        if (c < l || c > h) break;
      }
    }
    if (need != 0 && j == need + 1) {
      for (std::size_t k = 0; k <= need; ++k) emit(in.substr(i + k, 1), i + k);
      i += need + 1;
    } else {
      if (reps) reps->push_back({out.size(), static_cast<std::uint32_t>(j)});
      emit("\xEF\xBF\xBD", i);
      i += j;
    }
  }
  return out;
}

struct Result {
  std::string text;
  Reps reps;
  std::size_t pieces = 0;
};

// Feeds `in` in chunks whose sizes come from next_size(), checking the zero-copy promise on the way.
template <class NextSize>
Result run(std::string_view in, NextSize next_size) {
  Utf8Sanitizer san;
  Result r;
  std::size_t i = 0;
  auto sink_for = [&](std::string_view chunk) {
    return [&r, chunk](std::string_view piece) {
      EXPECT_FALSE(piece.empty());
      const bool in_chunk =
          piece.data() >= chunk.data() && piece.data() + piece.size() <= chunk.data() + chunk.size();
      const bool fffd = piece == Utf8Sanitizer::kReplacementChar;
      // Anything else comes from the held buffer: one code point split across chunks.
      if (!in_chunk && !fffd) {
        EXPECT_LE(piece.size(), 4u);
      }
      r.text.append(piece);
      ++r.pieces;
    };
  };
  while (i < in.size()) {
    const std::size_t k = std::min(next_size(), in.size() - i);
    const std::string_view chunk = in.substr(i, k);
    san.feed(chunk, sink_for(chunk));
    i += k;
  }
  san.finish(sink_for({}));
  EXPECT_EQ(san.held(), 0u);
  EXPECT_EQ(san.input_bytes(), in.size());
  EXPECT_EQ(san.output_bytes(), r.text.size());
  for (const auto& rep : san.replacements()) r.reps.push_back({rep.out_offset, rep.in_len});
  return r;
}

Result run_whole(std::string_view in) {
  return run(in, [&] { return in.size() ? in.size() : 1; });
}

std::string fffd(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "\xEF\xBF\xBD";
  return s;
}

// Every chunking we promise to be invariant under: whole, 1, 2, 3, 7 and a few random ones.
void expect_chunk_invariant(std::string_view in, const std::string& expected) {
  Reps ref_reps;
  ASSERT_EQ(reference(in, &ref_reps), expected);
  const Result whole = run_whole(in);
  EXPECT_EQ(whole.text, expected);
  EXPECT_EQ(whole.reps, ref_reps);
  for (std::size_t size : {1u, 2u, 3u, 7u}) {
    const Result r = run(in, [size] { return size; });
    EXPECT_EQ(r.text, expected) << "chunk " << size;
    EXPECT_EQ(r.reps, ref_reps) << "chunk " << size;
  }
  std::mt19937 rng(static_cast<unsigned>(in.size()));
  for (int t = 0; t < 4; ++t) {
    const Result r = run(in, [&] { return std::size_t{1} + rng() % 9; });
    EXPECT_EQ(r.text, expected);
    EXPECT_EQ(r.reps, ref_reps);
  }
}

TEST(Utf8Sanitizer, UnicodeTable3_8Example) {
  const std::string in = unhex("61F18080E180C262806380BF64");
  const std::string expected = "a" + fffd(3) + "b" + fffd(1) + "c" + fffd(2) + "d";
  expect_chunk_invariant(in, expected);
  const Result r = run_whole(in);
  EXPECT_EQ(r.reps, (Reps{{1, 3}, {4, 2}, {7, 1}, {11, 1}, {15, 1}, {18, 1}}));
}

TEST(Utf8Sanitizer, NamedIllFormedCases) {
  const std::pair<const char*, std::string> cases[] = {
      {"EDA080", fffd(3)},  // encoded surrogate
      {"EDBFBF", fffd(3)},
      {"C0AF", fffd(2)},  // overlong
      {"C1BF", fffd(2)},
      {"E080AF", fffd(3)},    // overlong 3-byte
      {"F08080AF", fffd(4)},  // overlong 4-byte
      {"F4908080", fffd(4)},  // above U+10FFFF
      {"F5808080", fffd(4)},
      {"E28262", fffd(1) + "b"},  // truncated, then ASCII
      {"F09F91", fffd(1)},        // truncated at the end
      {"FF", fffd(1)},
      {"FE", fffd(1)},
      {"80", fffd(1)},
      {"BFBF", fffd(2)},
      {"E2", fffd(1)},
      {"E282E282AC", fffd(1) + "\xE2\x82\xAC"},  // truncated then complete euro sign
      {"E29895802074", "\xE2\x98\x95" + fffd(1) + " t"},
      {"F09F918D", "\xF0\x9F\x91\x8D"},  // a valid emoji
      {"F48FBFBF", "\xF4\x8F\xBF\xBF"},  // U+10FFFF
      {"ED9FBF", "\xED\x9F\xBF"},        // U+D7FF
      {"EE8080", "\xEE\x80\x80"},        // U+E000
      {"C280", "\xC2\x80"},
      {"", ""},
      {"00", std::string(1, '\0')},
  };
  for (const auto& [hex, expected] : cases) {
    SCOPED_TRACE(hex);
    expect_chunk_invariant(unhex(hex), expected);
  }
}

// Expected outputs produced once with python3: bytes.fromhex(x).decode("utf-8", "replace").encode().hex()
TEST(Utf8Sanitizer, MatchesPythonTable) {
  static const std::pair<const char*, const char*> table[] = {
      {"c2c3a9005290c2c2c3a97f", "efbfbdc3a90052efbfbdefbfbdefbfbdc3a97f"},
      {"8ff300dc9f59f0ed9fbf", "efbfbdefbfbd00dc9f59efbfbded9fbf"},
      {"c4eff48fbfbfedf0e282ac", "efbfbdefbfbdf48fbfbfefbfbdefbfbde282ac"},
      {"f48fbfbfe1f3f5fff48fbfbfc131", "f48fbfbfefbfbdefbfbdefbfbdefbfbdf48fbfbfefbfbd31"},
      {"62efec", "62efbfbdefbfbd"},
      {"ec45f0eeff", "efbfbd45efbfbdefbfbdefbfbd"},
      {"a033b0c0ef0078f0ed", "efbfbd33efbfbdefbfbdefbfbd0078efbfbdefbfbd"},
      {"80ecee8080f09f9880ee8080f17f17eeee8080", "efbfbdefbfbdee8080f09f9880ee8080efbfbd7f17efbfbdee8080"},
      {"ed41a0f1", "efbfbd41efbfbdefbfbd"},
      {"ee8080c0f4ff80f38a6bed", "ee8080efbfbdefbfbdefbfbdefbfbdefbfbd6befbfbd"},
      {"848061ef", "efbfbdefbfbd61efbfbd"},
      {"7de282ac8d", "7de282acefbfbd"},
      {"df1d8fff", "efbfbd1defbfbdefbfbd"},
      {"bdee80807ffff3a241", "efbfbdee80807fefbfbdefbfbd41"},
      {"e0c3a9f0f5c2ed6100a0ed9fbf", "efbfbdc3a9efbfbdefbfbdefbfbdefbfbd6100efbfbded9fbf"},
      {"d8c1", "efbfbdefbfbd"},
      {"c8f1", "efbfbdefbfbd"},
      {"00", "00"},
      {"ffecc2ffec", "efbfbdefbfbdefbfbdefbfbdefbfbd"},
      {"a0f39fc0c1a0", "efbfbdefbfbdefbfbdefbfbdefbfbd"},
      {"f1c1bf", "efbfbdefbfbdefbfbd"},
      {"dfe7f48f416159eea0", "efbfbdefbfbdefbfbd416159efbfbd"},
      {"d4c079e0", "efbfbdefbfbd79efbfbd"},
      {"e09041", "efbfbdefbfbd41"},
      {"ee9014ffbff4f0ffeff4", "efbfbd14efbfbdefbfbdefbfbdefbfbdefbfbdefbfbdefbfbd"},
      {"5c05c19f8f", "5c05efbfbdefbfbdefbfbd"},
      {"ee808000c2e000f09f988000", "ee808000efbfbdefbfbd00f09f988000"},
      {"ec777fe1", "efbfbd777fefbfbd"},
      {"eeeced9fbf80c0", "efbfbdefbfbded9fbfefbfbdefbfbd"},
      {"f48fbfbf71f48fbfbfe0e109f48fbfbfa0", "f48fbfbf71f48fbfbfefbfbdefbfbd09f48fbfbfefbfbd"},
      {"a0ec4100ed9fbfe1ac00ee8080f3", "efbfbdefbfbd4100ed9fbfefbfbd00ee8080efbfbd"},
      {"419fef", "41efbfbdefbfbd"},
      {"ffc0f09f9880", "efbfbdefbfbdf09f9880"},
      {"ee808061e282ac61f09f988041f4", "ee808061e282ac61f09f988041efbfbd"},
      {"8080c0eff1f3ecf3", "efbfbdefbfbdefbfbdefbfbdefbfbdefbfbdefbfbdefbfbd"},
      {"c0", "efbfbd"},
      {"c2f5", "efbfbdefbfbd"},
      {"ed9fbff09f9880f1a0c200", "ed9fbff09f9880efbfbdefbfbd00"},
      {"c1dff09f9880ee8080e282acf0c3a9", "efbfbdefbfbdf09f9880ee8080e282acefbfbdc3a9"},
      {"f1c2ef80ecef2af46b", "efbfbdefbfbdefbfbdefbfbdefbfbd2aefbfbd6b"},
      {"f5ed9fbfc6c1", "efbfbded9fbfefbfbdefbfbd"},
      {"619dd3c14159c3a9", "61efbfbdefbfbdefbfbd4159c3a9"},
      {"c1bfc24230f4bfc261", "efbfbdefbfbdefbfbd4230efbfbdefbfbdefbfbd61"},
      {"f48fbfbf3ceedf3e", "f48fbfbf3cefbfbdefbfbd3e"},
      {"cc9f8ef323f06c5c8fe1", "cc9fefbfbdefbfbd23efbfbd6c5cefbfbdefbfbd"},
      {"88b3c3a9008fed", "efbfbdefbfbdc3a900efbfbdefbfbd"},
      {"ecfcf09f9880", "efbfbdefbfbdf09f9880"},
      {"0edfc2be", "0eefbfbdc2be"},
      {"e080f48fbfbf617ff07f", "efbfbdefbfbdf48fbfbf617fefbfbd7f"},
      {"f1aeedf1", "efbfbdefbfbdefbfbd"},
      {"7f", "7f"},
      {"b0afffe0df61c1f5", "efbfbdefbfbdefbfbdefbfbdefbfbd61efbfbdefbfbd"},
      {"e0c0a0bf95c1f09f9880f4c17f", "efbfbdefbfbdefbfbdefbfbdefbfbdefbfbdf09f9880efbfbdefbfbd7f"},
      {"e282acedddf5f09f9880e282ace0", "e282acefbfbdefbfbdefbfbdf09f9880e282acefbfbd"},
      {"c18fc3a9e0", "efbfbdefbfbdc3a9efbfbd"},
      {"8080ec", "efbfbdefbfbdefbfbd"},
      {"80f5f48fbfbf00c3a9", "efbfbdefbfbdf48fbfbf00c3a9"},
      {"95f0e4", "efbfbdefbfbdefbfbd"},
      {"e3f52cecc2eeeffc", "efbfbdefbfbd2cefbfbdefbfbdefbfbdefbfbdefbfbd"},
      {"e190", "efbfbd"},
      {"f5c2e0bfa0", "efbfbdefbfbde0bfa0"},
      {"e1c1", "efbfbdefbfbd"},
      {"ed9fbfe0ee8080", "ed9fbfefbfbdee8080"},
      {"29cf00df9a", "29efbfbd00df9a"},
      {"61c08f77f0caf06118", "61efbfbdefbfbd77efbfbdefbfbdefbfbd6118"},
      {"b8bf557fed9fbf", "efbfbdefbfbd557fed9fbf"},
      {"f3f48fbfbfc17ff4bf", "efbfbdf48fbfbfefbfbd7fefbfbdefbfbd"},
      {"379f00f48fbfbfef", "37efbfbd00f48fbfbfefbfbd"},
      {"6fa0bf", "6fefbfbdefbfbd"},
      {"f0bff09f988068ede4", "efbfbdf09f988068efbfbdefbfbd"},
      {"a0bfc2e282ac", "efbfbdefbfbdefbfbde282ac"},
      {"f4", "efbfbd"},
      {"61f48fbfbff5f1f09f9880ec8f80ee8080", "61f48fbfbfefbfbdefbfbdf09f9880ec8f80ee8080"},
      {"ed9fbf8f9fe282ac7f9ff09f9880", "ed9fbfefbfbdefbfbde282ac7fefbfbdf09f9880"},
      {"0a73edede0e282ac6ff09f988080e1", "0a73efbfbdefbfbdefbfbde282ac6ff09f9880efbfbdefbfbd"},
      {"1a8180e1f48fbfbfee2fe0", "1aefbfbdefbfbdefbfbdf48fbfbfefbfbd2fefbfbd"},
      {"ed7fc2e282acf74fee8080e1ec", "efbfbd7fefbfbde282acefbfbd4fee8080efbfbdefbfbd"},
      {"f1", "efbfbd"},
      {"61bfc1c3a9f09f988000", "61efbfbdefbfbdc3a9f09f988000"},
      {"068f00", "06efbfbd00"},
  };
  for (const auto& [in, out] : table) {
    SCOPED_TRACE(in);
    expect_chunk_invariant(unhex(in), unhex(out));
  }
}

std::string random_bytes(std::mt19937& rng, std::size_t max_len) {
  static const unsigned char interesting[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                              0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
                                              0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
  static const char* valid[] = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF",
                                "abc def "};
  std::string s;
  const std::size_t len = rng() % (max_len + 1);
  while (s.size() < len) {
    const unsigned r = rng() % 10;
    if (r < 5)
      s.push_back(static_cast<char>(interesting[rng() % sizeof interesting]));
    else if (r < 8)
      s += valid[rng() % 5];
    else
      s.push_back(static_cast<char>(rng() % 256));
  }
  return s;
}

TEST(Utf8Sanitizer, RandomDifferentialAgainstReference) {
  std::mt19937 rng(12345);
  for (int t = 0; t < 2000; ++t) {
    const std::string in = random_bytes(rng, 40);
    SCOPED_TRACE(t);
    expect_chunk_invariant(in, reference(in));
    if (HasFailure()) break;
  }
}

TEST(Utf8Sanitizer, InvalidByteAtEveryPositionOfLongAscii) {
  // Exercises the vector ASCII loop's block boundaries and tails.
  for (std::size_t len : {15u, 16u, 31u, 32u, 63u, 64u, 65u, 130u}) {
    for (std::size_t pos = 0; pos < len; ++pos) {
      std::string in(len, 'x');
      in[pos] = '\xE9';
      const Result r = run_whole(in);
      std::string expected = in;
      expected.replace(pos, 1, fffd(1));
      ASSERT_EQ(r.text, expected) << len << " " << pos;
      EXPECT_EQ(r.pieces, (pos ? 1u : 0u) + 1u + (pos + 1 < len ? 1u : 0u));  // maximal runs, zero copy
    }
  }
}

TEST(Utf8Sanitizer, ValidRunsAreMaximalAndZeroCopy) {
  const std::string in = "h\xC3\xA9llo w\xF0\x9F\x98\x80rld \xFF tail";
  std::vector<std::string_view> pieces;
  Utf8Sanitizer san;
  san.feed(in, [&](std::string_view p) { pieces.push_back(p); });
  san.finish([&](std::string_view p) { pieces.push_back(p); });
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0].data(), in.data());
  EXPECT_EQ(pieces[0].size(), in.find('\xFF'));
  EXPECT_EQ(pieces[1], Utf8Sanitizer::kReplacementChar);
  EXPECT_EQ(pieces[2].data(), in.data() + in.find('\xFF') + 1);
}

TEST(Utf8Sanitizer, HeldSequenceCompletesAcrossThreeChunks) {
  Utf8Sanitizer san;
  std::string out;
  auto sink = [&](std::string_view p) { out.append(p); };
  san.feed("a\xF0", sink);
  EXPECT_EQ(out, "a");
  EXPECT_EQ(san.held(), 1u);
  san.feed("\x9F", sink);
  san.feed("\x98", sink);
  EXPECT_EQ(san.held(), 3u);
  EXPECT_EQ(out, "a");
  san.feed("\x80!", sink);
  EXPECT_EQ(out, "a\xF0\x9F\x98\x80!");
  san.finish(sink);
  EXPECT_TRUE(san.replacements().empty());
}

TEST(Utf8Sanitizer, FinishTurnsHeldBytesIntoOneReplacement) {
  Utf8Sanitizer san;
  std::string out;
  auto sink = [&](std::string_view p) { out.append(p); };
  san.feed("Hi \xF0\x9F", sink);
  san.feed("\x91", sink);
  san.finish(sink);
  EXPECT_EQ(out, "Hi " + fffd(1));
  ASSERT_EQ(san.replacements().size(), 1u);
  EXPECT_EQ(san.replacements()[0].out_offset, 3u);
  EXPECT_EQ(san.replacements()[0].in_len, 3u);
  san.reset();
  out.clear();
  san.feed("ok", sink);
  san.finish(sink);
  EXPECT_EQ(out, "ok");
  EXPECT_TRUE(san.replacements().empty());
}

TEST(Utf8Sanitizer, ToInputOffset) {
  const std::string in =
      "a\xFF"
      "b\xE2\x82"
      "c";  // out: a FFFD b FFFD c
  Utf8Sanitizer san;
  std::string out;
  san.feed(in, [&](std::string_view p) { out.append(p); });
  san.finish([&](std::string_view p) { out.append(p); });
  ASSERT_EQ(out.size(), 9u);
  const std::uint64_t expected[] = {0, 1, 1, 1, 2, 3, 3, 3, 5, 6};
  for (std::uint64_t o = 0; o <= out.size(); ++o) EXPECT_EQ(san.to_input_offset(o), expected[o]) << o;
}

TEST(Utf8Sanitizer, ToInputOffsetRandom) {
  std::mt19937 rng(99);
  for (int t = 0; t < 300; ++t) {
    const std::string in = random_bytes(rng, 30);
    std::vector<std::uint64_t> in_of_out;
    reference(in, nullptr, &in_of_out);
    Utf8Sanitizer san;
    auto sink = [](std::string_view) {};
    for (char c : in) san.feed(std::string_view(&c, 1), sink);
    san.finish(sink);
    for (std::size_t o = 0; o < in_of_out.size(); ++o)
      ASSERT_EQ(san.to_input_offset(o), in_of_out[o]) << t << " " << o;
    EXPECT_EQ(san.to_input_offset(in_of_out.size()), in.size());
  }
}

// Unit starts of the reference decomposition: every cut the sanitizer would never split.
std::vector<bool> boundaries(std::string_view in) {
  std::vector<bool> b(in.size() + 1, false);
  std::size_t i = 0;
  b[0] = true;
  while (i < in.size()) {
    i += unit_length(in, i);
    b[i] = true;
  }
  return b;
}

TEST(Utf8Functions, IsValidUtf8) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii that is longer than thirty-two bytes, to use vectors"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xF0\x9F\x91\x8D \xE2\x82\xAC"));
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));
  EXPECT_FALSE(is_valid_utf8("abc\xF0\x9F\x91"));
  EXPECT_FALSE(is_valid_utf8(std::string(100, 'a') + "\xC0\xAF"));
  std::mt19937 rng(7);
  for (int t = 0; t < 1000; ++t) {
    const std::string in = random_bytes(rng, 40);
    EXPECT_EQ(is_valid_utf8(in), reference(in) == in) << t;
  }
}

TEST(Utf8Functions, Utf16Length) {
  EXPECT_EQ(utf16_length(""), 0u);
  EXPECT_EQ(utf16_length("abc"), 3u);
  EXPECT_EQ(utf16_length("caf\xC3\xA9"), 4u);
  EXPECT_EQ(utf16_length("\xE2\x82\xAC"), 1u);
  EXPECT_EQ(utf16_length("\xF0\x9F\x91\x8D"), 2u);  // surrogate pair
  EXPECT_EQ(utf16_length("\xED\xA0\x80"), 3u);      // three U+FFFD
  EXPECT_EQ(utf16_length("a\xF0\x9F\x91"), 2u);     // truncated: one U+FFFD
  std::mt19937 rng(8);
  for (int t = 0; t < 1000; ++t) {
    const std::string in = random_bytes(rng, 40);
    const std::string clean = reference(in);
    std::size_t units = 0;
    for (unsigned char c : clean) units += ((c & 0xC0) != 0x80) + (c >= 0xF0);
    EXPECT_EQ(utf16_length(in), units) << t;
  }
}

TEST(Utf8Functions, SafeCut) {
  const std::string s =
      "a\xC3\xA9"
      "b\xF0\x9F\x91\x8D";  // a é b 👍
  const std::size_t expected[] = {0, 1, 1, 3, 4, 4, 4, 4, 8, 8};
  for (std::size_t m = 0; m < 10; ++m) EXPECT_EQ(safe_cut(s, m), expected[m]) << m;
  std::mt19937 rng(9);
  for (int t = 0; t < 1000; ++t) {
    const std::string in = random_bytes(rng, 30);
    const std::vector<bool> b = boundaries(in);
    for (std::size_t m = 0; m <= in.size() + 1; ++m) {
      std::size_t want = std::min(m, in.size());
      while (!b[want]) --want;
      ASSERT_EQ(safe_cut(in, m), want) << t << " " << m;
    }
  }
}

TEST(Utf8Functions, UnitLength) {
  EXPECT_EQ(unit_length("", 0), 0u);
  EXPECT_EQ(unit_length("a", 0), 1u);
  EXPECT_EQ(unit_length("\xF0\x9F\x91\x8D", 0), 4u);
  EXPECT_EQ(unit_length("\xF0\x9F\x91\x8D", 1), 1u);  // a continuation byte on its own
  EXPECT_EQ(unit_length("\xE2\x82"
                        "b",
                        0),
            2u);
  EXPECT_EQ(unit_length("\xF0\x9F\x91", 0), 3u);
  EXPECT_EQ(unit_length("\xE0\x80\xAF", 0), 1u);
}

}  // namespace
}  // namespace sigil::text
