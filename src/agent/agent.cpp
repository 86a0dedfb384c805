#include "sigil/agent/agent.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <stop_token>
#include <utility>

#include "sigil/actions/view_image.h"
#include "sigil/catalog/prompt_doc.h"
#include "sigil/catalog/tool_schema.h"
#include "sigil/exec/results_message.h"
#include "sigil/log/log.h"
#include "sigil/parse/parser.h"
#include "sigil/text/enum_names.h"
#include "sigil/text/random_id.h"

namespace sigil::agent {
namespace {

// The role a stored message has in a model request: the results message goes back as the user's (chat
// models take no other role for it), and so does any stray role, so that the provider never refuses the
// request.
std::string model_role(std::string_view stored) { return stored == "assistant" ? "assistant" : "user"; }

// What the model reads for a stored message, the one place its origin becomes text (the store and the
// pages keep it as data): a message a scheduled task started names the task, so the model knows nobody just
// typed it (Message::task_id); a user's message on a chat platform names its id there (Message::platform_id),
// so `<react message="…"/>` can point at it. The assistant's own messages are shown as written: a model
// that saw marks before its own replies would start writing them.
std::string model_text(const store::Message& m) {
  if (!m.task_id.empty()) return "[scheduled task " + m.task_id + "] " + m.text;
  if (!m.platform_id.empty() && m.role == "user") return "[message " + m.platform_id + "] " + m.text;
  return m.text;
}

// Pictures actions showed the model (viewImage's result key), moved out of the report: they go into the
// next request as content parts, and no turn report, page or log carries megabytes of base64. A replayed
// directive's stored result (Duplicate) shows the same picture again.
std::vector<std::string> take_model_images(exec::TurnReport& report) {
  std::vector<std::string> images;
  for (exec::ResultEntry& r : report.results) {
    if (r.status != exec::ResultStatus::Ok && r.status != exec::ResultStatus::Duplicate) continue;
    if (!r.result.is_object()) continue;
    boost::json::object& o = r.result.as_object();
    const auto it = o.find(actions::kModelImageKey);
    if (it == o.end() || !it->value().is_string()) continue;
    images.emplace_back(it->value().get_string());
    o.erase(it);
  }
  return images;
}

// 11.6: only a reply that ended on its own may run a directive left open at its end.
parse::FinishReason parser_finish(model::FinishReason reason) {
  switch (reason) {
    case model::FinishReason::stop:
    case model::FinishReason::tool_calls:
      return parse::FinishReason::Stop;
    default:
      return parse::FinishReason::Length;
  }
}

// The tag spelling a native tool call is validated as: one without presets first (a preset would fix
// arguments the tool schema does not show), else any tag spelling; -1 when the action has none.
int tool_spelling(const catalog::Registry& registry, const std::string& action) {
  int fallback = -1;
  for (int index : registry.spellings_of(action)) {
    const catalog::Spelling& s = registry.spelling_spec(index);
    if (s.dialect != catalog::Dialect::Tag) continue;
    if (s.presets.empty()) return index;
    if (fallback < 0) fallback = index;
  }
  return fallback;
}

// The mcp tool's arguments {server, tool, arguments} validated as the tag <mcp_SERVER_TOOL>{arguments}
// would be (5.6), so both ways reach the handler alike.
parse::Validated validate_mcp_call(const catalog::Registry& registry, const parse::Body& call) {
  if (call.kind != parse::Body::Kind::Json || !call.json.is_object())
    return registry.validate_mcp("", "", {}, call);  // the JSON error, as for a tag
  const boost::json::object& o = call.json.get_object();
  auto text = [&o](std::string_view key) {
    const auto* v = o.if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  parse::Body body;
  body.kind = parse::Body::Kind::Json;
  const auto* arguments = o.if_contains("arguments");
  body.json = arguments != nullptr && !arguments->is_null() ? *arguments : boost::json::object();
  return registry.validate_mcp(text("server"), text("tool"), {}, body);
}

}  // namespace

namespace {
constexpr text::EnumNames<TurnStatus::StoreError> kTurnStatusNames{
    {"ok", "loop-limit", "model-error", "store-error"}, "?"};
}  // namespace

std::string_view to_string(TurnStatus status) { return kTurnStatusNames.name(status); }

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

