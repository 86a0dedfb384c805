#include "sigil/agent/quick_actions.h"

#include <string_view>

namespace sigil::agent {

void mark_quick_builtins(exec::HandlerTable& handlers) {
  for (std::string_view action :
       {"react", "remember", "forget", "correct", "setMemory", "deleteItem", "cleanupMemory", "calculate"})
    handlers.set_quick(action);
}

}  // namespace sigil::agent
