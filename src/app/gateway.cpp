#include "app/gateway.h"

#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>

#include "action_names.h"
#include "app/discord_service.h"
#include "app/matrix_service.h"
#include "app/mcp_servers.h"
#include "app/provider_actions.h"
#include "app/signal_service.h"
#include "app/slack_service.h"
#include "sigil/actions/builtin_handlers.h"
#include "sigil/embed/files.h"
#include "sigil/model/openai.h"
#include "sigil/model/replay.h"
#include "sigil/store/sqlite.h"
#include "sigil/text/ascii.h"

namespace sigil::app {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kIntro =
    "You are a helpful assistant in a web chat run by sigil. Answer briefly and plainly. You can act as well "
    "as talk: the actions below react to messages, send files and voice notes, remember things, schedule "
    "messages for later and publish pages.";

// A 16x16 PNG (a yellow dot on purple), so the demo can send an image without any file of its own.
constexpr std::string_view kSamplePng(
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x10\x00\x00\x00\x10"
    "\x08\x02\x00\x00\x00\x90\x91\x68\x36\x00\x00\x01\x8b\x49\x44\x41\x54\x78\xda\x75\xd0\x21\xab\xaf"
    "\x30\x00\x86\xf1\xf3\xc5\x96\x96\x96\x96\x4c\x26\x93\x70\xc0\x32\x93\x2b\xc2\x60\xc5\xa5\x59\x06"
    "\x46\xa3\xd1\x68\x34\x3d\x18\x57\x0e\x2c\xee\x8b\xdc\x2b\xdc\x76\x39\x7f\x78\xe2\xfb\x2b\xef\xd7"
    "\xb7\xc0\x08\xac\xc0\x09\x16\xc1\x2a\xd8\x04\xbb\xe0\x10\x9c\x82\x4b\x70\x0b\x1e\x41\x16\x14\x41"
    "\x15\x7c\x7d\x4b\x8c\xc4\x4a\x9c\x64\x91\xac\x92\x4d\xb2\x4b\x0e\xc9\x29\xb9\x24\xb7\xe4\x91\x64"
    "\x49\x91\x54\xf9\x02\x85\x51\x58\x85\x53\x2c\x8a\x55\xb1\x29\x76\xc5\xa1\x38\x15\x97\xe2\x56\x3c"
    "\x8a\xac\x28\x8a\xaa\x5e\xa0\x31\x1a\xab\x71\x9a\x45\xb3\x6a\x36\xcd\xae\x39\x34\xa7\xe6\xd2\xdc"
    "\x9a\x47\x93\x35\x45\x53\xf5\x0b\x1a\x4c\x83\x6d\x70\x0d\x4b\xc3\x9f\x9f\xaf\xff\xba\x1b\x9e\x86"
    "\xdc\x50\x1a\x6a\xf3\x82\x16\xd3\x62\x5b\x5c\xfb\xcb\xfa\x5f\x4f\x4b\x6e\x29\x2d\xb5\x7d\x41\x87"
    "\xe9\xb0\x1d\xae\xfb\x0c\x3a\x72\x47\xe9\xa8\xdd\x0b\x7a\x4c\x8f\xed\x71\xfd\x67\xd0\x93\x7b\x4a"
    "\x4f\xed\x5f\x30\x60\x06\xec\x80\x1b\x3e\x83\x81\x3c\x50\x06\xea\xf0\x82\x11\x33\x62\x47\xdc\xf8"
    "\x19\x8c\xe4\x91\x32\x52\xc7\x17\x4c\x98\x09\x3b\xe1\xa6\xcf\x60\x22\x4f\x94\x89\x3a\xbd\x60\xc6"
    "\xcc\xd8\x19\x37\xb3\xcc\xbf\xdd\x3a\xf3\xcc\xe4\x99\x32\x53\xe7\x17\x78\x8c\xc7\x7a\x9c\x67\xf1"
    "\xac\x9e\xcd\xb3\x7b\x0e\xcf\xe9\xb9\x3c\xb7\xe7\xf1\x64\x4f\xf1\x54\xff\x82\x80\x09\xd8\x80\x0b"
    "\x2c\x81\x35\xb0\x05\xf6\xc0\x11\x38\x03\x57\xe0\x0e\x3c\x81\x1c\x28\x81\x1a\x5e\x10\x31\x11\x1b"
    "\x71\x91\x25\xb2\x46\xb6\xc8\x1e\x39\x22\x67\xe4\x8a\xdc\x91\x27\x92\x23\x25\x52\xe3\x0b\x12\x26"
    "\x61\x13\x2e\xb1\x24\xd6\xc4\x96\xd8\x13\x47\xe2\x4c\x5c\x89\x3b\xf1\x24\x72\xa2\x24\x6a\xe2\x2f"
    "\x54\xe5\xd7\x98\xcb\x78\xaf\x2c\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82",
    452);

constexpr std::string_view kSampleText =
    "Hello from sigil!\n\n"
    "This file was sent by a <file> directive in the assistant's reply. Files may only come from the\n"
    "folders listed in [actions] file_roots (here DATA/files); sigil opens each file once, beneath its\n"
    "folder, and sends the bytes it opened.\n";

// Writes `data` to `path` unless a file is there already (the operator may have replaced it).
void write_sample(const fs::path& path, std::string_view data) {
  std::error_code ec;
  if (fs::exists(path, ec)) return;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) throw GatewayError("cannot write " + path.string());
}

