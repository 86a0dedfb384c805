// The gateway assembled from a Config: the data folder, the SQLite store, the registry, every built-in
// action, the model client, the agent, the durable scheduler and (optionally) the HTTP server.
// `sigil serve` runs one; other front ends (a console chat) can run one without the HTTP server.
//
// What it promises:
// - The constructor prepares everything and starts nothing: the data folder (DATA/sigil.db, DATA/media,
//   and DATA/files with two sample files when no file_roots are configured), locked for this process's
//   life (app/data_lock.h: a second gateway on it is a GatewayError naming the holder's pid), the store, the
//   handlers, the model (OpenAI-compatible client when a url is set, else the replay file, else the embedded
//   demo script examples/demo-replay.jsonl) and the agent. Failures are GatewayError with a one-line message
//   that never holds the model key.
// - With [channels.telegram], a TelegramService (app/telegram_service.h) answers Telegram chats, and
//   send-message / <sendTelegram> send through it to allow-listed chats (the [actions] message_targets,
//   the default Telegram chat and the private chats of allowed_users); without it they are an error.
// - start() binds the server (when there is one), starts the Telegram channel and the scheduler; a due task
// becomes a turn of its
//   (user, conversation), shown live to the web chat watching it; a newly scheduled task wakes the
//   scheduler at once.
// - stop(): Telegram polling stops, the scheduler stops (no new task turns), the server stops (its turns are
//   cancelled), turns still running (scheduled and Telegram ones) get `grace` to finish and are then
//   cancelled; idempotent; the destructor calls
//   it.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/chat_service.h"
#include "app/config.h"
#include "app/data_lock.h"
#include "app/mcp_servers.h"
#include "app/telegram_service.h"
#include "app/whatsapp_service.h"
#include "sigil/actions/scheduler.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/exec/handler.h"
#include "sigil/model/client.h"
#include "sigil/model/embeddings.h"
#include "sigil/server/http_server.h"
#include "sigil/store/store.h"

namespace sigil::app {

class GatewayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The configuration cannot work (an unknown action name, a model URL that is not one, a missing replay
// file, an allow-list entry that is not an emoji): `sigil serve` exits 2 as for a bad file.
class GatewayConfigError : public GatewayError {
 public:
  using GatewayError::GatewayError;
};

struct GatewayOptions {
  bool http_server = true;
  // The observer of a scheduled task's turn. Empty: the server's conversation_observer (or none without a
  // server).
  std::function<std::shared_ptr<agent::TurnObserver>(const store::ScheduledTask&)> task_observer;
};

class Gateway {
 public:
  // Throws GatewayError.
  explicit Gateway(const Config& config, GatewayOptions options = {});
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  // Starts the server (returns its port; 0 without a server) and the scheduler. Throws GatewayError.
  unsigned short start();
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(30));

  const std::string& model_description() const { return model_description_; }
  // The configured MCP servers that did not start ("NAME: why"); their tools are not taught.
  const std::vector<std::string>& mcp_errors() const { return mcp_errors_; }
  const std::vector<std::string>& mcp_servers() const { return registry_.options().mcp_servers; }
  bool replay_model() const { return replay_model_; }
  const std::filesystem::path& data_dir() const { return data_dir_; }
  agent::Agent& agent() { return *agent_; }
  store::Store& store() { return *store_; }
  server::HttpServer* http_server() { return server_.get(); }

 private:
  bool fire(const store::ScheduledTask& task, const std::string& turn_id);

  Config config_;
  GatewayOptions options_;
  std::filesystem::path data_dir_;
  std::string model_description_;
  bool replay_model_ = false;
  DataLock lock_;  // released last: nothing below may touch the folder after it
  // Declaration order is destruction order reversed: the scheduler and the server go first, then the
  // agent (which cancels what is left), then the model client, the handlers and the store they all use.
  std::unique_ptr<store::Store> store_;
  catalog::Registry registry_;
  std::vector<std::string> mcp_errors_;        // MCP servers that did not start: "NAME: why"
  std::shared_ptr<McpTeaching> mcp_teaching_;  // null without MCP servers
  exec::HandlerTable handlers_;
  std::unique_ptr<model::ModelClient> model_;
  std::shared_ptr<model::Embeddings> embeddings_;  // the archive's semantic half; null: keywords only
  std::unique_ptr<agent::Agent> agent_;
  std::unique_ptr<server::HttpServer> server_;
  std::unique_ptr<actions::Scheduler> scheduler_;
  std::filesystem::path files_root_;  // the first of the actions' file roots
  // The configured chat platforms ([channels.*]), in the order they start and are asked for a task's
  // observer.
  std::vector<std::unique_ptr<ChatService>> chats_;
  TelegramService* telegram_ = nullptr;  // the Telegram one in chats_ (its webhook); null when not configured
  WhatsAppService* whatsapp_ = nullptr;  // the WhatsApp one in chats_ (its webhook); null when not configured

  std::mutex mu_;
  actions::Scheduler* notify_target_ = nullptr;  // guarded by mu_: the scheduler while it may be woken
  std::set<std::string> task_turns_;             // turn ids of scheduled tasks started here
  bool stopped_ = false;
};

}  // namespace sigil::app
