#include "sigil/actions/mcp_oauth.h"

#include <openssl/rand.h>

#include <boost/json.hpp>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "actions/json_fields.h"
#include "actions/jwt_assertion.h"
#include "sigil/log/log.h"
#include "sigil/net/blocking_fetch.h"
#include "sigil/net/ssrf_guard.h"
#include "sigil/net/url.h"
#include "sigil/store/sha256.h"
#include "sigil/text/ascii.h"
#include "sigil/text/base64.h"
#include "sigil/text/diagnostic_text.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;

// Metadata and token answers are small; a larger one is not one we can use.
constexpr std::size_t kMaxBody = 1u << 20;
constexpr std::chrono::milliseconds kStepTimeout{15'000};
constexpr std::string_view kJwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer";

Error oauth_error(std::string message) {
  return make_error(ErrorCode::permission_denied, "OAuth: " + message);
}

// Unguessable bytes (PKCE verifier, state): these must not come from a fast non-cryptographic generator.
std::optional<std::string> random_base64url(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1)
    return std::nullopt;
  return text::base64url_encode(raw);
}

using Form = std::vector<std::pair<std::string, std::string>>;

std::string form_encode(const Form& form) {
  std::string out;
  for (const auto& [name, value] : form) {
    if (!out.empty()) out += '&';
    out += net::percent_encode(name) + '=' + net::percent_encode(value);
  }
  return out;
}

// The parameters of a URL's query (form decoding); malformed pairs are skipped.
Form query_params(std::string_view url) {
  Form out;
  const auto q = url.find('?');
  if (q == std::string_view::npos) return out;
  std::string_view rest = url.substr(q + 1);
  rest = rest.substr(0, rest.find('#'));
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const auto eq = pair.find('=');
    auto name = net::percent_decode(pair.substr(0, eq), true);
    auto value = net::percent_decode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true);
    if (name && value) out.emplace_back(std::move(*name), std::move(*value));
  }
  return out;
}

std::string param(const Form& form, std::string_view name) {
  for (const auto& [n, v] : form)
    if (n == name) return v;
  return {};
}

std::vector<std::string> strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_array()) return out;
  for (const json::value& e : v->get_array())
    if (e.is_string()) out.emplace_back(e.get_string());
  return out;
}

bool has(const std::vector<std::string>& list, std::string_view item) {
  for (const std::string& s : list)
    if (s == item) return true;
  return false;
}

std::string origin(const net::Url& u) { return u.scheme + "://" + u.authority(); }

// The path without a trailing '/': "" for the root.
std::string trimmed_path(const net::Url& u) { return net::without_trailing_slashes(u.path); }

// Whether the protected-resource metadata's `resource` names this server: the same origin, and a path that
// is the server's or a parent of it (a resource may cover several endpoints).
bool resource_matches(std::string_view resource, const net::Url& server) {
  auto parsed = net::parse_url(resource);
  const auto* r = std::get_if<net::Url>(&parsed);
  if (r == nullptr || r->scheme != server.scheme || !text::ascii::iequals(r->host, server.host) ||
      r->port != server.port)
    return false;
  const std::string rp = trimmed_path(*r), sp = trimmed_path(server);
  return sp.compare(0, rp.size(), rp) == 0 && (sp.size() == rp.size() || sp[rp.size()] == '/');
}

}  // namespace

bool valid_mcp_oauth_grant(std::string_view grant) {
  return grant == "auto" || grant == "client_credentials" || grant == "authorization_code";
}

