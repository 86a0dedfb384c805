// The built-in actions whose handlers are quick (exec::HandlerTable::set_quick): they only compute or
// write to the store and never wait, so the executor runs them where their keys were begun, without a
// thread hand-off. Whoever assembles the built-in handlers for an agent (the gateway, the load bench) marks
// them with this, so the list has one home.
#pragma once

#include "sigil/exec/handler.h"

namespace sigil::agent {

// Marks react, the memory actions (remember, forget, correct, setMemory, deleteItem, cleanupMemory) and
// calculate quick. Not the archive (its search may call an embeddings server), nor anything with a network,
// a process or a file.
void mark_quick_builtins(exec::HandlerTable& handlers);

}  // namespace sigil::agent
