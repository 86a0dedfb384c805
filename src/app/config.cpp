// A configuration: the TOML file (config_toml.cpp reads it), then the environment and the command's flags
// over it, and the checks that need all three.
#include "config.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "config_toml.h"
#include "sigil/log/log.h"
#include "sigil/text/ascii.h"

namespace sigil::app {
namespace {

namespace fs = std::filesystem;

void apply_env_and_flags(Config& config, const ConfigFlags& flags, const EnvLookup& env) {
  for (McpServerConfig& server : config.mcp_servers) {
    const std::string& name = server.oauth.client_secret_env;
    if (name.empty()) continue;
    auto v = env(name);
    // The variable is named, its value never: it is a secret.
    if (!v || v->empty())
      throw ConfigError("[mcp.servers." + server.name + "] oauth.client_secret_env names " + name +
                        ", which is not set in the environment");
    server.oauth.client_secret = *v;
  }
  if (auto v = env("SIGIL_TELEGRAM_TOKEN"); v && !v->empty()) {
    if (!valid_telegram_token(*v))
      throw ConfigError(
          "SIGIL_TELEGRAM_TOKEN is not a bot token (digits, ':', then letters, digits, '_' or '-')");
    config.channels.telegram.token = *v;
  }
  if (config.channels.telegram.enabled && config.channels.telegram.token.empty())
    throw ConfigError(
        "[channels.telegram] needs the bot's token: set token (from @BotFather) or SIGIL_TELEGRAM_TOKEN");
  if (auto v = env("SIGIL_TELEGRAM_WEBHOOK_SECRET"); v && !v->empty()) {
    if (!valid_telegram_webhook_secret(*v))
      throw ConfigError(
          "SIGIL_TELEGRAM_WEBHOOK_SECRET must be 1-256 of A-Z, a-z, 0-9, '_' and '-' (Telegram's "
          "secret_token)");
    config.channels.telegram.webhook_secret = *v;
  }
  if (const TelegramConfig& tg = config.channels.telegram; tg.enabled && tg.mode == "webhook") {
    if (tg.webhook_url.empty())
      throw ConfigError(
          "[channels.telegram] mode \"webhook\" needs webhook_url: the public URL Telegram posts updates to");
    if (tg.webhook_secret.empty())
      throw ConfigError(
          "[channels.telegram] mode \"webhook\" needs webhook_secret (or SIGIL_TELEGRAM_WEBHOOK_SECRET): "
          "without it anyone who finds the URL could post updates");
  }
  if (auto v = env("SIGIL_SEARCH_KEY"); v && !v->empty()) config.search.api_key = *v;
  const SearchSettings& search = config.search;
  if ((search.provider == "brave" || search.provider == "tavily") && search.api_key.empty())
    throw ConfigError("[search] provider \"" + search.provider + "\" needs api_key (or SIGIL_SEARCH_KEY)");
  if (search.provider == "searxng" && search.url.empty())
    throw ConfigError(
        "[search] provider \"searxng\" needs url: the instance's address, e.g. http://127.0.0.1:8888");
  if (auto v = env("SIGIL_IMAGES_KEY"); v && !v->empty()) config.images.key = *v;
  if (auto v = env("SIGIL_DISCORD_TOKEN"); v && !v->empty()) config.channels.discord.token = *v;
  if (config.channels.discord.enabled && config.channels.discord.token.empty())
    throw ConfigError(
        "[channels.discord] needs the bot's token: set token (from the Developer Portal's Bot "
        "page) or SIGIL_DISCORD_TOKEN");
  if (auto v = env("SIGIL_SLACK_BOT_TOKEN"); v && !v->empty()) config.channels.slack.bot_token = *v;
  if (auto v = env("SIGIL_SLACK_APP_TOKEN"); v && !v->empty()) config.channels.slack.app_token = *v;
  if (config.channels.slack.enabled && !config.channels.slack.bot_token.starts_with("xoxb-"))
    throw ConfigError(
        "[channels.slack] needs the bot token (xoxb-…, from the app's OAuth & Permissions page): set "
        "bot_token or SIGIL_SLACK_BOT_TOKEN");
  if (config.channels.slack.enabled && !config.channels.slack.app_token.starts_with("xapp-"))
    throw ConfigError(
        "[channels.slack] needs the app-level token (xapp-…, with connections:write, from the app's Basic "
        "Information page) for Socket Mode: set app_token or SIGIL_SLACK_APP_TOKEN");
  if (auto v = env("SIGIL_MATRIX_ACCESS_TOKEN"); v && !v->empty()) config.channels.matrix.access_token = *v;
  if (config.channels.matrix.enabled && config.channels.matrix.homeserver_url.empty())
    throw ConfigError(
        "[channels.matrix] needs homeserver_url: the bot account's homeserver, e.g. "
        "https://matrix.example.org");
  if (config.channels.matrix.enabled && config.channels.matrix.access_token.empty())
    throw ConfigError(
        "[channels.matrix] needs the bot account's access token (from a /login, see "
        "docs/channels/matrix.md): "
        "set access_token or SIGIL_MATRIX_ACCESS_TOKEN");
  if (config.channels.signal.enabled && config.channels.signal.account.empty())
    throw ConfigError(
        "[channels.signal] needs account: the bot's number in E.164 (the -a ACCOUNT signal-cli's daemon runs "
        "with)");
  // [channels.whatsapp]: its secrets from the environment, and all three needed.
  WhatsAppConfig& wa = config.channels.whatsapp;
  if (auto v = env("SIGIL_WHATSAPP_ACCESS_TOKEN"); v && !v->empty()) wa.access_token = *v;
  if (auto v = env("SIGIL_WHATSAPP_APP_SECRET"); v && !v->empty()) wa.app_secret = *v;
  if (auto v = env("SIGIL_WHATSAPP_VERIFY_TOKEN"); v && !v->empty()) wa.verify_token = *v;
  if (wa.enabled && (wa.phone_number_id.empty() || wa.access_token.empty() || wa.app_secret.empty() ||
                     wa.verify_token.empty()))
    throw ConfigError(
        "[channels.whatsapp] needs phone_number_id, access_token (or SIGIL_WHATSAPP_ACCESS_TOKEN), "
        "app_secret "
        "(or SIGIL_WHATSAPP_APP_SECRET, which signs Meta's webhook posts) and verify_token (or "
        "SIGIL_WHATSAPP_VERIFY_TOKEN)");
  if (auto v = env("SIGIL_MODEL_URL")) config.model.url = *v;
  if (auto v = env("SIGIL_MODEL_KEY")) config.model.key = *v;
  if (auto v = env("SIGIL_MODEL")) config.model.name = *v;
  if (auto v = env("SIGIL_API_TOKEN")) config.server.api_token = *v;
  if (!flags.listen.empty()) parse_listen(flags.listen, config.server.host, config.server.port, "--listen");
  if (!flags.data.empty()) config.store.data = flags.data;
  if (!flags.log_level.empty()) {
    if (!log::level_from_string(flags.log_level))
      throw ConfigError("--log-level: must be debug, info, warn, error or off, not \"" + flags.log_level +
                        "\"");
    config.server.log_level = flags.log_level;
  }
  // The server refuses this too; saying it here names the setting to change.
  const std::string& host = config.server.host;
  const bool loopback = host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
  if (!loopback && config.server.api_token.empty())
    throw ConfigError("listen address " + host +
                      " is reachable from other machines: set [server] api_token "
                      "(or SIGIL_API_TOKEN), or listen on 127.0.0.1");
}

}  // namespace

bool valid_telegram_webhook_secret(std::string_view secret) {
  if (secret.empty() || secret.size() > 256) return false;
  for (const char c : secret)
    if (!text::ascii::is_alnum(c) && c != '_' && c != '-') return false;
  return true;
}

bool valid_telegram_token(std::string_view token) {
  const auto colon = token.find(':');
  if (colon == 0 || colon == std::string_view::npos || colon + 1 == token.size() || token.size() > 256)
    return false;
  for (std::size_t i = 0; i < token.size(); ++i) {
    const char c = token[i];
    if (i < colon ? (c >= '0' && c <= '9')
                  : (i == colon || std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      continue;
    return false;
  }
  return true;
}

EnvLookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

void parse_listen(std::string_view text, std::string& host, unsigned short& port, std::string_view what) {
  const auto bad = [&](const std::string& why) {
    // `what` is empty when the caller names the setting itself ("[server] listen: bad address ...").
    throw ConfigError((what.empty() ? std::string() : std::string(what) + ": ") + "bad address " + "\"" +
                      std::string(text) + "\"" + ": " + why +
                      " (expected HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080)");
  };
  std::string_view h, p;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      bad("an IPv6 host needs [ ] and a port after them");
    h = text.substr(1, close - 1);
    p = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) bad("no port");
    h = text.substr(0, colon);
    p = text.substr(colon + 1);
    if (h.find(':') != std::string_view::npos) bad("write an IPv6 host in [ ]");
  }
  if (h.empty()) bad("no host");
  if (h.find_first_of(" \t/") != std::string_view::npos) bad("the host has a space or a slash");
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string_view::npos)
    bad("the port is not a number");
  const unsigned long n = std::stoul(std::string(p));
  if (n > 65535) bad("the port is above 65535");
  host = std::string(h);
  port = static_cast<unsigned short>(n);
}

