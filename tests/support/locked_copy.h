// A copy of a value that another thread writes, taken under the mutex that guards it: what the recording
// handlers' and sinks' getters return while a client's thread still reports.
#pragma once

#include <mutex>

namespace sigil::test {

template <class T>
T locked_copy(std::mutex& mutex, const T& value) {
  std::lock_guard lock(mutex);
  return value;
}

}  // namespace sigil::test
