// A whole-response request on top of HttpClient, for APIs whose answers are small (JSON, a page).
//
// Promises: `done` is called exactly once, on an io thread, with the status, headers and up to max_body
// bytes of the body. A body longer than max_body is not an error: the request is cancelled at the limit
// and the result says `truncated`, so a hostile server cannot make us buffer without end.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sigil/net/http_client.h"

namespace sigil::net {

struct HttpResult {
  std::optional<NetError> error;  // set when no complete response (or max_body bytes of it) arrived
  HttpResponseHead head;          // status 0 when no response head arrived
  std::string body;
  bool truncated = false;  // the body was longer than max_body and was cut there

  // For a download that must be whole and 200: "" when it is, else why not, in one line: "larger than N
  // bytes", the network error (it names the host and port, never the path or a header), "HTTP <status>".
  std::string download_failure(std::size_t max_body) const;
};

std::shared_ptr<HttpCall> fetch(HttpClient& client, HttpRequest request, std::size_t max_body,
                                std::function<void(HttpResult)> done);

}  // namespace sigil::net
