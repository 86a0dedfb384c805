// A conversation's stored history as the web client shows it (the hello frame's "history" and
// GET /v1/conversations/{id}/messages).
#pragma once

#include <boost/json/array.hpp>
#include <cstddef>
#include <string>

#include "sigil/store/result.h"
#include "sigil/store/store.h"

namespace sigil::server {

// How much history one answer carries. A conversation may hold megabytes (any client can post 1 MiB
// messages): every greeting and every GET stays within these bounds, whatever is stored.
struct HistoryWindow {
  std::size_t limit = 50;             // stored messages looked at (the newest ones)
  std::size_t max_bytes = 0;          // text bytes in all, newest first; 0 = no bound
  std::size_t max_message_bytes = 0;  // a longer text is cut (at a character boundary); 0 = no bound
};

struct ClientHistory {
  boost::json::array messages;    // oldest first
  boost::json::array deliveries;  // what the shown turns delivered besides text, oldest first
  bool more = false;              // older messages (or parts of messages) were left out
};

// How many of a conversation's newest kept deliveries a history looks at.
inline constexpr std::size_t kHistoryDeliveries = 500;

// The user's messages and the assistant's replies among the conversation's last `window.limit` stored
// messages, oldest first, as [{"role","text","turn"}] plus "truncated": true on a shortened text. The agent
// also stores the results it sends back to the model as "user" messages of the same turn; only the first user
// message of a turn id is the user's own, so the later ones are left out (as is anything that is neither
// "user" nor "assistant"). Within max_bytes the newest messages win; the newest one is always there (cut to
// max_bytes if it alone is larger). `deliveries` holds the kept deliveries (Store::recent_deliveries, the
// newest kHistoryDeliveries) of the turns among the shown messages, each the delivery frame's fields plus
// "turn": files and voice notes with their /media/ URL, reactions, relayed texts.
store::Result<ClientHistory> client_history(store::Store& store, const std::string& user,
                                            const std::string& conversation,
                                            const HistoryWindow& window = {});

}  // namespace sigil::server
