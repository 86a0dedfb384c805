// Who may call which route, before the route runs (docs/security.md): the Host, Origin and Content-Type
// checks, and the 401 for a missing or wrong token. Pure: the HTTP session passes the request's headers
// and sends what comes back (tests/server/admission_test.cpp).
//
// What it promises, in this order (the first refusal wins):
// - 421 when the Host header does not name this gateway (OriginPolicy::host_allowed), on every route but
//   /healthz (a load balancer's probe may use any name);
// - 403 when a browser's Origin is not the gateway's own, on routes that are not cross_origin_readable();
// - 415 when a JSON-body route gets another Content-Type (an OpenAI-shaped error on /v1/chat/completions).
#pragma once

#include <optional>
#include <string_view>

#include "server/origin_policy.h"
#include "server/plain_response.h"
#include "server/route.h"

namespace sigil::server {

struct AdmissionRequest {
  Route::Kind route = Route::Kind::Unknown;
  std::string_view method;                 // as the request line spells it
  std::string_view host;                   // the Host header, "" when absent
  std::optional<std::string_view> origin;  // the Origin header, when present
  std::string_view content_type;           // "" when absent
};

struct Refusal {
  enum class Why : unsigned char { Host, Origin, ContentType } why;
  PlainResponse response;
};

std::optional<Refusal> admission_refusal(const OriginPolicy& policy, const AdmissionRequest& request);

// 401 with WWW-Authenticate: Bearer.
PlainResponse unauthorized();

}  // namespace sigil::server
