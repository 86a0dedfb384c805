#include "server/admission.h"

#include <string>

#include "server/chat_completions.h"
#include "server/request_checks.h"

namespace sigil::server {

std::optional<Refusal> admission_refusal(const OriginPolicy& policy, const AdmissionRequest& request) {
  if (request.route != Route::Kind::Health && !policy.host_allowed(request.host)) {
    return Refusal{Refusal::Why::Host,
                   json_error(421,
                              "this gateway does not answer to the host name in the Host header; add it to "
                              "[server] allowed_hosts if it is one of its names")};
  }
  if (request.origin && !cross_origin_readable(request.route) &&
      !policy.origin_allowed(*request.origin, request.host)) {
    return Refusal{Refusal::Why::Origin,
                   json_error(403,
                              "cross-origin request refused: this page's origin may not use the gateway; add "
                              "it to [server] allowed_origins to allow it")};
  }
  if (json_body_route(request.route, request.method) && !is_json_content_type(request.content_type)) {
    constexpr std::string_view why = "Content-Type must be application/json";
    PlainResponse res = json_error(415, why);
    if (request.route == Route::Kind::Completions)
      res.body = completions::error_body(
          {415, std::string(why), "invalid_request_error", {}, "unsupported_media_type"});
    return Refusal{Refusal::Why::ContentType, std::move(res)};
  }
  return std::nullopt;
}

PlainResponse unauthorized() {
  return json_error(401, "missing or wrong bearer token").with("WWW-Authenticate", "Bearer");
}

}  // namespace sigil::server
