#include "sigil/parse/json_lenient.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <system_error>
#include <utility>

#include "sigil/text/ascii.h"
#include "sigil/text/char_refs.h"

namespace sigil::parse {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxDepth = 512;

using text::ascii::is_alpha;
using text::ascii::is_digit;
using text::ascii::is_markup_space;
bool is_key_start(unsigned char b) { return is_alpha(b) || b == '_' || b == '$'; }
bool is_key_char(unsigned char b) { return is_key_start(b) || is_digit(b) || b == '-'; }
bool is_word_char(unsigned char b) { return is_alpha(b) || is_digit(b) || b == '_' || b == '$'; }

using text::ascii::hex_value;

using text::append_utf8;

constexpr std::uint32_t kReplacement = 0xFFFD;

// Curly quotes are E2 80 xx.
constexpr unsigned char kLeftSingle = 0x98;
constexpr unsigned char kRightSingle = 0x99;
constexpr unsigned char kLeftDouble = 0x9C;
constexpr unsigned char kRightDouble = 0x9D;

enum class Quote { Double, Single, CurlyDouble, CurlySingle };

// A code fence: its character (0 if none was opened) and run length.
struct Fence {
  char ch = 0;
  std::size_t len = 0;
};

// If an opening fence line starts at `pos` (3 or more backticks or tildes, an info string, a line feed),
// returns the offset after its line feed.
std::optional<std::size_t> opening_fence(std::string_view s, std::size_t pos, Fence& fence) {
  if (pos >= s.size() || (s[pos] != '`' && s[pos] != '~')) return std::nullopt;
  char ch = s[pos];
  std::size_t run = 0;
  while (pos + run < s.size() && s[pos + run] == ch) ++run;
  if (run < 3) return std::nullopt;
  for (std::size_t i = pos + run; i < s.size(); ++i) {
    if (s[i] == '\n') {
      fence = Fence{ch, run};
      return i + 1;
    }
    if (ch == '`' && s[i] == '`') return std::nullopt;
  }
  return std::nullopt;
}

// If, after whitespace, a closing fence line follows `pos` (a run of the fence character at least as long as
// the opener's, or of 3 or more backticks or tildes when none was opened, then only spaces, tabs or CR up to
// a line feed or the end), returns the offset after it.
std::optional<std::size_t> closing_fence(std::string_view s, std::size_t pos, const Fence& opened) {
  while (pos < s.size() && is_markup_space(s[pos])) ++pos;
  if (pos >= s.size()) return std::nullopt;
  char ch = s[pos];
  if (opened.ch != 0 ? ch != opened.ch : (ch != '`' && ch != '~')) return std::nullopt;
  std::size_t run = 0;
  while (pos < s.size() && s[pos] == ch) ++pos, ++run;
  if (run < std::max<std::size_t>(3, opened.len)) return std::nullopt;
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r')) ++pos;
  if (pos == s.size()) return pos;
  if (s[pos] == '\n') return pos + 1;
  return std::nullopt;
}

struct Frame {
  bool object;
  json::object obj;
  json::array arr;
  std::string key;
};

enum class State {
  Value,          // after ':' (or the top-level value)
  ObjFirst,       // after '{'
  ObjAfterComma,  // after ',' in an object
  ObjColon,       // after a key
  ObjNext,        // after a member
  ArrFirst,       // after '['
  ArrAfterComma,  // after ',' in an array
  ArrNext,        // after an element
};

class Reader {
 public:
  Reader(std::string_view text, std::size_t start) : s_(text), pos_(start) {}

  // Reads one value. `fence` carries an opening fence between the values of a sequence; `fence_closed`
  // is set when a closing fence line was taken after the value.
  LenientResult read(bool allow_opening_fence, Fence& fence, bool& fence_closed) {
    skip_ws();
    if (allow_opening_fence) {
      if (auto after = opening_fence(s_, pos_, fence)) {
        repair("code-fence");
        pos_ = *after;
        skip_ws();
      }
    }
    if (at_end()) return fail("expected '{' or '['");
    if (cur() != '{' && cur() != '[') return fail("expected '{' or '['");
    if (!run()) return std::move(result_);
    if (fence.ch != 0) {
      if (auto after = closing_fence(s_, pos_, fence)) {
        pos_ = *after;
        fence_closed = true;
      }
    }
    result_.ok = true;
    result_.value = std::move(value_);
    result_.consumed = pos_;
    return std::move(result_);
  }

