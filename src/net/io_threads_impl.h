// The io_context behind net::IoThreads, for net/'s own translation units only.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <mutex>
#include <thread>
#include <vector>

#include "sigil/net/io_threads.h"

namespace sigil::net {

struct IoThreads::Impl {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  std::vector<std::thread> threads;
  // Timers not yet fired: cancelled when the IoThreads is destroyed, so no one waits out a long delay.
  std::mutex mutex;
  std::vector<std::weak_ptr<Timer>> timers;
};

}  // namespace sigil::net
