// The process's log: leveled records with named fields, written through one sink the program installs.
//
// What it promises:
// - A library that logs costs nothing until a program installs a sink (install()): a caller checks
//   `log::enabled(level)` before building a record, so records below the installed level are never built.
// - Records are data (an event name and fields), formatted only by the sink: `sigil serve` writes one line
//   each as text or JSON (app/log_sink.h). Code that logs never writes secrets: no header values, request
//   bodies, message texts or keys go into a record, only ids, counts, routes, statuses and error lines.
// - Thread-safe: any thread may write; the sink is called under a lock, one record at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sigil::log {

enum class Level : std::uint8_t { debug, info, warn, error, off };

std::string_view to_string(Level level);
// "debug", "info", "warn", "error", "off" (exactly); nullopt otherwise.
std::optional<Level> level_from_string(std::string_view name);

struct Record {
  Level level = Level::info;
  std::string event;  // what happened, one word or two: "request", "turn", "model-error"
  std::vector<std::pair<std::string, std::string>> fields;  // in order

  Record& with(std::string key, std::string value) {
    fields.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  Record& with(std::string key, std::int64_t value) { return with(std::move(key), std::to_string(value)); }
};

using Sink = std::function<void(const Record&)>;

// Installs the sink and the lowest level it gets (replacing any earlier one); an empty sink: no logging.
void install(Sink sink, Level min_level);
// Whether a record of this level would reach the sink.
bool enabled(Level level);
// Hands the record to the sink when its level is enabled.
void write(const Record& record);

}  // namespace sigil::log
