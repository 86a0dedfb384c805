// Stage 1's x86 kernels: SSE2 (every x86-64), AVX2 and AVX-512 (F + BW), each compiled for its instruction
// set alone with a function-level target attribute and chosen at run time (stage1.cpp), so the build's
// -march stays the baseline. All three compute exactly what the scalar kernel computes (stage1_kernels.h).
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>

#include "stage1_kernels.h"

#if defined(SIGIL_STAGE1_X86)
#include <immintrin.h>

#define SIGIL_TARGET_AVX2 __attribute__((target("avx2")))
#define SIGIL_TARGET_AVX512 __attribute__((target("avx2,avx512f,avx512bw")))

namespace sigil::text::stage1::detail {
namespace {

// The last block is usually short: it is copied here, padded with NUL bytes (which are in no mask and
// are plain ASCII to the UTF-8 check), and only its first `len` bytes' verdicts count.
struct Padded {
  alignas(64) unsigned char bytes[kBlock];
  const unsigned char* fill(const unsigned char* p, std::size_t len) noexcept {
    std::memset(bytes, 0, kBlock);
    std::memcpy(bytes, p, len);
    return bytes;
  }
};

constexpr std::uint64_t low_bits(std::size_t len) noexcept {
  return len >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
}

// ----------------------------------------------------------------------------------------------- SSE2
// No byte shuffle in SSE2: the masks are vector compares, and the UTF-8 check runs the scalar algorithm on
// the blocks that are not all ASCII (an all-ASCII block is in error exactly when the one before left a
// sequence open: the first bytes of the block are then no continuation bytes).

struct Sse2Block {
  __m128i v[4];
  explicit Sse2Block(const unsigned char* b) noexcept {
    for (int i = 0; i < 4; ++i) v[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * i));
  }
  std::uint64_t eq(char c) const noexcept {
    const __m128i needle = _mm_set1_epi8(c);
    std::uint64_t m = 0;
    for (int i = 0; i < 4; ++i)
      m |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], needle)))}
           << (16 * i);
    return m;
  }
  std::uint64_t high() const noexcept {
    std::uint64_t m = 0;
    for (int i = 0; i < 4; ++i)
      m |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(v[i]))} << (16 * i);
    return m;
  }
};

}  // namespace

Utf8Check scan_sse2(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want) noexcept {
  const std::size_t blocks = blocks_for(n);
  Utf8Check r{blocks, false};
  unsigned char prev[3] = {0, 0, 0};
  Padded pad;
  for (std::size_t k = 0; k < blocks; ++k) {
    if (want == kWantUtf8 && r.first_error_block != blocks) break;  // the check alone stops at its verdict
    const std::size_t len = std::min(kBlock, n - k * kBlock);
    const unsigned char* b = len == kBlock ? p + k * kBlock : pad.fill(p + k * kBlock, len);
    const Sse2Block x(b);
    const std::uint64_t high = x.high();
    if (want & kWantMasks) out[k] = {x.eq('<'), x.eq('['), x.eq('\n'), x.eq('`')};
    if ((want & kWantUtf8) && r.first_error_block == blocks) {
      const bool err = high == 0 ? tail_open(prev[0], prev[1], prev[2]) : utf8_block_scalar(b, len, prev);
      if (err) r.first_error_block = k;
    }
    std::memcpy(prev, b + kBlock - 3, 3);  // only a full block has a next one
  }
  if (want & kWantUtf8) r.tail_open = buffer_tail_open(p, n);
  return r;
}

// ----------------------------------------------------------------------------------------------- small
// A streamed reply comes in pieces of a few to a few dozen bytes, where any kernel's setup (the padded
// 64-byte copy, the AVX2 tables) costs more than the bytes. Two SSE2 vectors over a zero-padded copy give
// the one block's masks; the UTF-8 check is needed only when a byte is >= 0x80 (an all-ASCII buffer
// cannot be in error or end open), and then runs the scalar algorithm over the few bytes.

