// The gateway's configuration (docs/configuration.md): sigil.toml, the environment and command-line flags.
//
// What it promises:
// - Precedence, highest first: flags (--listen, --data) > environment (SIGIL_MODEL_URL, SIGIL_MODEL_KEY,
//   SIGIL_MODEL, SIGIL_API_TOKEN, SIGIL_TELEGRAM_TOKEN, SIGIL_SEARCH_KEY, SIGIL_IMAGES_KEY, …) > the file >
//   the defaults written below.
// - Strict: an unknown section or key, a value of the wrong type or out of range, or a bad listen address
//   is a ConfigError whose message names the file, the line and the key (`sigil.toml:3:1: [server]
//   unknown key "lisen"`). `sigil serve` prints it and exits 2.
// - Relative paths written in the file are relative to the file's folder (a config works from any working
//   directory); paths from flags and the defaults are relative to the working directory.
// - Secrets (model key, API token, Telegram token) are never printed: describe() says only whether they are
// set.
// - toml++ is used only in config.cpp: this header is plain std.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/actions/mcp_oauth.h"

namespace sigil::app {

struct ServerConfig {
  std::string host = "127.0.0.1";
  unsigned short port = 8080;  // 0: an ephemeral port (printed at start)
  std::string api_token;       // empty: no auth, and only loopback hosts may be bound
  std::size_t max_body = std::size_t{1} << 20;
  unsigned threads = 1;
  std::size_t max_connections = 4096;  // open HTTP and WebSocket connections; 0: unlimited
  double messages_per_minute = 30;     // per connection; 0: unlimited
  unsigned message_burst = 10;
  // The address published pages are linked with; empty: http://HOST:PORT (a relative /pages/... link when
  // the port is chosen at start).
  std::string public_url;
  // Browser pages of other origins that may use the API and WebSocket (docs/security.md).
  std::vector<std::string> allowed_origins;
  // Further names the gateway answers to in the Host header ("*": any; the default stops DNS rebinding).
  std::vector<std::string> allowed_hosts;
  // The log on standard error (sigil/log/log.h): "debug" | "info" | "warn" | "error" | "off", and
  // "text" | "json" (one object a line).
  std::string log_level = "info";
  std::string log_format = "text";
};

struct StoreConfig {
  std::string data = "data";  // folder: sigil.db, media/, files/
  // Messages kept per conversation; the oldest beyond it are deleted (store::sqlite::OpenOptions, the same
  // default). 0: all are kept.
  std::size_t max_messages_per_conversation = 10'000;
};

struct ModelConfig {
  std::string url;     // OpenAI-compatible base URL; empty: the replay model
  std::string key;     // never printed
  std::string name;    // model name sent with each request
  std::string replay;  // a replay JSONL file; empty (and no url): the embedded demo script
  double tokens_per_second = 50;
  int timeout_seconds = 60;  // first byte and longest silence inside a stream
  std::optional<int> max_tokens;
  std::optional<double> temperature;
  std::string tools = "auto";  // "auto" | "on" | "off": offer the actions as native tools (agent.h)
  // The archive's embeddings model on the same server ({url}/embeddings); "" = keyword search only.
  std::string embeddings_model = "text-embedding-3-small";
  // The chat model sees pictures (OpenAI vision content parts): viewImage is taught and runs. Off by
  // default: a model without vision refuses a request that carries a picture.
  bool vision = false;
};

struct AgentSettings {
  bool say_mode = false;
  int max_model_calls = 6;
  std::size_t history_messages = 20;
  std::vector<std::string> denied_actions;
  std::string system_prompt;                      // the intro before the action docs; empty: the built-in one
  std::size_t results_message_bytes = 16 * 1024;  // the results message sent back to the model
  bool memory = true;                             // the memory section in every model call
  std::size_t memory_bytes = 4096;                // its budget at tier 2 (agent/memory_context.h)
};

struct MessageTargetConfig {
  std::string channel, chat;
};

struct CommandConfigEntry {
  std::string name, program, description;
  std::vector<std::string> args;
  int timeout_seconds = 10;
};

struct ActionsConfig {
  // send-file's folders; empty: DATA/files (created with two sample files).
  std::vector<std::string> file_roots;
  bool allow_cleanup = false;
  bool voice = true;
  std::string voice_language = "en";          // espeak-ng voice
  std::size_t voice_chars_per_turn = 2000;    // voice-note characters per turn; 0: unlimited
  std::size_t voice_chars_per_minute = 6000;  // per user, over the last 60 s; 0: unlimited
  std::vector<std::string> react_allow;       // empty: any emoji
  std::vector<MessageTargetConfig> message_targets;
  std::string default_telegram_chat;
  std::vector<CommandConfigEntry> commands;
  std::string schedule_utc_offset = "UTC";  // the zone of times written without an offset
  std::chrono::minutes schedule_offset{0};  // parsed from schedule_utc_offset
  bool page_scripts = false;                // published pages may run scripts
};

// [channels.telegram] (docs/channels/telegram.md). The section being there turns the channel on.
struct TelegramConfig {
  bool enabled = false;
  std::string token;  // BotFather's token, never printed; SIGIL_TELEGRAM_TOKEN overrides the file
  std::string api_url = "https://api.telegram.org";
  // "polling" (getUpdates; no public address) or "webhook" (Telegram POSTs updates to webhook_url, which
  // the gateway's HTTP server answers at that URL's path).
  std::string mode = "polling";
  std::string webhook_url;   // the public https:// URL Telegram posts to (webhook mode)
  std::string webhook_path;  // the path the gateway serves it on: webhook_url's path
  std::string
      webhook_secret;  // X-Telegram-Bot-Api-Secret-Token, never printed; SIGIL_TELEGRAM_WEBHOOK_SECRET
  // Telegram user ids whose messages start turns; empty: anyone who finds the bot.
  std::vector<std::int64_t> allowed_users;
  int poll_timeout_seconds = 30;  // getUpdates long-poll time
  // Streaming a reply by editing its message while the model writes it (sendMessage, then
  // editMessageText); false: each message is sent when it is final.
  bool stream = true;
  int edit_interval_ms = 1000;  // least time between two edits of one message (Telegram: ~1 per second)
  // Files users send (photo, document, voice, audio, video) are downloaded up to this size (Bot API: 20 MB).
  std::uint64_t max_download_bytes = 20ull << 20;
};

// [search] and [fetch]: the network actions (docs/actions/search.md, docs/actions/fetch-page.md).
struct SearchSettings {
  std::string provider;  // "brave" | "tavily" | "searxng"; "": no web search (not taught)
  std::string api_key;   // never printed; SIGIL_SEARCH_KEY overrides the file
  std::string url;       // the provider's base URL (SearXNG's instance; an override for the others)
};

// [images]: createAIImage's provider (docs/actions/createAIImage.md), an OpenAI-compatible images endpoint
// ({url}/images/generations). `[model] image_model` and `image_size` are short for `model` and `size` here
// (the same server as the chat model); one place may set each, not both.
struct ImagesSettings {
  std::string url;                 // base URL; "": the model server's ([model] url, with its key)
  std::string key;                 // never printed; SIGIL_IMAGES_KEY overrides the file
  std::string model;               // e.g. "gpt-image-1"; "": no image generation (not taught)
  std::string size = "1024x1024";  // asked for when the directive names none
};

struct FetchSettings {
  bool enabled = true;
  std::vector<std::string> allow_private;  // host names, addresses or CIDR ranges let past the SSRF guard
  std::size_t max_bytes = 2 * 1024 * 1024;
};

// [channels.discord] (docs/channels/discord.md). The section being there turns the channel on.
struct DiscordConfig {
  bool enabled = false;
  std::string token;  // the bot's token, never printed; SIGIL_DISCORD_TOKEN overrides the file
  std::string api_url = "https://discord.com/api/v10";  // the gateway URL comes from GET /gateway/bot
  std::vector<std::string> allowed_users;               // user ids (snowflakes); empty: anyone
  int request_timeout_seconds = 30;                     // one REST call's answer
  // Files users attach are downloaded up to this size each (Discord's own upload limit starts at 10 MB).
  std::uint64_t max_download_bytes = 25ull << 20;
};

// [channels.slack] (docs/channels/slack.md). The section being there turns the channel on.
struct SlackConfig {
  bool enabled = false;
  std::string bot_token;  // xoxb-…, never printed; SIGIL_SLACK_BOT_TOKEN overrides the file
  std::string app_token;  // xapp-… (Socket Mode), never printed; SIGIL_SLACK_APP_TOKEN overrides the file
  std::string api_url = "https://slack.com/api";  // the Socket Mode URL comes from apps.connections.open
  std::vector<std::string> allowed_users;         // member ids (U…/W…); empty: anyone in the workspace
  int request_timeout_seconds = 30;               // one Web API call's answer
  // Files users share are downloaded up to this size each.
  std::uint64_t max_download_bytes = 25ull << 20;
};

// [channels.matrix] (docs/channels/matrix.md). The section being there turns the channel on.
struct MatrixConfig {
  bool enabled = false;
  std::string homeserver_url;  // "https://matrix.example.org" (the client-server API's base)
  std::string access_token;  // the bot account's, never printed; SIGIL_MATRIX_ACCESS_TOKEN overrides the file
  std::string user_id;       // "@sigil:example.org": checked against whoami ("": whoever the token is)
  std::vector<std::string> allowed_users;          // Matrix user ids (@name:server); empty: anyone
  int request_timeout_seconds = 30;                // one API call's answer (a /sync long poll waits longer)
  std::uint64_t max_download_bytes = 25ull << 20;  // files users send, each
};

// [mcp.servers.NAME] (docs/actions/mcp.md): one MCP server, run as a child (`command`) or reached over
// Streamable HTTP (`url`); exactly one of the two.
struct McpServerConfig {
  std::string name;
  std::vector<std::string> command;
  std::string url;
  std::vector<std::pair<std::string, std::string>> env, headers;
  int timeout_seconds = 30;
  // How a server's elicitation/create is answered: "decline", "cancel" or "defaults" (mcp_elicitation.h).
  std::string elicitation = "decline";
  // oauth = { client_id, client_secret | client_secret_env | private_key_file, scope, grant, allow_private }
  // (mcp_oauth.h): a `url` server's refusal (401) is answered with an OAuth flow. The secret is never
  // printed. The client's own settings are the McpOAuthConfig it is given (the file sets client_id,
  // client_secret, signing_algorithm, scope, grant and allow_private); besides them, where a secret or a
  // key comes from.
  struct OAuth : actions::McpOAuthConfig {
    bool enabled = false;
    std::string client_secret_env;  // the environment variable the secret is read from
    std::string private_key_file;   // PEM: private_key_jwt instead of a secret (read when the server starts)
  } oauth;
};

// [channels.signal] (docs/channels/signal.md): signal-cli's HTTP daemon for the bot's number.
struct SignalConfig {
  bool enabled = false;
  std::string rpc_url = "http://127.0.0.1:8080";  // `signal-cli -a ACCOUNT daemon --http 127.0.0.1:8080`
  std::string account;                            // the bot's number, E.164 ("+15551234567")
  std::vector<std::string> allowed_users;   // numbers (E.164) or ACIs whose direct messages are answered
  std::vector<std::string> allowed_groups;  // group ids (base64) where a mention of the bot is answered
  int request_timeout_seconds = 60;         // one JSON-RPC call's answer (a send waits on Signal)
  int silence_seconds = 40;  // a receive stream with no event or keep-alive this long is opened again
  std::uint64_t max_download_bytes = 25ull << 20;
};

// [channels.whatsapp] (docs/channels/whatsapp.md): the WhatsApp Business Cloud API. The section being there
// turns the channel on; Meta posts messages to webhook_path on the gateway's HTTP server (sigil serve).
struct WhatsAppConfig {
  bool enabled = false;
  std::string api_url = "https://graph.facebook.com/v23.0";
  std::string phone_number_id;  // the business number's id (WhatsApp > API Setup)
  std::string access_token;     // never printed; SIGIL_WHATSAPP_ACCESS_TOKEN overrides the file
  std::string app_secret;       // X-Hub-Signature-256's key, never printed; SIGIL_WHATSAPP_APP_SECRET
  std::string verify_token;     // the webhook's verify token, never printed; SIGIL_WHATSAPP_VERIFY_TOKEN
  std::string webhook_path = "/whatsapp/webhook";
  std::vector<std::string> allowed_users;  // phone numbers or wa_ids; empty: anyone who writes
  int request_timeout_seconds = 30;
  std::uint64_t max_download_bytes = 25ull << 20;  // each file a user sends
};

struct ChannelsConfig {
  TelegramConfig telegram;
  DiscordConfig discord;
  SlackConfig slack;
  MatrixConfig matrix;
  SignalConfig signal;
  WhatsAppConfig whatsapp;
};

struct Config {
  ServerConfig server;
  StoreConfig store;
  ModelConfig model;
  AgentSettings agent;
  ActionsConfig actions;
  SearchSettings search;
  FetchSettings fetch;
  ImagesSettings images;
  ChannelsConfig channels;
  std::vector<McpServerConfig> mcp_servers;
  std::string file;  // the file read ("" : none)

