#include "sigil/channels/platform_channel.h"

#include <utility>

namespace sigil::channels {

std::vector<std::string> PlatformChannel::in_doubt() const {
  std::lock_guard lock(mu_);
  return in_doubt_;
}

void PlatformChannel::note_in_doubt(std::string call) {
  std::lock_guard lock(mu_);
  in_doubt_.push_back(std::move(call));
}

}  // namespace sigil::channels
