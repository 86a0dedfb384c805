// `sigil bench`, case (f): directives through the executor with trivial handlers (issue: under 5 us of
// overhead per directive). Wall-clock time, since handlers run on worker threads.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>

namespace sigil::app {

struct ExecutorFigures {
  std::size_t directives = 0;  // per reply
  double parse_us = 0;         // parsing the reply alone, per reply
  double exec_memory_us = 0;   // parse + execute, store in memory, per reply
  double exec_file_us = 0;     // parse + execute, store in a WAL file (once log fsynced), per reply
  double overhead_memory_ns() const {
    return (exec_memory_us - parse_us) * 1e3 / static_cast<double>(directives);
  }
  double overhead_file_ns() const {
    return (exec_file_us - parse_us) * 1e3 / static_cast<double>(directives);
  }
  boost::json::object json() const;
};

// `replies`: how many replies each timed run executes (quick runs use fewer).
ExecutorFigures measure_executor(std::size_t replies, int runs);

}  // namespace sigil::app
