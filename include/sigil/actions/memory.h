// The memory actions (spec 13): remember, forget, correct (facts about the user) and setMemory, deleteItem,
// cleanupMemory (keyed items that may expire). Their storage is the Store's; these handlers turn validated
// arguments into store calls and one-line results.
//
// What the handlers promise:
// - Isolation (15): every call uses the memory scope built from the turn's ids and MemoryConfig::scope, so
//   one user's facts and items are never read or changed by another user (nor by another conversation of
//   the same user when the scope is per_conversation).
// - Bounds: a fact is one line of at most max_fact_bytes; at most max_facts facts and max_items live items
//   per scope; an item id at most max_item_id_bytes, a value at most max_value_bytes as JSON text; an
//   expiration in (0, max_expiration_minutes]. An over-limit write is refused with an error that says the
//   limit; nothing is written.
// - Expiry: an item whose expiry has passed (by ActionContext::now()) is absent for every action, whether
//   or not cleanupMemory ran; expired items do not count towards max_items.
// - Never a silent no-op: forgetting, deleting or correcting something that is not there is reported
//   (forget and deleteItem as errors, so the model hears it; correct remembers the new fact and says so).
// - Every message is one line that starts with what happened; user text in it is quoted and capped.
// - After a stop request (time-out) nothing more is written.
#pragma once

#include <cstddef>

#include "sigil/exec/handler.h"
#include "sigil/store/store.h"

namespace sigil::actions {

struct MemoryConfig {
  store::MemoryScope scope = store::MemoryScope::per_user;
  std::size_t max_fact_bytes = 4 * 1024;  // the <remember> body limit too
  std::size_t max_facts = 1000;           // per scope
  std::size_t max_item_id_bytes = 256;
  std::size_t max_value_bytes = 64 * 1024;                // the value's JSON text
  std::size_t max_items = 1000;                           // live items per scope
  double max_expiration_minutes = 10 * 365.25 * 24 * 60;  // ten years
};

// The scope memory actions use: the turn's user and conversation, with the configured memory policy.
inline store::Scope memory_scope(const exec::TurnIds& ids, store::MemoryScope policy) {
  return {ids.user, ids.conversation, policy};
}

// Adds handlers for remember, forget, correct, setMemory, deleteItem and cleanupMemory.
void add_memory_handlers(exec::HandlerTable& table, MemoryConfig config = {});

}  // namespace sigil::actions
