#include "sigil/channels/platform_api.h"

#include <utility>

#include "channels/send_pace.h"
#include "sigil/log/log.h"
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

void PlatformApi::count_attempt(const Attempt& a, std::string_view retry_event, std::string_view what_key) {
  calls_.count([&](net::CallStats& stats) {
    if (a.reached) ++stats.calls;
    if (!a.ok && !a.again) {
      ++stats.failures;
      stats.last_error = std::string(a.what) + ": " + a.summary;
    }
    if (a.again) ++stats.retries;
  });
  if (a.again && log::enabled(log::Level::info))
    log::write(log::Record{log::Level::info, std::string(retry_event), {}}
                   .with(std::string(what_key), std::string(a.what))
                   .with("error", a.summary));
}

}  // namespace sigil::channels
