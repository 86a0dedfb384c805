// UTF-8: validation, safe cut points, UTF-16 length, and a streaming sanitizer.
//
// Ill-formed input is cut into "units" exactly as Unicode 3.9 (Table 3-8, "maximal subparts") and the W3C
// encoding standard do, which is also Python's bytes.decode("utf-8", errors="replace"): a well-formed
// sequence is one unit; otherwise the longest prefix of a well-formed sequence starting at a byte is one
// unit (at least one byte), and becomes one U+FFFD.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace sigil::text {

bool is_valid_utf8(std::string_view s) noexcept;

// Number of UTF-16 code units of s; each ill-formed unit counts as one (its U+FFFD).
std::size_t utf16_length(std::string_view s) noexcept;

// The largest cut c <= max (and <= s.size()) that does not split a unit of s: s.substr(0, c) never ends
// inside a sequence. 0 is always a cut.
std::size_t safe_cut(std::string_view s, std::size_t max) noexcept;

// Length (1..4) of the unit that starts at s[i]; 0 when i >= s.size(). A unit cut off by the end of s is
// counted as far as it goes.
std::size_t unit_length(std::string_view s, std::size_t i) noexcept;

namespace detail {
// One step of the sanitizer: p[0, valid) is well-formed; then either valid == n, or an ill-formed unit of
// `bad` bytes follows, or (incomplete) p[valid, n) is a proper prefix of a well-formed sequence.
struct Utf8Scan {
  std::size_t valid;
  std::uint32_t bad;
  bool incomplete;
};
Utf8Scan utf8_scan(const unsigned char* p, std::size_t n) noexcept;
}  // namespace detail

// Turns a stream of byte chunks into well-formed UTF-8, one U+FFFD per ill-formed unit.
//
// Promises:
// - The concatenation of the emitted pieces, and replacements(), are the same for any chunking.
// - Each maximal well-formed run inside a chunk is emitted as one view into that chunk (zero copy). A
//   sequence split across chunks is held (at most 3 bytes) and emitted from an internal buffer once the
//   next chunk completes it; U+FFFD is emitted as its own 3-byte piece. Pieces are valid until the next
//   call to feed(), finish() or reset() (and the caller's chunk must live that long).
// - Nothing allocates except replacements(), which grows only when a replacement happens.
class Utf8Sanitizer {
 public:
  struct Replacement {
    std::uint64_t out_offset;  // where its U+FFFD starts in the sanitized stream
    std::uint32_t in_len;      // bytes of the input it replaces (1..3)
  };
  static constexpr std::string_view kReplacementChar{"\xEF\xBF\xBD", 3};

  // out is called as out(std::string_view piece) for each piece, in order.
  template <class Out>
  void feed(std::string_view chunk, Out&& out);
  // Ends the stream: a held incomplete sequence becomes one U+FFFD. Call reset() before reusing.
  template <class Out>
  void finish(Out&& out);
  void reset() noexcept;
  // The caller found (with stage 1) that the next chunk of `n` bytes is well-formed as a whole: accounts for
  // it exactly as feed() would, which would emit it as one piece. Requires held() == 0.
  void accept_valid(std::size_t n) noexcept {
    in_bytes_ += n;
    out_bytes_ += n;
  }

  // Byte offset in the original input of a byte offset in the sanitized stream. Offsets inside a U+FFFD map
  // to the start of the bytes it replaced; the end of the output maps to the end of the consumed input.
  std::uint64_t to_input_offset(std::uint64_t out_offset) const noexcept;

  const std::vector<Replacement>& replacements() const noexcept { return reps_; }
  std::uint64_t output_bytes() const noexcept { return out_bytes_; }
  // Input bytes accepted so far, including held ones.
  std::uint64_t input_bytes() const noexcept { return in_bytes_ + held_len_; }
  // Bytes of an incomplete sequence waiting for the next chunk (0..3).
  std::size_t held() const noexcept { return held_len_; }

 private:
  enum class Resume : std::uint8_t { kHeld, kComplete, kReplace };
  // Continues a held sequence with the start of p; sets *consumed to the bytes of p it took.
  Resume resume(const unsigned char* p, std::size_t n, std::size_t* consumed) noexcept;
  void replaced(std::uint32_t in_len);  // records a replacement at the current offsets
  void hold(const unsigned char* p, std::size_t n) noexcept;

  std::vector<Replacement> reps_;
  std::vector<std::uint64_t> rep_in_;  // input offset of each replacement, parallel to reps_
  std::uint64_t in_bytes_ = 0;         // input bytes resolved into output (held bytes excluded)
  std::uint64_t out_bytes_ = 0;
  unsigned char held_[4]{};
  std::uint32_t held_len_ = 0;
};

template <class Out>
void Utf8Sanitizer::feed(std::string_view chunk, Out&& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(chunk.data());
  const std::size_t n = chunk.size();
  std::size_t i = 0;
  if (held_len_ != 0) {
    const std::uint32_t had = held_len_;
    switch (resume(p, n, &i)) {
      case Resume::kHeld:
        return;
      case Resume::kComplete:
        out(std::string_view(reinterpret_cast<const char*>(held_), had + i));
        in_bytes_ += had + i;
        out_bytes_ += had + i;
        held_len_ = 0;
        break;
      case Resume::kReplace:
        replaced(had + static_cast<std::uint32_t>(i));
        out(kReplacementChar);
        held_len_ = 0;
        break;
    }
  }
  while (i < n) {
    const detail::Utf8Scan r = detail::utf8_scan(p + i, n - i);
    if (r.valid != 0) {
      out(chunk.substr(i, r.valid));
      in_bytes_ += r.valid;
      out_bytes_ += r.valid;
      i += r.valid;
    }
    if (r.bad != 0) {
      replaced(r.bad);
      out(kReplacementChar);
      i += r.bad;
    } else if (r.incomplete) {
      hold(p + i, n - i);
      return;
    }
  }
}

template <class Out>
void Utf8Sanitizer::finish(Out&& out) {
  if (held_len_ == 0) return;
  replaced(held_len_);
  held_len_ = 0;
  out(kReplacementChar);
}

}  // namespace sigil::text
