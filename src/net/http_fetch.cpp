#include "sigil/net/http_fetch.h"

#include <mutex>

namespace sigil::net {

namespace {

class CollectingHandler final : public HttpHandler {
 public:
  CollectingHandler(std::size_t max_body, std::function<void(HttpResult)> done)
      : max_body_(max_body), done_(std::move(done)) {}

  // Set right after start(): the handler cancels its own request when the body is full.
  void attach(std::shared_ptr<HttpCall> call) {
    std::lock_guard lock(mutex_);
    call_ = std::move(call);
    if (full_) call_->cancel();
  }

  void on_head(const HttpResponseHead& head) override { result_.head = head; }

  void on_body(std::string_view chunk) override {
    if (result_.truncated) return;
    std::size_t room = max_body_ - result_.body.size();
    result_.body.append(chunk.substr(0, room));
    if (chunk.size() > room) {
      result_.truncated = true;
      std::lock_guard lock(mutex_);
      full_ = true;
      if (call_) call_->cancel();
    }
  }

  void on_end(const std::optional<NetError>& error) override {
    // Our own cancel at max_body is not a failure: the caller asked for at most that much.
    if (!(result_.truncated && error && error->kind == NetErrorKind::cancelled)) result_.error = error;
    {
      std::lock_guard lock(mutex_);
      call_.reset();  // breaks the handler ↔ call cycle
    }
    auto done = std::move(done_);
    done(std::move(result_));
  }

 private:
  std::size_t max_body_;
  std::function<void(HttpResult)> done_;
  HttpResult result_;
  std::mutex mutex_;
  std::shared_ptr<HttpCall> call_;
  bool full_ = false;
};

}  // namespace

std::shared_ptr<HttpCall> fetch(HttpClient& client, HttpRequest request, std::size_t max_body,
                                std::function<void(HttpResult)> done) {
  auto handler = std::make_shared<CollectingHandler>(max_body, std::move(done));
  auto call = client.start(std::move(request), handler);
  handler->attach(call);
  return call;
}

std::string HttpResult::download_failure(std::size_t max_body) const {
  if (truncated) return "larger than " + std::to_string(max_body) + " bytes";
  if (error) return error->message;
  if (head.status != 200) return "HTTP " + std::to_string(head.status);
  return {};
}

}  // namespace sigil::net
