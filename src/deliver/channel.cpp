#include "sigil/deliver/channel.h"

namespace sigil::deliver {

Channel::~Channel() = default;

ChannelResult Channel::edit_text(const std::string& /*id*/, std::string_view /*text*/) {
  return channel_error("this channel cannot edit messages");
}

ChannelResult Channel::append_text(const std::string& /*id*/, std::string_view /*more*/) {
  return channel_error("this channel cannot append to messages");
}

void Channel::text_done(const std::string& /*id*/) {}

ChannelResult Channel::delete_message(const std::string& /*id*/) {
  return channel_error("this channel cannot delete messages");
}

}  // namespace sigil::deliver
