#include "sigil/text/byte_scan.h"

#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

// AVX2 doubles the speed of sets of 2 or more values. Built with __AVX2__ it is used unconditionally;
// otherwise, on x86-64 with GCC or Clang, it is compiled for AVX2 alone and chosen at run time when the CPU
// has it (the check reads the compiler runtime's CPU model: no state of ours). Define
// SIGIL_NO_RUNTIME_AVX2 to test the SSE2 path on a machine with AVX2.
#if defined(__AVX2__)
#define SIGIL_HAVE_AVX2 1
#define SIGIL_AVX2_TARGET
#elif defined(__SSE2__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(SIGIL_NO_RUNTIME_AVX2)
#define SIGIL_HAVE_AVX2 1
#define SIGIL_AVX2_RUNTIME 1
#define SIGIL_AVX2_TARGET __attribute__((target("avx2")))
#endif

namespace sigil::text {
namespace {

std::size_t find_scalar(const ByteSet& set, const unsigned char* p, std::size_t n, std::size_t i) noexcept {
  for (; i < n; ++i)
    if (set.contains(p[i])) return i;
  return ByteSet::npos;
}

#if defined(__SSE2__)
// One compare per needle, OR-ed (the | of GCC/Clang vector types). A fold rather than a loop: compilers do
// not reliably unroll the loop, and the needles must stay in registers.
template <std::size_t N>
struct Needles16 {
  __m128i v[N];
  explicit Needles16(const unsigned char* values) noexcept {
    for (std::size_t k = 0; k < N; ++k) v[k] = _mm_set1_epi8(static_cast<char>(values[k]));
  }
  template <std::size_t... K>
  __m128i match(__m128i x, std::index_sequence<K...>) const noexcept {
    return (_mm_cmpeq_epi8(x, v[K]) | ...);
  }
  __m128i match_at(const unsigned char* q) const noexcept {
    return match(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)), std::make_index_sequence<N>{});
  }
  static unsigned bits(__m128i m) noexcept { return static_cast<unsigned>(_mm_movemask_epi8(m)); }
};

// Blocks of 16 from i, then one overlapping block that ends at n (no read past the end, no scalar tail).
// Requires n >= 16.
template <std::size_t N>
std::size_t find_tail16(const Needles16<N>& nd, const unsigned char* p, std::size_t n,
                        std::size_t i) noexcept {
  for (; i + 16 <= n; i += 16)
    if (unsigned m = nd.bits(nd.match_at(p + i))) return i + static_cast<std::size_t>(__builtin_ctz(m));
  if (i == n) return ByteSet::npos;
  const std::size_t q = n - 16;
  const unsigned m = nd.bits(nd.match_at(p + q)) & (~0u << (i - q));
  return m ? q + static_cast<std::size_t>(__builtin_ctz(m)) : ByteSet::npos;
}

// Requires n - i >= 16.
template <std::size_t N>
std::size_t find_sse2(const unsigned char* values, const unsigned char* p, std::size_t n,
                      std::size_t i) noexcept {
  const Needles16<N> nd(values);
  for (; i + 64 <= n; i += 64) {
    const __m128i a = nd.match_at(p + i), b = nd.match_at(p + i + 16);
    const __m128i c = nd.match_at(p + i + 32), d = nd.match_at(p + i + 48);
    if (nd.bits((a | b) | (c | d)) == 0) continue;
    const std::uint64_t m = std::uint64_t{nd.bits(a)} | (std::uint64_t{nd.bits(b)} << 16) |
                            (std::uint64_t{nd.bits(c)} << 32) | (std::uint64_t{nd.bits(d)} << 48);
    return i + static_cast<std::size_t>(__builtin_ctzll(m));
  }
  return find_tail16<N>(nd, p, n, i);
}
#endif