Utf8Check scan_small(const unsigned char* p, std::size_t n, BlockMasks* out, unsigned want) noexcept {
  if (n == 0) return Utf8Check{0, false};
  alignas(16) unsigned char bytes[kSmallScan] = {};
  std::memcpy(bytes, p, n);
  const __m128i lo = _mm_load_si128(reinterpret_cast<const __m128i*>(bytes));
  const __m128i hi = _mm_load_si128(reinterpret_cast<const __m128i*>(bytes + 16));
  const auto eq = [&](char c) {
    const __m128i needle = _mm_set1_epi8(c);
    return std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(lo, needle)))} |
           std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(hi, needle)))} << 16;
  };
  const std::uint64_t high = std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(lo))} |
                             std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(hi))} << 16;
  if (want & kWantMasks) *out = {eq('<'), eq('['), eq('\n'), eq('`')};
  Utf8Check r{1, false};
  if ((want & kWantUtf8) && high != 0) {
    const unsigned char none[3] = {0, 0, 0};
    if (utf8_block_scalar(p, n, none)) r.first_error_block = 0;
    r.tail_open = buffer_tail_open(p, n);
  }
  return r;
}

// ----------------------------------------------------------------------------------------------- AVX2

namespace {

// A byte repeated over a 256-bit vector, as data: written as _mm256_set1_epi8 in a loop, GCC rebuilds each
// such constant per block (an immediate, a move and a broadcast); loaded, it stays in a register or is read
// as the instruction's memory operand.
constexpr std::array<std::uint8_t, 32> splat32(std::uint8_t c) noexcept {
  std::array<std::uint8_t, 32> r{};
  for (auto& b : r) b = c;
  return r;
}
alignas(32) constexpr std::array<std::uint8_t, 32> kNibble32 = splat32(0x0F), kThird32 = splat32(0xE0 - 0x80),
                                                   kFourth32 = splat32(0xF0 - 0x80), kTop32 = splat32(0x80);
alignas(32) constexpr std::array<std::uint8_t, 32> kLt32 = splat32('<'), kBracket32 = splat32('['),
                                                   kNewline32 = splat32('\n'), kBacktick32 = splat32('`');

SIGIL_TARGET_AVX2 inline __m256i load32(const std::array<std::uint8_t, 32>& t) noexcept {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(t.data()));
}

struct Avx2Tables {
  __m256i high1, low1, high2, nibble, third, fourth, top;
  SIGIL_TARGET_AVX2 static __m256i load(const std::array<std::uint8_t, 16>& t) noexcept {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data())));
  }
  SIGIL_TARGET_AVX2 Avx2Tables() noexcept
      : high1(load(kHigh1)),
        low1(load(kLow1)),
        high2(load(kHigh2)),
        nibble(load32(kNibble32)),
        third(load32(kThird32)),
        fourth(load32(kFourth32)),
        top(load32(kTop32)) {}
};

// cur's bytes moved up by N, with the last N bytes of `before` in front.
template <int N>
SIGIL_TARGET_AVX2 inline __m256i shifted_in(__m256i cur, __m256i before) noexcept {
  return _mm256_alignr_epi8(cur, _mm256_permute2x128_si256(before, cur, 0x21), 16 - N);
}

// The verdict on each of cur's 32 bytes (nonzero: an error shows there).
SIGIL_TARGET_AVX2 inline __m256i judge32(const Avx2Tables& t, __m256i cur, __m256i before) noexcept {
  const __m256i nib = t.nibble;
  const __m256i p1 = shifted_in<1>(cur, before);
  const __m256i h1 = _mm256_shuffle_epi8(t.high1, _mm256_and_si256(_mm256_srli_epi16(p1, 4), nib));
  const __m256i l1 = _mm256_shuffle_epi8(t.low1, _mm256_and_si256(p1, nib));
  const __m256i h2 = _mm256_shuffle_epi8(t.high2, _mm256_and_si256(_mm256_srli_epi16(cur, 4), nib));
  const __m256i special = _mm256_and_si256(_mm256_and_si256(h1, l1), h2);
  // p2 >= E0 or p3 >= F0: the saturating subtraction leaves the top bit set exactly then.
  const __m256i third = _mm256_subs_epu8(shifted_in<2>(cur, before), t.third);
  const __m256i fourth = _mm256_subs_epu8(shifted_in<3>(cur, before), t.fourth);
  const __m256i must = _mm256_and_si256(_mm256_or_si256(third, fourth), t.top);
  return _mm256_xor_si256(special, must);
}

// The bytes the masks mark (see splat32).
struct Avx2Needles {
  __m256i lt, bracket, newline, backtick;
  SIGIL_TARGET_AVX2 Avx2Needles() noexcept
      : lt(load32(kLt32)),
        bracket(load32(kBracket32)),
        newline(load32(kNewline32)),
        backtick(load32(kBacktick32)) {}
};

