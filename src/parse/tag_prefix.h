// The bytes of the last common directive up to its only value (`<react emoji="`), remembered so that the
// next one written the same way is recognised by one compare instead of a name lookup and an attribute scan
// (a directive-dense reply writes the same tag again and again: case (b)'s 10,000 reacts).
//
// Promise: match() finds a prefix only where the whole-tag path read exactly these bytes before, to the same
// decisions: the same bytes give the same name lookup (the registered tag `tag`), the same key (at
// [key_begin, key_begin + key_size) of the prefix) and the same quote, whatever comes before them or the
// chunking (what is read after the prefix, the value and the tag's end, is read afresh each time). It
// depends on the grammar and the options alone, so a parser keeps it across reset(). It reads exactly
// kBytes bytes of the input and answers only when that many are at hand.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "sigil/parse/grammar.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sigil::parse {

class TagPrefix {
 public:
  static constexpr std::size_t kBytes = 32;  // the longest prefix kept, and the bytes match() reads

  // Whether `rest` (from a `<`) begins with the kept prefix; false when fewer than kBytes bytes are at hand.
  // Only while kept().
  bool match(std::string_view rest) const noexcept {
    if (rest.size() < kBytes) return false;
#if defined(__SSE2__)
    // Two 16-byte compares; the bytes past the prefix are ignored by the mask.
    const auto* p = reinterpret_cast<const __m128i*>(rest.data());
    const auto* q = reinterpret_cast<const __m128i*>(bytes_.data());
    const std::uint32_t lo =
        static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(p), _mm_loadu_si128(q))));
    const std::uint32_t hi = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(p + 1), _mm_loadu_si128(q + 1))));
    return ((lo | hi << 16) & mask_) == mask_;
#else
    return std::memcmp(rest.data(), bytes_.data(), size_) == 0;
#endif
  }

  // Whether keep() may keep a prefix now (called once for each common directive): not for the first one a
  // parser reads (a reply with one directive, the usual, would pay for a copy it never compares with), and
  // only when rest holds at least kBytes bytes.
  bool wants(std::string_view rest) noexcept {
    if (!seen_) {
      seen_ = true;
      return false;
    }
    return rest.size() >= kBytes;
  }
  // Keeps rest[0, size) as the prefix (size <= kBytes; wants(rest) was true), what the whole-tag path
  // decided over it, and what the grammar resolved for its tag and key (`one_value`).
  void keep(std::string_view rest, std::size_t size, int tag, std::size_t key_begin, std::size_t key_size,
            bool name_whole, const OneValueTag& one_value) noexcept {
    std::memcpy(bytes_.data(), rest.data(), kBytes);  // (the bytes past size are masked off)
    size_ = static_cast<std::uint8_t>(size);
    mask_ = static_cast<std::uint32_t>((std::uint64_t{1} << size) - 1);
    tag_ = tag;
    key_begin_ = static_cast<std::uint8_t>(key_begin);
    key_size_ = static_cast<std::uint8_t>(key_size);
    name_whole_ = name_whole;
    one_value_ = one_value;
  }

  bool kept() const noexcept { return size_ != 0; }
  std::size_t size() const noexcept { return size_; }
  int tag() const noexcept { return tag_; }
  std::size_t key_begin() const noexcept { return key_begin_; }
  std::size_t key_size() const noexcept { return key_size_; }
  // Whether the name was looked up whole (NameTable::match_whole): so it would be again with kBytes at hand.
  bool name_whole() const noexcept { return name_whole_; }
  // Grammar::one_value_tag() of the tag's spelling and the key: a tag that matches has one attribute under
  // the same key bytes, validated against it (Grammar::validate_one_value_into).
  const OneValueTag& one_value() const noexcept { return one_value_; }

 private:
  std::array<char, kBytes> bytes_;  // left unset when made: written by keep() before match() reads it
  OneValueTag one_value_;
  std::uint32_t mask_ = 0;
  int tag_ = -1;
  std::uint8_t size_ = 0;  // 0: none kept
  std::uint8_t key_begin_ = 0;
  std::uint8_t key_size_ = 0;
  bool name_whole_ = false;
  bool seen_ = false;  // a common directive was read (wants())
};

}  // namespace sigil::parse