  // Several lines "key = value" for logs; secrets only as "(set)" / "(not set)".
  std::string describe() const;
};

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Flags given on the command line (empty: not given).
struct ConfigFlags {
  std::string config_file;  // --config
  std::string listen;       // --listen HOST:PORT
  std::string data;         // --data DIR
  std::string log_level;    // --log-level LEVEL
};

// Looks an environment variable up (nullopt: not set). Tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
EnvLookup process_environment();

// Defaults, then `flags.config_file` (or ./sigil.toml when it exists and no file was named), then the
// environment, then the flags. Throws ConfigError.
Config load_config(const ConfigFlags& flags, const EnvLookup& env = process_environment());

// The same from TOML text (`name` is used in messages and to resolve relative paths). Throws ConfigError.
Config load_config_text(std::string_view toml, const std::string& name, const ConfigFlags& flags,
                        const EnvLookup& env);

// A Telegram bot token's shape: digits, ':', then [A-Za-z0-9_-]+ (it goes into the request path).
bool valid_telegram_token(std::string_view token);
// A webhook secret_token's shape (Bot API setWebhook): 1-256 of A-Z, a-z, 0-9, '_' and '-'.
bool valid_telegram_webhook_secret(std::string_view secret);

// "HOST:PORT" (IPv6 as "[::1]:8080") into host and port. Throws ConfigError naming `what`.
void parse_listen(std::string_view text, std::string& host, unsigned short& port, std::string_view what);

}  // namespace sigil::app