SIGIL_TARGET_AVX2 inline std::uint64_t eq64(__m256i lo, __m256i hi, __m256i needle) noexcept {
  return std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, needle)))} |
         std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, needle)))} << 32;
}

// A mask of the whole-buffer kernel is written as its two 32-bit halves, each where it lies in the 64-bit
// word (x86 is little-endian: bytes 0-31 of the block are the low half), instead of being put together first:
// the shift, the OR and GCC's packing of the words into vectors cost about 7 instructions a block (of about
// 97). The words are read only after the whole window is scanned, so the split stores stall nothing.
static_assert(std::endian::native == std::endian::little);
inline void put_half(unsigned char* at, int bits) noexcept {
  const auto half = static_cast<std::uint32_t>(bits);
  std::memcpy(at, &half, sizeof half);
}
SIGIL_TARGET_AVX2 inline void put_halves(unsigned char* at, __m256i lo, __m256i hi, __m256i needle) noexcept {
  put_half(at, _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, needle)));
  put_half(at + 4, _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, needle)));
}

SIGIL_TARGET_AVX2 inline std::uint64_t nonzero64(__m256i lo, __m256i hi) noexcept {
  return ~eq64(lo, hi, _mm256_setzero_si256());
}

// One block of the whole-buffer kernel for one request (masks, check or both), so no block tests what it
// was asked for.
template <unsigned Want>
struct Avx2Blocks {
  const Avx2Tables t;
  const Avx2Needles needles;
  __m256i before;
  BlockMasks* out;

  SIGIL_TARGET_AVX2 explicit Avx2Blocks(BlockMasks* masks) noexcept
      : before(_mm256_setzero_si256()), out(masks) {}
  // Block k, its bytes in lo and hi (NUL bytes past a short block's end); whether an error shows in its first
  // `len` bytes (false when the check is not asked for).
  [[gnu::always_inline]] SIGIL_TARGET_AVX2 bool block(std::size_t k, __m256i lo, __m256i hi,
                                                      std::size_t len) noexcept {
    if constexpr ((Want & kWantMasks) != 0) {
      unsigned char* m = reinterpret_cast<unsigned char*>(out + k);
      put_halves(m + offsetof(BlockMasks, lt), lo, hi, needles.lt);
      put_halves(m + offsetof(BlockMasks, bracket), lo, hi, needles.bracket);
      put_halves(m + offsetof(BlockMasks, newline), lo, hi, needles.newline);
      put_halves(m + offsetof(BlockMasks, backtick), lo, hi, needles.backtick);
    }
    bool err = false;
    if constexpr ((Want & kWantUtf8) != 0) {
      // Judged whether or not the block is ASCII (see the AVX-512 kernel).
      const __m256i e_lo = judge32(t, lo, before), e_hi = judge32(t, hi, lo);
      const __m256i e = _mm256_or_si256(e_lo, e_hi);
      err = len == kBlock ? !_mm256_testz_si256(e, e) : (nonzero64(e_lo, e_hi) & low_bits(len)) != 0;
    }
    before = hi;
    return err;
  }
};

