#include "actions/web_client.h"

#include <chrono>
#include <future>

namespace sigil::actions {

net::HttpClient& SharedHttpClient::get() {
  std::lock_guard lock(mutex_);
  if (!client_) {
    io_ = std::make_shared<net::IoThreads>(1);
    client_ = std::make_shared<net::HttpClient>(io_);
  }
  return *client_;
}

net::HttpResult fetch_and_wait(net::HttpClient& client, net::HttpRequest request, std::size_t max_body,
                               const std::stop_token& stop) {
  auto promise = std::make_shared<std::promise<net::HttpResult>>();
  std::future<net::HttpResult> done = promise->get_future();
  auto call = net::fetch(client, std::move(request), max_body,
                         [promise](net::HttpResult r) { promise->set_value(std::move(r)); });
  // Polled, not a stop_callback: the cancel then never runs inside request_stop() on another thread.
  while (done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    if (stop.stop_requested()) {
      call->cancel();
      break;
    }
  }
  return done.get();  // after cancel(), on_end follows soon (http_client.h)
}

}  // namespace sigil::actions
