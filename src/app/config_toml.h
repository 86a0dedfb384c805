// Reading the configuration file: TOML, strictly (every key known, every value of its type and range).
#pragma once

#include <string>
#include <string_view>

#include "config.h"

namespace sigil::app {

// Reads `text`, the TOML document called `name` (a path: relative paths in it are taken from its
// folder), into `config`, over what `config` holds. Throws ConfigError naming name:line:column and the
// section and key on any syntax error, unknown section or key, wrong type or value out of range.
void read_config_toml(std::string_view text, const std::string& name, Config& config);

}  // namespace sigil::app