void make_folder(const fs::path& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw GatewayError("cannot create the folder " + path.string() + ": " + ec.message());
}

std::string url_host(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

std::unique_ptr<model::ModelClient> make_model(const ModelConfig& m, bool& replay) {
  try {
    if (!m.url.empty()) {
      replay = false;
      model::OpenAiConfig c;
      c.base_url = m.url;
      c.api_key = m.key;
      c.model = m.name;
      c.first_byte_timeout = std::chrono::seconds(m.timeout_seconds);
      c.idle_timeout = std::chrono::seconds(m.timeout_seconds);
      return model::make_openai_client(std::move(c));
    }
    replay = true;
    model::ReplayConfig c;
    c.tokens_per_second = m.tokens_per_second;
    c.jitter = 0.3;                      // a model's pace is uneven
    c.split = model::TokenSplit::words;  // and its tokens are words, not the tests' awkward cuts
    if (!m.replay.empty()) {
      c.path = m.replay;
    } else {
      const embed::File* demo = embed::find(embed::examples(), "demo-replay.jsonl");
      if (demo == nullptr) throw GatewayError("model: the embedded demo script is missing from this build");
      c.path = "built-in demo (examples/demo-replay.jsonl)";
      c.text = std::string(demo->data);
    }
    return model::make_replay_client(std::move(c));
  } catch (const GatewayError&) {
    throw;
  } catch (const std::exception& e) {
    // The client's messages never hold the key (model/openai.h promises it).
    const std::string what = e.what();
    throw GatewayConfigError(what.rfind("model", 0) == 0 ? what : "model: " + what);
  }
}

}  // namespace