 private:
  bool at_end() const { return pos_ >= s_.size(); }
  unsigned char cur() const { return static_cast<unsigned char>(s_[pos_]); }
  unsigned char at(std::size_t i) const { return i < s_.size() ? static_cast<unsigned char>(s_[i]) : 0; }

  void repair(const char* name) {
    auto& r = result_.repairs;
    if (std::find(r.begin(), r.end(), name) == r.end()) r.emplace_back(name);
  }

  LenientResult fail(const std::string& what) { return fail_at(pos_, what); }
  LenientResult fail_at(std::size_t where, const std::string& what) {
    LenientResult r;
    r.ok = false;
    r.repairs = std::move(result_.repairs);
    r.error = what + " at byte " + std::to_string(where);
    if (where >= s_.size()) r.error += " (end of input)";
    r.consumed = where;
    result_ = LenientResult{};
    return r;
  }
  // For helpers that return bool: records the failure in result_.
  bool failed(const std::string& what) { return failed_at(pos_, what); }
  bool failed_at(std::size_t where, const std::string& what) {
    result_ = fail_at(where, what);
    return false;
  }

  void skip_ws() {
    while (!at_end() && is_markup_space(cur())) ++pos_;
  }

  // Whitespace and comments inside a container.
  void skip_ws_and_comments() {
    for (;;) {
      skip_ws();
      if (at_end() || cur() != '/') return;
      unsigned char next = at(pos_ + 1);
      if (next == '/') {
        repair("comment");
        std::size_t nl = s_.find('\n', pos_ + 2);
        pos_ = nl == std::string_view::npos ? s_.size() : nl;
      } else if (next == '*') {
        repair("comment");
        std::size_t close = s_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) {
          repair("unclosed-comment");
          pos_ = s_.size();
        } else {
          pos_ = close + 2;
        }
      } else {
        return;  // a lone '/': the caller reports what it expected there
      }
    }
  }

  // The quote that opens a string at pos_, if any, and its length in bytes.
  std::optional<std::pair<Quote, std::size_t>> string_opener() const {
    unsigned char b = cur();
    if (b == '"') return std::pair{Quote::Double, std::size_t{1}};
    if (b == '\'') return std::pair{Quote::Single, std::size_t{1}};
    if (b == 0xE2 && at(pos_ + 1) == 0x80) {
      unsigned char c = at(pos_ + 2);
      if (c == kLeftDouble || c == kRightDouble) return std::pair{Quote::CurlyDouble, std::size_t{3}};
      if (c == kLeftSingle || c == kRightSingle) return std::pair{Quote::CurlySingle, std::size_t{3}};
    }
    return std::nullopt;
  }

