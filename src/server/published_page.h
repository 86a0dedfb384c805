// How a published page (the model's HTML, spec: publishWebPage) is served: the policy that isolates it and
// the one change made to its bytes.
//
// - Content-Security-Policy: `sandbox` without allow-same-origin puts the page in an opaque origin of its
// own,
//   so even with page scripts allowed it can neither read the chat's storage nor talk to the gateway as the
//   gateway's origin (its requests carry `Origin: null`, which the server refuses); no forms, framing,
//   <base> or plugins; scripts only when the operator allowed them, and then without connect-src.
// - A CSP cannot stop `<meta http-equiv="refresh">` (Chromium follows it even in a sandboxed document), so
//   the served HTML has every `http-equiv` attribute renamed (`data-http-equiv`): a pragma needs that
//   attribute name spelled out in the source (names take no character references), and the source is UTF-8
//   (invalid bytes become U+FFFD, so no UTF-16 byte-order mark can change how the browser decodes it).
#pragma once

#include <string>
#include <string_view>

namespace sigil::server {

std::string_view published_page_csp(bool scripts_allowed);

// The HTML as served: valid UTF-8, with no `http-equiv` attribute left (ASCII case-insensitive).
std::string published_page_html(std::string_view html);

}  // namespace sigil::server
