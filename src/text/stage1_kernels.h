// Stage 1's kernels and the UTF-8 lookup tables they share (private to text/).
//
// The lookup algorithm judges each byte `cur` from the byte before it (`p1`) and the two before that:
//   special = kHigh1[p1 >> 4] & kLow1[p1 & 15] & kHigh2[cur >> 4]
//   error  |= special ^ (p2 >= 0xE0 || p3 >= 0xF0 ? 0x80 : 0)
// Each bit of the tables is one class of error, and each class is a "rectangle": a set of high nibbles of
// p1, a set of low nibbles of p1 and a set of high nibbles of cur, all three of which must match. So the
// three tables are built below from the classes' definitions rather than written out. Bit 7 is "two
// continuation bytes in a row", which is an error exactly when p2/p3 do not say cur must be a 3rd or 4th
// byte: the XOR. A buffer starts as if preceded by three NUL bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "sigil/text/stage1.h"

namespace sigil::text::stage1::detail {

namespace classes {
inline constexpr std::uint8_t kTooShort = 0x01;    // a lead, then no continuation byte
inline constexpr std::uint8_t kTooLong = 0x02;     // ASCII, then a continuation byte
inline constexpr std::uint8_t kOverlong3 = 0x04;   // E0 80..9F
inline constexpr std::uint8_t kTooLarge = 0x08;    // F4 90..BF, F5..FF 90..BF
inline constexpr std::uint8_t kSurrogate = 0x10;   // ED A0..BF
inline constexpr std::uint8_t kOverlong2 = 0x20;   // C0, C1 then a continuation byte
inline constexpr std::uint8_t kF0orHuge8x = 0x40;  // F0 80..8F (overlong), F5..FF 80..8F (too large)
inline constexpr std::uint8_t kTwoConts = 0x80;    // a continuation byte after a continuation byte
}  // namespace classes

struct Rectangle {
  std::uint8_t bit;
  std::uint16_t p1_high, p1_low, cur_high;  // sets of nibbles, bit n for nibble n
};

constexpr std::uint16_t nibbles(unsigned from, unsigned to) noexcept {
  std::uint16_t m = 0;
  for (unsigned n = from; n <= to; ++n) m = static_cast<std::uint16_t>(m | (1u << n));
  return m;
}
inline constexpr std::uint16_t kAnyNibble = 0xFFFF;

inline constexpr Rectangle kRectangles[] = {
    {classes::kTooShort, nibbles(0xC, 0xF), kAnyNibble,
     static_cast<std::uint16_t>(nibbles(0, 7) | nibbles(0xC, 0xF))},
    {classes::kTooLong, nibbles(0, 7), kAnyNibble, nibbles(8, 0xB)},
    {classes::kTwoConts, nibbles(8, 0xB), kAnyNibble, nibbles(8, 0xB)},
    {classes::kOverlong2, nibbles(0xC, 0xC), nibbles(0, 1), nibbles(8, 0xB)},
    {classes::kOverlong3, nibbles(0xE, 0xE), nibbles(0, 0), nibbles(8, 9)},
    {classes::kSurrogate, nibbles(0xE, 0xE), nibbles(0xD, 0xD), nibbles(0xA, 0xB)},
    {classes::kTooLarge, nibbles(0xF, 0xF), nibbles(4, 0xF), nibbles(9, 0xB)},
    {classes::kF0orHuge8x, nibbles(0xF, 0xF), static_cast<std::uint16_t>(nibbles(0, 0) | nibbles(5, 0xF)),
     nibbles(8, 8)},
};

enum class Part { P1High, P1Low, CurHigh };
constexpr std::array<std::uint8_t, 16> make_table(Part part) noexcept {
  std::array<std::uint8_t, 16> t{};
  for (unsigned n = 0; n < 16; ++n)
    for (const Rectangle& r : kRectangles) {
      const std::uint16_t set = part == Part::P1High  ? r.p1_high
                                : part == Part::P1Low ? r.p1_low
                                                      : r.cur_high;
      if ((set >> n) & 1) t[n] = static_cast<std::uint8_t>(t[n] | r.bit);
    }
  return t;
}
inline constexpr std::array<std::uint8_t, 16> kHigh1 = make_table(Part::P1High);
inline constexpr std::array<std::uint8_t, 16> kLow1 = make_table(Part::P1Low);
inline constexpr std::array<std::uint8_t, 16> kHigh2 = make_table(Part::CurHigh);

// The verdict on one byte, as every kernel computes it.
constexpr std::uint8_t judge(std::uint8_t p3, std::uint8_t p2, std::uint8_t p1, std::uint8_t cur) noexcept {
  const std::uint8_t special = kHigh1[p1 >> 4] & kLow1[p1 & 15] & kHigh2[cur >> 4];
  const std::uint8_t must_continue = (p2 >= 0xE0 || p3 >= 0xF0) ? 0x80 : 0;
  return special ^ must_continue;
}

// The bytes before the next block may still need continuation bytes: an error shows in the next block
// unless it starts with them.
constexpr bool tail_open(std::uint8_t b3, std::uint8_t b2, std::uint8_t b1) noexcept {
  return b1 >= 0xC0 || b2 >= 0xE0 || b3 >= 0xF0;
}

// Whether a buffer ends inside a possible sequence (three NUL bytes stand before its start).
inline bool buffer_tail_open(const unsigned char* p, std::size_t n) noexcept {
  auto at = [&](std::size_t back) -> std::uint8_t { return n >= back ? p[n - back] : 0; };
  return tail_open(at(3), at(2), at(1));
}

// What a kernel is asked for.
enum Want : unsigned { kWantMasks = 1, kWantUtf8 = 2 };

// Every kernel: masks into out when asked (else out may be null), the UTF-8 check when asked (else the
// result is {blocks, false}).
using KernelFn = Utf8Check (*)(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want);

Utf8Check scan_scalar(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want) noexcept;
// One block of the scalar algorithm: used by the scalar kernel and by the SSE2 kernel for blocks that are
// not all ASCII. prev holds the three bytes before the block (prev[2] the last). Returns whether an error
// shows at one of the first `len` bytes.
bool utf8_block_scalar(const unsigned char* block, std::size_t len, const unsigned char prev[3]) noexcept;
// Masks of one block of `len` (<= 64) bytes, a byte at a time.
BlockMasks masks_scalar(const unsigned char* block, std::size_t len) noexcept;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SIGIL_STAGE1_X86 1
// Buffers of at most kSmallScan bytes (one short block), any x86 kernel: the same output, without a
// kernel's setup.
inline constexpr std::size_t kSmallScan = 32;
Utf8Check scan_small(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want) noexcept;
Utf8Check scan_small_avx2(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want) noexcept;
// Buffers of kSmallScan + 1 to kBlock bytes, the AVX2 kernel: one block, without the many-block set-up.
Utf8Check scan_block_avx2(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want) noexcept;
Utf8Check scan_sse2(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want) noexcept;
Utf8Check scan_avx2(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want) noexcept;
Utf8Check scan_avx512(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want) noexcept;
#endif

}  // namespace sigil::text::stage1::detail
