#include "sigil/store/sha256.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sigil/store/once_keys.h"
#include "sigil/store/store.h"
#include "store/sha256_blocks.h"
#include "support/expect_each.h"

namespace sigil::store {
namespace {

// FIPS 180-2 appendix B and NIST's long-message vectors.
TEST(Sha256, StandardVectors) {
  test::expect_each(
      sha256_hex,
      {
          {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
          {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
          {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
           "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
          {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrl"
           "mnopqrsmnopqrstnopqrstu",
           "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
      });
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 7 + 3) % 256);
  return s;
}

// Lengths around the padding boundaries (55/56 bytes: the length field no longer fits), checked with
// Python's hashlib.
TEST(Sha256, PaddingBoundaries) {
  const std::pair<std::size_t, const char*> cases[] = {
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
      {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
      {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
      {128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"},
  };
  for (const auto& [n, hex] : cases) EXPECT_EQ(sha256_hex(pattern(n)), hex) << n;
}

TEST(Sha256, ChunkingDoesNotMatter) {
  const std::string message = pattern(1000);
  const std::string whole = sha256_hex(message);
  for (std::size_t chunk : {1u, 3u, 55u, 63u, 64u, 65u, 127u, 999u}) {
    Sha256 h;
    for (std::size_t i = 0; i < message.size(); i += chunk)
      h.update(std::string_view(message).substr(i, chunk));
    EXPECT_EQ(to_hex(h.finish()), whole) << chunk;
  }
}

// The SHA extensions' kernel against the portable one, on the same random blocks (1 to 20 at a time, the
// state carried on); where the CPU lacks them, the portable kernel against itself.
TEST(Sha256, ShaExtensionKernelEqualsThePortableOne) {
  if (!detail::sha256_ni_available()) GTEST_SKIP() << "this CPU has no SHA extensions";
  std::mt19937 rng(11);
  detail::Sha256State fast{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                           0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  detail::Sha256State portable = fast;
  for (std::size_t n = 1; n <= 20; ++n) {
    std::vector<std::uint8_t> blocks(64 * n);
    for (auto& b : blocks) b = static_cast<std::uint8_t>(rng());
    detail::sha256_blocks_ni(fast, blocks.data(), n);
    detail::sha256_blocks_portable(portable, blocks.data(), n);
    ASSERT_EQ(fast, portable) << n;
  }
}

// A turn's key maker gives the keys once_key() gives, for ids long enough that the shared fields fill
// blocks of their own.
TEST(OnceKeys, EqualOnceKey) {
  const std::string long_conversation(150, 'c');
  for (const auto& [conversation, turn] : {std::pair<std::string, std::string>{"conv", "turn-1"},
                                           std::pair<std::string, std::string>{long_conversation, "t"},
                                           std::pair<std::string, std::string>{"", ""}}) {
    const OnceKeys keys(conversation, turn);
    for (std::uint32_t ordinal : {0u, 7u, 4294967295u})
      for (std::string_view args : {std::string_view("{}"), std::string_view(R"({"fact":"tea"})")})
        EXPECT_EQ(keys.key(ordinal, "remember", args),
                  once_key(conversation, turn, ordinal, "remember", args));
  }
  // A key from before this class existed (its encoding must never change: the log keeps keys).
  EXPECT_EQ(OnceKeys("conv", "turn-1").key(0, "remember", R"({"fact":"tea"})"),
            sha256_hex("13:sigil-once-v1;4:conv;6:turn-1;1:0;8:remember;14:{\"fact\":\"tea\"};"));
}

}  // namespace
}  // namespace sigil::store