std::string bearer_challenge_param(std::string_view challenge, std::string_view name) {
  std::size_t i = 0;
  const auto skip = [&](std::string_view chars) {
    while (i < challenge.size() && chars.find(challenge[i]) != std::string_view::npos) ++i;
  };
  skip(" \t");
  // The scheme; only Bearer's parameters are read.
  const std::size_t scheme_start = i;
  while (i < challenge.size() && challenge[i] != ' ' && challenge[i] != ',') ++i;
  if (!text::ascii::iequals(challenge.substr(scheme_start, i - scheme_start), "Bearer")) return {};
  while (i < challenge.size()) {
    skip(" \t,");
    const std::size_t key_start = i;
    while (i < challenge.size() && challenge[i] != '=' && challenge[i] != ' ' && challenge[i] != ',') ++i;
    const std::string_view key = challenge.substr(key_start, i - key_start);
    skip(" \t");
    if (i >= challenge.size() || challenge[i] != '=') return {};  // another scheme follows: stop
    ++i;
    skip(" \t");
    std::string value;
    if (i < challenge.size() && challenge[i] == '"') {
      for (++i; i < challenge.size() && challenge[i] != '"'; ++i) {
        if (challenge[i] == '\\' && i + 1 < challenge.size()) ++i;
        value += challenge[i];
      }
      ++i;
    } else {
      while (i < challenge.size() && challenge[i] != ',' && challenge[i] != ' ') value += challenge[i++];
    }
    if (text::ascii::iequals(key, name)) return value;
  }
  return {};
}

struct McpOAuth::State {
  std::string server_url;
  net::Url server;
  McpOAuthConfig config;
  // Weak: a stream handler may hold the last reference to this object on an io thread, where the client
  // must not be destroyed.
  std::weak_ptr<net::HttpClient> http;
  net::BlockingFetches fetches;
  std::optional<net::SsrfGuard> guard;  // for the hosts the server names (guarded())
  std::string guard_error;              // why there is none: a bad allow_private entry

  std::mutex* token_mu = nullptr;  // McpOAuth::mu_, which guards access_token
  std::string access_token;

  // Only the flow (McpOAuth::flow_mu_) touches these.
  std::string refresh_token;
  bool discovered = false;
  std::string resource;  // RFC 8707: what the token is for
  std::vector<std::string> resource_scopes;
  std::string issuer, authorization_endpoint, token_endpoint, registration_endpoint;
  std::vector<std::string> grants, auth_methods, as_scopes;
  bool metadata_documents = false;                    // client_id_metadata_document_supported
  std::string client_id, client_secret, auth_method;  // the identity in use (configured or registered)

  struct Answer {
    int status = 0;
    std::string location;
    std::optional<json::object> body;
  };

  // The address to connect to for `url` ("": resolve as usual), or why sigil must not ask it. The server's
  // own host and the configured identity provider are trusted as the operator who named them is; any other
  // host comes from what the server wrote (metadata, a challenge) and goes through the SSRF guard, so a
  // hostile server cannot aim the flow's requests at the private network or a metadata address.
  sigil::Result<std::string, std::string> guarded(const std::string& url) const {
    auto parsed = net::parse_url(url);
    const auto* u = std::get_if<net::Url>(&parsed);
    if (u != nullptr && text::ascii::iequals(u->host, server.host)) return std::string();
    if (!config.idp_token_endpoint.empty() && url == config.idp_token_endpoint) return std::string();
    if (!guard) return sigil::Failure<std::string>{guard_error};
    auto target = guard->check(url);
    if (!target) return sigil::Failure<std::string>{target.error()};
    return target->address.to_string();
  }

  Result<Answer> call(std::string method, std::string url, net::Headers headers, std::string body) {
    auto address = guarded(url);
    if (!address) return oauth_error("refused " + text::one_line(url) + ": " + address.error());
    net::HttpRequest request;
    request.connect_address = std::move(*address);
    request.method = std::move(method);
    request.url = std::move(url);
    request.headers = std::move(headers);
    request.body = std::move(body);
    request.timeouts.deadline = std::chrono::steady_clock::now() + kStepTimeout;
    const std::string where = request.url;
    const auto client = http.lock();
    if (!client) return oauth_error("the HTTP client is gone");
    net::HttpResult result = fetches.fetch(*client, std::move(request), kMaxBody);
    if (result.error) return oauth_error(where + ": " + result.error->message);
    Answer a;
    a.status = result.head.status;
    if (const std::string* l = result.head.find("Location")) a.location = *l;
    boost::system::error_code ec;
    json::value v = json::parse(result.body, ec);
    if (!ec && v.is_object()) a.body = std::move(v.get_object());
    return a;
  }

