#include "action_names.h"

#include <ostream>

namespace sigil::app {

bool check_action_names(const catalog::Registry& registry, const std::vector<std::string>& names,
                        std::string_view context, std::ostream& err) {
  for (const std::string& name : names) {
    if (registry.find_action(name) != nullptr) continue;
    std::string known;
    for (const catalog::ActionSpec& a : registry.actions()) known += (known.empty() ? "" : ", ") + a.name;
    err << context << ": no action named \"" << name << "\" (actions: " << known << ")\n";
    return false;
  }
  return true;
}

}  // namespace sigil::app
