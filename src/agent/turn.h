// One turn of the agent (agent.h): a chain of model calls, each with its own Parser and Executor, and the
// history, memory and observer work around them. Private to the agent layer (agent.cpp starts and cancels
// turns; turn.cpp is the turn itself).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sigil/agent/agent.h"
#include "sigil/catalog/prompt_doc.h"
#include "sigil/exec/executor.h"
#include "sigil/parse/parser.h"

namespace sigil::agent {

// One turn: a chain of model calls, each with its own Parser and Executor. Its state is touched by one
// thread at a time (the caller of begin(), then the client's callbacks, one call after another); only the
// open call handle is shared with cancel(), under mu_.
class Agent::Turn : public std::enable_shared_from_this<Turn> {
 public:
  Turn(Agent& agent, std::uint64_t serial, TurnInput input, std::shared_ptr<TurnObserver> observer)
      : agent_(agent),
        serial_(serial),
        input_(std::move(input)),
        observer_(std::move(observer)),
        started_(std::chrono::steady_clock::now()) {
    summary_.turn_id = input_.turn_id;
  }

  const std::string& id() const { return input_.turn_id; }
  // The caller named the turn (a channel's id for a platform message): it may be the same turn again.
  void set_named(bool named) { named_ = named; }
  std::pair<std::string, std::string> key() const { return {input_.user, input_.conversation}; }
  bool stateless() const { return input_.messages.has_value(); }

  // Stores the user's message (unless the turn is stateless or ran before under its id) and starts the
  // first model call; the rest runs on the client's callbacks and the finish threads, to end().
  void begin();
  // Stops the open model call and the handlers running for it; the turn then ends as cancelled.
  void cancel();

 private:
  // The observer's side of the executor: clean text and deliveries go straight on; text is also kept
  // for the history.
  class ObserverOutbox final : public exec::Outbox {
   public:
    // `separator`: shown before this call's first text (a later call's reply is a new paragraph of what the
    // turn shows, not glued to the last word of the previous reply). It is not part of clean().
    ObserverOutbox(TurnObserver* observer, std::string separator)
        : observer_(observer), separator_(std::move(separator)) {}
    void text(std::string_view text) override {
      std::string_view joint;
      if (pending_joint_) joint = "\n\n";
      pending_joint_ = false;
      clean_.append(joint);
      clean_.append(text);
      if (observer_ == nullptr) return;
      if (!separator_.empty()) {
        observer_->on_text(separator_);
        separator_.clear();
      } else if (!joint.empty()) {
        observer_->on_text(joint);
      }
      observer_->on_text(text);
    }
    void deliver(const exec::Delivery& delivery) override {
      if (observer_ != nullptr) observer_->on_delivery(delivery);
    }
    void end() override {}  // one model call's output ends, not the turn's
    void silence(bool late) override {
      silent_ = true;
      if (observer_ != nullptr) observer_->on_silence(late);
    }
    void end_message() override {
      // The stored reply keeps the blocks apart as the parser's clean text does (6.1).
      if (!clean_.empty()) pending_joint_ = true;
      if (observer_ != nullptr) observer_->on_message_end();
    }
    const std::string& clean() const { return clean_; }
    // A silent reply showed nothing (or took back what it showed): it is not stored as said.
    bool silent() const { return silent_; }

   private:
    TurnObserver* observer_;
    std::string separator_;
    std::string clean_;
    bool pending_joint_ = false;
    bool silent_ = false;
  };

  class Sink final : public model::StreamSink {
   public:
    explicit Sink(std::shared_ptr<Turn> turn) : turn_(std::move(turn)) {}
    void on_text(std::string_view delta) override { turn_->on_text(delta); }
    void on_tool_call(const model::ToolCall& call) override {
      std::lock_guard feeding(turn_->feed_mu_);
      turn_->feed_queued();
      turn_->on_tool_call(call);
    }
    // The rest of the call ends on a finish thread: executor.finish() may wait for slow handlers.
    void on_done(const model::Outcome& outcome) override {
      turn_->agent_.post_finish([turn = turn_, outcome] { turn->on_done(outcome); });
    }

   private:
    std::shared_ptr<Turn> turn_;
  };

  // Members are destroyed bottom-up: the parser (which feeds the executor) before the executor, the
  // executor (which writes to the outbox) before the outbox.
  struct Call {
    ObserverOutbox outbox;
    std::unique_ptr<exec::Executor> executor;
    std::unique_ptr<parse::Parser> parser;
    std::vector<std::string> tool_errors;  // lines for the model about tool calls that could not run
    std::vector<std::string> tool_names;
    Call(TurnObserver* observer, std::string separator) : outbox(observer, std::move(separator)) {}
  };

  store::Scope scope() const { return {input_.user, input_.conversation, store::MemoryScope::per_user}; }

  // A model call: its request (system message with memory, history, tools) and its stream (turn.cpp).
  catalog::PromptOptions prompt_options() const;
  std::string system_message();
  void start_call();
  void on_text(std::string_view delta);
  void queue_text(std::string_view delta);
  void feed_queued();
  void on_tool_call(const model::ToolCall& tool);
  void on_done(const model::Outcome& outcome);
  bool retry_without_tools(const model::Outcome& outcome);

  // The history and the turn's end.
  bool stored_before();
  bool record(const std::string& role, const std::string& text, const char* what, bool first,
              std::vector<std::string> images = {});
  void end(TurnStatus status);
  void log_end() const;

  Agent& agent_;
  const std::uint64_t serial_;
  TurnInput input_;
  std::shared_ptr<TurnObserver> observer_;
  const std::chrono::steady_clock::time_point started_;
  TurnSummary summary_;
  int calls_ = 0;
  bool say_mode_ = false;
  bool say_mode_known_ = false;  // given (TurnInput::say_mode) or read: start_call reads it otherwise
  bool shown_text_ = false;      // an earlier call of this turn showed text
  std::map<std::int64_t, std::vector<std::string>> images_;  // stored message id -> pictures (record)
  bool tools_offered_ = false;  // the current call's request offered native tools
  // What the current call was taught (its system message and tools); its tool calls are named after it.
  std::shared_ptr<const Teaching> teaching_;
  std::string exec_turn_id_;
  bool named_ = false;
  std::unique_ptr<Call> call_state_;

  // Streaming: queue_mu_ guards the text the model sent that waits for a feed; feed_mu_ is held while a
  // call's parser and executor are used from a stream thread, a tool call or the call's end.
  std::mutex queue_mu_;
  std::string queued_;
  bool feed_posted_ = false;
  std::string feeding_;  // feed_mu_: the burst being fed (queued_'s other buffer)
  std::mutex feed_mu_;

  std::mutex mu_;
  std::shared_ptr<model::Call> call_;
  bool cancelled_ = false;
  std::stop_source stop_;  // requested by cancel(); every call's executor hands it to its handlers
};

}  // namespace sigil::agent