#if defined(SIGIL_HAVE_AVX2)
template <std::size_t N>
struct Needles32 {
  __m256i v[N];
  SIGIL_AVX2_TARGET explicit Needles32(const unsigned char* values) noexcept {
    for (std::size_t k = 0; k < N; ++k) v[k] = _mm256_set1_epi8(static_cast<char>(values[k]));
  }
  template <std::size_t... K>
  SIGIL_AVX2_TARGET __m256i match(__m256i x, std::index_sequence<K...>) const noexcept {
    return (_mm256_cmpeq_epi8(x, v[K]) | ...);
  }
  SIGIL_AVX2_TARGET __m256i match_at(const unsigned char* q) const noexcept {
    return match(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q)), std::make_index_sequence<N>{});
  }
  SIGIL_AVX2_TARGET static std::uint32_t bits(__m256i m) noexcept {
    return static_cast<std::uint32_t>(_mm256_movemask_epi8(m));
  }
};

// Requires n - i >= 32.
template <std::size_t N>
SIGIL_AVX2_TARGET std::size_t find_avx2(const unsigned char* values, const unsigned char* p, std::size_t n,
                                        std::size_t i) noexcept {
  const Needles32<N> nd(values);
  // 128 bytes per iteration: one test of the OR of four blocks keeps the loop near memchr's pace.
  for (; i + 128 <= n; i += 128) {
    const __m256i a = nd.match_at(p + i), b = nd.match_at(p + i + 32);
    const __m256i c = nd.match_at(p + i + 64), d = nd.match_at(p + i + 96);
    const __m256i any = (a | b) | (c | d);
    if (_mm256_testz_si256(any, any)) continue;
    const std::uint64_t lo = nd.bits(a) | (std::uint64_t{nd.bits(b)} << 32);
    if (lo) return i + static_cast<std::size_t>(__builtin_ctzll(lo));
    const std::uint64_t hi = nd.bits(c) | (std::uint64_t{nd.bits(d)} << 32);
    return i + 64 + static_cast<std::size_t>(__builtin_ctzll(hi));
  }
  for (; i + 32 <= n; i += 32)
    if (std::uint32_t m = nd.bits(nd.match_at(p + i))) return i + static_cast<std::size_t>(__builtin_ctz(m));
  if (i == n) return ByteSet::npos;
  const std::size_t q = n - 32;  // one overlapping block that ends at n
  const std::uint32_t m = nd.bits(nd.match_at(p + q)) & (~0u << (i - q));
  return m ? q + static_cast<std::size_t>(__builtin_ctz(m)) : ByteSet::npos;
}
#endif

#if defined(__SSE2__)
template <std::size_t N>
std::size_t find_vec(const unsigned char* values, const unsigned char* p, std::size_t n,
                     std::size_t i) noexcept {
#if defined(SIGIL_AVX2_RUNTIME)
  if (n - i >= 32 && __builtin_cpu_supports("avx2")) return find_avx2<N>(values, p, n, i);
#elif defined(SIGIL_HAVE_AVX2)
  if (n - i >= 32) return find_avx2<N>(values, p, n, i);
#endif
  return find_sse2<N>(values, p, n, i);
}
#endif

}  // namespace

std::size_t ByteSet::find_first(std::string_view s, std::size_t from) const noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  if (from >= n || count_ == 0) return npos;
  if (count_ == 1) {
    const void* hit = std::memchr(p + from, values_[0], n - from);
    return hit ? static_cast<std::size_t>(static_cast<const unsigned char*>(hit) - p) : npos;
  }
#if defined(__SSE2__)
  // Short spans: a vector setup costs more than it saves.
  if (n - from < 16 || count_ > kMaxVector) return find_scalar(*this, p, n, from);
  switch (count_) {
    case 2:
      return find_vec<2>(values_, p, n, from);
    case 3:
      return find_vec<3>(values_, p, n, from);
    case 4:
      return find_vec<4>(values_, p, n, from);
    case 5:
      return find_vec<5>(values_, p, n, from);
    case 6:
      return find_vec<6>(values_, p, n, from);
    case 7:
      return find_vec<7>(values_, p, n, from);
    default:
      return find_vec<8>(values_, p, n, from);
  }
#else
  return find_scalar(*this, p, n, from);
#endif
}

}  // namespace sigil::text
