// The calling thread's CPU time, for `sigil bench`: other processes on a busy machine slow such figures
// far less than wall-clock ones (they still share caches and memory bandwidth).
#pragma once

#include <time.h>

namespace sigil::app {

inline double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace sigil::app
