#include "sigil/text/base64.h"

#include <array>
#include <cstdint>

#include "sigil/text/ascii.h"

namespace sigil::text {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> make_values() {
  std::array<std::int8_t, 256> values{};
  for (auto& v : values) v = -1;
  for (int i = 0; i < 64; ++i) values[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
  return values;
}
constexpr std::array<std::int8_t, 256> kValues = make_values();

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

std::string base64url_encode(std::string_view bytes) {
  std::string s = base64_encode(bytes);
  for (char& c : s) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  while (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

std::optional<std::string> base64_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t buffer = 0;
  int bits = 0;
  std::size_t digits = 0;   // alphabet characters read
  std::size_t padding = 0;  // '=' read
  for (char c : text) {
    if (ascii::is_space(c)) continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    const std::int8_t v = kValues[static_cast<unsigned char>(c)];
    if (v < 0 || padding > 0) return std::nullopt;  // not base64, or a digit after the padding
    ++digits;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  // A last group of one digit holds no whole byte; padding, when written, completes the group of four.
  if (digits % 4 == 1) return std::nullopt;
  if (padding > 0 && (padding > 2 || (digits + padding) % 4 != 0)) return std::nullopt;
  // The bits left over must be zero (canonical encoding), else the text was cut or altered.
  if ((buffer & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

}  // namespace sigil::text