SIGIL_TARGET_AVX2 inline __m256i load256(const unsigned char* p) noexcept {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// The last `len` bytes of p[0, n) (1 <= len <= min(n, 64), n >= 32) as a block's two halves, NUL bytes after
// them, reading nothing outside p[0, n): the 32 bytes that end the buffer go to a stack copy followed by
// zeros, and a half that ends in the padding is read from there (two stores, a load or two: no memset or
// memcpy call, which cost a short window more than its block's scan).
struct LastBlock {
  __m256i lo, hi;
  SIGIL_TARGET_AVX2 LastBlock(const unsigned char* p, std::size_t n, std::size_t len) noexcept {
    alignas(32) unsigned char tail[96];
    _mm256_store_si256(reinterpret_cast<__m256i*>(tail), load256(p + n - 32));
    _mm256_store_si256(reinterpret_cast<__m256i*>(tail + 32), _mm256_setzero_si256());
    _mm256_store_si256(reinterpret_cast<__m256i*>(tail + 64), _mm256_setzero_si256());
    if (len <= 32) {  // tail[32 - len, 32) are the bytes, zeros after them
      lo = load256(tail + 32 - len);
      hi = _mm256_setzero_si256();
    } else {  // the first 32 bytes in place, the other len - 32 at tail[64 - len, 32)
      lo = load256(p + n - len);
      hi = load256(tail + 64 - len);
    }
  }
};

// A buffer of fewer than 32 bytes (index() or validate() of a few bytes; scan() takes the small path): one
// block from a zero-padded copy. Apart, so that the usual sizes set up no stack frame for the copy.
template <unsigned Want>
[[gnu::noinline]] SIGIL_TARGET_AVX2 Utf8Check scan_avx2_short(const unsigned char* p, std::size_t n,
                                                              BlockMasks* out) noexcept {
  Utf8Check r{blocks_for(n), false};
  if (n == 0) return r;
  alignas(32) unsigned char bytes[kBlock] = {};
  std::memcpy(bytes, p, n);
  Avx2Blocks<Want> scan(out);
  if (scan.block(0, load256(bytes), load256(bytes + 32), n)) r.first_error_block = 0;
  if constexpr ((Want & kWantUtf8) != 0) r.tail_open = buffer_tail_open(p, n);
  return r;
}

// Full blocks are read in place, the short last one through LastBlock (a window of 33-64 bytes has its own
// path, scan_block_avx2). With both asked for, the blocks after the first error get their masks from the
// masks-only loop: the check has its verdict.
template <unsigned Want>
SIGIL_TARGET_AVX2 Utf8Check scan_avx2_for(const unsigned char* p, std::size_t n, BlockMasks* out) noexcept {
  if (n < 32) return scan_avx2_short<Want>(p, n, out);
  const std::size_t blocks = blocks_for(n), full = n / kBlock;
  Utf8Check r{blocks, false};
  Avx2Blocks<Want> scan(out);
  std::size_t k = 0;
  while (k < full && !scan.block(k, load256(p + k * kBlock), load256(p + k * kBlock + 32), kBlock)) ++k;
  if (k < full) {
    r.first_error_block = k;
    if constexpr (Want != kWantUtf8)
      scan_avx2_for<kWantMasks>(p + (k + 1) * kBlock, n - (k + 1) * kBlock, out + k + 1);
  } else if (full < blocks) {
    const std::size_t len = n - full * kBlock;
    const LastBlock last(p, n, len);
    if (scan.block(full, last.lo, last.hi, len)) r.first_error_block = full;
  }
  if constexpr ((Want & kWantUtf8) != 0) r.tail_open = buffer_tail_open(p, n);
  return r;
}

}  // namespace

SIGIL_TARGET_AVX2 Utf8Check scan_avx2(const unsigned char* p, std::size_t n, BlockMasks* out,
                                      unsigned want) noexcept {
  switch (want & (kWantMasks | kWantUtf8)) {
    case kWantMasks:
      return scan_avx2_for<kWantMasks>(p, n, out);
    case kWantUtf8:
      return scan_avx2_for<kWantUtf8>(p, n, out);
    case kWantMasks | kWantUtf8:
      return scan_avx2_for<kWantMasks | kWantUtf8>(p, n, out);
    default:
      return Utf8Check{blocks_for(n), false};
  }
}

// The small path (see scan_small) with AVX2: one 32-byte vector, the lookup check only when a byte is
// >= 0x80, with zeros before the buffer as the scalar kernel has them.
SIGIL_TARGET_AVX2 inline std::uint64_t eq32(__m256i v, char c) noexcept {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(c))));
}
SIGIL_TARGET_AVX2 inline std::uint64_t eq32(__m256i v, const std::array<std::uint8_t, 32>& c) noexcept {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, load32(c))));
}

namespace {

// Indices for _mm_shuffle_epi8 that place the last 16 bytes of a 16-32-byte buffer (see load_tail32) after
// its first 16: read from offset 32 - n, byte j takes the loaded tail's byte 32 - n + j while that is one of
// the buffer's bytes past the 16th, and zero (index with its top bit set) after the buffer's end.
alignas(32) constexpr std::array<std::uint8_t, 32> kPlaceTail = {
    0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,   11,   12,   13,   14,   15,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

// p[0, n) then zeros, for 16 <= n <= 32: two 16-byte loads that stay inside the buffer (the second ends at
// its last byte) and one shuffle, instead of a copy through the stack (a streamed piece is often 16-32
// bytes).
SIGIL_TARGET_AVX2 inline __m256i load_tail32(const unsigned char* p, std::size_t n) noexcept {
  const __m128i head = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i tail = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + n - 16));
  const __m128i place = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kPlaceTail.data() + (32 - n)));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(head), _mm_shuffle_epi8(tail, place), 1);
}