Gateway::Gateway(const Config& config, GatewayOptions options)
    : config_(config), options_(std::move(options)), registry_(catalog::Registry::builtin()) {
  data_dir_ = fs::absolute(config_.store.data).lexically_normal();
  make_folder(data_dir_);
  try {
    lock_ = DataLock::acquire(data_dir_);
  } catch (const std::runtime_error& e) {
    throw GatewayError(e.what());
  }
  make_folder(data_dir_ / "media");

  // MCP servers first: the registry teaches the tools of those that connected.
  McpStartup mcp = start_mcp_servers(config_.mcp_servers);
  mcp_errors_ = mcp.errors;
  if (!mcp.names.empty()) {
    catalog::RegistryOptions registry_options;
    registry_options.mcp_servers = mcp.names;
    registry_options.mcp_tools = mcp.tools;
    mcp_teaching_ = std::make_shared<McpTeaching>(mcp, registry_options);
    registry_ = catalog::Registry::builtin(std::move(registry_options));
  }

  std::ostringstream names_error;
  if (!check_action_names(registry_, config_.agent.denied_actions, "[agent] denied_actions", names_error)) {
    std::string message = names_error.str();
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw GatewayConfigError(message);
  }

  store::sqlite::OpenOptions store_options;
  store_options.max_messages_per_conversation = config_.store.max_messages_per_conversation;
  auto opened = store::sqlite::open((data_dir_ / "sigil.db").string(), store_options);
  if (!opened)
    throw GatewayError("cannot open the store " + (data_dir_ / "sigil.db").string() + ": " + opened.error());
  store_ = std::move(*opened);

  actions::BuiltinConfig builtin;
  if (config_.actions.file_roots.empty()) {
    const fs::path files = data_dir_ / "files";
    make_folder(files);
    write_sample(files / "hello.txt", kSampleText);
    write_sample(files / "sigil.png", kSamplePng);
    builtin.file_roots = {files};
  } else {
    builtin.file_roots.assign(config_.actions.file_roots.begin(), config_.actions.file_roots.end());
  }
  files_root_ = builtin.file_roots.front();  // files users send on a chat platform are kept here
  builtin.allow_cleanup = config_.actions.allow_cleanup;
  builtin.voice_enabled = config_.actions.voice;
  builtin.voice.voice = config_.actions.voice_language;
  builtin.voice_budget = {config_.actions.voice_chars_per_turn, config_.actions.voice_chars_per_minute};
  builtin.react.allowed = config_.actions.react_allow;
  for (const MessageTargetConfig& t : config_.actions.message_targets)
    builtin.messages.allowed.push_back({t.channel, t.chat});
  builtin.messages.default_telegram_chat = config_.actions.default_telegram_chat;
  if (config_.channels.telegram.enabled) {
    // A user allowed to talk to the bot may be written to in their private chat (its id is theirs).
    for (const std::int64_t id : config_.channels.telegram.allowed_users)
      builtin.messages.allowed.push_back({"telegram", std::to_string(id)});
    if (!config_.actions.default_telegram_chat.empty())
      builtin.messages.allowed.push_back({"telegram", config_.actions.default_telegram_chat});
  }
  // Discord and Slack targets are channel ids: only those listed in [actions] message_targets are allowed.
  builtin.messages.send = [this](const actions::MessageTarget& target, std::string_view text) -> std::string {
    for (const auto& chat : chats_)
      if (text::ascii::iequals(target.channel, chat->name())) return chat->send_message(target.chat, text);
    constexpr std::string_view kKnown[] = {"telegram", "discord", "slack", "matrix", "signal", "whatsapp"};
    std::string section;
    for (const std::string_view known : kKnown)
      if (text::ascii::iequals(target.channel, known)) section = " ([channels." + std::string(known) + "])";
    return "no " + target.channel + " channel is configured" + section;
  };
  for (const CommandConfigEntry& c : config_.actions.commands) {
    actions::CommandSpec spec;
    spec.name = c.name;
    spec.program = c.program;
    spec.args = c.args;
    spec.description = c.description;
    spec.timeout = std::chrono::seconds(c.timeout_seconds);
    builtin.commands.commands.push_back(std::move(spec));
  }
  builtin.mcp = std::move(mcp.config);
  builtin.schedule.default_utc_offset = config_.actions.schedule_offset;
  builtin.schedule.on_scheduled = [this](store::TimePoint) {
    std::lock_guard lock(mu_);
    if (notify_target_ != nullptr) notify_target_->notify();
  };
  builtin.pages.allow_scripts = config_.actions.page_scripts;
  if (!config_.server.public_url.empty())
    builtin.pages.base_url = config_.server.public_url;
  else if (config_.server.port != 0)
    builtin.pages.base_url =
        "http://" + url_host(config_.server.host) + ":" + std::to_string(config_.server.port);
  else
    builtin.pages.base_url = "";  // the port is chosen at start: links are relative (/pages/...)
  if (!config_.model.url.empty() && !config_.model.embeddings_model.empty()) {
    model::EmbeddingsConfig e;
    e.base_url = config_.model.url;
    e.api_key = config_.model.key;
    e.model = config_.model.embeddings_model;
    try {
      embeddings_ = model::make_openai_embeddings(std::move(e));
    } catch (const std::invalid_argument& error) {
      throw GatewayConfigError(std::string("model: ") + error.what());  // a bad [model] url, said as such
    }
    actions::ArchiveConfig::Embeddings hook;
    hook.model = config_.model.embeddings_model;
    hook.embed = [e = embeddings_](const std::vector<std::string>& texts) { return e->embed(texts); };
    hook.available = [e = embeddings_] { return e->available(); };
    builtin.archive.embeddings = std::move(hook);
  }
  apply_provider_settings(config_, builtin);
  try {
    auto handlers = actions::builtin_handlers(builtin);
    if (!handlers) throw GatewayConfigError("actions: " + handlers.error().message);
    handlers_ = std::move(*handlers);
  } catch (const std::invalid_argument& e) {
    throw GatewayConfigError(std::string("actions: ") + e.what());
  }

  model_ = make_model(config_.model, replay_model_);
  model_description_ = model_->describe();

  agent::AgentConfig agent_config;
  agent_config.system_prompt_intro =
      config_.agent.system_prompt.empty() ? std::string(kIntro) : config_.agent.system_prompt;
  agent_config.max_model_calls = config_.agent.max_model_calls;
  agent_config.history_messages = config_.agent.history_messages;
  agent_config.say_mode = config_.agent.say_mode;
  agent_config.denied_actions = config_.agent.denied_actions;
  agent_config.untaught_actions = actions::untaught_actions(builtin);
  agent_config.exec.max_results_bytes = config_.agent.results_message_bytes;
  agent_config.memory.enabled = config_.agent.memory;
  agent_config.memory.budget_bytes = config_.agent.memory_bytes;
  agent_config.memory_scope = builtin.memory.scope;
  agent_config.model = config_.model.name;
  agent_config.max_tokens = config_.model.max_tokens;
  agent_config.temperature = config_.model.temperature;
  agent_config.tools = config_.model.tools == "on"    ? agent::ToolsMode::on
                       : config_.model.tools == "off" ? agent::ToolsMode::off
                                                      : agent::ToolsMode::automatic;
  if (mcp_teaching_)
    agent_config.taught_registry = [teaching = mcp_teaching_] { return teaching->changed(); };
  agent_ = std::make_unique<agent::Agent>(registry_, handlers_, *store_, *model_, agent_config);

  if (options_.http_server) {
    server::HttpServerOptions o;
    o.host = config_.server.host;
    o.port = config_.server.port;
    o.api_token = config_.server.api_token;
    o.max_body = config_.server.max_body;
    o.threads = config_.server.threads;
    o.max_connections = config_.server.max_connections;
    o.model_label = model_description_;
    o.replay_model = replay_model_;
    o.media_dir = (data_dir_ / "media").string();
    o.messages_per_minute = config_.server.messages_per_minute;
    o.message_burst = config_.server.message_burst;
    o.public_url = config_.server.public_url;
    o.allowed_origins = config_.server.allowed_origins;
    o.allowed_hosts = config_.server.allowed_hosts;
    o.extra_metrics = [this] {
      if (chats_.empty()) return std::string();
      std::string out = channel_metrics_header();
      for (const auto& chat : chats_) out += chat->metrics_text();
      return out;
    };
    if (config_.channels.telegram.enabled || config_.channels.discord.enabled ||
        config_.channels.slack.enabled || config_.channels.matrix.enabled ||
        config_.channels.signal.enabled || config_.channels.whatsapp.enabled) {
      o.health = [this] {
        // Read on an io thread while the gateway runs: every service exists before the server starts.
        std::string out = "{";
        for (const auto& chat : chats_)
          out += (out.size() > 1 ? ",\"" : "\"") + std::string(chat->name()) + "\":" + chat->health_json();
        return out + "}";
      };
    }
    if (config_.channels.telegram.enabled && config_.channels.telegram.mode == "webhook") {
      o.webhooks.push_back({config_.channels.telegram.webhook_path, "X-Telegram-Bot-Api-Secret-Token",
                            [this](std::string_view secret, std::string_view body) -> server::WebhookAnswer {
                              if (!telegram_) return {503, "not ready"};
                              const channels::telegram::WebhookReply r =
                                  telegram_->receive_webhook(secret, body);
                              return {r.status, r.body};
                            }});
    }
    if (config_.channels.whatsapp.enabled) {
      // Meta's posts, and its subscription check (a GET with hub.challenge).
      server::Webhook hook{
          config_.channels.whatsapp.webhook_path, "X-Hub-Signature-256",
          [this](std::string_view signature, std::string_view body) -> server::WebhookAnswer {
            if (!whatsapp_) return {503, "not ready"};
            const channels::whatsapp::WebhookReply r = whatsapp_->receive_webhook(signature, body);
            return {r.status, r.body};
          }};
      hook.on_get = [this](std::string_view query) -> server::WebhookAnswer {
        if (!whatsapp_) return {503, "not ready"};
        const channels::whatsapp::WebhookReply r = whatsapp_->verify_webhook(query);
        return {r.status, r.body};
      };
      o.webhooks.push_back(std::move(hook));
    }
    server_ = std::make_unique<server::HttpServer>(*agent_, *store_, o);
  } else if (config_.channels.whatsapp.enabled) {
    throw GatewayConfigError(
        "[channels.whatsapp] needs the gateway's HTTP server (sigil serve): Meta posts messages to its "
        "webhook_path");
  } else if (config_.channels.telegram.enabled && config_.channels.telegram.mode == "webhook") {
    throw GatewayConfigError(
        "[channels.telegram] mode \"webhook\" needs the gateway's HTTP server (sigil serve) to receive "
        "Telegram's updates; use mode \"polling\" here");
  }
  if (config_.channels.telegram.enabled) {
    auto telegram =
        std::make_unique<TelegramService>(config_.channels.telegram, *agent_, *store_, files_root_);
    telegram_ = telegram.get();
    chats_.push_back(std::move(telegram));
  }
  if (config_.channels.discord.enabled)
    chats_.push_back(std::make_unique<DiscordService>(config_.channels.discord, *agent_, *store_,
                                                      data_dir_ / "discord-session.json", files_root_));
  if (config_.channels.slack.enabled)
    chats_.push_back(std::make_unique<SlackService>(config_.channels.slack, *agent_, *store_, files_root_));
  if (config_.channels.matrix.enabled)
    chats_.push_back(std::make_unique<MatrixService>(config_.channels.matrix, *agent_, *store_,
                                                     data_dir_ / "matrix-sync.json", files_root_));
  if (config_.channels.signal.enabled)
    chats_.push_back(std::make_unique<SignalService>(config_.channels.signal, *agent_, *store_, files_root_));
  if (config_.channels.whatsapp.enabled) {
    auto whatsapp =
        std::make_unique<WhatsAppService>(config_.channels.whatsapp, *agent_, *store_, files_root_);
    whatsapp_ = whatsapp.get();
    chats_.push_back(std::move(whatsapp));
  }
  scheduler_ = std::make_unique<actions::Scheduler>(
      *store_,
      [this](const store::ScheduledTask& task, const std::string& turn_id) { return fire(task, turn_id); });
}