  // Reads 4 hex digits at i. -1: not hex; -2: the text ends first (and what is there is hex).
  long hex4(std::size_t i) const {
    long v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      if (i + k >= s_.size()) return -2;
      int h = hex_value(s_[i + k]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  }

  // Reads a string whose opener (of length `open_len`) is at pos_.
  bool read_string(Quote q, std::size_t open_len, std::string& out) {
    if (q == Quote::Single) repair("single-quotes");
    if (q == Quote::CurlyDouble || q == Quote::CurlySingle) repair("curly-quotes");
    pos_ += open_len;
    std::size_t run = pos_;
    auto flush = [&] { out.append(s_.data() + run, pos_ - run); };
    while (!at_end()) {
      unsigned char b = cur();
      bool closes = false;
      std::size_t close_len = 1;
      switch (q) {
        case Quote::Double:
          closes = b == '"';
          break;
        case Quote::Single:
          closes = b == '\'';
          break;
        case Quote::CurlyDouble:
        case Quote::CurlySingle:
          closes = b == 0xE2 && at(pos_ + 1) == 0x80 &&
                   at(pos_ + 2) == (q == Quote::CurlyDouble ? kRightDouble : kRightSingle);
          close_len = 3;
          break;
      }
      if (closes) {
        flush();
        pos_ += close_len;
        return true;
      }
      if (b == '\\') {
        flush();
        if (!read_escape(q, out)) return false;
        run = pos_;
        continue;
      }
      if (b < 0x20) repair(b == '\n' || b == '\r' ? "raw-newline" : "raw-control");
      ++pos_;
    }
    flush();
    repair("unclosed-string");
    return true;
  }

  // Reads the escape at pos_ (a backslash). When the text ends inside it, the partial escape is dropped
  // and pos_ moves to the end (the string is then left open there).
  bool read_escape(Quote q, std::string& out) {
    std::size_t start = pos_;
    if (start + 1 >= s_.size()) {
      pos_ = s_.size();
      return true;
    }
    unsigned char e = static_cast<unsigned char>(s_[start + 1]);
    char simple = 0;
    switch (e) {
      case '"':
        simple = '"';
        break;
      case '\\':
        simple = '\\';
        break;
      case '/':
        simple = '/';
        break;
      case 'b':
        simple = '\b';
        break;
      case 'f':
        simple = '\f';
        break;
      case 'n':
        simple = '\n';
        break;
      case 'r':
        simple = '\r';
        break;
      case 't':
        simple = '\t';
        break;
      case '\'':
        simple = '\'';
        if (q != Quote::Single) repair("escaped-apostrophe");
        break;
      case 'u':
        break;
      default:
        return failed_at(start, "invalid escape");
    }
    if (simple != 0) {
      out.push_back(simple);
      pos_ = start + 2;
      return true;
    }
    long cp = hex4(start + 2);
    if (cp == -2) {
      pos_ = s_.size();
      return true;
    }
    if (cp < 0) return failed_at(start, "invalid \\u escape");
    std::size_t next = start + 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (at(next) == '\\' && at(next + 1) == 'u') {
        long low = hex4(next + 2);
        if (low >= 0xDC00 && low <= 0xDFFF) {
          append_utf8(out, 0x10000 + ((static_cast<std::uint32_t>(cp) - 0xD800) << 10) +
                               (static_cast<std::uint32_t>(low) - 0xDC00));
          pos_ = next + 6;
          return true;
        }
      }
      append_utf8(out, static_cast<char32_t>(kReplacement));
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      append_utf8(out, static_cast<char32_t>(kReplacement));
    } else {
      append_utf8(out, static_cast<char32_t>(cp));
    }
    pos_ = next;
    return true;
  }
  bool read_number(json::value& out) {
    std::size_t start = pos_;
    if (cur() == '-') ++pos_;
    if (at_end() || !is_digit(cur())) return failed_at(start, "invalid number");
    if (cur() == '0') {
      ++pos_;
    } else {
      while (!at_end() && is_digit(cur())) ++pos_;
    }
    std::size_t int_end = pos_;
    bool fraction = false, exponent = false;
    bool negative_exponent = false;
    long exp_value = 0;
    if (!at_end() && cur() == '.') {
      fraction = true;
      ++pos_;
      if (at_end() || !is_digit(cur())) return failed_at(start, "invalid number");
      while (!at_end() && is_digit(cur())) ++pos_;
    }
    if (!at_end() && (cur() == 'e' || cur() == 'E')) {
      exponent = true;
      ++pos_;
      if (!at_end() && (cur() == '+' || cur() == '-')) negative_exponent = cur() == '-', ++pos_;
      if (at_end() || !is_digit(cur())) return failed_at(start, "invalid number");
      while (!at_end() && is_digit(cur())) {
        exp_value = std::min<long>(exp_value * 10 + (cur() - '0'), 1000000);
        ++pos_;
      }
    }
    if (!at_end() && (is_word_char(cur()) || cur() == '.' || cur() == '-' || cur() == '+'))
      return failed_at(start, "invalid number");
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (!fraction && !exponent) {
      std::int64_t i = 0;
      if (auto r = std::from_chars(first, last, i); r.ec == std::errc{} && r.ptr == last) {
        out = i;
        return true;
      }
      if (*first != '-') {
        std::uint64_t u = 0;
        if (auto r = std::from_chars(first, last, u); r.ec == std::errc{} && r.ptr == last) {
          out = u;
          return true;
        }
      }
    }
    double d = 0;
    auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc::result_out_of_range) {
      // Overflow or underflow? Estimate the decimal magnitude from the digits and the exponent.
      std::size_t digits_begin = start + (*first == '-' ? 1 : 0);
      long magnitude;
      if (s_[digits_begin] != '0') {
        magnitude = static_cast<long>(int_end - digits_begin) - 1;
      } else {
        std::size_t i = int_end + 1;  // after the '.'
        while (i < s_.size() && s_[i] == '0') ++i;
        magnitude = -static_cast<long>(i - int_end);
      }
      magnitude += negative_exponent ? -exp_value : exp_value;
      if (magnitude >= 0) return failed_at(start, "number out of range");
      d = *first == '-' ? -0.0 : 0.0;
    } else if (r.ec != std::errc{} || r.ptr != last) {
      return failed_at(start, "invalid number");
    }
    out = d;
    return true;
  }

  // A bare word where a value is expected: a literal.
  bool read_literal(json::value& out) {
    std::size_t start = pos_;
    while (!at_end() && is_word_char(cur())) ++pos_;
    std::string_view w = s_.substr(start, pos_ - start);
    if (w == "true") {
      out = true;
    } else if (w == "false") {
      out = false;
    } else if (w == "null") {
      out = nullptr;
    } else if (w == "True" || w == "False" || w == "None") {
      repair("python-literal");
      if (w == "None")
        out = nullptr;
      else
        out = w == "True";
    } else {
      std::string shown(w.substr(0, 32));
      if (w.size() > 32) shown += "...";
      return failed_at(start, "unexpected '" + shown + "'");
    }
    return true;
  }

  void deliver(json::value&& v) {
    if (stack_.empty()) {
      value_ = std::move(v);
      done_ = true;
      return;
    }
    Frame& top = stack_.back();
    if (top.object) {
      top.obj.insert_or_assign(top.key, std::move(v));
      state_ = State::ObjNext;
    } else {
      top.arr.push_back(std::move(v));
      state_ = State::ArrNext;
    }
  }

  bool open(bool object) {
    if (stack_.size() >= kMaxDepth) return failed("nesting too deep (over 512 levels)");
    stack_.push_back(Frame{object, {}, {}, {}});
    state_ = object ? State::ObjFirst : State::ArrFirst;
    ++pos_;
    return true;
  }

  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.object)
      deliver(json::value(std::move(f.obj)));
    else
      deliver(json::value(std::move(f.arr)));
  }

  // A value at pos_ (not at the end).
  bool value() {
    unsigned char b = cur();
    if (b == '{' || b == '[') return open(b == '{');
    if (auto q = string_opener()) {
      std::string str;
      if (!read_string(q->first, q->second, str)) return false;
      deliver(json::value(json::string_view(str)));
      return true;
    }
    json::value v;
    if (b == '-' || is_digit(b)) {
      if (!read_number(v)) return false;
    } else if (is_alpha(b)) {
      if (!read_literal(v)) return false;
    } else {
      return failed("expected a value");
    }
    deliver(std::move(v));
    return true;
  }

  bool key() {
    Frame& top = stack_.back();
    top.key.clear();
    if (auto q = string_opener()) {
      if (!read_string(q->first, q->second, top.key)) return false;
    } else if (is_key_start(cur())) {
      repair("unquoted-key");
      std::size_t start = pos_;
      while (!at_end() && is_key_char(cur())) ++pos_;
      top.key.assign(s_.data() + start, pos_ - start);
    } else {
      return failed("expected a key or '}'");
    }
    state_ = State::ObjColon;
    return true;
  }

  // The text ended: close what can be closed.
  bool finish_at_end() {
    switch (state_) {
      case State::Value:
        return failed("expected a value");
      case State::ObjColon:
        return failed("expected ':' after key");
      case State::ObjAfterComma:
      case State::ArrAfterComma:
        repair("trailing-comma");
        break;
      default:
        break;
    }
    repair("missing-close");
    while (!stack_.empty()) close();
    return true;
  }

  // Reads the value starting at pos_ (a '{' or '[').
  bool run() {
    state_ = State::Value;
    if (!value()) return false;
    while (!done_) {
      skip_ws_and_comments();
      if (at_end()) return finish_at_end();
      unsigned char b = cur();
      switch (state_) {
        case State::Value:
          if (!value()) return false;
          break;
        case State::ArrFirst:
        case State::ArrAfterComma:
          if (b == ']') {
            if (state_ == State::ArrAfterComma) repair("trailing-comma");
            ++pos_;
            close();
          } else if (!value()) {
            return false;
          }
          break;
        case State::ObjFirst:
        case State::ObjAfterComma:
          if (b == '}') {
            if (state_ == State::ObjAfterComma) repair("trailing-comma");
            ++pos_;
            close();
          } else if (!key()) {
            return false;
          }
          break;
        case State::ObjColon:
          if (b != ':') return failed("expected ':' after key");
          ++pos_;
          state_ = State::Value;
          break;
        case State::ObjNext:
          if (b == ',') {
            ++pos_;
            state_ = State::ObjAfterComma;
          } else if (b == '}') {
            ++pos_;
            close();
          } else {
            return failed("expected ',' or '}'");
          }
          break;
        case State::ArrNext:
          if (b == ',') {
            ++pos_;
            state_ = State::ArrAfterComma;
          } else if (b == ']') {
            ++pos_;
            close();
          } else {
            return failed("expected ',' or ']'");
          }
          break;
      }
    }
    return true;
  }

  std::string_view s_;
  std::size_t pos_;
  LenientResult result_;
  std::vector<Frame> stack_;
  State state_ = State::Value;
  json::value value_;
  bool done_ = false;
};