  void begin() {
    // Otherwise the conversation's setting, read with the first call's other reads (start_call).
    say_mode_known_ = input_.say_mode.has_value();
    say_mode_ = input_.say_mode.value_or(agent_.config_.say_mode);
    summary_.say_mode = say_mode_;
    // A stateless turn's user message is already the last of its messages. A turn run again under its id
    // (a channel resuming a message whose turn a crash cut off) finds its message stored already.
    if (!stateless() && !stored_before() && !record("user", input_.text, "the user message", true)) return;
    start_call();
  }

  void cancel() {
    stop_.request_stop();  // handlers running now (an MCP call) stop too, not only the model call
    std::shared_ptr<model::Call> call;
    {
      std::lock_guard lock(mu_);
      cancelled_ = true;
      call = call_;
    }
    if (call) call->cancel();
  }

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

  catalog::PromptOptions prompt_options() const {
    catalog::PromptOptions o;
    o.denied = agent_.config_.denied_actions;
    o.denied.insert(o.denied.end(), agent_.config_.untaught_actions.begin(),
                    agent_.config_.untaught_actions.end());
    o.say_mode = say_mode_;
    return o;
  }

  // The agent's system message for this say mode, with the user's memory after it (memory_context.h),
  // read afresh for every call: a fact remembered by the previous call of this turn is already there.
  std::string system_message() {
    std::string message = agent_.system_message(say_mode_);
    const AgentConfig& config = agent_.config_;
    if (!config.memory.enabled) return message;
    const store::Scope memory{input_.user, input_.conversation, config.memory_scope};
    const int tier = memory_tier(agent_.store_, scope(), config.memory);
    auto section = memory_section(agent_.store_, memory, tier, config.exec.now(), config.memory);
    if (!section) {
      summary_.diagnostics.push_back(section.error());  // the turn goes on without its memory
    } else if (!section->text.empty()) {
      if (!message.empty()) message += "\n\n";
      message += section->text;
    }
    return message;
  }

  void start_call() {
    bool cancelled = false;
    {
      std::lock_guard lock(mu_);
      cancelled = cancelled_;
    }
    if (cancelled) {
      summary_.diagnostics.push_back("model-error: cancelled");
      end(TurnStatus::ModelError);
      return;
    }
    ++calls_;
    const AgentConfig& config = agent_.config_;
    model::ChatRequest request;
    store::Result<std::vector<store::Message>> history = std::vector<store::Message>();
    std::string say_mode_error;
    {
      // The call's reads (the say mode in the first call, the memory tier, facts, items and the history) in
      // one snapshot of the store: one read transaction instead of five (SqliteStore: about a third of a
      // turn's fcntl calls). Nothing is written in between; the turn's own message was stored before
      // (record()). Stateless turns read the say mode too: it belongs to the conversation.
      store::ReadsTogether together(agent_.store_);
      if (!say_mode_known_) {
        auto chosen = agent_.say_mode(input_.user, input_.conversation);
        say_mode_known_ = chosen.ok();
        if (chosen) summary_.say_mode = say_mode_ = *chosen;
        if (!chosen) say_mode_error = chosen.error();
      }
      if (say_mode_known_) {
        request.messages.push_back({"system", system_message(), {}, {}, {}});
        if (!stateless()) history = agent_.store_.recent_messages(scope(), config.history_messages);
      }
    }
    if (!say_mode_known_) {
      summary_.diagnostics.push_back("store: cannot read the say mode: " + say_mode_error);
      end(TurnStatus::StoreError);
      return;
    }
    request.model = input_.model.empty() ? config.model : input_.model;
    request.max_tokens = input_.max_tokens ? input_.max_tokens : config.max_tokens;
    request.temperature = input_.temperature ? input_.temperature : config.temperature;
    if (!agent_.tools_refused_.load()) request.tools = say_mode_ ? agent_.say_tools_ : agent_.tools_;
    tools_offered_ = request.tools && !request.tools->empty();
    if (stateless()) {
      for (const model::ChatMessage& m : *input_.messages) request.messages.push_back(m);
    } else {
      if (!history) {
        summary_.diagnostics.push_back("store: cannot read the history: " + history.error());
        end(TurnStatus::StoreError);
        return;
      }
      for (const store::Message& m : *history) {
        model::ChatMessage message{model_role(m.role), model_text(m), {}, {}, {}};
        if (const auto it = images_.find(m.id); it != images_.end()) message.image_urls = it->second;
        request.messages.push_back(std::move(message));
      }
    }

    call_state_ = std::make_unique<Call>(observer_.get(), shown_text_ ? "\n\n" : "");
    exec::TurnIds ids{input_.user, input_.conversation,
                      calls_ == 1 ? input_.turn_id : input_.turn_id + "#" + std::to_string(calls_)};
    exec_turn_id_ = ids.turn;
    exec::ExecOptions exec_options = config.exec;
    exec_options.say_mode = say_mode_;
    exec_options.cancel = stop_.get_token();
    call_state_->executor = std::make_unique<exec::Executor>(
        agent_.registry_, agent_.handlers_, agent_.store_, call_state_->outbox, ids, std::move(exec_options));
    parse::ParserOptions po;
    po.say_mode = say_mode_;
    po.denied_actions = config.denied_actions;
    po.inline_resolver = call_state_->executor->inline_resolver();
    call_state_->parser =
        std::make_unique<parse::Parser>(*agent_.grammar_, call_state_->executor->sink(), po);

    if (observer_) observer_->on_model_call(calls_);
    auto handle = agent_.client_.start(std::move(request), std::make_shared<Sink>(shared_from_this()));
    std::shared_ptr<model::Call> cancel_now;
    {
      std::lock_guard lock(mu_);
      call_ = handle;
      if (cancelled_) cancel_now = handle;
    }
    if (cancel_now) cancel_now->cancel();
  }

