// For the configuration tests (config_test, web_config_test, mcp_config_test, the channel sections'): an
// environment from a map, the error a configuration text makes ("(no error)" when it loads), and a table of
// texts that must fail with the errors they make.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/config.h"

namespace sigil::app::testing {

inline EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// The error of loading this text as the file at `path` with these flags and this environment.
inline std::string config_error(std::string_view toml, const EnvLookup& env, const ConfigFlags& flags = {},
                                const std::string& path = "/etc/sigil/sigil.toml") {
  try {
    load_config_text(toml, path, flags, env);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// examples/sigil.toml loaded with no environment: what a user who copies the sample starts from. Each
// section's test checks that the sample holds its defaults.
inline Config sample_config() {
  ConfigFlags flags;
  flags.config_file = std::string(SIGIL_SOURCE_DIR) + "/examples/sigil.toml";
  return load_config(flags, env_of({}));
}

inline std::string error_of(std::string_view toml, const EnvLookup& env = env_of({})) {
  return config_error(toml, env);
}

// A configuration text that must fail to load: what its error holds, and what it never shows.
struct BadConfig {
  std::string toml;
  std::vector<std::string> holds;
  std::vector<std::string> never = {};
};

inline void expect_errors(const std::vector<BadConfig>& cases) {
  for (const BadConfig& c : cases) {
    const std::string e = error_of(c.toml);
    for (const std::string& piece : c.holds) EXPECT_NE(e.find(piece), std::string::npos) << e;
    for (const std::string& piece : c.never) EXPECT_EQ(e.find(piece), std::string::npos) << e;
  }
}

}  // namespace sigil::app::testing
