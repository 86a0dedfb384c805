// The agent: its turns' registry (one at a time per conversation, in arrival order), the finish threads,
// the say-mode setting. A turn itself is turn.h.
#include "sigil/agent/agent.h"

#include <algorithm>
#include <stop_token>
#include <utility>

#include "agent/turn.h"
#include "sigil/catalog/prompt_doc.h"
#include "sigil/catalog/tool_schema.h"
#include "sigil/log/log.h"
#include "sigil/parse/parser.h"
#include "sigil/text/enum_names.h"
#include "sigil/text/random_id.h"

namespace sigil::agent {

namespace {
constexpr text::EnumNames<TurnStatus::StoreError> kTurnStatusNames{
    {"ok", "loop-limit", "model-error", "store-error"}, "?"};
}  // namespace

std::string_view to_string(TurnStatus status) { return kTurnStatusNames.name(status); }

Agent::Agent(const catalog::Registry& registry, const exec::HandlerTable& handlers, store::Store& store,
             model::ModelClient& client, AgentConfig config)
    : registry_(registry),
      handlers_(handlers),
      store_(store),
      client_(client),
      config_(std::move(config)),
      stream_pool_(std::max(1u, config_.stream_threads)) {
  grammar_ = std::make_shared<const parse::CompiledGrammar>(registry_);
  teaching_ = teach(nullptr);
  // One pool for every turn's handlers, and directives begun per burst of text (the stream threads call
  // end_burst()).
  if (!config_.exec.pool) config_.exec.pool = std::make_shared<exec::HandlerPool>();
  config_.exec.bursts = true;
  const unsigned threads = std::max(1u, config_.finish_threads);
  for (unsigned i = 0; i < threads; ++i)
    finish_threads_.emplace_back([this](const std::stop_token& stop) { finish_loop(stop); });
}

std::shared_ptr<const Agent::Teaching> Agent::teach(std::shared_ptr<const catalog::Registry> owned) const {
  auto t = std::make_shared<Teaching>();
  t->owned = std::move(owned);
  t->registry = t->owned != nullptr ? t->owned.get() : &registry_;
  // Both say modes up front: a conversation may switch at any turn.
  for (const bool say : {false, true}) {
    catalog::PromptOptions options;
    options.denied = config_.denied_actions;
    options.denied.insert(options.denied.end(), config_.untaught_actions.begin(),
                          config_.untaught_actions.end());
    options.say_mode = say;
    std::string& message = say ? t->say_message : t->plain_message;
    message = config_.system_prompt_intro;
    const std::string section = catalog::prompt_section(*t->registry, options);
    if (!message.empty() && !section.empty()) message += "\n\n";
    message += section;
    if (config_.tools != ToolsMode::off)
      (say ? t->say_tools : t->plain_tools) =
          std::make_shared<const boost::json::array>(catalog::tool_schemas(*t->registry, options));
  }
  return t;
}

std::shared_ptr<const Agent::Teaching> Agent::teaching() {
  if (config_.taught_registry) {
    // One asker at a time, so a call starting meanwhile waits for the new teaching rather than take the
    // old one; the hook may list a server's tools (a round trip) after a change, and then only.
    std::lock_guard asking(refresh_mu_);
    if (std::shared_ptr<const catalog::Registry> fresh = config_.taught_registry()) {
      std::shared_ptr<const Teaching> made = teach(std::move(fresh));
      if (log::enabled(log::Level::info)) log::write(log::Record{log::Level::info, "taught-again", {}});
      std::lock_guard lock(teaching_mu_);
      teaching_ = std::move(made);
      ++teachings_;
    }
  }
  return teaching_now();
}

std::shared_ptr<const Agent::Teaching> Agent::teaching_now() const {
  std::lock_guard lock(teaching_mu_);
  return teaching_;
}

std::uint64_t Agent::teachings() const {
  std::lock_guard lock(teaching_mu_);
  return teachings_;
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
