#include "sigil/text/json_string.h"

#include <array>
#include <cstddef>
#include <vector>

namespace sigil::text {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;  // start of the bytes not written yet
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    out.push_back('\\');
    switch (c) {
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '\b':
        out.push_back('b');
        break;
      case '\t':
        out.push_back('t');
        break;
      case '\n':
        out.push_back('n');
        break;
      case '\f':
        out.push_back('f');
        break;
      case '\r':
        out.push_back('r');
        break;
      default: {
        const char u[] = {'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out.append(u, sizeof u);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

namespace {

class JsonChecker {
 public:
  explicit JsonChecker(std::string_view s) : s_(s) {}

  bool run() {
    skip_space();
    if (!value()) return false;
    skip_space();
    return i_ == s_.size();
  }

 private:
  static constexpr std::size_t kMaxDepth = 2000;

  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return s_[i_]; }
  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++i_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  bool digits() {
    const std::size_t start = i_;
    while (!at_end() && peek() >= '0' && peek() <= '9') ++i_;
    return i_ > start;
  }
  bool number() {
    if (peek() == '-') ++i_;
    if (at_end()) return false;
    if (peek() == '0') {
      ++i_;
    } else if (!digits()) {
      return false;
    }
    if (!at_end() && peek() == '.') {
      ++i_;
      if (!digits()) return false;
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      ++i_;
      if (!at_end() && (peek() == '+' || peek() == '-')) ++i_;
      if (!digits()) return false;
    }
    return true;
  }
  static bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }
  bool string() {
    ++i_;  // the opening quote
    while (!at_end()) {
      const auto c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c != '\\') continue;
      if (at_end()) return false;
      const char e = s_[i_++];
      if (e == 'u') {
        for (int k = 0; k < 4; ++k, ++i_)
          if (at_end() || !is_hex(peek())) return false;
      } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' &&
                 e != 't') {
        return false;
      }
    }
    return false;
  }
  bool scalar() {
    switch (peek()) {
      case '"':
        return string();
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return (peek() == '-' || (peek() >= '0' && peek() <= '9')) && number();
    }
  }
  // Containers without recursion: the stack holds '}' or ']' per open level.
  bool value() {
    std::array<char, 64> few;
    std::vector<char> more;
    std::size_t depth = 0;
    auto push = [&](char close) {
      if (depth < few.size())
        few[depth] = close;
      else
        more.push_back(close);
      ++depth;
    };
    auto top = [&] { return depth <= few.size() ? few[depth - 1] : more.back(); };
    auto pop = [&] {
      if (depth > few.size()) more.pop_back();
      --depth;
    };
    for (;;) {
      // A value is expected here.
      if (at_end()) return false;
      if (peek() == '{' || peek() == '[') {
        if (depth >= kMaxDepth) return false;
        const bool object = peek() == '{';
        ++i_;
        skip_space();
        if (at_end()) return false;
        if (peek() == (object ? '}' : ']')) {
          ++i_;  // empty: a complete value
        } else {
          push(object ? '}' : ']');
          if (object && !member_name()) return false;
          continue;
        }
      } else if (!scalar()) {
        return false;
      }
      // A value ended: close containers or go to the next element.
      for (;;) {
        if (depth == 0) return true;
        skip_space();
        if (at_end()) return false;
        if (peek() == ',') {
          ++i_;
          skip_space();
          if (top() == '}' && !member_name()) return false;
          break;
        }
        if (peek() != top()) return false;
        ++i_;
        pop();
      }
    }
  }
  // `"name" :` and the space after it.
  bool member_name() {
    if (at_end() || peek() != '"' || !string()) return false;
    skip_space();
    if (at_end() || peek() != ':') return false;
    ++i_;
    skip_space();
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

bool is_json(std::string_view s) { return JsonChecker(s).run(); }

}  // namespace sigil::text
