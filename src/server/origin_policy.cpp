#include "server/origin_policy.h"

#include <arpa/inet.h>

#include <algorithm>

#include "sigil/text/ascii.h"

namespace sigil::server {
namespace {

using text::ascii::to_lower;
using text::ascii::trim;

bool is_ip_literal(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

bool is_wildcard(const std::string& host) { return host == "0.0.0.0" || host == "::" || host.empty(); }

bool is_loopback_name(const std::string& host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

// "host" or "[v6]" for a URL's authority.
std::string authority_host(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

}  // namespace

std::string OriginPolicy::host_name(std::string_view host_header) {
  const std::string_view h = trim(host_header);
  if (h.empty()) return {};
  std::string_view name;
  std::string_view rest;
  if (h.front() == '[') {
    const auto close = h.find(']');
    if (close == std::string_view::npos) return {};
    name = h.substr(1, close - 1);
    rest = h.substr(close + 1);
  } else {
    const auto colon = h.find(':');
    name = h.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : h.substr(colon);
  }
  if (!rest.empty()) {
    if (rest.front() != ':' || rest.size() == 1 || rest.size() > 6) return {};
    if (!std::all_of(rest.begin() + 1, rest.end(), text::ascii::is_digit)) return {};
  }
  if (name.empty()) return {};
  // A name is letters, digits, '-', '.', and for IPv6 ':' inside brackets; anything else is no host of ours.
  for (const char c : name) {
    if (!(text::ascii::is_alnum(c) || c == '-' || c == '.' || c == '_' || (c == ':' && h.front() == '[')))
      return {};
  }
  std::string out = to_lower(name);
  if (out.size() > 1 && out.back() == '.') out.pop_back();  // "localhost." names the same host
  return out;
}

std::string OriginPolicy::normalize_origin(std::string_view origin) {
  const std::string o = to_lower(origin);
  std::string scheme;
  std::string_view rest;
  if (o.starts_with("http://")) {
    scheme = "http";
    rest = std::string_view(o).substr(7);
  } else if (o.starts_with("https://")) {
    scheme = "https";
    rest = std::string_view(o).substr(8);
  } else {
    return {};
  }
  // An origin has no path; a configured URL may (public_url): only its authority counts.
  rest = rest.substr(0, rest.find_first_of("/?#"));
  const std::string host = host_name(rest);
  if (host.empty()) return {};
  std::string port;
  const auto colon = rest.rfind(':');
  if (colon != std::string_view::npos && rest.find(']', colon) == std::string_view::npos)
    port = std::string(rest.substr(colon + 1));
  if ((scheme == "http" && port == "80") || (scheme == "https" && port == "443")) port.clear();
  std::string out = scheme + "://" + authority_host(host);
  if (!port.empty()) out += ":" + port;
  return out;
}

OriginPolicy::OriginPolicy(const OriginPolicyConfig& config) {
  const std::string listen = to_lower(config.listen_host);
  const std::string port = std::to_string(config.port);
  auto add_origin = [this](const std::string& origin) {
    if (std::string n = normalize_origin(origin); !n.empty()) origins_.insert(std::move(n));
  };
  auto add_host = [this](const std::string& host) { hosts_.insert(host); };
  if (is_wildcard(listen)) {
    any_ip_literal_ = true;
    add_host("localhost");
  } else {
    add_host(listen);
    add_origin("http://" + authority_host(listen) + ":" + port);
    if (is_loopback_name(listen)) {
      for (const char* h : {"localhost", "127.0.0.1", "::1"}) {
        add_host(h);
        add_origin("http://" + authority_host(h) + ":" + port);
      }
    }
  }
  if (!config.public_url.empty()) {
    const std::string origin = normalize_origin(config.public_url);
    if (!origin.empty()) {
      origins_.insert(origin);
      add_host(host_name(std::string_view(origin).substr(origin.find("://") + 3)));
    }
  }
  for (const std::string& o : config.allowed_origins) add_origin(o);
  for (const std::string& h : config.allowed_hosts) {
    if (h == "*") {
      any_host_ = true;
      continue;
    }
    if (std::string name = host_name(h); !name.empty()) add_host(name);
  }
}

bool OriginPolicy::host_allowed(std::string_view host_header) const {
  if (host_header.empty() || any_host_) return true;
  const std::string name = host_name(host_header);
  if (name.empty()) return false;
  if (hosts_.count(name) != 0) return true;
  return any_ip_literal_ && is_ip_literal(name);
}

bool OriginPolicy::origin_allowed(std::string_view origin, std::string_view host_header) const {
  const std::string o = normalize_origin(origin);
  if (o.empty()) return false;  // "null", file:, chrome-extension:, garbage
  if (origins_.count(o) != 0) return true;
  // Same origin as the request: the Origin's authority is the Host the browser connected to, and that Host
  // passed host_allowed() (the caller checks it first).
  // The gateway itself speaks plain HTTP: an https page is its own only when configured (public_url).
  if (host_header.empty() || !o.starts_with("http://") || !host_allowed(host_header)) return false;
  const auto authority = std::string_view(o).substr(o.find("://") + 3);
  const std::string h = to_lower(trim(host_header));
  // The Host may carry the default port the Origin leaves out.
  return authority == h || std::string(authority) + ":80" == h;
}

}  // namespace sigil::server
