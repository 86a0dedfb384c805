// Bot API calls a receiver cannot start without (getMe, setWebhook, deleteWebhook): made again with a
// growing pause (1 s, doubling, at most 30 s) until Telegram answers ok or the receiver stops. Each failure
// is logged as `failure_event` with Telegram's error (never the token: BotApi's errors name only the host).
#pragma once

#include <boost/json/object.hpp>
#include <stop_token>
#include <string_view>

#include "sigil/channels/telegram/bot_api.h"

namespace sigil::channels::telegram {

// The ok outcome, or the last failed one when `stop` was requested meanwhile.
ApiOutcome call_until_ok(BotApi& api, std::string_view method, const boost::json::object& params,
                         const std::stop_token& stop, std::string_view failure_event);

}  // namespace sigil::channels::telegram
