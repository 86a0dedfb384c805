#include "sigil/net/ssrf_guard.h"

#include <stdexcept>
#include <variant>

#include "sigil/text/ascii.h"

namespace sigil::net {
namespace {

bool is_host_name(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  for (char c : text) {
    if (!(text::ascii::is_alpha(c) || text::ascii::is_digit(c) || c == '-' || c == '.' || c == '_'))
      return false;
  }
  return true;
}

}  // namespace

std::string allow_private_entry_error(std::string_view entry) {
  if (IpRange::parse(entry)) return {};
  if (entry.find_first_of("/:") != std::string_view::npos)
    return "\"" + std::string(entry) + "\" is not an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8)";
  if (!is_host_name(entry))
    return "\"" + std::string(entry) + "\" is not a host name, IP address or CIDR range";
  return {};
}

SsrfGuard::SsrfGuard(SsrfGuardOptions options, std::shared_ptr<Resolver> resolver)
    : resolve_timeout_(options.resolve_timeout), resolver_(std::move(resolver)) {
  if (!resolver_) throw std::invalid_argument("SsrfGuard needs a resolver");
  for (const std::string& entry : options.allow_private) {
    if (std::string why = allow_private_entry_error(entry); !why.empty()) throw std::invalid_argument(why);
    if (auto range = IpRange::parse(entry)) {
      allowed_ranges_.push_back(*range);
    } else {
      allowed_hosts_.push_back(text::ascii::to_lower(entry));
    }
  }
}

bool SsrfGuard::host_allowed(std::string_view host) const {
  const std::string name = text::ascii::to_lower(host);
  for (const std::string& allowed : allowed_hosts_)
    if (allowed == name) return true;
  return false;
}

bool SsrfGuard::address_allowed(const IpAddress& address) const {
  for (const IpRange& range : allowed_ranges_) {
    if (range.contains(address)) return true;
    // An allowed IPv4 range also covers its IPv4-mapped spelling: they are one destination.
    if (auto inner = address.embedded_v4(); inner && range.contains(*inner)) return true;
  }
  return false;
}

Result<CheckedTarget, std::string> SsrfGuard::check(std::string_view text) const {
  auto parsed = parse_url(text);
  if (auto* why = std::get_if<std::string>(&parsed)) return Failure<std::string>{*why};
  Url url = std::get<Url>(std::move(parsed));
  url.host = text::ascii::to_lower(url.host);  // names are case-insensitive; the resolver need not be
  if (url.scheme != "http" && url.scheme != "https")
    return Failure<std::string>{"only http:// and https:// pages can be fetched"};

  auto answer = resolver_->resolve(url.host, resolve_timeout_);
  if (!answer) return Failure<std::string>{answer.error()};
  const std::vector<IpAddress>& addresses = *answer;
  if (addresses.empty()) return Failure<std::string>{"cannot resolve " + url.host + ": no address"};

  if (!host_allowed(url.host)) {
    // Every address, not just the one we would use: a name with one public and one private answer is a
    // name someone set up to reach inside.
    for (const IpAddress& address : addresses) {
      if (address_allowed(address)) continue;
      if (auto why = special_purpose(address)) {
        const std::string shown = address.to_string();
        const std::string whose = url.host_is_ip ? std::string() : " (the address of " + url.host + ")";
        return Failure<std::string>{shown + whose + " is " + *why +
                                    ": pages on private or internal networks are not fetched"};
      }
    }
  }
  return CheckedTarget{std::move(url), addresses.front()};
}

}  // namespace sigil::net