  // The first of `urls` that answers 200 with a JSON object.
  std::optional<json::object> first_document(const std::vector<std::string>& urls) {
    for (const std::string& url : urls) {
      auto a = call("GET", url, {{"Accept", "application/json"}}, "");
      if (a && a->status == 200 && a->body) return std::move(a->body);
    }
    return std::nullopt;
  }

  Result<void> discover(std::string_view challenge) {
    const std::string server_origin = origin(server);
    const std::string server_path = trimmed_path(server);
    std::vector<std::string> prm_urls;
    if (auto from_challenge = bearer_challenge_param(challenge, "resource_metadata"); !from_challenge.empty())
      prm_urls.push_back(from_challenge);
    if (!server_path.empty())
      prm_urls.push_back(server_origin + "/.well-known/oauth-protected-resource" + server_path);
    prm_urls.push_back(server_origin + "/.well-known/oauth-protected-resource");
    std::string as_url;
    const auto prm = first_document(prm_urls);
    if (prm) {
      const std::string named = string_at(*prm, "resource");
      if (!named.empty() && !resource_matches(named, server))
        return oauth_error("the server's protected-resource metadata names the resource \"" + named +
                           "\", not " + server_url + ": refused (a token for it could be misused)");
      resource = named.empty() ? server_url : named;
      resource_scopes = strings(*prm, "scopes_supported");
      const auto servers = strings(*prm, "authorization_servers");
      if (servers.empty())
        return oauth_error("the protected-resource metadata names no authorization server");
      as_url = servers.front();
    } else {
      // MCP 2025-03-26: no protected-resource metadata; the server's origin is the authorization server.
      resource = server_url;
      as_url = server_origin;
    }
    auto parsed = net::parse_url(as_url);
    const auto* as = std::get_if<net::Url>(&parsed);
    if (as == nullptr) return oauth_error("the authorization server's URL is invalid: " + as_url);
    if (auto allowed = guarded(as_url); !allowed)
      return oauth_error("refused the authorization server " + text::one_line(as_url) + ": " +
                         allowed.error() + " (allow it with oauth.allow_private if it is yours)");
    const std::string as_origin = origin(*as), as_path = trimmed_path(*as);
    std::vector<std::string> meta_urls;
    if (!as_path.empty()) {
      meta_urls = {as_origin + "/.well-known/oauth-authorization-server" + as_path,
                   as_origin + "/.well-known/openid-configuration" + as_path,
                   as_origin + as_path + "/.well-known/openid-configuration"};
    } else {
      meta_urls = {as_origin + "/.well-known/oauth-authorization-server",
                   as_origin + "/.well-known/openid-configuration"};
    }
    if (const auto meta = first_document(meta_urls)) {
      issuer = string_at(*meta, "issuer");
      authorization_endpoint = string_at(*meta, "authorization_endpoint");
      token_endpoint = string_at(*meta, "token_endpoint");
      registration_endpoint = string_at(*meta, "registration_endpoint");
      grants = strings(*meta, "grant_types_supported");
      auth_methods = strings(*meta, "token_endpoint_auth_methods_supported");
      as_scopes = strings(*meta, "scopes_supported");
      const auto* cimd = meta->if_contains("client_id_metadata_document_supported");
      metadata_documents = cimd != nullptr && cimd->is_bool() && cimd->get_bool();
      const auto methods = strings(*meta, "code_challenge_methods_supported");
      if (!methods.empty() && !has(methods, "S256"))
        return oauth_error("the authorization server does not support PKCE S256");
    } else if (!prm) {
      // MCP 2025-03-26's fallbacks for a server without any metadata.
      authorization_endpoint = as_origin + "/authorize";
      token_endpoint = as_origin + "/token";
      registration_endpoint = as_origin + "/register";
    } else {
      return oauth_error("no authorization server metadata at " + meta_urls.front() +
                         " (nor the OpenID paths)");
    }
    if (token_endpoint.empty())
      return oauth_error("the authorization server's metadata names no token endpoint");
    discovered = true;
    return {};
  }

