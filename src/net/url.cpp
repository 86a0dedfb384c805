#include "sigil/net/url.h"

#include <arpa/inet.h>

#include <charconv>

#include "sigil/text/ascii.h"

namespace sigil::net {

namespace {

bool is_ip_literal(const std::string& host) {
  unsigned char buffer[16];
  return ::inet_pton(AF_INET, host.c_str(), buffer) == 1 || ::inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

}  // namespace

std::string Url::target() const { return query.empty() ? path : path + "?" + query; }

std::string Url::authority() const {
  std::string out = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (!default_port()) out += ":" + port;
  return out;
}

std::variant<Url, std::string> parse_url(std::string_view text) {
  Url url;
  std::size_t colon = text.find("://");
  if (colon == std::string_view::npos) {
    return "URL must start with http://, https://, ws:// or wss://: " + quoted(text);
  }
  url.scheme = sigil::text::ascii::to_lower(text.substr(0, colon));
  if (url.scheme != "http" && url.scheme != "https" && url.scheme != "ws" && url.scheme != "wss") {
    return "URL must start with http://, https://, ws:// or wss://: " + quoted(text);
  }
  std::string_view rest = text.substr(colon + 3);
  if (std::size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  std::size_t end_of_authority = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, end_of_authority);
  std::string_view path_and_query =
      end_of_authority == std::string_view::npos ? std::string_view() : rest.substr(end_of_authority);
  if (authority.find('@') != std::string_view::npos) {
    return "URL must not carry credentials: " + quoted(url.scheme + "://...");
  }
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return "URL has a broken IPv6 host: " + quoted(text);
    url.host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return "URL has a broken port: " + quoted(text);
      port = after.substr(1);
    }
  } else {
    std::size_t port_colon = authority.rfind(':');
    url.host = authority.substr(0, port_colon);
    if (port_colon != std::string_view::npos) port = authority.substr(port_colon + 1);
  }
  if (url.host.empty()) return "URL has no host: " + quoted(text);
  for (char c : url.host) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return "URL host has a control character";
  }
  if (!port.empty()) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      return "URL has a bad port " + quoted(port);
    }
    url.port = std::to_string(value);
  } else {
    url.port = url.secure() ? "443" : "80";
  }
  std::size_t question = path_and_query.find('?');
  url.path = std::string(path_and_query.substr(0, question));
  if (question != std::string_view::npos) url.query = std::string(path_and_query.substr(question + 1));
  if (url.path.empty()) url.path = "/";
  for (char c : path_and_query) {
    // A CR, LF or space in the target would split or corrupt the request line.
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return "URL path or query has a space or control character (percent-encode it)";
    }
  }
  url.host_is_ip = is_ip_literal(url.host);
  return url;
}

std::string without_trailing_slashes(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return std::string(url);
}

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (text::ascii::is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0f];
    }
  }
  return out;
}

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = text::ascii::hex_value(text[i + 1]);
      const int lo = text::ascii::hex_value(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (text[i] == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace sigil::net
