#include "channels/telegram/call_until_ok.h"

#include <algorithm>
#include <string>

#include "channels/pause.h"
#include "sigil/log/log.h"

namespace sigil::channels::telegram {

ApiOutcome call_until_ok(BotApi& api, std::string_view method, const boost::json::object& params,
                         const std::stop_token& stop, std::string_view failure_event) {
  std::chrono::milliseconds backoff{1000};
  for (;;) {
    ApiOutcome o = api.call(method, params);
    if (o.ok() || stop.stop_requested()) return o;
    if (log::enabled(log::Level::warn))
      log::write(log::Record{log::Level::warn, std::string(failure_event), {}}.with("error", o.summary()));
    if (!pause_unless_stopped(stop, backoff)) return o;
    backoff = std::min<std::chrono::milliseconds>(backoff * 2, std::chrono::seconds(30));
  }
}

}  // namespace sigil::channels::telegram
