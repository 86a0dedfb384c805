// The turn: its model calls, the stream fed to each call's parser and executor, tool calls, the results
// sent back, the history written and the observer told (turn.h).
#include "agent/turn.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <utility>

#include "sigil/actions/view_image.h"
#include "sigil/catalog/prompt_doc.h"
#include "sigil/catalog/tool_schema.h"
#include "sigil/exec/results_message.h"
#include "sigil/log/log.h"
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

void Agent::Turn::begin() {
  // Otherwise the conversation's setting, read with the first call's other reads (start_call).
  say_mode_known_ = input_.say_mode.has_value();
  say_mode_ = input_.say_mode.value_or(agent_.config_.say_mode);
  summary_.say_mode = say_mode_;
  // A stateless turn's user message is already the last of its messages. A turn run again under its id
  // (a channel resuming a message whose turn a crash cut off) finds its message stored already.
  if (!stateless() && !stored_before() && !record("user", input_.text, "the user message", true)) return;
  start_call();
}

void Agent::Turn::cancel() {
  stop_.request_stop();  // handlers running now (an MCP call) stop too, not only the model call
  std::shared_ptr<model::Call> call;
  {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    call = call_;
  }
  if (call) call->cancel();
}

catalog::PromptOptions Agent::Turn::prompt_options() const {
  catalog::PromptOptions o;
  o.denied = agent_.config_.denied_actions;
  o.denied.insert(o.denied.end(), agent_.config_.untaught_actions.begin(),
                  agent_.config_.untaught_actions.end());
  o.say_mode = say_mode_;
  return o;
}

// The agent's system message for this say mode, with the user's memory after it (memory_context.h),
// read afresh for every call: a fact remembered by the previous call of this turn is already there.
std::string Agent::Turn::system_message() {
  std::string message = teaching_->system_message(say_mode_);
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

void Agent::Turn::start_call() {
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
  teaching_ = agent_.teaching();
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
  if (!agent_.tools_refused_.load()) request.tools = teaching_->tools(say_mode_);
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
  call_state_->executor = std::make_unique<exec::Executor>(agent_.registry_, agent_.handlers_, agent_.store_,
                                                           call_state_->outbox, ids, std::move(exec_options));
  parse::ParserOptions po;
  po.say_mode = say_mode_;
  po.denied_actions = config.denied_actions;
  po.inline_resolver = call_state_->executor->inline_resolver();
  call_state_->parser = std::make_unique<parse::Parser>(*agent_.grammar_, call_state_->executor->sink(), po);

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
void Agent::Turn::on_text(std::string_view delta) {
  std::unique_lock feeding(feed_mu_, std::try_to_lock);
  if (!feeding.owns_lock()) return queue_text(delta);
  {
    std::lock_guard lock(queue_mu_);
    queued_.append(delta);  // behind any text still queued
  }
  feed_queued();
}

// Queues the text for a stream thread; one feed job at a time is queued per turn.
void Agent::Turn::queue_text(std::string_view delta) {
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
void Agent::Turn::feed_queued() {
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
void Agent::Turn::on_tool_call(const model::ToolCall& tool) {
  if (!call_state_) return;
  // Named after the tools this call was offered (a new MCP tool is in the teaching's registry only); its
  // actions and spellings are the agent's registry's.
  const catalog::Registry& registry = *teaching_->registry;
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
      body.json = boost::json::object{{"server", ref->server}, {"tool", ref->tool}, {"arguments", body.json}};
  }
  parse::Validated validated =
      mcp ? validate_mcp_call(registry, body) : registry.validate_tag(spelling, {}, body);
  event.set_args(std::move(validated.args));
  event.valid = validated.valid;
  event.error = std::move(validated.error);
  call_state_->executor->sink().on_directive(event);
}

void Agent::Turn::on_done(const model::Outcome& outcome) {
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
bool Agent::Turn::retry_without_tools(const model::Outcome& outcome) {
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
bool Agent::Turn::stored_before() {
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
bool Agent::Turn::record(const std::string& role, const std::string& text, const char* what, bool first,
                         std::vector<std::string> images) {
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

void Agent::Turn::end(TurnStatus status) {
  summary_.status = status;
  log_end();
  if (observer_) observer_->on_turn_end(summary_);
  observer_.reset();
  // Last: after this the Agent may be gone.
  agent_.turn_ended(serial_);
}

// One line per turn (ids, counts, outcome, never texts), then one per failed action and model error.
void Agent::Turn::log_end() const {
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

}  // namespace sigil::agent
