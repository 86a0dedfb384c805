#include "sigil/net/blocking_fetch.h"

#include <future>
#include <utility>

namespace sigil::net {

HttpResult BlockingFetches::fetch(HttpClient& client, HttpRequest request, std::size_t max_body) {
  auto promise = std::make_shared<std::promise<HttpResult>>();
  std::future<HttpResult> done = promise->get_future();
  std::shared_ptr<HttpCall> handle = net::fetch(
      client, std::move(request), max_body, [promise](HttpResult r) { promise->set_value(std::move(r)); });
  {
    std::lock_guard lock(mu_);
    if (cancelled_) handle->cancel();
    open_.insert(handle);
  }
  HttpResult r = done.get();
  {
    std::lock_guard lock(mu_);
    open_.erase(handle);
  }
  return r;
}

void BlockingFetches::cancel_all() {
  std::lock_guard lock(mu_);
  cancelled_ = true;
  for (const auto& call : open_) call->cancel();
}

}  // namespace sigil::net
