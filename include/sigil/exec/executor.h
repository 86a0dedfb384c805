// Runs the directives of one reply as the parser finds them (spec 12). Create one Executor per turn.
//
//   Executor ex(registry, handlers, store, outbox, ids);
//   parse::ParserOptions po; po.inline_resolver = ex.inline_resolver();
//   parse::Parser parser(registry, ex.sink(), po);
//   parser.feed(...); parser.finish();
//   TurnReport report = ex.finish();
//   if (ex.needs_model_call()) send ex.model_message() to the model.
//
// Rules (decisions are marked DECIDED):
// - Text (not hidden) goes to the outbox in order. Say blocks are delivery, not run, and take no ordinal.
// - Invalid directives are not run: `refused` with the parser's error.
// - Exactly once (12.4): key = store::once_key(conversation, turn, ordinal, action, canonical_json(args)).
//   fresh -> run, then once_complete (failures too); completed -> `duplicate`, stored result reused, no
//   deliveries; running / in_doubt -> `refused` ("in doubt after a crash: not run again"). DECIDED: in-doubt
//   keys are never run again, not even for store-idempotent actions (an operator may delete the key's row
//   from the once_log table). A directive with no handler is an error and begins no key (a later handler may
//   run it).
// - Starting (12.4, group commit): the keys of the directives found since the last start are begun in one
//   store call (Store::once_begin_many: one transaction, one fsync), and each action starts only after
//   that call returned its key fresh. Directives start as they are found, or, with ExecOptions::bursts,
//   when the caller says a burst of text ended (end_burst()); always at the reply's end and before an
//   inline action is resolved. With a store whose exactly-once writes wait for the disk the begin runs on a
//   pool job, never on the thread that feeds the parser.
// - Handlers run as jobs on a HandlerPool (ExecOptions::pool, shared by the process; else one of this
//   executor's own), at most `workers` of this turn at once. A quick handler (HandlerTable::set_quick) runs
//   where its key was begun, without a hand-off or a time-out: on the dispatching thread for a store in
//   memory, else on the job that began it; the keys of the quick handlers run there are completed together.
//   Parallel actions run concurrently; SerialPerConversation actions run one at a time in reply order
//   (within this turn; DECIDED: a timed-out serial handler still blocks the next serial one until it really
//   returns, so they never overlap). A reply without directives costs no job.
// - Time-out (ActionSpec::timeout, overridden by ExecOptions::timeouts; counted from when the handler
//   starts): the result becomes `error` "timed out after N ms", the handler's stop_token is requested, the
//   key is completed with that error, and whatever the handler returns later is discarded.
// - ORDER (12.1): a directive whose action can show something in this chat "holds" text: text after it
//   waits until its handler finishes (or times out), then its deliveries go out, then the text. DECIDED rule:
//   an action holds when result_to is `user` or its ActionSpec says it `delivers` (react, send-file,
//   voice, send-message: send-message too, so its messages to another chat keep reply order). Other actions
//   never hold text; if their handler returns deliveries anyway they go out when it finishes, after the text
//   already sent. Errors never hold text beyond that.
// - Identical attachments (same op and non-empty sha256) go once per turn; later ones are noted
//   "duplicate-attachment: <path>" on their result.
// - result_to: model -> every result goes to the model; model_on_error, user and inline -> failures
//   (error, refused) go to the model, user results that are ok are also delivered as a Text delivery;
//   none -> nothing. A duplicate is reported with the stored status's rule.
#pragma once

#include <any>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "sigil/catalog/registry.h"
#include "sigil/exec/handler.h"
#include "sigil/exec/handler_pool.h"
#include "sigil/exec/outbox.h"
#include "sigil/exec/results_message.h"
#include "sigil/exec/turn_report.h"
#include "sigil/parse/events.h"
#include "sigil/store/store.h"

namespace sigil::exec {

struct ExecOptions {
  unsigned workers = 4;  // handlers of this turn running at once
  // The threads handlers run on, shared by every executor of the process (a gateway makes one). None:
  // the executor makes its own pool of `workers` threads (started when a directive needs one).
  std::shared_ptr<HandlerPool> pool;
  // The caller calls end_burst() after each piece it feeds the parser: the directives of a burst begin
  // their keys together then. Off: each starts as soon as the parser finds it.
  bool bursts = false;
  std::function<store::TimePoint()> now = [] { return store::Clock::now(); };
  // For actions the registry does not know (no ActionSpec).
  std::chrono::milliseconds default_timeout{30'000};
  // Per action (canonical name): overrides the ActionSpec's timeout.
  std::map<std::string, std::chrono::milliseconds, std::less<>> timeouts;
  // Handed to handlers as ActionContext::services().
  std::any services;
  // Say mode (spec 6): each say block ends with Outbox::end_message(), and file and voice deliveries are
  // held until the reply ends, so they go after its last say block (6.4). Match ParserOptions::say_mode.
  bool say_mode = false;
  // The results message for the model (model_message(); the agent's results message too) is cut to this
  // many bytes, at least kMinResultsBytes (docs/security.md, "Results to the model").
  std::size_t max_results_bytes = kDefaultResultsBytes;
  // The turn's cancellation: a stop request reaches the stop_token of every handler running then or later
  // (an MCP call tells its server, a command is killed), not only a time-out.
  std::stop_token cancel;
};

class Executor {
 public:
  Executor(const catalog::Registry& registry, const HandlerTable& handlers, store::Store& store,
           Outbox& outbox, TurnIds ids, ExecOptions options = {});
  // Requests the stop_tokens of running handlers and waits for them and for every job of this turn.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Give this to the parser. Its calls must come from one thread (the parser's).
  parse::EventSink& sink();
  // For ParserOptions::inline_resolver: runs an inline action's handler at once (with its time-out) and
  // returns its message when ok; nothing on failure (the parser then tidies the gap).
  std::function<std::optional<std::string>(const parse::DirectiveEvent&)> inline_resolver();

  // With ExecOptions::bursts: the text fed to the parser since the last call was one burst; the
  // directives found in it start now. From the parser's thread.
  void end_burst();

  // Waits for every handler's result (or time-out), sends what is left to the outbox, calls outbox.end()
  // and returns the report. Call once, after the parser's finish().
  TurnReport finish();

  // After finish(): the results for the model, in reply order, one line each:
  // "[<ordinal+1>] <action>: <status>: <message>"; empty when none goes to the model. Bounded to
  // ExecOptions::max_results_bytes by results_message() (results_message.h): the lines that fit, then one
  // saying how many were left out.
  std::string model_message() const;
  // The same lines, unbounded and without line breaks, for a caller that adds lines of its own (the
  // agent's native tool-call errors) before bounding the whole with results_message().
  std::vector<std::string> model_lines() const;
  bool needs_model_call() const;

 private:
  class Impl;
  std::shared_ptr<HandlerPool> pool_;  // before impl_: it outlives the turn's jobs
  std::shared_ptr<Impl> impl_;         // shared with the turn's jobs queued in the pool
};

}  // namespace sigil::exec
