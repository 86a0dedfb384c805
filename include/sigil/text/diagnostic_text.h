// The small pieces of diagnostic text that every layer writes the same way: a message on one line, a
// duration as a person reads it in a time-out message, a size as a person reads it in a size-limit message.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace sigil::text {

// `text` with every CR and LF replaced by a space: a diagnostic is one log line, one JSON string a page
// shows, one line of a turn report, whatever a server or library put in it.
inline std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// "30s" for whole seconds, else "1500ms": what a time-out setting says in its own units.
inline std::string format_duration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

// "900 bytes", "12 KiB" (rounded up: a limit message never understates), "1.2 MiB" (cut to tenths).
inline std::string format_bytes(std::uint64_t bytes) {
  constexpr std::uint64_t kMiB = 1024 * 1024;
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  if (bytes < kMiB) return std::to_string((bytes + 1023) / 1024) + " KiB";
  const std::uint64_t tenths = bytes * 10 / kMiB;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB";
}

}  // namespace sigil::text
