// The turn loop (architecture: agent/): history, the system prompt with the action docs, model call ->
// parse -> execute -> deliver, again while results must go back to the model, up to a cap (spec 12.5).
//
// What it promises:
// - One Agent per process serves many conversations at once; every public method is thread-safe.
//   No thread per turn: the model client's callbacks drive a turn. The client's thread feeds a piece of
//   text to the call's parser and executor itself when no feed of that call is under way; otherwise it only
//   queues it, and one of `stream_threads` agent threads feeds everything queued for the call in one go (a
//   burst: the tokens that arrived while the last one was parsed). So the model's thread never waits for
//   a feed, and a backlog costs one pass, not one per token. Handlers run on
//   one HandlerPool for the whole agent (ExecOptions::pool), never on the streaming threads when they wait
//   for the disk; the end of each model call (executor.finish(), which waits for
//   handlers, the history writes and the next call's start) runs on one of `finish_threads` agent
//   threads, so a slow handler (a voice note) never stalls other conversations' streams.
// - A turn: the user's message is appended to the history; each model call sends the system message
//   (intro + prompt_section) and the last `history_messages` stored messages; the reply streams into a
//   fresh Parser whose sink is a fresh Executor; the observer gets clean text as the parser releases it
//   and deliveries in reply order. After the reply the assistant's clean text is appended to the history.
//   When the executor (or a native tool call) has results for the model, they are appended to the history
//   as a "user" message and the model is called again, at most max_model_calls times per turn; past that
//   the turn ends with a `loop-limit` diagnostic.
// - Exactly once across the calls of one turn: call 1 runs as turn id T, call n > 1 as "T#n", so
//   directives of different calls never share an exactly-once key, and a replayed turn (same T) reuses
//   its stored results.
// - Native tool calls run the same handlers through the same Executor (same exactly-once path): the
//   arguments are validated by the registry like a JSON body of the action's tag. An unknown or denied
//   tool name, or an action without a tag spelling, is reported to the model as an error line.
//   Tool results go back as lines of the same "user" results message, not as role "tool" messages.
//   Tool calls count against the reply's per-reply directive limit (ParserOptions::max_directives, 32,
//   shared with its inline directives, 12.5): past it a tool call is refused unrun, "<action>: over the
//   per-reply limit" (diagnostic over-limit), like an inline directive past it.
// - Pictures for the model: a result holding actions::kModelImageKey (viewImage: a data: URL) has it moved
//   out of the turn report and into the results message, sent as OpenAI vision content parts (text first,
//   then an image_url part per picture) in every later call of the turn. The store keeps the text only, so
//   a later turn's history does not send the picture again.
// - The results message is bounded to AgentConfig::exec.max_results_bytes (16 KiB): the lines that fit,
//   then one saying how many were left out (exec/results_message.h).
// - finish_reason length (and content_filter) finish the parser with FinishReason::Length: a directive
//   left unclosed is not run (spec 11.6). A model error or cancellation also finishes the parser with
//   Length (what was delivered stays), ends the turn with the error in the summary, and is not retried.
// - on_turn_end is called exactly once per started turn, last.
// - Say mode (spec 6) is chosen per turn: TurnInput::say_mode, else the conversation's stored setting, else
//   AgentConfig::say_mode. It decides the system message, the parser's and the executor's say mode; each
//   say block reaches the observer as its own message (on_message_end) and files go after the last one.
//   The stored reply is what the user was shown (the say blocks); text outside them is not stored.
// - Turns of one (user, conversation) run one at a time, in arrival order; others run concurrently.
//   Stateless turns (TurnInput::messages) share no history and never wait.
// - The destructor cancels open model calls (and waiting turns) and waits until every turn has ended.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "sigil/agent/memory_context.h"
#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/exec/handler.h"
#include "sigil/exec/handler_pool.h"
#include "sigil/exec/turn_report.h"
#include "sigil/model/client.h"
#include "sigil/store/store.h"

namespace sigil::parse {
class CompiledGrammar;
}  // namespace sigil::parse

