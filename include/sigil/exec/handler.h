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
#include <unordered_set>
#include <vector>

#include "sigil/deliver/delivery.h"
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

// The delivery vocabulary (Payload, Delivery, Outbox) is deliver/'s: the executor produces deliveries, the
// outbox and the channels consume them, and neither side needs the other.
using deliver::Delivery;
using deliver::Payload;
using deliver::to_string;

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
  // `(*object.*method)(directive, context)` handles `action`; the table shares the object (a family of
  // actions whose handlers share one configuration registers them all from one object).
  template <class T>
  void add(std::string action, std::shared_ptr<const T> object,
           HandlerResult (T::*method)(const Directive&, ActionContext&) const) {
    add(std::move(action), [object = std::move(object), method](const Directive& d, ActionContext& c) {
      return ((*object).*method)(d, c);
    });
  }
  // nullptr when none.
  std::shared_ptr<ActionHandler> find(std::string_view action) const;
  bool empty() const { return handlers_.empty(); }

  // Marks an action's handler quick: it only computes or touches the store, returns in microseconds and
  // never waits (no network, process, sleep or lock held by another handler). The executor may run a quick
  // handler on the thread that found its directive, or right after its key was begun, without a thread
  // hand-off and without a time-out. Marking an action that has no handler (yet) is allowed.
  void set_quick(std::string_view action);
  bool quick(std::string_view action) const;

 private:
  std::unordered_map<std::string, std::shared_ptr<ActionHandler>> handlers_;
  std::unordered_set<std::string> quick_;
};

}  // namespace sigil::exec
