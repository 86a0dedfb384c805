// `sigil bench`, case (f): directives through the executor with trivial handlers (issue: under 5 us of
// overhead per directive). Wall-clock time, since handlers may run on pool threads. The reply is fed as one
// burst, as the agent feeds one (ExecOptions::bursts, end_burst()).
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>

namespace sigil::app {

struct ExecutorFigures {
  std::size_t directives = 0;  // per reply
  double parse_us = 0;         // parsing the reply alone, per reply
  double exec_memory_us = 0;   // parse + execute, store in memory, per reply
  double exec_file_us = 0;     // parse + execute, store in a WAL file (once log fsynced), per reply
  double exec_pool_us = 0;     // as exec_memory_us, but the handler is not quick: it runs on a shared pool
  // The calling thread's CPU time (a quick handler with a store in memory runs all on it): what a busy
  // machine's other processes do not inflate.
  double parse_cpu_us = 0;
  double exec_memory_cpu_us = 0;
  double overhead_memory_cpu_ns() const {
    return (exec_memory_cpu_us - parse_cpu_us) * 1e3 / static_cast<double>(directives);
  }
  double overhead_pool_ns() const {
    return (exec_pool_us - parse_us) * 1e3 / static_cast<double>(directives);
  }
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
