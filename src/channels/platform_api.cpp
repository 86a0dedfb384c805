#include "sigil/channels/platform_api.h"

#include <utility>

#include "channels/send_pace.h"
#include "sigil/net/url.h"

namespace sigil::channels {

std::string call_summary(CallEnd end, std::string_view what) {
  switch (end) {
    case CallEnd::Ok:
      return "ok";
    case CallEnd::Refused:
      break;
    case CallEnd::NotSent:
      return "not sent: " + std::string(what);
    case CallEnd::Unknown:
      return "outcome unknown: " + std::string(what);
  }
  return std::string(what);
}

PlatformApi::PlatformApi(net::HttpClient& client, std::string_view api_url, std::string token,
                         double per_second, unsigned burst)
    : client_(client),
      api_url_(net::without_trailing_slashes(api_url)),
      token_(std::move(token)),
      pace_(std::make_unique<SendPace>(per_second, burst)) {}

PlatformApi::~PlatformApi() = default;

net::CallStats PlatformApi::paced_stats(std::uint64_t other_waits) const {
  net::CallStats s = calls_.stats();
  s.paced = pace_->waits() + other_waits;
  return s;
}

}  // namespace sigil::channels