  // The model client's thread. When no feed of this turn is under way, the text is fed here at once (no
  // hand-off: the common case costs no thread switch); otherwise it is queued and a stream thread feeds
  // it, with whatever else queued by then, as one burst, so the model's thread never waits for a feed.
  void on_text(std::string_view delta) {
    std::unique_lock feeding(feed_mu_, std::try_to_lock);
    if (!feeding.owns_lock()) return queue_text(delta);
    {
      std::lock_guard lock(queue_mu_);
      queued_.append(delta);  // behind any text still queued
    }
    feed_queued();
  }

  // Queues the text for a stream thread; one feed job at a time is queued per turn.
  void queue_text(std::string_view delta) {
    {
      std::lock_guard lock(queue_mu_);
      queued_.append(delta);
      if (feed_posted_) return;
      feed_posted_ = true;
    }
    agent_.stream_pool_.post([self = shared_from_this()] {
      std::lock_guard feeding(self->feed_mu_);
      self->feed_queued();
    });
  }

  // feed_mu_ held. Feeds the text queued so far to the parser as one burst. The two buffers trade places
  // and keep their capacity, so a token costs no allocation here.
  void feed_queued() {
    feeding_.clear();
    {
      std::lock_guard lock(queue_mu_);
      feeding_.swap(queued_);
      feed_posted_ = false;
    }
    if (feeding_.empty() || !call_state_) return;
    call_state_->parser->feed(feeding_);
    call_state_->executor->end_burst();
  }