// The masks and the check of the small path, from the buffer's bytes in v (zeros after the n-th).
SIGIL_TARGET_AVX2 inline Utf8Check scan_small32(__m256i v, const unsigned char* p, std::size_t n,
                                                BlockMasks* out, unsigned want) noexcept {
  const std::uint64_t high = static_cast<std::uint32_t>(_mm256_movemask_epi8(v));
  if (want & kWantMasks)
    *out = {eq32(v, kLt32), eq32(v, kBracket32), eq32(v, kNewline32), eq32(v, kBacktick32)};
  Utf8Check r{1, false};
  if ((want & kWantUtf8) && high != 0) {
    const Avx2Tables t;
    const __m256i e = judge32(t, v, _mm256_setzero_si256());
    if ((~eq32(e, 0) & 0xFFFFFFFFu & low_bits(n)) != 0) r.first_error_block = 0;
    r.tail_open = buffer_tail_open(p, n);
  }
  return r;
}

// Buffers of 1-15 bytes: copied into a zeroed vector (kept apart, so that the usual sizes set up no stack
// frame for the copy).
__attribute__((noinline)) SIGIL_TARGET_AVX2 Utf8Check scan_short_avx2(const unsigned char* p, std::size_t n,
                                                                      BlockMasks* out,
                                                                      unsigned want) noexcept {
  alignas(32) unsigned char bytes[kSmallScan] = {};
  std::memcpy(bytes, p, n);
  return scan_small32(_mm256_load_si256(reinterpret_cast<const __m256i*>(bytes)), p, n, out, want);
}

}  // namespace

SIGIL_TARGET_AVX2 Utf8Check scan_small_avx2(const unsigned char* p, std::size_t n, BlockMasks* out,
                                            unsigned want) noexcept {
  static_assert(kSmallScan == 32);
  if (n == 0) return Utf8Check{0, false};
  if (n < 16) return scan_short_avx2(p, n, out, want);
  return scan_small32(load_tail32(p, n), p, n, out, want);
}

// A window of 33-64 bytes (one block; a streamed piece of a few dozen bytes): the whole-buffer kernel's block
// without its set-up for many blocks (its constants readied for the loop, about 45 instructions a call) and
// without the padded copy (the halves come from LastBlock); the UTF-8 check runs only when some byte is not
// ASCII, as on the small path (an all-ASCII buffer cannot be in error or end open).
SIGIL_TARGET_AVX2 Utf8Check scan_block_avx2(const unsigned char* p, std::size_t n, BlockMasks* out,
                                            unsigned want) noexcept {
  const LastBlock b(p, n, n);
  const std::uint64_t high = static_cast<std::uint32_t>(_mm256_movemask_epi8(b.lo)) |
                             std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(b.hi))} << 32;
  if (want & kWantMasks) {
    unsigned char* m = reinterpret_cast<unsigned char*>(out);
    put_halves(m + offsetof(BlockMasks, lt), b.lo, b.hi, load32(kLt32));
    put_halves(m + offsetof(BlockMasks, bracket), b.lo, b.hi, load32(kBracket32));
    put_halves(m + offsetof(BlockMasks, newline), b.lo, b.hi, load32(kNewline32));
    put_halves(m + offsetof(BlockMasks, backtick), b.lo, b.hi, load32(kBacktick32));
  }
  Utf8Check r{1, false};
  if ((want & kWantUtf8) && high != 0) {
    const Avx2Tables t;
    const __m256i e_lo = judge32(t, b.lo, _mm256_setzero_si256()), e_hi = judge32(t, b.hi, b.lo);
    if ((nonzero64(e_lo, e_hi) & low_bits(n)) != 0) r.first_error_block = 0;
    r.tail_open = buffer_tail_open(p, n);
  }
  return r;
}

// --------------------------------------------------------------------------------------------- AVX-512

