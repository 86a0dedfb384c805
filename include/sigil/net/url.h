// An absolute http(s):// or ws(s):// URL split into what a client needs to connect and to send.
//
// Promises: parse_url either returns a Url whose host is non-empty and whose port is 1..65535, or says
// in one line why not. Credentials in the authority (user:pw@) are refused, never silently sent. The
// fragment is dropped (it never goes on the wire). No normalisation beyond lower-casing the scheme: the
// path and query are sent exactly as given.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace sigil::net {

struct Url {
  std::string scheme;  // "http", "https", "ws" or "wss", lower case
  std::string host;    // without brackets, for the resolver, SNI and certificate checks
  std::string port;    // digits; the scheme's default when the URL has none
  std::string path;    // starts with '/', "/" when the URL has none
  std::string query;   // without the '?', "" when none
  bool host_is_ip = false;

  bool secure() const noexcept { return scheme == "https" || scheme == "wss"; }
  bool default_port() const noexcept { return port == (secure() ? "443" : "80"); }
  // path?query: the request target.
  std::string target() const;
  // host[:port] as the Host header wants it (IPv6 in brackets, the default port left out).
  std::string authority() const;
  // host:port, for messages and as the key of a connection pool.
  std::string where() const { return host + ":" + port; }
};

// The error is one line, e.g. `URL must start with http://, https://, ws:// or wss://: "ftp://x"`.
std::variant<Url, std::string> parse_url(std::string_view text);

// `url` (or a path) without its trailing '/'s: a configured base URL, to which "/path" is then joined ("" for
// the root path).
std::string without_trailing_slashes(std::string_view url);

// RFC 3986 percent-encoding, the one every URL we build uses (a query value, a path segment, a Discord
// emoji, a media file's name): each byte but the unreserved ones (letters, digits, - . _ ~) becomes %XX with
// upper-case hex digits, so the result is safe in a path segment and in a query value alike.
std::string percent_encode(std::string_view text);

// The inverse: every %XX (either case of hex digit) becomes its byte, '+' becomes a space when asked (form
// encoding: query strings), every other byte stays as it is; nullopt for a '%' not followed by two hex
// digits. The result may hold any byte (NUL, invalid UTF-8): callers validate.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space);

}  // namespace sigil::net