  // A native tool call: validated like a JSON body of the action's tag and handed to the same executor,
  // so it gets an ordinal, an exactly-once key and the action's result_to rule like written markup.
  void on_tool_call(const model::ToolCall& tool) {
    if (!call_state_) return;
    const catalog::Registry& registry = agent_.registry_;
    call_state_->tool_names.push_back(tool.name);
    std::optional<std::string> action;
    if (agent_.config_.tools != ToolsMode::off)
      action = catalog::action_for_tool_name(registry, prompt_options(), tool.name);
    if (!action) {
      call_state_->tool_errors.push_back("tool " + tool.name +
                                         ": error: no such tool here; use one of the tools listed");
      return;
    }
    const bool mcp =
        registry.mcp_spelling() >= 0 && registry.action_of(registry.mcp_spelling()).name == *action;
    const int spelling = mcp ? registry.mcp_spelling() : tool_spelling(registry, *action);
    if (spelling < 0) {
      call_state_->tool_errors.push_back("tool " + tool.name + ": error: " + *action +
                                         " cannot be called as a tool; write its markup instead");
      return;
    }
    parse::DirectiveEvent event;
    event.action = *action;
    event.spelling = spelling;
    event.clean_offset = call_state_->outbox.clean().size();
    // 12.5: tool calls and the reply's inline directives share one per-reply count, so a reply cannot run
    // more actions by calling them as tools. Over it, refused as the parser refuses its own (same reason,
    // same diagnostic code), without even reading the arguments.
    if (!call_state_->parser->admit_directive()) {
      event.valid = false;
      event.error = *action + ": over the per-reply limit";
      call_state_->executor->sink().on_diagnostic(
          parse::Diagnostic{"over-limit", call_state_->parser->stats().bytes_in, event.error});
      call_state_->executor->sink().on_directive(event);
      return;
    }
    parse::Body body;
    boost::system::error_code ec;
    boost::json::value args =
        boost::json::parse(tool.arguments_json.empty() ? std::string_view("{}") : tool.arguments_json, ec);
    if (ec) {
      body.kind = parse::Body::Kind::JsonError;
      body.error = ec.message();
    } else {
      body.kind = parse::Body::Kind::Json;
      body.json = std::move(args);
    }
    // A server tool's own tool (mcp_SERVER_TOOL): its arguments are the tool's, as in the tag's body.
    if (mcp && !ec) {
      if (auto ref = catalog::mcp_tool_for_tool_name(registry, prompt_options(), tool.name))
        body.json =
            boost::json::object{{"server", ref->server}, {"tool", ref->tool}, {"arguments", body.json}};
    }
    parse::Validated validated =
        mcp ? validate_mcp_call(registry, body) : registry.validate_tag(spelling, {}, body);
    event.set_args(std::move(validated.args));
    event.valid = validated.valid;
    event.error = std::move(validated.error);
    call_state_->executor->sink().on_directive(event);
  }

  void on_done(const model::Outcome& outcome) {
    // The call's last text first; feed_mu_ stays held so that no feed job touches the call meanwhile.
    std::lock_guard feeding(feed_mu_);
    feed_queued();
    {
      std::lock_guard lock(mu_);
      call_.reset();
    }
    if (!call_state_) return;
    if (retry_without_tools(outcome)) return;
    call_state_->parser->finish(parser_finish(outcome.finish));
    ModelCallReport report;
    report.call = calls_;
    report.exec_turn_id = exec_turn_id_;
    report.finish = outcome.finish;
    report.error = outcome.error;
    report.report = call_state_->executor->finish();
    std::vector<std::string> images = take_model_images(report.report);
    report.tool_calls = std::move(call_state_->tool_names);
    // One message, bounded (docs/security.md, "Results to the model"), no trailing line break: it is
    // stored and matched as written.
    std::vector<std::string> lines = call_state_->executor->model_lines();
    for (std::string& line : call_state_->tool_errors) lines.push_back(std::move(line));
    std::string results = exec::results_message(lines, agent_.config_.exec.max_results_bytes);
    while (!results.empty() && (results.back() == '\n' || results.back() == '\r')) results.pop_back();
    const std::string clean = call_state_->outbox.silent() ? std::string() : call_state_->outbox.clean();
    shown_text_ = shown_text_ || !clean.empty();
    call_state_->parser.reset();
    call_state_->executor.reset();
    call_state_.reset();

    if (!clean.empty()) {
      // A reply that cannot be stored does not end the turn: the user has seen it already.
      if (stateless()) {
        input_.messages->push_back({"assistant", clean, {}, {}, {}});
      } else {
        const store::TimePoint now = agent_.config_.exec.now();
        auto appended = agent_.store_.append_message(scope(), "assistant", clean, input_.turn_id, now);
        if (!appended) summary_.diagnostics.push_back("store: cannot append the reply: " + appended.error());
      }
    }

    if (outcome.finish == model::FinishReason::error || outcome.finish == model::FinishReason::cancelled) {
      summary_.calls.push_back(std::move(report));
      std::string why =
          outcome.finish == model::FinishReason::cancelled ? std::string("cancelled") : outcome.error;
      if (tools_offered_ && model::refused_tools(outcome))
        why += " (the server refuses native tools: set [model] tools = \"auto\" or \"off\")";
      summary_.diagnostics.push_back("model-error: " + why);
      end(TurnStatus::ModelError);
      return;
    }
    const bool again = !results.empty();
    if (again) report.model_message = results;
    summary_.calls.push_back(std::move(report));
    if (!again) {
      end(TurnStatus::Ok);
      return;
    }
    if (calls_ >= agent_.config_.max_model_calls) {
      summary_.diagnostics.push_back("loop-limit: " + std::to_string(calls_) +
                                     " model calls for one message; results of the last reply not sent");
      end(TurnStatus::LoopLimit);
      return;
    }
    if (!record(std::string(store::kResultsRole), results, "the results", false, std::move(images))) return;
    start_call();
  }

