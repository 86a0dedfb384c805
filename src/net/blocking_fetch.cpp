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

Result<std::string, DownloadError> StoppableCalls::download(HttpClient& client, HttpRequest request,
                                                            std::size_t max_bytes) {
  HttpResult r = fetches_.fetch(client, std::move(request), max_bytes);
  const std::string error = r.download_failure(max_bytes);
  count([&](CallStats& stats) {
    ++stats.calls;
    if (error.empty()) return;
    ++stats.failures;
    stats.last_error = "download: " + error;
  });
  if (!error.empty()) return Failure{DownloadError{r.truncated, error}};
  return std::move(r.body);
}

bool StoppableCalls::pause(std::chrono::milliseconds how_long) {
  std::unique_lock lock(mu_);
  return !cv_.wait_for(lock, how_long, [&] { return stopped_.load(); });
}

void StoppableCalls::stop() {
  {
    std::lock_guard lock(mu_);
    stopped_.store(true);
  }
  fetches_.cancel_all();
  cv_.notify_all();
}

CallStats StoppableCalls::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace sigil::net