  // client_secret_basic unless the server lists only client_secret_post; none without a secret.
  std::string pick_auth_method() const {
    if (!config.private_key_pem.empty()) return "private_key_jwt";
    if (client_secret.empty()) return "none";
    if (auth_methods.empty() || has(auth_methods, "client_secret_basic")) return "client_secret_basic";
    if (has(auth_methods, "client_secret_post")) return "client_secret_post";
    return "client_secret_basic";
  }

  Result<void> ensure_client() {
    if (!client_id.empty()) return {};
    if (!config.client_id.empty()) {
      client_id = config.client_id;
      client_secret = config.client_secret;
      auth_method = pick_auth_method();
      return {};
    }
    if (!config.client_metadata_url.empty() && metadata_documents) {
      client_id = config.client_metadata_url;
      auth_method = "none";
      return {};
    }
    if (registration_endpoint.empty())
      return oauth_error(
          "the authorization server offers no dynamic client registration: configure oauth = "
          "{ client_id = \"…\", client_secret = \"…\" } for this server");
    // A public client when the server allows it: sigil keeps no secret it need not keep.
    const std::string method = auth_methods.empty() || has(auth_methods, "none") ? "none"
                               : has(auth_methods, "client_secret_basic")        ? "client_secret_basic"
                                                                                 : "client_secret_post";
    json::object request{{"client_name", "sigil"},
                         {"redirect_uris", json::array{json::value(config.redirect_uri)}},
                         {"grant_types", json::array{"authorization_code", "refresh_token"}},
                         {"response_types", json::array{"code"}},
                         {"token_endpoint_auth_method", method}};
    auto a = call("POST", registration_endpoint,
                  {{"Content-Type", "application/json"}, {"Accept", "application/json"}},
                  json::serialize(request));
    if (!a) return a.error();
    if ((a->status != 200 && a->status != 201) || !a->body || string_at(*a->body, "client_id").empty())
      return oauth_error("dynamic client registration at " + registration_endpoint + " failed (HTTP " +
                         std::to_string(a->status) + ")");
    client_id = string_at(*a->body, "client_id");
    client_secret = string_at(*a->body, "client_secret");
    auth_method = string_at(*a->body, "token_endpoint_auth_method");
    if (auth_method.empty()) auth_method = pick_auth_method();
    return {};
  }

