#include "open_tag_scan.h"

#include <array>
#include <bit>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "opener_scan.h"
#include "sigil/text/char_refs.h"

namespace sigil::parse {

void OpenTagScan::start() {
  state_ = State::AfterName;
  quote_ = 0;
  self_closing_ = false;
  key_.clear();
  value_.clear();
  attributes_.clear();
  refs_.clear();
}

bool OpenTagScan::in_quoted_value() const {
  return state_ == State::Quoted || state_ == State::QuotedEscape || state_ == State::BsQuoted ||
         state_ == State::BsQuotedEscape;
}

void OpenTagScan::begin_key(unsigned char c) {
  key_.assign(1, static_cast<char>(c));
  state_ = State::Key;
}

void OpenTagScan::end_value() {
  attributes_.push_back(Attribute{std::move(key_), text::decode_char_refs(value_), true});
  key_.clear();
  value_.clear();
}

// materialize() with attributes (attributes_ was cleared by scan_whole()'s start_whole()).
void OpenTagScan::copy_refs() {
  attributes_.resize(refs_.size());
  for (std::size_t i = 0; i < refs_.size(); ++i) {
    attributes_[i].key.assign(refs_[i].key);
    attributes_[i].value.assign(refs_[i].value);
    attributes_[i].has_value = refs_[i].has_value;
  }
  refs_.clear();
}

namespace {
// Inside a quoted value on the whole-tag path, the bytes that need a look: either quote (the closing one or a
// literal), a backslash and line breaks (step() knows their rules) and `&` (a character reference).
constexpr std::array<bool, 256> kValueLook = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : {'"', '\'', '\\', '\n', '\r', '&'}) t[c] = true;
  return t;
}();

// The closing `quote` of a value from p[begin] on, one table load per byte; n when step() must read the value
// (an escape or a line break: step() knows their rules; or no closing quote in p[0, n)). *refs: whether a
// `&` (a character reference) came first.
[[gnu::always_inline]] inline std::size_t quoted_end(const unsigned char* p, std::size_t n, std::size_t begin,
                                                     unsigned char quote, bool* refs) {
  std::size_t end = begin;
  for (;;) {
    while (end < n && !kValueLook[p[end]]) ++end;
    if (end == n) return n;
    const unsigned char v = p[end];
    if (v == quote) return end;
    if (v == '\\' || v == '\n' || v == '\r') return n;
    *refs = *refs || v == '&';
    ++end;  // `&` or the other quote
  }
}

// quoted_end() with the first 16 bytes looked at in one step when they are at hand: a repeated tag's value
// (an emoji, a word) usually ends inside them, where a table load per byte cost about 5 instructions a byte.
[[gnu::always_inline]] inline std::size_t value_end_16(const unsigned char* p, std::size_t n,
                                                       std::size_t begin, unsigned char quote, bool* refs) {
#if defined(__SSE2__)
  if (n - begin >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + begin));
    auto is = [&](char c) { return _mm_cmpeq_epi8(x, _mm_set1_epi8(c)); };
    const __m128i look =
        _mm_or_si128(_mm_or_si128(_mm_or_si128(is('"'), is('\'')), _mm_or_si128(is('\\'), is('&'))),
                     _mm_or_si128(is('\n'), is('\r')));
    const unsigned stops = static_cast<unsigned>(_mm_movemask_epi8(look));
    if (stops == 0) return quoted_end(p, n, begin + 16, quote, refs);
    const std::size_t at = begin + static_cast<std::size_t>(std::countr_zero(stops));
    return p[at] == quote ? at : quoted_end(p, n, at, quote, refs);
  }
#endif
  return quoted_end(p, n, begin, quote, refs);
}
}  // namespace

// scan_whole()'s rare cases, out of line so that the common tag's scan saves fewer registers.
void OpenTagScan::add_decoded(std::string_view key, std::string_view value, bool first) {
  if (first) {
    decoded_.clear();
    decoded_at_.clear();
  }
  const std::size_t before = decoded_.size();
  decoded_ += text::decode_char_refs(value);
  decoded_at_.push_back({refs_.size(), before, decoded_.size() - before});
  refs_.push_back({key, {}, true});
}