  // ToolsMode::automatic: a server that refused the tools before anything streamed gets the same call again
  // without them, and the agent stops offering them. True when that call was started.
  bool retry_without_tools(const model::Outcome& outcome) {
    if (agent_.config_.tools != ToolsMode::automatic || !tools_offered_ || !model::refused_tools(outcome))
      return false;
    if (!call_state_->outbox.clean().empty() || !call_state_->tool_names.empty()) return false;
    if (!agent_.tools_refused_.exchange(true))
      summary_.diagnostics.push_back("model: the server refused native tools (" + outcome.server_message +
                                     "); the actions are offered as markup only from now on");
    call_state_->parser->finish(parser_finish(outcome.finish));
    (void)call_state_->executor->finish();
    call_state_->parser.reset();
    call_state_->executor.reset();
    call_state_.reset();
    --calls_;  // the same call, again: it does not count against max_model_calls
    start_call();
    return true;
  }

  // Whether this named turn's user message is in the history already (it ran before and was cut off): the
  // same turn id and the same text.
  bool stored_before() {
    if (!named_) return false;
    auto recent = agent_.store_.recent_messages(scope(), agent_.config_.history_messages);
    if (!recent) return false;  // record() then says what the store could not do
    for (const store::Message& m : *recent)
      if (m.role == "user" && m.turn_id == input_.turn_id && m.task_id == input_.task_id &&
          m.text == input_.text)
        return true;
    return false;
  }

  // Appends a user-side message to the turn's history (the store, or the request's messages for a
  // stateless turn). On failure the turn ends with StoreError and false is returned.
  // first: the turn's own message, which carries its origin (TurnInput::task_id, ::message_id).
  // images: pictures the message shows the model (take_model_images); the store keeps text only, so the
  // turn keeps them by message id and attaches them in each later call of the turn.
  bool record(const std::string& role, const std::string& text, const char* what, bool first,
              std::vector<std::string> images = {}) {
    const store::TimePoint now = agent_.config_.exec.now();
    store::Message message{0, role, text, input_.turn_id, now, {}, {}};
    if (first) {
      message.task_id = input_.task_id;
      message.platform_id = input_.message_id;
    }
    if (stateless()) {
      input_.messages->push_back({model_role(role), model_text(message), {}, {}, std::move(images)});
      return true;
    }
    auto appended = agent_.store_.append_message(scope(), message);
    if (appended) {
      if (!images.empty()) images_[*appended] = std::move(images);
      return true;
    }
    summary_.diagnostics.push_back(std::string("store: cannot append ") + what + ": " + appended.error());
    end(TurnStatus::StoreError);
    return false;
  }

  void end(TurnStatus status) {
    summary_.status = status;
    log_end();
    if (observer_) observer_->on_turn_end(summary_);
    observer_.reset();
    // Last: after this the Agent may be gone.
    agent_.turn_ended(serial_);
  }