namespace {

// A table in each 128-bit lane (loaded whole: GCC 12 warns about _mm512_broadcast_i32x4's undefined operand).
constexpr std::array<std::uint8_t, 64> four_lanes(const std::array<std::uint8_t, 16>& t) noexcept {
  std::array<std::uint8_t, 64> r{};
  for (std::size_t i = 0; i < 64; ++i) r[i] = t[i % 16];
  return r;
}
alignas(64) constexpr std::array<std::uint8_t, 64> kHigh1x4 = four_lanes(kHigh1);
alignas(64) constexpr std::array<std::uint8_t, 64> kLow1x4 = four_lanes(kLow1);
alignas(64) constexpr std::array<std::uint8_t, 64> kHigh2x4 = four_lanes(kHigh2);

struct Avx512Tables {
  __m512i high1, low1, high2;
  SIGIL_TARGET_AVX512 Avx512Tables() noexcept
      : high1(_mm512_load_si512(kHigh1x4.data())),
        low1(_mm512_load_si512(kLow1x4.data())),
        high2(_mm512_load_si512(kHigh2x4.data())) {}
};

// The 64 bytes that start 16 bytes before cur: per 128-bit lane, the lane before it.
SIGIL_TARGET_AVX512 inline __m512i lanes_before(__m512i cur, __m512i before) noexcept {
  return _mm512_permutex2var_epi64(before, _mm512_set_epi64(13, 12, 11, 10, 9, 8, 7, 6), cur);
}

SIGIL_TARGET_AVX512 inline __m512i judge64(const Avx512Tables& t, __m512i cur, __m512i before) noexcept {
  const __m512i nib = _mm512_set1_epi8(0x0F);
  const __m512i back = lanes_before(cur, before);
  const __m512i p1 = _mm512_alignr_epi8(cur, back, 15);
  const __m512i p2 = _mm512_alignr_epi8(cur, back, 14);
  const __m512i p3 = _mm512_alignr_epi8(cur, back, 13);
  const __m512i h1 = _mm512_shuffle_epi8(t.high1, _mm512_and_si512(_mm512_srli_epi16(p1, 4), nib));
  const __m512i l1 = _mm512_shuffle_epi8(t.low1, _mm512_and_si512(p1, nib));
  const __m512i h2 = _mm512_shuffle_epi8(t.high2, _mm512_and_si512(_mm512_srli_epi16(cur, 4), nib));
  // One ternary-logic op for h1 & l1 & h2 (truth table 0x80: all three set).
  const __m512i special = _mm512_ternarylogic_epi32(h1, l1, h2, 0x80);
  const __m512i third = _mm512_subs_epu8(p2, _mm512_set1_epi8(0xE0 - 0x80));
  const __m512i fourth = _mm512_subs_epu8(p3, _mm512_set1_epi8(0xF0 - 0x80));
  const __m512i must =
      _mm512_and_si512(_mm512_or_si512(third, fourth), _mm512_set1_epi8(static_cast<char>(0x80)));
  return _mm512_xor_si512(special, must);
}

}  // namespace

SIGIL_TARGET_AVX512 Utf8Check scan_avx512(const unsigned char* p, std::size_t n, BlockMasks* out,
                                          unsigned want) noexcept {
  const std::size_t blocks = blocks_for(n);
  Utf8Check r{blocks, false};
  const Avx512Tables t;
  __m512i before = _mm512_setzero_si512();
  for (std::size_t k = 0; k < blocks; ++k) {
    if (want == kWantUtf8 && r.first_error_block != blocks) break;  // the check alone stops at its verdict
    const std::size_t len = std::min(kBlock, n - k * kBlock);
    const __mmask64 live = low_bits(len);
    // A masked load for the last block reads nothing past the buffer and leaves NUL bytes in the rest.
    const __m512i x =
        len == kBlock ? _mm512_loadu_si512(p + k * kBlock) : _mm512_maskz_loadu_epi8(live, p + k * kBlock);
    if (want & kWantMasks)
      out[k] = {_mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('<')),
                _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('[')),
                _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\n')),
                _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('`'))};
    if ((want & kWantUtf8) && r.first_error_block == blocks) {
      // Judged whether or not the block is ASCII: in prose, plain and accented blocks come in no order the
      // branch predictor could learn, and a mispredicted branch costs more than the judgement.
      const __m512i e = judge64(t, x, before);
      if ((_mm512_test_epi8_mask(e, e) & live) != 0) r.first_error_block = k;
    }
    before = x;
  }
  if (want & kWantUtf8) r.tail_open = buffer_tail_open(p, n);
  return r;
}

}  // namespace sigil::text::stage1::detail

#endif  // SIGIL_STAGE1_X86