Gateway::~Gateway() { stop(); }

bool Gateway::fire(const store::ScheduledTask& task, const std::string& turn_id) {
  std::shared_ptr<agent::TurnObserver> observer;
  if (options_.task_observer) observer = options_.task_observer(task);
  for (const auto& chat : chats_)  // a task set from one of a platform's chats is delivered there
    if (!observer) observer = chat->task_observer(task, turn_id);
  if (!observer && server_)
    observer = server_->conversation_observer(task.scope.user_id, task.scope.conversation_id);
  {
    std::lock_guard lock(mu_);
    if (stopped_) return false;  // left pending: it fires after the next start
    task_turns_.insert(turn_id);
  }
  return agent_->fire_task(task, turn_id, std::move(observer));
}

unsigned short Gateway::start() {
  unsigned short port = 0;
  if (server_) {
    try {
      port = server_->start();
    } catch (const server::HttpServerError& e) {
      throw GatewayError(e.what());
    }
  }
  for (const auto& chat : chats_) chat->start();
  {
    std::lock_guard lock(mu_);
    notify_target_ = scheduler_.get();
  }
  scheduler_->start();
  return port;
}

void Gateway::stop(std::chrono::milliseconds grace) {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    notify_target_ = nullptr;
  }
  for (const auto& chat : chats_) chat->stop_receiving();
  if (scheduler_) scheduler_->stop();
  if (server_) server_->stop();
  if (!agent_) return;
  // Scheduled turns were not started by the server: let them end (their results land in the history),
  // then cancel what is still running after the grace period.
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (agent_->active_turns() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::set<std::string> turns;
  {
    std::lock_guard lock(mu_);
    turns = task_turns_;
  }
  for (const auto& chat : chats_)
    for (const std::string& id : chat->running_turns()) turns.insert(id);
  for (const std::string& id : turns) agent_->cancel(id);
  agent_->wait_idle();
}

}  // namespace sigil::app