  // A token request with the client's authentication; on success keeps the tokens.
  Result<void> token_request(Form form, std::string_view what) {
    net::Headers headers{{"Content-Type", "application/x-www-form-urlencoded"},
                         {"Accept", "application/json"}};
    if (auth_method == "client_secret_basic") {
      // RFC 6749 2.3.1: both parts form-encoded before they are joined.
      headers.push_back(
          {"Authorization", "Basic " + text::base64_encode(net::percent_encode(client_id) + ":" +
                                                           net::percent_encode(client_secret))});
    } else if (auth_method == "private_key_jwt") {
      // RFC 7523 2.2: a short-lived assertion for the authorization server (its issuer, else the endpoint).
      const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
      auto jti = random_base64url(16);
      if (!jti) return oauth_error("no random bytes for the client assertion");
      const json::object claims{
          {"iss", client_id}, {"sub", client_id}, {"aud", issuer.empty() ? token_endpoint : issuer},
          {"iat", now},       {"exp", now + 300}, {"jti", *jti}};
      auto assertion = sign_jwt(claims, config.private_key_pem, config.signing_algorithm);
      if (!assertion) return oauth_error("the client assertion: " + assertion.error().message);
      form.emplace_back("client_id", client_id);
      form.emplace_back("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
      form.emplace_back("client_assertion", *assertion);
    } else {
      form.emplace_back("client_id", client_id);
      if (auth_method == "client_secret_post") form.emplace_back("client_secret", client_secret);
    }
    auto a = call("POST", token_endpoint, std::move(headers), form_encode(form));
    if (!a) return a.error();
    if (a->status != 200 || !a->body || string_at(*a->body, "access_token").empty()) {
      std::string why = a->body ? string_at(*a->body, "error") : std::string();
      return oauth_error(std::string(what) + " at " + token_endpoint + " failed (HTTP " +
                         std::to_string(a->status) + (why.empty() ? "" : ", " + why.substr(0, 100)) + ")");
    }
    if (auto refresh = string_at(*a->body, "refresh_token"); !refresh.empty())
      refresh_token = std::move(refresh);
    std::lock_guard lock(*token_mu);
    access_token = string_at(*a->body, "access_token");
    return {};
  }

  Result<void> authorization_code(const std::string& scope) {
    if (authorization_endpoint.empty())
      return oauth_error("the authorization server's metadata names no authorization endpoint");
    auto verifier = random_base64url(32);
    auto state = random_base64url(16);
    if (!verifier || !state) return oauth_error("no random bytes for PKCE");
    const auto digest = store::sha256(*verifier);
    const std::string challenge =
        text::base64url_encode(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
    Form query{{"response_type", "code"},
               {"client_id", client_id},
               {"redirect_uri", config.redirect_uri},
               {"code_challenge", challenge},
               {"code_challenge_method", "S256"},
               {"state", *state},
               {"resource", resource}};
    if (!scope.empty()) query.emplace_back("scope", scope);
    const std::string url = authorization_endpoint +
                            (authorization_endpoint.find('?') == std::string::npos ? "?" : "&") +
                            form_encode(query);
    auto a = call("GET", url, {}, "");
    if (!a) return a.error();
    const Form back = query_params(a->location);
    if (a->status < 300 || a->status >= 400 || a->location.empty())
      return oauth_error(
          "the authorization server answered HTTP " + std::to_string(a->status) +
          " instead of redirecting with a code: it wants a person to sign in at " + authorization_endpoint +
          ", which sigil cannot do (give a token with headers = { Authorization = \"Bearer …\" }, or "
          "use client credentials)");
    if (!param(back, "error").empty())
      return oauth_error("the authorization server refused: " + param(back, "error").substr(0, 100));
    if (param(back, "state") != *state) return oauth_error("the redirect's state does not match: refused");
    const std::string code = param(back, "code");
    if (code.empty()) return oauth_error("the redirect carries no code");
    return token_request({{"grant_type", "authorization_code"},
                          {"code", code},
                          {"redirect_uri", config.redirect_uri},
                          {"code_verifier", *verifier},
                          {"resource", resource}},
                         "the code exchange");
  }

  // SEP-990: the ID token becomes an ID-JAG at the identity provider, the ID-JAG a token here.
  Result<void> cross_app_access(const std::string& scope) {
    if (config.idp_token_endpoint.empty() || config.idp_client_id.empty())
      return oauth_error("cross-app access needs the identity provider's token endpoint and client id");
    Form exchange{{"grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"},
                  {"requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"},
                  {"subject_token", config.idp_id_token},
                  {"subject_token_type", "urn:ietf:params:oauth:token-type:id_token"},
                  {"audience", issuer.empty() ? token_endpoint : issuer},
                  {"resource", resource},
                  {"client_id", config.idp_client_id}};
    if (!scope.empty()) exchange.emplace_back("scope", scope);
    auto a = call("POST", config.idp_token_endpoint,
                  {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}},
                  form_encode(exchange));
    if (!a) return a.error();
    const std::string grant = a->body ? string_at(*a->body, "access_token") : std::string();
    if (a->status != 200 || grant.empty())
      return oauth_error("the identity provider's token exchange at " + config.idp_token_endpoint +
                         " failed (HTTP " + std::to_string(a->status) + ")");
    Form form{{"grant_type", std::string(kJwtBearer)}, {"assertion", grant}};
    if (!scope.empty()) form.emplace_back("scope", scope);
    return token_request(std::move(form), "the JWT bearer grant");
  }

  Result<void> run(std::string_view challenge) {
    const bool step_up = bearer_challenge_param(challenge, "error") == "insufficient_scope";
    if (!refresh_token.empty() && !step_up) {
      const std::string refresh = std::exchange(refresh_token, {});
      if (token_request({{"grant_type", "refresh_token"}, {"refresh_token", refresh}, {"resource", resource}},
                        "the token refresh"))
        return {};
    }
    if (auto d = discover(challenge); !d) return d;
    if (auto c = ensure_client(); !c) return c;
    std::string scope = bearer_challenge_param(challenge, "scope");
    if (scope.empty()) scope = config.scope;
    if (scope.empty()) {
      for (const std::string& s : resource_scopes) scope += (scope.empty() ? "" : " ") + s;
    }
    if (!config.idp_id_token.empty() && has(grants, kJwtBearer)) return cross_app_access(scope);
    const bool confidential = !client_secret.empty() || !config.private_key_pem.empty();
    const bool credentials = config.grant == "client_credentials" ||
                             (config.grant == "auto" && confidential && has(grants, "client_credentials") &&
                              !has(grants, "authorization_code"));
    if (credentials) {
      if (!confidential)
        return oauth_error("the client_credentials grant needs a client secret or a private key");
      Form form{{"grant_type", "client_credentials"}, {"resource", resource}};
      if (!scope.empty()) form.emplace_back("scope", scope);
      return token_request(std::move(form), "the client_credentials token request");
    }
    // A refresh token needs offline_access where the server lists it (SEP-2207).
    if (has(as_scopes, "offline_access") && scope.find("offline_access") == std::string::npos &&
        !scope.empty())
      scope += " offline_access";
    return authorization_code(scope);
  }
};

McpOAuth::McpOAuth(std::string server_url, McpOAuthConfig config, std::shared_ptr<net::HttpClient> http)
    : state_(std::make_unique<State>()) {
  state_->server_url = std::move(server_url);
  auto parsed = net::parse_url(state_->server_url);
  if (auto* u = std::get_if<net::Url>(&parsed)) state_->server = *u;
  try {
    net::SsrfGuardOptions guard;
    guard.allow_private = config.allow_private;
    state_->guard.emplace(std::move(guard), net::system_resolver());
  } catch (const std::invalid_argument& e) {
    state_->guard_error = std::string("allow_private: ") + e.what();
  }
  state_->config = std::move(config);
  state_->http = std::move(http);
  state_->token_mu = &mu_;
}

McpOAuth::~McpOAuth() { state_->fetches.cancel_all(); }

std::string McpOAuth::authorization() const {
  std::lock_guard lock(mu_);
  return state_->access_token.empty() ? std::string() : "Bearer " + state_->access_token;
}

Result<void> McpOAuth::authorize(std::string_view challenge, std::string_view refused) {
  std::lock_guard flow(flow_mu_);
  const std::string now = authorization();
  if (!now.empty() && now != refused) return {};  // another request got a new token meanwhile
  if (state_->server.host.empty()) return oauth_error("the server's URL is invalid");
  {
    std::lock_guard lock(mu_);
    state_->access_token.clear();  // refused: never sent again
  }
  auto done = state_->run(challenge);
  // What the operator needs to see which step failed; never a token or secret (the messages hold none).
  if (done && log::enabled(log::Level::info))
    log::write(log::Record{log::Level::info, "mcp-oauth-token", {{"url", state_->server_url}}});
  else if (!done && log::enabled(log::Level::warn))
    log::write(log::Record{
        log::Level::warn, "mcp-oauth-failed", {{"url", state_->server_url}, {"why", done.error().message}}});
  return done;
}

}  // namespace sigil::actions
