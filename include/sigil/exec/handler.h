// What an action handler sees and returns (spec 12): the executor calls handlers; handlers never see the
// parser, the outbox or a channel.
#pragma once

#include <any>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sigil/store/store.h"

namespace sigil::exec {

struct TurnIds {
  std::string user, conversation, turn;
};

// One directive to run. `ordinal`: 0-based position among the reply's directives in reply order, say blocks
// excluded (it is part of the exactly-once key, 12.4).
struct Directive {
  int ordinal = 0;
  std::string action;
  boost::json::object args;
  std::uint64_t clean_offset = 0;
};

// The bytes of a file or voice delivery, opened once by its handler (spec 15: sent from the open file,
// never reopened by path). Channels read it with read_at(); whatever backs it (an open descriptor, a
// temporary voice note) lives as long as the last Delivery that holds it.
class Payload {
 public:
  virtual ~Payload();
  virtual std::uint64_t size() const = 0;
  // The name a channel shows ("report.pdf").
  virtual std::string name() const = 0;
  // "audio/ogg; codecs=opus", "application/pdf", ... (empty: let the channel guess from the name).
  virtual std::string mime_type() const = 0;
  // Up to out.size() bytes from offset into out; 0 at the end; -1 on a read error.
  virtual std::int64_t read_at(std::uint64_t offset, std::span<char> out) const = 0;
};

// Something the user sees; a channel renders it.
struct Delivery {
  // Message: a text to another chat (send-message), allow-listed by its handler before it gets here.
  enum class Op : unsigned char { Text, File, Voice, Reaction, Message } op = Op::Text;
  std::string text;                        // Text, Message
  std::string path;                        // File, Voice
  std::string kind;                        // File: image document audio voice video
  std::string caption;                     // File
  std::string sha256;                      // File, Voice: identical attachments in one turn go once (12.4)
  std::string emoji;                       // Reaction
  std::string message;                     // Reaction: the message reacted to (empty: the one being answered)
  std::string channel;                     // Message: target channel
  std::string chat;                        // Message: target chat on that channel
  std::shared_ptr<const Payload> payload;  // File, Voice: the bytes to send (path is for display and reports)
  std::uint64_t duration_ms = 0;           // Voice
};

// The op's name in every JSON that shows a delivery (turn reports, SSE, WebSocket, the OpenAI extension):
// "text", "file", "voice", "reaction", "message".
std::string_view to_string(Delivery::Op op);

struct HandlerResult {
  enum class Status : unsigned char { Ok, Error } status = Status::Ok;
  std::string message;  // one line for the model (and the user, for result_to user)
  boost::json::value result;
  std::vector<Delivery> deliveries;

  static HandlerResult ok(std::string message, boost::json::value result = nullptr) {
    return {Status::Ok, std::move(message), std::move(result), {}};
  }
  static HandlerResult error(std::string message) { return {Status::Error, std::move(message), nullptr, {}}; }
};

// What a handler may use while it runs. Handlers must honour stop_token(): after a time-out it is
// requested and whatever the handler returns is discarded.
class ActionContext {
 public:
  ActionContext(const TurnIds& ids, store::Store& store, std::stop_token stop,
                const std::function<store::TimePoint()>& now, const std::any& services)
      : ids_(ids), store_(store), stop_(std::move(stop)), now_(now), services_(services) {}

  const TurnIds& ids() const { return ids_; }
  store::TimePoint now() const { return now_(); }
  store::Store& store() const { return store_; }
  const std::stop_token& stop_token() const { return stop_; }
  bool stop_requested() const { return stop_.stop_requested(); }
  // The (user, conversation) scope, memory per user; handlers with another memory policy build their own.
  store::Scope scope() const { return {ids_.user, ids_.conversation, store::MemoryScope::per_user}; }
  // Services the application plugs in (file sandbox, voice, web clients...): any_cast to what you expect.
  const std::any& services() const { return services_; }

 private:
  const TurnIds& ids_;
  store::Store& store_;
  std::stop_token stop_;
  const std::function<store::TimePoint()>& now_;
  const std::any& services_;
};

class ActionHandler {
 public:
  virtual ~ActionHandler();
  // Called on a worker thread, possibly concurrently with other handlers (and with itself for different
  // directives of parallel actions). Exceptions are caught and become error results.
  virtual HandlerResult run(const Directive& directive, ActionContext& context) = 0;
};

// Adapts a lambda.
class FunctionHandler final : public ActionHandler {
 public:
  using Fn = std::function<HandlerResult(const Directive&, ActionContext&)>;
  explicit FunctionHandler(Fn fn) : fn_(std::move(fn)) {}
  HandlerResult run(const Directive& directive, ActionContext& context) override {
    return fn_(directive, context);
  }

 private:
  Fn fn_;
};

// Action name (canonical) -> handler. An action with no handler gets an error result "no handler for
// <action>", never a silent no-op.
class HandlerTable {
 public:
  void add(std::string action, std::shared_ptr<ActionHandler> handler);
  void add(std::string action, FunctionHandler::Fn fn);
  // nullptr when none.
  std::shared_ptr<ActionHandler> find(std::string_view action) const;
  bool empty() const { return handlers_.empty(); }

 private:
  std::unordered_map<std::string, std::shared_ptr<ActionHandler>> handlers_;
};

}  // namespace sigil::exec