LenientResult read_one(std::string_view text, std::size_t start, bool allow_opening_fence, Fence& fence,
                       bool& fence_closed) {
  return Reader(text, start).read(allow_opening_fence, fence, fence_closed);
}

}  // namespace

LenientResult parse_lenient(std::string_view text) {
  Fence fence;
  bool fence_closed = false;
  return read_one(text, 0, true, fence, fence_closed);
}

std::vector<LenientResult> parse_lenient_sequence(std::string_view text, std::size_t* stop) {
  std::vector<LenientResult> out;
  Fence fence;
  bool fence_closed = false;
  out.push_back(read_one(text, 0, true, fence, fence_closed));
  std::size_t pos = out.back().consumed;
  if (out.back().ok) {
    while (!fence_closed) {
      std::size_t q = pos;
      while (q < text.size() && is_markup_space(text[q])) ++q;
      if (q < text.size() && text[q] == ',') {
        ++q;
        while (q < text.size() && is_markup_space(text[q])) ++q;
      }
      if (q >= text.size() || (text[q] != '{' && text[q] != '[')) break;
      out.push_back(read_one(text, q, false, fence, fence_closed));
      pos = out.back().consumed;
      if (!out.back().ok) break;
    }
    if (out.back().ok && !fence_closed) {
      if (auto after = closing_fence(text, pos, fence)) {
        pos = *after;
        auto& repairs = out.back().repairs;
        if (fence.ch == 0 && std::find(repairs.begin(), repairs.end(), "code-fence") == repairs.end())
          repairs.emplace_back("code-fence");
      }
    }
  }
  if (stop) *stop = pos;
  return out;
}

}  // namespace sigil::parse