Config load_config_text(std::string_view text, const std::string& name, const ConfigFlags& flags,
                        const EnvLookup& env) {
  Config config;
  config.file = name;
  read_config_toml(text, name, config);
  apply_env_and_flags(config, flags, env);
  return config;
}

Config load_config(const ConfigFlags& flags, const EnvLookup& env) {
  std::string file = flags.config_file;
  if (file.empty()) {
    std::error_code ec;
    if (fs::is_regular_file("sigil.toml", ec)) file = "sigil.toml";
  }
  if (file.empty()) {
    Config config;
    apply_env_and_flags(config, flags, env);
    return config;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(file + ": cannot read the configuration file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return load_config_text(buffer.str(), file, flags, env);
}

std::string Config::describe() const {
  std::ostringstream out;
  const auto secret = [](const std::string& s) { return s.empty() ? "(not set)" : "(set)"; };
  out << "config file: " << (file.empty() ? "(none: defaults)" : file) << '\n';
  out << "server: listen " << server.host << ':' << server.port << ", api_token " << secret(server.api_token)
      << ", threads " << server.threads << ", max_body " << server.max_body << ", messages_per_minute "
      << server.messages_per_minute << ", message_burst " << server.message_burst << '\n';
  out << "store: data " << store.data << ", max_messages_per_conversation "
      << store.max_messages_per_conversation << '\n';
  out << "model: url " << (model.url.empty() ? "(none)" : model.url) << ", key " << secret(model.key)
      << ", name " << (model.name.empty() ? "(default)" : model.name) << ", replay "
      << (model.replay.empty() ? "(embedded demo)" : model.replay) << ", vision "
      << (model.vision ? "on" : "off") << '\n';
  out << "images: model " << (images.model.empty() ? "(none)" : images.model) << ", url "
      << (images.url.empty() ? "(the model's)" : images.url) << ", key " << secret(images.key) << ", size "
      << images.size << '\n';
  out << "agent: say_mode " << (agent.say_mode ? "true" : "false") << ", max_model_calls "
      << agent.max_model_calls << ", history_messages " << agent.history_messages << ", denied_actions "
      << agent.denied_actions.size() << ", results_message_bytes " << agent.results_message_bytes << '\n';
  out << "actions: file_roots "
      << (actions.file_roots.empty() ? "(DATA/files)" : std::to_string(actions.file_roots.size()))
      << ", voice " << (actions.voice ? "on" : "off") << ", voice_chars_per_turn "
      << actions.voice_chars_per_turn << ", voice_chars_per_minute " << actions.voice_chars_per_minute
      << ", message_targets " << actions.message_targets.size() << ", commands " << actions.commands.size()
      << ", schedule_utc_offset " << actions.schedule_utc_offset << '\n';
  out << "search: provider " << (search.provider.empty() ? "(none)" : search.provider) << ", api_key "
      << secret(search.api_key) << ", url " << (search.url.empty() ? "(default)" : search.url) << '\n';
  out << "fetch: " << (fetch.enabled ? "on" : "off") << ", allow_private " << fetch.allow_private.size()
      << ", max_bytes " << fetch.max_bytes << '\n';
  if (channels.telegram.enabled)
    out << "channels.telegram: token " << secret(channels.telegram.token) << ", api_url "
        << channels.telegram.api_url << ", mode " << channels.telegram.mode << ", allowed_users "
        << (channels.telegram.allowed_users.empty() ? std::string("(anyone)")
                                                    : std::to_string(channels.telegram.allowed_users.size()))
        << ", poll_timeout " << channels.telegram.poll_timeout_seconds
        << (channels.telegram.mode == "webhook"
                ? ", webhook_url " + channels.telegram.webhook_url + ", webhook_secret " +
                      secret(channels.telegram.webhook_secret)
                : std::string())
        << ", stream " << (channels.telegram.stream ? "on" : "off") << '\n';
  if (channels.discord.enabled)
    out << "channels.discord: token " << secret(channels.discord.token) << ", api_url "
        << channels.discord.api_url << ", allowed_users "
        << (channels.discord.allowed_users.empty() ? std::string("(anyone)")
                                                   : std::to_string(channels.discord.allowed_users.size()))
        << ", request_timeout " << channels.discord.request_timeout_seconds << '\n';
  if (channels.slack.enabled)
    out << "channels.slack: bot_token " << secret(channels.slack.bot_token) << ", app_token "
        << secret(channels.slack.app_token) << ", api_url " << channels.slack.api_url << ", allowed_users "
        << (channels.slack.allowed_users.empty() ? std::string("(anyone)")
                                                 : std::to_string(channels.slack.allowed_users.size()))
        << ", request_timeout " << channels.slack.request_timeout_seconds << '\n';
  if (channels.matrix.enabled)
    out << "channels.matrix: homeserver_url " << channels.matrix.homeserver_url << ", access_token "
        << secret(channels.matrix.access_token) << ", user_id "
        << (channels.matrix.user_id.empty() ? std::string("(the token's)") : channels.matrix.user_id)
        << ", allowed_users "
        << (channels.matrix.allowed_users.empty() ? std::string("(anyone)")
                                                  : std::to_string(channels.matrix.allowed_users.size()))
        << ", request_timeout " << channels.matrix.request_timeout_seconds << '\n';
  if (channels.signal.enabled)
    out << "channels.signal: rpc_url " << channels.signal.rpc_url << ", account " << channels.signal.account
        << ", allowed_users " << channels.signal.allowed_users.size() << ", allowed_groups "
        << channels.signal.allowed_groups.size() << ", request_timeout "
        << channels.signal.request_timeout_seconds << '\n';
  if (channels.whatsapp.enabled)
    out << "channels.whatsapp: phone_number_id " << channels.whatsapp.phone_number_id << ", access_token "
        << secret(channels.whatsapp.access_token) << ", app_secret " << secret(channels.whatsapp.app_secret)
        << ", verify_token " << secret(channels.whatsapp.verify_token) << ", api_url "
        << channels.whatsapp.api_url << ", webhook_path " << channels.whatsapp.webhook_path
        << ", allowed_users "
        << (channels.whatsapp.allowed_users.empty() ? std::string("(anyone)")
                                                    : std::to_string(channels.whatsapp.allowed_users.size()))
        << '\n';
  return out.str();
}

}  // namespace sigil::app
