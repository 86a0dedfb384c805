// The OAuth 2.1 client an MCP server over Streamable HTTP may ask for (MCP authorization, 2025-11-25).
//
// What it promises:
// - authorize() is called after the server refused a request (401, or 403 with error="insufficient_scope")
//   with its WWW-Authenticate challenge. It finds the protected-resource metadata (RFC 9728: the challenge's
//   resource_metadata, else /.well-known/oauth-protected-resource/<path>, then at the root), refuses a
//   `resource` that is not the server's URL or a parent of it, then reads the authorization server's metadata
//   (RFC 8414 / OpenID discovery, path-aware order). A server without protected-resource metadata (MCP
//   2025-03-26) is its own authorization server, with /authorize, /token and /register as fallbacks.
// - The client id is the configured one, else client_metadata_url where the server accepts client id metadata
//   documents, else one registered dynamically (RFC 7591) as a public client when the server allows it.
// - The token comes from, in order: a refresh token from before; with an identity provider's ID token, the
//   cross-app access exchange (when the authorization server lists the jwt-bearer grant); the
//   client_credentials grant when a client secret or key is configured and the authorization server lists
//   that grant and not authorization_code (or grant = "client_credentials"); the authorization code grant
//   with PKCE S256, `state` and the `resource` parameter (RFC 8707), with the configured client id or one
//   registered dynamically (RFC 7591). The code is taken from the `Location` of the authorization endpoint's
//   answer to a plain GET: this works only with a server that redirects without a person; one that shows a
//   login page gets a clear error naming the URL to open.
// - Scope: the challenge's `scope`, else the configured one, else the resource's `scopes_supported`, else
//   none; `offline_access` is added to a non-empty scope of the code flow where the server lists it.
// - The client authenticates to the token endpoint with private_key_jwt when a private key is configured
//   (a JWT assertion, aud = the issuer, 5 minutes), else as the server's metadata allows: client_secret_basic
//   (preferred), client_secret_post, or none (a public client, client_id in the body).
// - Every URL the flow learns from the server (metadata, endpoints, the challenge) on another host than the
//   server's own passes the SSRF guard (ssrf_guard.h) with `allow_private`: a hostile server cannot aim
//   the flow at the private network or a cloud metadata address.
// - authorization() is the current `Authorization` header value ("" before any token). Tokens and secrets
//   are never logged nor put into an error message.
// - authorize() blocks on HTTP requests: never call it on an io thread of the HttpClient. Thread-safe (one
//   authorization at a time; a caller that waited finds the token another one got). It keeps only a weak
//   reference to the HttpClient: the owner of the transport keeps the client alive.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/actions/result.h"
#include "sigil/net/http_client.h"

namespace sigil::actions {

struct McpOAuthConfig {
  std::string client_id;      // pre-registered; "" registers dynamically when the server offers it
  std::string client_secret;  // "" for a public client
  // A PEM private key: the client authenticates with a signed JWT (private_key_jwt, RFC 7523) instead.
  std::string private_key_pem;
  std::string signing_algorithm = "ES256";  // or "RS256"
  // Enterprise-managed authorization (SEP-990, cross-app access): an ID token from the organisation's
  // identity provider is exchanged there (RFC 8693) for an identity assertion grant (ID-JAG), which the
  // authorization server takes as a JWT bearer grant (RFC 7523) from this client. All three or none.
  std::string idp_id_token, idp_token_endpoint, idp_client_id;
  std::string scope;  // asked for when the challenge names none; "" lets the metadata decide
  // "auto" (client_credentials when there is a secret and the server lists the grant, else the code flow),
  // "client_credentials" or "authorization_code".
  std::string grant = "auto";
  // Where the authorization server sends the code; never contacted (the code is read from the redirect).
  std::string redirect_uri = "http://127.0.0.1:33418/oauth/callback";
  // An https URL of a client id metadata document (SEP-991) that names redirect_uri: used as the client id,
  // instead of registering, when there is no client_id and the server says
  // client_id_metadata_document_supported.
  std::string client_metadata_url;
  // Hosts, addresses or CIDR ranges (ssrf_guard.h) that the URLs the server names may reach although they
  // are private. The server's own host and idp_token_endpoint need no entry.
  std::vector<std::string> allow_private;
};

// "client_credentials", "authorization_code" or "auto"; false for anything else.
bool valid_mcp_oauth_grant(std::string_view grant);

class McpOAuth {
 public:
  McpOAuth(std::string server_url, McpOAuthConfig config, std::shared_ptr<net::HttpClient> http);
  ~McpOAuth();
  McpOAuth(const McpOAuth&) = delete;
  McpOAuth& operator=(const McpOAuth&) = delete;

  std::string authorization() const;
  // `refused` is the Authorization value the refused request carried: when the token changed meanwhile,
  // the caller just retries with the new one.
  Result<void> authorize(std::string_view challenge, std::string_view refused);

  struct State;

 private:
  std::unique_ptr<State> state_;
  mutable std::mutex mu_;
  std::mutex flow_mu_;  // one flow at a time
};

// A parameter of a `Bearer` WWW-Authenticate challenge (quoted or a token), "" when absent.
std::string bearer_challenge_param(std::string_view challenge, std::string_view name);

}  // namespace sigil::actions