void OpenTagScan::view_decoded() {
  for (const Decoded& d : decoded_at_.items())
    refs_[d.attribute].value = std::string_view(decoded_).substr(d.offset, d.size);
}

std::size_t OpenTagScan::scan_attributes(std::string_view rest) {
  start_whole();
  bool decoded = false;  // whether a value had character references (decoded_ holds this tag's then)
  // A decoded value's view is made once every value is decoded (decoded_ may move while it grows).
  auto done = [&](std::size_t used) {
    if (decoded) view_decoded();
    return used;
  };
  const unsigned char* p = reinterpret_cast<const unsigned char*>(rest.data());
  const std::size_t n = rest.size();
  std::size_t i = 0;
  bool after_name = true;  // a key must be separated from the name by a blank (2.1)
  while (i < n) {
    const unsigned char c = p[i];
    if (c == ' ' || c == '\t') {
      after_name = false;
      ++i;
      continue;
    }
    if (c == '>') return done(i + 1);
    if (c == '/') {
      if (i + 1 < n && p[i + 1] == '>') {
        self_closing_ = true;
        return done(i + 2);
      }
      return 0;
    }
    if (after_name || !is_name_byte(c)) return 0;
    const std::size_t key_begin = i;
    while (i < n && is_name_byte(p[i])) ++i;
    if (i == n) return 0;
    const std::string_view key = rest.substr(key_begin, i - key_begin);
    if (p[i] == '>' || p[i] == '/') {  // a key without a value
      refs_.push_back({key, {}, false});
      continue;
    }
    if (p[i] != '=' || i + 1 == n) return 0;
    const unsigned char quote = p[i + 1];
    if (quote != '"' && quote != '\'') return 0;
    const std::size_t value_begin = i + 2;
    bool refs = false;
    const std::size_t value_end = quoted_end(p, n, value_begin, quote, &refs);
    if (value_end == n) return 0;
    const std::string_view value = rest.substr(value_begin, value_end - value_begin);
    if (refs) {
      add_decoded(key, value, !decoded);
      decoded = true;
    } else {
      refs_.push_back({key, value, true});
    }
    i = value_end + 1;
    after_name = false;
    // Right after a closing quote a key may follow directly (2.1): the loop takes it like one after a blank.
  }
  return 0;
}

std::size_t OpenTagScan::scan_repeat(std::string_view rest, std::size_t value_begin, std::size_t key_begin,
                                     std::size_t key_size, bool bare_end) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(rest.data());
  const std::size_t n = rest.size();
  bool refs = false;
  const std::size_t value_end = value_end_16(p, n, value_begin, p[value_begin - 1], &refs);
  if (value_end + 2 >= n || refs) return 0;
  std::size_t used;
  if (p[value_end + 1] == '/' && p[value_end + 2] == '>') {
    used = value_end + 3;
  } else if (bare_end && p[value_end + 1] == '>') {
    used = value_end + 2;
  } else {
    return 0;
  }
  start_whole();
  self_closing_ = used == value_end + 3;
  // (Both views lie inside rest: the prefix's key before value_begin, the value before value_end < n.)
  refs_.push_back({std::string_view(rest.data() + key_begin, key_size),
                   std::string_view(rest.data() + value_begin, value_end - value_begin), true});
  return used;
}

