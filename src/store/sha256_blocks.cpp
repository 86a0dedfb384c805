#include "store/sha256_blocks.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define SIGIL_SHA_NI 1
#endif

namespace sigil::store::detail {
namespace {

constexpr std::array<std::uint32_t, 64> kK = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

constexpr std::uint32_t rotr(std::uint32_t x, int n) noexcept { return (x >> n) | (x << (32 - n)); }

void portable_block(Sha256State& s, const std::uint8_t* p) noexcept {
  std::array<std::uint32_t, 64> w;
  for (std::size_t i = 0; i < 16; ++i)
    w[i] = (std::uint32_t{p[4 * i]} << 24) | (std::uint32_t{p[4 * i + 1]} << 16) |
           (std::uint32_t{p[4 * i + 2]} << 8) | std::uint32_t{p[4 * i + 3]};
  for (std::size_t i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const std::uint32_t ch = (e & f) ^ (~e & g);
    const std::uint32_t t1 = h + s1 + ch + kK[i] + w[i];
    const std::uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const std::uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = s0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  s[0] += a;
  s[1] += b;
  s[2] += c;
  s[3] += d;
  s[4] += e;
  s[5] += f;
  s[6] += g;
  s[7] += h;
}

bool detect_sha_ni() noexcept {
#ifdef SIGIL_SHA_NI
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  const bool ssse3 = (c & bit_SSSE3) != 0;
  const bool sse41 = (c & bit_SSE4_1) != 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  const bool sha = (b & bit_SHA) != 0;
  return ssse3 && sse41 && sha;
#else
  return false;
#endif
}

}  // namespace

void sha256_blocks_portable(Sha256State& h, const std::uint8_t* p, std::size_t blocks) noexcept {
  for (; blocks > 0; --blocks, p += 64) portable_block(h, p);
}

bool sha256_ni_available() noexcept {
  static const bool available = detect_sha_ni();  // a fact of the CPU, computed once
  return available;
}

#ifdef SIGIL_SHA_NI
// The SHA extensions keep the state as two vectors, ABEF and CDGH (highest lane first), and run two rounds
// per sha256rnds2 with the message words plus round constants in the low half of its third operand; the
// message schedule's sigma terms come from sha256msg1 and sha256msg2.
__attribute__((target("sha,ssse3,sse4.1"))) void sha256_blocks_ni(Sha256State& h, const std::uint8_t* p,
                                                                  std::size_t blocks) noexcept {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h.data()));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h.data() + 4));
  // To the instructions' layout: lanes (high to low) A B E F and C D G H.
  const __m128i badc = _mm_shuffle_epi32(dcba, 0xB1);
  const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(badc, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, badc, 0xF0);
  for (; blocks > 0; --blocks, p += 64) {
    const __m128i abef_before = abef;
    const __m128i cdgh_before = cdgh;
    __m128i w[4];  // the last 16 message words, four per vector, oldest group first (ring by round group)
    for (int g = 0; g < 16; ++g) {
      __m128i words;
      if (g < 4) {
        words = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * g)), byte_swap);
      } else {
        // W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], four at a time.
        const __m128i back4 = w[g & 3];        // W[t-16..t-13]
        const __m128i back3 = w[(g + 1) & 3];  // W[t-12..t-9]
        const __m128i back2 = w[(g + 2) & 3];  // W[t-8..t-5]
        const __m128i back1 = w[(g + 3) & 3];  // W[t-4..t-1]
        words = _mm_sha256msg1_epu32(back4, back3);
        words = _mm_add_epi32(words, _mm_alignr_epi8(back1, back2, 4));
        words = _mm_sha256msg2_epu32(words, back1);
      }
      w[g & 3] = words;
      __m128i wk = _mm_add_epi32(words, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kK.data() + 4 * g)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      wk = _mm_shuffle_epi32(wk, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  // Back to h[0..7] = A..H.
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);
  hgfe = _mm_alignr_epi8(dchg, feba, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h.data()), dcba);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h.data() + 4), hgfe);
}
#else
void sha256_blocks_ni(Sha256State& h, const std::uint8_t* p, std::size_t blocks) noexcept {
  sha256_blocks_portable(h, p, blocks);
}
#endif

void sha256_blocks(Sha256State& h, const std::uint8_t* p, std::size_t blocks) noexcept {
  if (sha256_ni_available()) return sha256_blocks_ni(h, p, blocks);
  sha256_blocks_portable(h, p, blocks);
}

}  // namespace sigil::store::detail
