// A conversation's stored history as the web client shows it (the hello frame's "history" and
// GET /v1/conversations/{id}/messages).
#pragma once

#include <boost/json/array.hpp>
#include <cstddef>
#include <string>

#include "sigil/store/result.h"
#include "sigil/store/store.h"

namespace sigil::server {

// The user's messages and the assistant's replies among the conversation's last `limit` stored messages,
// oldest first, as [{"role","text","turn"}]. The agent also stores the results it sends back to the model
// as "user" messages of the same turn; only the first user message of a turn id is the user's own, so the
// later ones are left out (as is anything that is neither "user" nor "assistant").
store::Result<boost::json::array> client_history(store::Store& store, const std::string& user,
                                                 const std::string& conversation, std::size_t limit = 50);

}  // namespace sigil::server
