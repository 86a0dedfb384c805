#include "server/client_history.h"

#include <set>

namespace sigil::server {

store::Result<boost::json::array> client_history(store::Store& store, const std::string& user,
                                                 const std::string& conversation, std::size_t limit) {
  auto messages = store.recent_messages(store::Scope{user, conversation}, limit);
  if (!messages.ok()) return store::Error{messages.error()};
  boost::json::array out;
  // Turn ids already seen in the window: a user message of such a turn is a results line. (A window that
  // starts in the middle of a turn may still begin with one; the turn's own message is then outside it.)
  std::set<std::string> seen;
  for (const store::Message& m : *messages) {
    const bool first_of_turn = m.turn_id.empty() || seen.insert(m.turn_id).second;
    if (m.role == "user") {
      if (!first_of_turn) continue;
    } else if (m.role != "assistant") {
      continue;
    }
    out.push_back(boost::json::object{{"role", m.role}, {"text", m.text}, {"turn", m.turn_id}});
  }
  return out;
}

}  // namespace sigil::server
