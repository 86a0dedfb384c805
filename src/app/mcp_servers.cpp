#include "app/mcp_servers.h"

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include "sigil/actions/mcp_http.h"
#include "sigil/actions/mcp_oauth.h"
#include "sigil/actions/mcp_stdio.h"
#include "sigil/log/log.h"
#include "sigil/net/http_client.h"
#include "sigil/net/io_threads.h"

namespace sigil::app {

McpStartup start_mcp_servers(const std::vector<McpServerConfig>& servers) {
  McpStartup out;
  std::shared_ptr<net::HttpClient> http;  // one for every URL server, made when the first needs it
  for (const McpServerConfig& s : servers) {
    std::unique_ptr<actions::McpTransport> transport;
    if (s.command.empty()) {
      if (!http) http = std::make_shared<net::HttpClient>(std::make_shared<net::IoThreads>(1));
      actions::McpHttpOptions options{s.url, s.headers, nullptr};
      if (s.oauth.enabled) {
        // The client's own settings, without where the secret and the key come from.
        actions::McpOAuthConfig oauth = static_cast<const actions::McpOAuthConfig&>(s.oauth);
        if (!s.oauth.private_key_file.empty()) {
          std::ifstream in(s.oauth.private_key_file, std::ios::binary);
          std::ostringstream key;
          key << in.rdbuf();
          if (!in || key.str().empty()) {
            out.errors.push_back(s.name + ": oauth.private_key_file " + s.oauth.private_key_file +
                                 " cannot be read");
            continue;
          }
          oauth.private_key_pem = key.str();
        }
        options.oauth = std::make_shared<actions::McpOAuth>(s.url, std::move(oauth), http);
      }
      transport = actions::make_mcp_http_transport(std::move(options), http);
    } else {
      actions::McpStdioOptions stdio;
      stdio.program = s.command.front();
      stdio.args.assign(s.command.begin() + 1, s.command.end());
      stdio.env = s.env;
      transport = actions::make_mcp_stdio_transport(std::move(stdio));
    }
    actions::McpClientOptions options;
    options.timeout = std::chrono::seconds(s.timeout_seconds);
    // The config reader accepted only the three names.
    options.elicitation =
        actions::parse_mcp_elicitation_policy(s.elicitation).value_or(actions::McpElicitationPolicy::decline);
    auto client = std::make_shared<actions::McpClient>(s.name, std::move(transport), options);
    if (auto connected = client->connect(); !connected) {
      out.errors.push_back(s.name + ": " + connected.error().message);
      continue;
    }
    // The version first: a change that lands between the two reads is taught again later, never missed.
    out.tool_versions.push_back(client->tools_version());
    for (const actions::McpTool& t : client->tools())
      out.tools.push_back({s.name, t.name, t.description, t.input_schema});
    if (log::enabled(log::Level::info)) {
      log::write(log::Record{log::Level::info, "mcp-connected", {}}
                     .with("server", s.name)
                     .with("tools", static_cast<std::int64_t>(client->tools().size())));
    }
    out.names.push_back(s.name);
    out.config.servers.push_back(std::move(client));
  }
  for (const std::string& e : out.errors) {
    if (log::enabled(log::Level::warn))
      log::write(log::Record{log::Level::warn, "mcp-failed", {}}.with("error", e));
  }
  return out;
}

McpTeaching::McpTeaching(const McpStartup& started, catalog::RegistryOptions base)
    : config_(started.config), base_(std::move(base)), seen_(started.tool_versions) {
  seen_.resize(config_.servers.size(), 0);
}

std::shared_ptr<const catalog::Registry> McpTeaching::changed() {
  std::lock_guard lock(mu_);
  bool any = false;
  std::vector<std::uint64_t> now(config_.servers.size());
  for (std::size_t i = 0; i < config_.servers.size(); ++i) {
    now[i] = config_.servers[i]->tools_version();  // lists them again first if a change was announced
    any = any || now[i] != seen_[i];
  }
  if (!any) return nullptr;
  catalog::RegistryOptions options = base_;
  options.mcp_tools.clear();
  for (const auto& client : config_.servers) {
    for (const actions::McpTool& t : client->tools())
      options.mcp_tools.push_back({client->name(), t.name, t.description, t.input_schema});
  }
  seen_ = std::move(now);
  if (log::enabled(log::Level::info)) {
    log::write(log::Record{log::Level::info, "mcp-tools-taught", {}}.with(
        "tools", static_cast<std::int64_t>(options.mcp_tools.size())));
  }
  return std::make_shared<const catalog::Registry>(catalog::Registry::builtin(std::move(options)));
}

}  // namespace sigil::app