namespace sigil::agent {

// Whether each model request offers the actions as native tools (the markup works either way).
enum class ToolsMode : std::uint8_t {
  automatic,  // offer them; when the server refuses them (model::refused_tools), run that call again
              // without and stop offering them for this agent's life
  on,         // always offer them: a server that refuses them fails the turn, saying so
  off,        // never offer them, and refuse a tool call as unknown
};

struct AgentConfig {
  std::string system_prompt_intro;
  int max_model_calls = 6;            // per inbound message (12.5)
  std::size_t history_messages = 20;  // stored messages sent with each call (the new one included)
  // Say mode (spec 6) for conversations that never chose (set_say_mode) and for stateless turns.
  bool say_mode = false;
  std::vector<std::string> denied_actions;  // canonical names: not taught, not parsed as valid, no tools
  // Canonical names the handlers cannot run here (actions::untaught_actions: no search provider, fetching
  // off): not taught and no tools, but still parsed, so one written anyway gets its handler's clear error.
  std::vector<std::string> untaught_actions;
  ToolsMode tools = ToolsMode::automatic;
  std::string model;  // empty: the client's default
  std::optional<int> max_tokens;
  std::optional<double> temperature;
  exec::ExecOptions exec;  // workers, clock, time-outs, services for the executors
  // What every call shows of the user's memory (memory_context.h), read in the memory actions' scope.
  MemoryContextConfig memory;
  store::MemoryScope memory_scope = store::MemoryScope::per_user;
  // Threads that end model calls (wait for the executor's handlers, store the reply, start the next call),
  // so a slow handler never stalls the model client's thread and the other streams on it.
  unsigned finish_threads = 2;
  // Threads that feed the model's text to the parsers and executors, in bursts (see above).
  unsigned stream_threads = 2;
  // Asked at the start of every model call: a registry to teach from now on (the prompt and the tool
  // schemas), when what it teaches changed since the last time it was asked (an MCP server announced new
  // tools); null when nothing changed. Its actions and spellings must be the agent's registry's: only what
  // it teaches of them may differ (RegistryOptions::mcp_tools). Empty: the agent's registry, for good.
  std::function<std::shared_ptr<const catalog::Registry>()> taught_registry;
};

struct TurnInput {
  std::string user;
  std::string conversation;
  std::string text;
  // Empty: generated. A caller's id may name a turn that ran before and was cut off (a channel resuming a
  // platform message after a crash): when the history already holds this user message (the same text) of
  // that turn, it is not stored a second time.
  std::string turn_id;
  // True when the caller made turn_id just now for this turn (a fresh random id, as the web chat's): no
  // earlier run can have stored under it, so the history is not searched for its message (one read of the
  // store fewer per turn).
  bool fresh_id = false;
  // The scheduled task this turn answers (fire_task); empty for a user's message. Stored with the message
  // (store::Message::task_id); the model reads it as "[scheduled task <id>] <text>".
  std::string task_id;
  // The chat platform's id of the user's message (Telegram's message_id, Discord's message id); empty on
  // the web chat. Stored with the message (store::Message::platform_id); the model reads
  // "[message <id>] <text>", and `<react message="<id>"/>` names it.
  std::string message_id;
  // A stateless turn (the OpenAI-compatible endpoint): when set, these messages (after the agent's system
  // message) are the conversation instead of the stored history; the turn reads and writes no history,
  // `text` is ignored, and it does not wait for other turns of its conversation. Replies and results of
  // its later model calls are appended to this list for the next call, in memory only.
  std::optional<std::vector<model::ChatMessage>> messages;
  // Per-turn overrides of AgentConfig::model, max_tokens and temperature (empty / unset: the config's).
  std::string model;
  std::optional<int> max_tokens;
  std::optional<double> temperature;
  // Say mode for this turn only; unset: the conversation's setting (set_say_mode), else AgentConfig's.
  std::optional<bool> say_mode;
};

enum class TurnStatus : unsigned char {
  Ok,          // the last reply needed no further model call
  LoopLimit,   // max_model_calls reached while results were still waiting for the model
  ModelError,  // the model call failed (or was cancelled); no retry
  StoreError,  // the history could not be read or written
};
std::string_view to_string(TurnStatus status);

struct ModelCallReport {
  int call = 0;              // 1-based
  std::string exec_turn_id;  // the turn id the executor used (T or T#n)
  model::FinishReason finish = model::FinishReason::stop;
  std::string error;                    // the model's error line, when finish == error
  exec::TurnReport report;              // deliveries and directive results of this reply
  std::string model_message;            // what went back to the model (empty: nothing)
  std::vector<std::string> tool_calls;  // native tool names called, in order
};

struct TurnSummary {
  std::string turn_id;
  bool say_mode = false;  // the turn ran in say mode (spec 6)
  std::vector<ModelCallReport> calls;
  TurnStatus status = TurnStatus::Ok;
  std::vector<std::string> diagnostics;  // one line each: "loop-limit: …", "model-error: …", "store: …"
};

// Receives a turn's output. Called from the model client's thread or the agent's finish threads; one call
// at a time per turn, in order.
class TurnObserver {
 public:
  virtual ~TurnObserver() = default;
  // Clean visible text, in order. A later model call's text starts with "\n\n" when an earlier call of
  // the turn showed text (a separate on_text piece), so the turn reads as paragraphs.
  virtual void on_text(std::string_view text) = 0;
  virtual void on_delivery(const exec::Delivery& delivery) = 0;  // files, voice, reactions, texts
  virtual void on_model_call(int /*n*/) {}                       // before call n (1-based) starts
  // The current call's reply is silent (spec 7.4). `late`: some of its text was already given to on_text;
  // a channel that can delete removes that text (the text of this call only), 12.7.
  virtual void on_silence(bool /*late*/) {}
  // Say mode: the text since the last on_message_end (or the call's start) is one whole message (a say
  // block, spec 6.1); the next block's text starts with a "\n\n" piece, so an observer that only joins
  // text reads paragraphs (a channel's outbox drops it: a message never starts with whitespace).
  virtual void on_message_end() {}
  virtual void on_turn_end(const TurnSummary& summary) = 0;
};

class Agent {
 public:
  // Everything passed in must outlive the Agent.
  Agent(const catalog::Registry& registry, const exec::HandlerTable& handlers, store::Store& store,
        model::ModelClient& client, AgentConfig config = {});
  // Cancels open model calls and waits for every turn's on_turn_end.
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Starts a turn and returns its id at once (the turn begins on a finish thread: its store writes never
  // block the caller). The observer may be null. Turns of one (user, conversation)
  // run one after another in arrival order; a later one waits (without a thread) until the earlier ends.
  std::string start_turn(TurnInput input, std::shared_ptr<TurnObserver> observer);

  // A due scheduled task as a turn: the user text is the task's message with its task id
  // (TurnInput::task_id), in the task's scope, with `turn_id` (Scheduler::turn_id). Returns true (the turn
  // was started): usable in a Scheduler::FireFn.
  bool fire_task(const store::ScheduledTask& task, const std::string& turn_id,
                 std::shared_ptr<TurnObserver> observer);

  // Cancels the open model call of a turn (it then ends with ModelError "cancelled"). False when unknown.
  bool cancel(const std::string& turn_id);

  // Blocks until no turn is running or waiting.
  void wait_idle();
  // Turns running or waiting.
  std::size_t active_turns() const;

  // The system message sent with every request (say mode teaches <say> and <file>), as taught now.
  std::string system_message(bool say_mode = false) const { return teaching_now()->system_message(say_mode); }
  // Teachings made so far: 1 at start, one more for each new registry from AgentConfig::taught_registry.
  std::uint64_t teachings() const;

  // A conversation's say mode (spec 6.1: a per-conversation setting), stored with its history, so it
  // survives restarts. say_mode() falls back to AgentConfig::say_mode when the conversation never chose.
  store::Result<bool> say_mode(const std::string& user, const std::string& conversation);
  store::Status set_say_mode(const std::string& user, const std::string& conversation, bool on);

 private:
  class Turn;
  friend class Turn;
  void turn_ended(std::uint64_t serial);
  // Runs `job` on a finish thread.
  void post_finish(std::function<void()> job);
  void finish_loop(const std::stop_token& stop);

  // What a model call is taught: the system messages and tool schemas of both say modes, made from one
  // registry. A call keeps the one it started with (its tool calls are named after its schemas).
  struct Teaching {
    std::shared_ptr<const catalog::Registry> owned;  // null: made from the agent's own registry
    const catalog::Registry* registry = nullptr;
    std::string plain_message, say_message;
    std::shared_ptr<const boost::json::array> plain_tools, say_tools;  // null: none offered
    const std::string& system_message(bool say) const { return say ? say_message : plain_message; }
    const std::shared_ptr<const boost::json::array>& tools(bool say) const {
      return say ? say_tools : plain_tools;
    }
  };
  std::shared_ptr<const Teaching> teach(std::shared_ptr<const catalog::Registry> owned) const;
  // The teaching for a call starting now: made again first when config_.taught_registry has a new registry.
  std::shared_ptr<const Teaching> teaching();
  // The current teaching, without asking for a new one.
  std::shared_ptr<const Teaching> teaching_now() const;

  const catalog::Registry& registry_;
  const exec::HandlerTable& handlers_;
  store::Store& store_;
  model::ModelClient& client_;
  AgentConfig config_;
  std::mutex refresh_mu_;  // held while config_.taught_registry is asked and its teaching made
  mutable std::mutex teaching_mu_;
  std::shared_ptr<const Teaching> teaching_;  // under teaching_mu_
  std::uint64_t teachings_ = 1;               // made so far (under teaching_mu_)
  // The registry's names indexed once for every call's parser (a new teaching changes what is taught, not
  // the actions and spellings the parser knows).
  std::shared_ptr<const parse::CompiledGrammar> grammar_;
  std::atomic<bool> tools_refused_{false};  // ToolsMode::automatic found the server refusing tools

  mutable std::mutex mu_;
  std::condition_variable idle_;
  std::uint64_t next_serial_ = 0;
  std::map<std::uint64_t, std::shared_ptr<Turn>> turns_;  // running and waiting, by serial: ids may repeat
  // One turn at a time per (user, conversation), so a conversation's history never interleaves; later
  // turns wait here in arrival order.
  std::map<std::pair<std::string, std::string>, std::deque<std::shared_ptr<Turn>>> waiting_;
  std::set<std::pair<std::string, std::string>> busy_;

  std::mutex finish_mu_;
  std::condition_variable_any finish_cv_;
  std::deque<std::function<void()>> finish_jobs_;
  std::vector<std::jthread> finish_threads_;  // joined after the streams, while everything above exists
  exec::HandlerPool stream_pool_;             // last: its queued feeds are dropped first
};

}  // namespace sigil::agent
