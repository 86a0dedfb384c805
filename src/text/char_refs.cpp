#include "sigil/text/char_refs.h"

#include <cstdint>

#include "sigil/text/ascii.h"

namespace sigil::text {

void append_utf8(std::string& out, char32_t cp) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

namespace {

// Parses the reference starting at s[i] == '&'. On success appends its text and returns its length.
std::size_t decode_one(std::string_view s, std::size_t i, std::string& out) {
  std::size_t semi = s.find(';', i + 1);
  // Longest reference we decode: &#x10FFFF; plus leading zeros; cap the search so a stray & stays cheap.
  if (semi == std::string_view::npos || semi - i > 32) return 0;
  std::string_view body = s.substr(i + 1, semi - i - 1);
  if (body.empty()) return 0;
  if (body[0] != '#') {
    const char* text = nullptr;
    if (body == "amp")
      text = "&";
    else if (body == "lt")
      text = "<";
    else if (body == "gt")
      text = ">";
    else if (body == "quot")
      text = "\"";
    else if (body == "apos")
      text = "'";
    if (text == nullptr) return 0;
    out += text;
    return semi - i + 1;
  }
  bool hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
  std::string_view digits = body.substr(hex ? 2 : 1);
  if (digits.empty()) return 0;
  std::uint64_t value = 0;
  for (char c : digits) {
    const int d = hex ? ascii::hex_value(c) : ascii::is_digit(c) ? c - '0' : -1;
    if (d < 0) return 0;
    value = value * (hex ? 16 : 10) + static_cast<std::uint64_t>(d);
    if (value > 0x10FFFF) value = 0x110000;  // saturate: anything above is U+FFFD
  }
  // &#0; is U+FFFD (spec 2.3); surrogates and the saturated value become it in append_utf8.
  append_utf8(out, value == 0 ? char32_t{0xFFFD} : static_cast<char32_t>(value));
  return semi - i + 1;
}

}  // namespace

std::string decode_char_refs(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t amp = s.find('&', i);
    if (amp == std::string_view::npos) {
      out.append(s.substr(i));
      break;
    }
    out.append(s.substr(i, amp - i));
    std::size_t used = decode_one(s, amp, out);
    if (used == 0) {
      out += '&';
      i = amp + 1;
    } else {
      i = amp + used;
    }
  }
  return out;
}

bool decode_char_ref(std::string_view ref, std::string& out) {
  if (ref.size() < 3 || ref.front() != '&') return false;
  std::string decoded;
  if (decode_one(ref, 0, decoded) != ref.size()) return false;
  out += decoded;
  return true;
}

}  // namespace sigil::text