  // One line per turn (ids, counts, outcome, never texts), then one per failed action and model error.
  void log_end() const {
    const bool failed = summary_.status != TurnStatus::Ok;
    if (!log::enabled(failed ? log::Level::warn : log::Level::info)) return;
    std::int64_t directives = 0, action_errors = 0, deliveries = 0;
    for (const ModelCallReport& call : summary_.calls) {
      directives += static_cast<std::int64_t>(call.report.results.size());
      deliveries += static_cast<std::int64_t>(call.report.deliveries.size());
      for (const exec::ResultEntry& r : call.report.results) {
        if (r.status != exec::ResultStatus::Error) continue;
        ++action_errors;
        log::write(log::Record{log::Level::warn, "action-error", {}}
                       .with("conversation", input_.conversation)
                       .with("turn", input_.turn_id)
                       .with("action", r.action)
                       .with("ordinal", r.ordinal)
                       .with("error", r.message));
      }
    }
    for (const std::string& d : summary_.diagnostics) {
      const bool model_error = d.starts_with("model-error: ");
      log::write(log::Record{model_error ? log::Level::error : log::Level::warn,
                             model_error ? "model-error" : "turn-diagnostic",
                             {}}
                     .with("conversation", input_.conversation)
                     .with("turn", input_.turn_id)
                     .with("detail", d));
    }
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_)
            .count();
    log::write(log::Record{failed ? log::Level::warn : log::Level::info, "turn", {}}
                   .with("user", input_.user)
                   .with("conversation", input_.conversation)
                   .with("turn", input_.turn_id)
                   .with("status", std::string(to_string(summary_.status)))
                   .with("model_calls", static_cast<std::int64_t>(summary_.calls.size()))
                   .with("directives", directives)
                   .with("action_errors", action_errors)
                   .with("deliveries", deliveries)
                   .with("ms", static_cast<std::int64_t>(ms)));
  }

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

Agent::Agent(const catalog::Registry& registry, const exec::HandlerTable& handlers, store::Store& store,
             model::ModelClient& client, AgentConfig config)
    : registry_(registry),
      handlers_(handlers),
      store_(store),
      client_(client),
      config_(std::move(config)),
      stream_pool_(std::max(1u, config_.stream_threads)) {
  grammar_ = std::make_shared<const parse::CompiledGrammar>(registry_);
  // Both say modes up front: a conversation may switch at any turn.
  for (const bool say : {false, true}) {
    catalog::PromptOptions options;
    options.denied = config_.denied_actions;
    options.denied.insert(options.denied.end(), config_.untaught_actions.begin(),
                          config_.untaught_actions.end());
    options.say_mode = say;
    std::string& message = say ? say_system_message_ : system_message_;
    message = config_.system_prompt_intro;
    const std::string section = catalog::prompt_section(registry_, options);
    if (!message.empty() && !section.empty()) message += "\n\n";
    message += section;
    if (config_.tools != ToolsMode::off)
      (say ? say_tools_ : tools_) =
          std::make_shared<const boost::json::array>(catalog::tool_schemas(registry_, options));
  }
  // One pool for every turn's handlers, and directives begun per burst of text (the stream threads call
  // end_burst()).
  if (!config_.exec.pool) config_.exec.pool = std::make_shared<exec::HandlerPool>();
  config_.exec.bursts = true;
  const unsigned threads = std::max(1u, config_.finish_threads);
  for (unsigned i = 0; i < threads; ++i)
    finish_threads_.emplace_back([this](const std::stop_token& stop) { finish_loop(stop); });
}

Agent::~Agent() {
  std::vector<std::shared_ptr<Turn>> open;
  {
    std::lock_guard lock(mu_);
    for (auto& [serial, turn] : turns_) open.push_back(turn);
  }
  for (auto& turn : open) turn->cancel();
  wait_idle();  // the finish threads are still running: cancelled calls end through them
  for (std::jthread& t : finish_threads_) t.request_stop();
  finish_cv_.notify_all();
  finish_threads_.clear();  // joins
}

namespace {
constexpr std::string_view kSaySetting = "say_mode";
}  // namespace

store::Result<bool> Agent::say_mode(const std::string& user, const std::string& conversation) {
  auto stored =
      store_.get_setting(store::Scope{user, conversation, store::MemoryScope::per_user}, kSaySetting);
  if (!stored) return store::Error{stored.error()};
  if (!stored->has_value()) return config_.say_mode;
  return **stored == "true";
}

store::Status Agent::set_say_mode(const std::string& user, const std::string& conversation, bool on) {
  return store_.set_setting(store::Scope{user, conversation, store::MemoryScope::per_user}, kSaySetting,
                            on ? "true" : "false", config_.exec.now());
}

void Agent::post_finish(std::function<void()> job) {
  {
    std::lock_guard lock(finish_mu_);
    finish_jobs_.push_back(std::move(job));
  }
  finish_cv_.notify_one();
}

void Agent::finish_loop(const std::stop_token& stop) {
  std::unique_lock lock(finish_mu_);
  for (;;) {
    if (!finish_cv_.wait(lock, stop, [this] { return !finish_jobs_.empty(); })) return;
    std::function<void()> job = std::move(finish_jobs_.front());
    finish_jobs_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // drops the turn it holds before waiting again
    lock.lock();
  }
}

std::string Agent::start_turn(TurnInput input, std::shared_ptr<TurnObserver> observer) {
  // A caller's id may be that of an earlier run a crash cut off; a fresh one (TurnInput::fresh_id) cannot.
  const bool named = !input.turn_id.empty() && !input.fresh_id;
  if (input.turn_id.empty()) input.turn_id = text::random_id("turn-");
  std::string id = input.turn_id;
  std::shared_ptr<Turn> turn;
  bool run_now = false;
  {
    std::lock_guard lock(mu_);
    const std::uint64_t serial = next_serial_++;
    turn = std::make_shared<Turn>(*this, serial, std::move(input), std::move(observer));
    turn->set_named(named);
    turns_.emplace(serial, turn);
    run_now = turn->stateless() || busy_.insert(turn->key()).second;
    if (!run_now) waiting_[turn->key()].push_back(turn);
  }
  // begin() writes and reads the store (which may wait behind another thread's fsync): never on the
  // caller's thread, which is usually a server's network thread serving every other connection too.
  if (run_now) post_finish([turn] { turn->begin(); });
  return id;
}

bool Agent::fire_task(const store::ScheduledTask& task, const std::string& turn_id,
                      std::shared_ptr<TurnObserver> observer) {
  TurnInput input;
  input.user = task.scope.user_id;
  input.conversation = task.scope.conversation_id;
  input.text = task.message;
  input.task_id = task.id;
  input.turn_id = turn_id;
  start_turn(std::move(input), std::move(observer));
  return true;
}

bool Agent::cancel(const std::string& turn_id) {
  std::vector<std::shared_ptr<Turn>> found;
  {
    std::lock_guard lock(mu_);
    for (auto& [serial, turn] : turns_)
      if (turn->id() == turn_id) found.push_back(turn);
  }
  for (auto& turn : found) turn->cancel();
  return !found.empty();
}

void Agent::turn_ended(std::uint64_t serial) {
  std::shared_ptr<Turn> next;
  {
    std::lock_guard lock(mu_);
    auto it = turns_.find(serial);
    if (it == turns_.end()) return;
    const auto key = it->second->key();
    const bool stateless = it->second->stateless();
    turns_.erase(it);
    if (stateless) {
      // It never held its conversation.
    } else if (auto w = waiting_.find(key); w != waiting_.end()) {
      next = std::move(w->second.front());
      w->second.pop_front();
      if (w->second.empty()) waiting_.erase(w);
    } else {
      busy_.erase(key);
    }
    // Notified under the lock: a waiter in ~Agent may destroy the condition variable as soon as it wakes.
    if (turns_.empty()) idle_.notify_all();
  }
  // The next turn of this conversation is in turns_, so the Agent stays alive while it begins.
  if (next) post_finish([next] { next->begin(); });
}

void Agent::wait_idle() {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [this] { return turns_.empty(); });
}

std::size_t Agent::active_turns() const {
  std::lock_guard lock(mu_);
  return turns_.size();
}

}  // namespace sigil::agent
