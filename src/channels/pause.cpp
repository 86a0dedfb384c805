#include "channels/pause.h"

#include <condition_variable>
#include <mutex>

namespace sigil::channels {

bool pause_unless_stopped(const std::stop_token& stop, std::chrono::milliseconds how_long) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  // Nothing notifies `cv` but the stop request: the predicate stays false, so only time or stop end it.
  return !cv.wait_for(lock, stop, how_long, [] { return false; }) && !stop.stop_requested();
}

}  // namespace sigil::channels
