#include "sigil/text/utf8.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "sigil/text/stage1.h"

#if defined(__AVX2__) || defined(__SSE2__)
#include <immintrin.h>
#endif

namespace sigil::text {
namespace {

// Unicode Table 3-7: for each lead byte, the sequence length (0: never a lead) and the allowed range of
// the second byte; later bytes are always 80..BF.
struct Lead {
  std::uint8_t len, lo, hi, unused;  // 4 bytes: one aligned load per lookup
};
constexpr std::array<Lead, 256> make_leads() {
  std::array<Lead, 256> t{};
  for (std::size_t b = 0; b < 0x80; ++b) t[b] = {1, 0, 0, 0};
  for (std::size_t b = 0xC2; b <= 0xDF; ++b) t[b] = {2, 0x80, 0xBF, 0};
  for (std::size_t b = 0xE0; b <= 0xEF; ++b) t[b] = {3, 0x80, 0xBF, 0};
  t[0xE0].lo = 0xA0;  // no overlongs
  t[0xED].hi = 0x9F;  // no surrogates
  for (std::size_t b = 0xF0; b <= 0xF4; ++b) t[b] = {4, 0x80, 0xBF, 0};
  t[0xF0].lo = 0x90;  // no overlongs
  t[0xF4].hi = 0x8F;  // nothing above U+10FFFF
  return t;
}
constexpr std::array<Lead, 256> kLeads = make_leads();

inline bool is_cont(unsigned char b) noexcept { return (b & 0xC0) == 0x80; }

// Examines the unit at p[0] (n >= 1). Returns its length; *complete tells whether it is well-formed.
// A unit cut short by n (a proper prefix of a well-formed sequence) has *complete false and *truncated true.
inline std::uint32_t unit_at(const unsigned char* p, std::size_t n, bool* complete,
                             bool* truncated) noexcept {
  const Lead& l = kLeads[p[0]];
  *truncated = false;
  if (l.len <= 1) {
    *complete = l.len == 1;
    return 1;
  }
  *complete = false;
  if (n < 2) return *truncated = true, 1;
  if (p[1] < l.lo || p[1] > l.hi) return 1;
  for (std::uint32_t k = 2; k < l.len; ++k) {
    if (n <= k) return *truncated = true, k;
    if ((p[k] & 0xC0) != 0x80) return k;
  }
  *complete = true;
  return l.len;
}

// Length of the ASCII prefix of p[i, n), starting at i; vectorised because prose is mostly ASCII.
inline std::size_t skip_ascii(const unsigned char* p, std::size_t n, std::size_t i) noexcept {
#if defined(__AVX2__)
  for (; i + 64 <= n; i += 64) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32));
    const auto m = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_or_si256(a, b)));
    if (m != 0) {
      const auto ma = static_cast<std::uint32_t>(_mm256_movemask_epi8(a));
      return ma ? i + static_cast<std::size_t>(__builtin_ctz(ma))
                : i + 32 +
                      static_cast<std::size_t>(
                          __builtin_ctz(static_cast<std::uint32_t>(_mm256_movemask_epi8(b))));
    }
  }
  for (; i + 32 <= n; i += 32) {
    const auto m = static_cast<std::uint32_t>(
        _mm256_movemask_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i))));
    if (m != 0) return i + static_cast<std::size_t>(__builtin_ctz(m));
  }
#endif
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    const auto m =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
    if (m != 0) return i + static_cast<std::size_t>(__builtin_ctz(m));
  }
#else
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w & 0x8080808080808080ull) break;
  }
#endif
  while (i < n && p[i] < 0x80) ++i;
  return i;
}

}  // namespace

namespace detail {

namespace {
Utf8Scan utf8_scan_from(const unsigned char* p, std::size_t n, std::size_t i) noexcept;
}  // namespace

// Long spans go through stage 1's SIMD check first: valid text (the common case) then costs no scalar work
// at all, and otherwise the precise scan below starts a block or so before the first error. Stage 1 stops at
// its first error block, and the restart lies at most 71 bytes before the error, and only after a clean
// block: the work stays linear however many errors follow.
Utf8Scan utf8_scan(const unsigned char* p, std::size_t n) noexcept {
  if (n < stage1::kBlock) return utf8_scan_from(p, n, 0);
  const std::string_view s(reinterpret_cast<const char*>(p), n);
  const stage1::Utf8Check check = stage1::validate(s);
  if (stage1::all_valid(check, n)) return {n, 0, false};
  return utf8_scan_from(p, n, stage1::restart_point(s, check));
}

namespace {

// The precise scan from i, a unit boundary with only well-formed bytes before it.
Utf8Scan utf8_scan_from(const unsigned char* p, std::size_t n, std::size_t i) noexcept {
  for (;;) {
    i = skip_ascii(p, n, i);
    if (i == n) return {n, 0, false};
    // Non-ASCII: go a sequence at a time until the next ASCII byte sends us back to the vector loop.
    // The common forms are checked with branches rather than a table, so that the next position does
    // not wait on a load (the CPU predicts the length and runs ahead); unit_at() handles the rest.
    do {
      const unsigned b0 = p[i];
      if (b0 >= 0xC2 && b0 < 0xE0 && n - i >= 2 && is_cont(p[i + 1])) {
        i += 2;
      } else if (b0 >= 0xE1 && b0 < 0xF0 && b0 != 0xED && n - i >= 3 && is_cont(p[i + 1]) &&
                 is_cont(p[i + 2])) {
        i += 3;
      } else if (b0 >= 0xF1 && b0 < 0xF4 && n - i >= 4 && is_cont(p[i + 1]) && is_cont(p[i + 2]) &&
                 is_cont(p[i + 3])) {
        i += 4;
      } else {
        bool complete, truncated;
        const std::uint32_t len = unit_at(p + i, n - i, &complete, &truncated);
        if (!complete) return truncated ? Utf8Scan{i, 0, true} : Utf8Scan{i, len, false};
        i += len;
      }
    } while (i < n && p[i] >= 0x80);
    if (i == n) return {n, 0, false};
  }
}

}  // namespace

}  // namespace detail

