// For the channel sections' config tests ([channels.telegram], [channels.discord]): an environment from a
// map, and the error a configuration text makes ("(no error)" when it loads).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "app/config.h"

namespace sigil::app::testing {

inline EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

inline std::string error_of(std::string_view toml, const EnvLookup& env = env_of({})) {
  try {
    load_config_text(toml, "/etc/sigil/sigil.toml", {}, env);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace sigil::app::testing
