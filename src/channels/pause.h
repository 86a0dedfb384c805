// The one way a channel's thread waits between attempts (a reconnect, a retried call): asleep, yet
// woken at once when the service stops, so stopping never waits out a back-off.
#pragma once

#include <chrono>
#include <stop_token>

namespace sigil::channels {

// Sleeps `how_long` unless `stop` is requested first; false when it was (then the caller returns).
bool pause_unless_stopped(const std::stop_token& stop, std::chrono::milliseconds how_long);

}  // namespace sigil::channels
