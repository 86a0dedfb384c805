#include "app/mcp_probe_command.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstdlib>
#include <ostream>

#include "sigil/actions/mcp_client.h"
#include "sigil/actions/mcp_http.h"
#include "sigil/actions/mcp_oauth.h"
#include "sigil/net/io_threads.h"

namespace sigil::app {
namespace {

namespace json = boost::json;

// Arguments that satisfy the required part of a schema, with distinct numbers so a sum shows they arrived.
json::object sample_arguments(const json::object& schema) {
  json::object args;
  const auto* properties = schema.if_contains("properties");
  const auto* required = schema.if_contains("required");
  if (properties == nullptr || !properties->is_object() || required == nullptr || !required->is_array())
    return args;
  int next_number = 1;
  for (const json::value& name : required->as_array()) {
    if (!name.is_string()) continue;
    const json::value* property = properties->as_object().if_contains(name.as_string());
    const json::value* type =
        property != nullptr && property->is_object() ? property->as_object().if_contains("type") : nullptr;
    const std::string_view t =
        type != nullptr && type->is_string() ? std::string_view(type->as_string()) : "";
    if (t == "number" || t == "integer")
      args[name.as_string()] = next_number++;
    else if (t == "boolean")
      args[name.as_string()] = true;
    else if (t == "array")
      args[name.as_string()] = json::array();
    else if (t == "object")
      args[name.as_string()] = json::object();
    else
      args[name.as_string()] = "sample";
  }
  return args;
}

// The conformance suite hands pre-registered client credentials to its client in MCP_CONFORMANCE_CONTEXT
// ({"client_id", "client_secret"}, or a private key and its algorithm, or an identity provider's ID token,
// token endpoint and client id for cross-app access); anything else there is not ours to read.
actions::McpOAuthConfig oauth_from_environment() {
  actions::McpOAuthConfig config;
  const char* context = std::getenv("MCP_CONFORMANCE_CONTEXT");
  if (context == nullptr) return config;
  boost::system::error_code ec;
  const json::value v = json::parse(context, ec);
  if (ec || !v.is_object()) return config;
  for (const auto& [key, target] :
       {std::pair{"client_id", &config.client_id}, std::pair{"client_secret", &config.client_secret},
        std::pair{"private_key_pem", &config.private_key_pem},
        std::pair{"signing_algorithm", &config.signing_algorithm},
        std::pair{"idp_id_token", &config.idp_id_token},
        std::pair{"idp_token_endpoint", &config.idp_token_endpoint},
        std::pair{"idp_client_id", &config.idp_client_id}}) {
    if (const auto* s = v.get_object().if_contains(key); s != nullptr && s->is_string())
      *target = s->get_string();
  }
  return config;
}

}  // namespace

int run_mcp_probe(const std::string& url, const std::string& elicitation,
                  const std::string& client_metadata_url, std::ostream& out, std::ostream& err) {
  if (url.empty()) {
    err << "sigil mcp-probe: give the server's URL\n";
    return 2;
  }
  const auto policy = actions::parse_mcp_elicitation_policy(elicitation);
  if (!policy) {
    err << "sigil mcp-probe: --elicitation must be decline, cancel or defaults\n";
    return 2;
  }
  auto http = std::make_shared<net::HttpClient>(std::make_shared<net::IoThreads>(1));
  actions::McpClientOptions options;
  options.timeout = std::chrono::milliseconds(20'000);
  options.elicitation = *policy;
  // A server that asks for authorization gets the OAuth flow (dynamic registration unless credentials came).
  actions::McpOAuthConfig oauth = oauth_from_environment();
  oauth.client_metadata_url = client_metadata_url;
  actions::McpHttpOptions transport{
      url, {}, std::make_shared<actions::McpOAuth>(url, std::move(oauth), http)};
  actions::McpClient client("probe", actions::make_mcp_http_transport(std::move(transport), http), options);
  if (auto connected = client.connect(); !connected) {
    err << "sigil mcp-probe: " << connected.error().message << '\n';
    return 1;
  }
  const auto tools = client.tools();
  out << "connected: " << tools.size() << " tools\n";
  for (const actions::McpTool& tool : tools) {
    const json::object args = sample_arguments(tool.input_schema);
    auto result = client.call_tool(tool.name, args);
    out << "call " << tool.name << ' ' << json::serialize(args) << ": ";
    if (!result)
      out << "failed: " << result.error().message << '\n';
    else
      out << (result->is_error ? "error: " : "ok: ") << result->text << '\n';
    if (result) {
      for (const std::string& note : result->notes) out << "  note: " << note << '\n';
    }
  }
  return 0;
}

}  // namespace sigil::app