bool is_valid_utf8(std::string_view s) noexcept {
  return detail::utf8_scan(reinterpret_cast<const unsigned char*>(s.data()), s.size()).valid == s.size();
}

std::size_t utf16_length(std::string_view s) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t units = 0, i = 0;
  while (i < n) {
    const detail::Utf8Scan r = detail::utf8_scan(p + i, n - i);
    // In well-formed text every byte that is not a continuation byte starts a code point, and
    // 4-byte leads (F0..F4) start a surrogate pair.
    for (std::size_t k = i, e = i + r.valid; k < e; ++k)
      units += std::size_t{(p[k] & 0xC0) != 0x80} + std::size_t{p[k] >= 0xF0};
    i += r.valid;
    if (r.bad) {
      ++units;
      i += r.bad;
    } else if (r.incomplete) {
      ++units;
      break;
    }
  }
  return units;
}

std::size_t unit_length(std::string_view s, std::size_t i) noexcept {
  if (i >= s.size()) return 0;
  bool complete, truncated;
  return unit_at(reinterpret_cast<const unsigned char*>(s.data()) + i, s.size() - i, &complete, &truncated);
}

std::size_t safe_cut(std::string_view s, std::size_t max) noexcept {
  if (max >= s.size()) return s.size();
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  // Every byte that is not a continuation byte starts a unit, and a unit is at most 4 bytes, so only the
  // nearest such byte within 3 before `max` can start a unit that spans it.
  if ((p[max] & 0xC0) != 0x80) return max;
  const std::size_t stop = max >= 3 ? max - 3 : 0;
  for (std::size_t j = max; j-- > stop;) {
    if ((p[j] & 0xC0) == 0x80) continue;
    bool complete, truncated;
    const std::uint32_t len = unit_at(p + j, s.size() - j, &complete, &truncated);
    return j + len > max ? j : max;
  }
  return max;
}

void Utf8Sanitizer::reset() noexcept {
  reps_.clear();
  rep_in_.clear();
  in_bytes_ = out_bytes_ = 0;
  held_len_ = 0;
}

std::uint64_t Utf8Sanitizer::to_input_offset(std::uint64_t out_offset) const noexcept {
  const auto it = std::upper_bound(reps_.begin(), reps_.end(), out_offset,
                                   [](std::uint64_t o, const Replacement& r) { return o < r.out_offset; });
  if (it == reps_.begin()) return out_offset;
  const auto k = static_cast<std::size_t>(it - reps_.begin()) - 1;
  const Replacement& r = reps_[k];
  const std::uint64_t rel = out_offset - r.out_offset;
  if (rel < kReplacementChar.size()) return rep_in_[k];
  return rep_in_[k] + r.in_len + (rel - kReplacementChar.size());
}

Utf8Sanitizer::Resume Utf8Sanitizer::resume(const unsigned char* p, std::size_t n,
                                            std::size_t* consumed) noexcept {
  unsigned char seq[4];
  std::memcpy(seq, held_, held_len_);
  const std::size_t take = std::min<std::size_t>(n, 4 - held_len_);
  std::memcpy(seq + held_len_, p, take);
  const detail::Utf8Scan r = detail::utf8_scan(seq, held_len_ + take);
  if (r.valid != 0) {  // the held lead's sequence is complete; later bytes of seq are not ours
    *consumed = kLeads[held_[0]].len - held_len_;
    std::memcpy(held_ + held_len_, p, *consumed);
    return Resume::kComplete;
  }
  if (r.incomplete) {  // still short: only possible when the whole chunk was taken
    std::memcpy(held_ + held_len_, p, take);
    held_len_ += static_cast<std::uint32_t>(take);
    *consumed = take;
    return Resume::kHeld;
  }
  *consumed = r.bad - held_len_;  // the unit is the held bytes plus the continuation bytes that fit
  return Resume::kReplace;
}

void Utf8Sanitizer::replaced(std::uint32_t in_len) {
  reps_.push_back({out_bytes_, in_len});
  rep_in_.push_back(in_bytes_);
  in_bytes_ += in_len;
  out_bytes_ += kReplacementChar.size();
}

void Utf8Sanitizer::hold(const unsigned char* p, std::size_t n) noexcept {
  std::memcpy(held_, p, n);
  held_len_ = static_cast<std::uint32_t>(n);
}

}  // namespace sigil::text