OpenTagScan::Result OpenTagScan::step(unsigned char c) {
  switch (state_) {
    case State::AfterName:
    case State::Between:
    case State::AfterQuoted:
      if (is_markup_space(c)) {
        state_ = State::Between;
        return Result::Pending;
      }
      if (c == '>') return Result::Complete;
      if (c == '/') {
        state_ = State::Slash;
        return Result::Pending;
      }
      // A key must be separated from the name by WS; after a closing quote it may follow directly (2.1).
      if (is_name_byte(c) && state_ != State::AfterName) {
        begin_key(c);
        return Result::Pending;
      }
      return Result::Reject;
    case State::Key:
      if (is_name_byte(c)) {
        key_ += static_cast<char>(c);
        return Result::Pending;
      }
      if (c == '=') {
        state_ = State::AfterEq;
        return Result::Pending;
      }
      if (is_markup_space(c) || c == '>' || c == '/') {
        attributes_.push_back(Attribute{std::move(key_), std::string(), false});
        key_.clear();
        if (is_markup_space(c)) {
          state_ = State::AfterKey;
          return Result::Pending;
        }
        state_ = State::Between;
        return step(c);
      }
      return Result::Reject;
    case State::AfterKey:
      if (is_markup_space(c)) return Result::Pending;
      if (c == '=') {
        // The valueless attribute just recorded gets its value after all.
        key_ = std::move(attributes_.back().key);
        attributes_.pop_back();
        state_ = State::AfterEq;
        return Result::Pending;
      }
      state_ = State::Between;
      return step(c);
    case State::AfterEq:
      if (is_markup_space(c)) return Result::Pending;
      if (c == '"' || c == '\'') {
        quote_ = c;
        state_ = State::Quoted;
        return Result::Pending;
      }
      if (c == '\\') {
        state_ = State::EqBackslash;
        return Result::Pending;
      }
      if (c == '>') {  // `key=>`: an empty value
        end_value();
        return Result::Complete;
      }
      if (c == '<') return Result::Reject;
      value_ += static_cast<char>(c);
      state_ = c == '/' ? State::UnquotedSlash : State::Unquoted;
      if (c == '/') value_.pop_back();
      return Result::Pending;
    case State::EqBackslash:
      if (c == '"' || c == '\'') {
        quote_ = c;
        state_ = State::BsQuoted;
        return Result::Pending;
      }
      value_ += '\\';
      state_ = State::Unquoted;
      return step(c);
    case State::Quoted:
      if (c == '\n' || c == '\r') return Result::Reject;
      if (c == quote_) {
        end_value();
        state_ = State::AfterQuoted;
      } else if (c == '\\') {
        state_ = State::QuotedEscape;
      } else {
        value_ += static_cast<char>(c);
      }
      return Result::Pending;
    case State::QuotedEscape:
      if (c == quote_) {
        value_ += static_cast<char>(c);
        state_ = State::Quoted;
        return Result::Pending;
      }
      value_ += '\\';
      state_ = State::Quoted;
      return step(c);
    case State::BsQuoted:
      if (c == '\n' || c == '\r') return Result::Reject;
      if (c == '\\') {
        state_ = State::BsQuotedEscape;
      } else {
        value_ += static_cast<char>(c);
      }
      return Result::Pending;
    case State::BsQuotedEscape:
      if (c == quote_) {
        end_value();
        state_ = State::AfterQuoted;
        return Result::Pending;
      }
      value_ += '\\';
      state_ = State::BsQuoted;
      return step(c);
    case State::Unquoted:
      if (is_markup_space(c)) {
        end_value();
        state_ = State::Between;
        return Result::Pending;
      }
      if (c == '>') {
        end_value();
        return Result::Complete;
      }
      if (c == '/') {
        state_ = State::UnquotedSlash;
        return Result::Pending;
      }
      if (c == '"' || c == '\'' || c == '<') return Result::Reject;
      value_ += static_cast<char>(c);
      return Result::Pending;
    case State::UnquotedSlash:
      if (c == '>') {
        end_value();
        self_closing_ = true;
        return Result::Complete;
      }
      value_ += '/';
      state_ = State::Unquoted;
      return step(c);
    case State::Slash:
      if (c == ' ' || c == '\t') return Result::Pending;
      if (c == '>') {
        self_closing_ = true;
        return Result::Complete;
      }
      return Result::Reject;
  }
  return Result::Reject;
}

}  // namespace sigil::parse
