#include "sigil/channels/platform_channel.h"

#include <utility>

#include "sigil/log/log.h"

namespace sigil::channels {

std::vector<std::string> PlatformChannel::in_doubt() const {
  std::lock_guard lock(mu_);
  return in_doubt_;
}

deliver::ChannelResult PlatformChannel::shown(std::string id) {
  shown_.store(true);
  return deliver::ChannelResult(std::move(id));
}

deliver::ChannelResult PlatformChannel::failed(const CallLog& log, std::string_view call,
                                               const std::string& error, bool in_doubt, bool text,
                                               std::string_view doubt_note) {
  if (log::enabled(log::Level::warn))
    log::write(log::Record{log::Level::warn, std::string(log.event), {}}
                   .with(std::string(log.chat_field), log.chat)
                   .with(std::string(log.call_field), std::string(call))
                   .with("error", error));
  if (!in_doubt) return deliver::channel_error(error);
  const std::string line = std::string(call) + ": " + error;
  {
    std::lock_guard lock(mu_);
    in_doubt_.push_back(line);
  }
  if (!text) return deliver::ChannelResult{std::string()};
  return deliver::channel_error(line + std::string(doubt_note));
}

}  // namespace sigil::channels
