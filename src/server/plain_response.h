// An HTTP answer without Beast: what the gateway's pure request handlers return (route handlers in the
// style of chat_completions.cpp: a request's parts in, an answer out, no socket), and what the HTTP
// session turns into a Beast response. Keeping handlers on this type keeps Beast in three translation units
// and lets tests check answers without a server.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sigil::server {

struct PlainResponse {
  int status = 200;
  std::string content_type;  // "" = no Content-Type header
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // sent after Content-Type, in this order

  PlainResponse& with(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  // The value of the first header of that name (exact spelling), "" when there is none (for tests).
  std::string_view header(std::string_view name) const;
};

// {"error": message} as application/json: the gateway's own endpoints' error shape.
PlainResponse json_error(int status, std::string_view message);
PlainResponse text_response(int status, std::string body,
                            std::string_view type = "text/plain; charset=utf-8");

}  // namespace sigil::server
