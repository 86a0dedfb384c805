#include "server/client_history.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <set>
#include <vector>

namespace sigil::server {
namespace {

// The longest prefix of `text` of at most `n` bytes that does not end inside a UTF-8 sequence.
std::size_t cut_point(const std::string& text, std::size_t n) {
  if (n >= text.size()) return text.size();
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return n;
}

}  // namespace

store::Result<ClientHistory> client_history(store::Store& store, const std::string& user,
                                            const std::string& conversation, const HistoryWindow& window) {
  // One more than the window: whether older messages exist.
  auto messages = store.recent_messages(store::Scope{user, conversation}, window.limit + 1);
  if (!messages.ok()) return store::Error{messages.error()};
  ClientHistory out;
  if (messages->size() > window.limit) {
    out.more = true;
    messages->erase(messages->begin(),
                    messages->begin() + static_cast<std::ptrdiff_t>(messages->size() - window.limit));
  }
  // Which messages the client sees, oldest first: what the user and the model said. A results message has
  // its own role (store::kResultsRole; schema 10 moved the older ones over); a later user message of a turn
  // already seen in the window is one too, whoever appended it, so those are skipped as well. (A window that
  // starts in the middle of a turn may still begin with one; the turn's own message is then outside it.)
  std::vector<const store::Message*> shown;
  std::set<std::string> seen;
  for (const store::Message& m : *messages) {
    const bool first_of_turn = m.turn_id.empty() || seen.insert(m.turn_id).second;
    if (m.role == "user") {
      if (!first_of_turn) continue;
    } else if (m.role != "assistant") {
      continue;
    }
    shown.push_back(&m);
  }
  // Newest first within the byte budget, then put back in order.
  std::vector<boost::json::object> picked;
  std::size_t used = 0;
  for (auto it = shown.rbegin(); it != shown.rend(); ++it) {
    const store::Message& m = **it;
    std::size_t keep = m.text.size();
    if (window.max_message_bytes != 0) keep = std::min(keep, window.max_message_bytes);
    if (window.max_bytes != 0) {
      const std::size_t room = window.max_bytes - std::min(used, window.max_bytes);
      if (keep > room) {
        if (!picked.empty()) {
          out.more = true;
          break;
        }
        keep = room;  // the newest message alone is over the budget: its beginning
      }
    }
    keep = cut_point(m.text, keep);
    boost::json::object o{
        {"role", m.role}, {"text", std::string_view(m.text).substr(0, keep)}, {"turn", m.turn_id}};
    if (!m.task_id.empty()) o["task"] = m.task_id;  // started by this scheduled task, not typed
    if (keep < m.text.size()) {
      o["truncated"] = true;
      out.more = true;
    }
    used += keep;
    picked.push_back(std::move(o));
  }
  std::set<std::string> turns;
  for (auto it = picked.rbegin(); it != picked.rend(); ++it) {
    if (const auto* turn = it->if_contains("turn"); turn != nullptr && !turn->as_string().empty())
      turns.insert(std::string(turn->as_string()));
    out.messages.push_back(std::move(*it));
  }
  auto deliveries = store.recent_deliveries(store::Scope{user, conversation}, kHistoryDeliveries);
  if (!deliveries.ok()) return store::Error{deliveries.error()};
  for (const store::StoredDelivery& d : *deliveries) {
    if (!turns.contains(d.turn_id)) continue;
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(d.json, ec);
    if (ec || !v.is_object()) continue;  // the store only keeps objects; nothing else is shown
    v.as_object()["turn"] = d.turn_id;
    out.deliveries.push_back(std::move(v));
  }
  return out;
}

}  // namespace sigil::server
