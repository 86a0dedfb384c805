#include "sigil/log/log.h"

#include <atomic>
#include <mutex>

namespace sigil::log {

namespace {

struct State {
  std::mutex mu;
  Sink sink;
  // Read without the lock on every enabled() check: most records are never built.
  std::atomic<Level> min{Level::off};
};

State& state() {
  static State s;
  return s;
}

}  // namespace

std::string_view to_string(Level level) {
  switch (level) {
    case Level::debug:
      return "debug";
    case Level::info:
      return "info";
    case Level::warn:
      return "warn";
    case Level::error:
      return "error";
    case Level::off:
      return "off";
  }
  return "off";
}

std::optional<Level> level_from_string(std::string_view name) {
  for (Level level : {Level::debug, Level::info, Level::warn, Level::error, Level::off})
    if (to_string(level) == name) return level;
  return std::nullopt;
}

void install(Sink sink, Level min_level) {
  State& s = state();
  std::lock_guard lock(s.mu);
  s.min.store(sink ? min_level : Level::off);
  s.sink = std::move(sink);
}

bool enabled(Level level) {
  const Level min = state().min.load(std::memory_order_relaxed);
  return min != Level::off && level != Level::off && level >= min;
}

void write(const Record& record) {
  if (!enabled(record.level)) return;
  State& s = state();
  std::lock_guard lock(s.mu);
  if (s.sink) s.sink(record);
}

}  // namespace sigil::log
