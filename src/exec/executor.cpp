#include "sigil/exec/executor.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <set>
#include <stop_token>
#include <utility>

#include "sigil/exec/canonical_json.h"
#include "sigil/exec/handler_pool.h"
#include "sigil/exec/outbox.h"
#include "sigil/exec/results_message.h"
#include "sigil/store/once_keys.h"
#include "sigil/text/json_string.h"

namespace sigil::exec {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr std::string_view kInDoubt = "in doubt after a crash: not run again";
constexpr std::string_view kRunning = "already running in this process: not run again";

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

// {"ok":…,"message":…,"result":…}, written as Boost.JSON would serialize that object, without building it.
std::string stored_result_json(const HandlerResult& r) {
  std::string out;
  out.reserve(48 + r.message.size());
  out.append(r.status == HandlerResult::Status::Ok ? R"({"ok":true,"message":)"
                                                   : R"({"ok":false,"message":)");
  text::append_json_string(out, r.message);
  out.append(R"(,"result":)");
  if (r.result.is_null())
    out.append("null");
  else
    out.append(boost::json::serialize(r.result));
  out.push_back('}');
  return out;
}

bool is_failure(ResultStatus s) { return s == ResultStatus::Error || s == ResultStatus::Refused; }

}  // namespace

class Executor::Impl final : public parse::EventSink, public std::enable_shared_from_this<Executor::Impl> {
  // One directive of the reply (say blocks excluded).
  struct Slot {
    Directive directive;
    const catalog::ActionSpec* spec = nullptr;  // nullptr: unknown to the registry
    std::shared_ptr<ActionHandler> handler;
    bool holds = false;  // holds later text until final (see executor.h)
    bool serial = false;
    bool quick = false;   // HandlerTable::quick: may run where its key was begun, with no time-out
    bool urgent = false;  // an inline action the parser waits for: first in the ready queue
    std::chrono::milliseconds timeout{0};
    HandlerPool::TimerId timer = 0;
    std::string key;  // exactly-once key, when it ran

    bool final = false;     // entry is settled: deliveries (if any) may go out
    bool running = false;   // the handler is in run()
    bool returned = false;  // the handler returned (or threw)
    bool timed_out = false;
    bool emitted = false;    // deliveries handed to the outbox
    bool stored_ok = false;  // duplicate: the stored result was ok
    SteadyClock::time_point deadline{};
    std::stop_source stop;

    ResultEntry entry;
    std::vector<Delivery> deliveries;  // only from a fresh, ok, in-time run
  };

 public:
  Impl(const catalog::Registry& registry, const HandlerTable& handlers, store::Store& store, Outbox& outbox,
       TurnIds ids, ExecOptions options, HandlerPool& pool)
      : registry_(registry),
        handlers_(handlers),
        store_(store),
        outbox_(outbox),
        ids_(std::move(ids)),
        options_(std::move(options)),
        pool_(pool),
        once_keys_(ids_.conversation, ids_.turn),
        begin_here_(!store.once_writes_wait_for_disk()) {}

  // Called by ~Executor: after it, no job or timer of this turn touches the registry, the handlers, the
  // store or the outbox (jobs still queued in the pool find shutting_down_ and leave). Handlers running
  // get their stop_token requested and are waited for. Keys begun for directives that never ran are
  // completed as not run, so that they are not reported in doubt after a restart.
  void shutdown() {
    std::unique_lock lock(mu_);
    shutting_down_ = true;
    for (Slot& s : slots_) {
      if (s.running) s.stop.request_stop();
      if (s.timer) pool_.cancel(s.timer);
    }
    done_cv_.notify_all();
    idle_cv_.wait(lock, [this] { return active_ == 0; });
    std::vector<std::string> keys;
    auto not_run = [&](const std::deque<int>& queue) {
      for (int o : queue) keys.push_back(slots_[static_cast<std::size_t>(o)].key);
    };
    not_run(ready_);
    not_run(serial_);
    ready_.clear();
    serial_.clear();
    lock.unlock();
    if (keys.empty()) return;
    const std::string json = stored_result_json(HandlerResult::error("not run: the turn ended first"));
    std::vector<store::OnceCompletion> done;
    for (const std::string& k : keys) done.push_back({k, json});
    (void)store_.once_complete_many(scope(), done, options_.now());
  }

  // ---------------------------------------------------------------------------------- parse::EventSink
  void on_text(std::string_view text, bool hidden) override {
    dispatch_pending_inline();
    std::lock_guard lock(mu_);
    if (hidden) {
      hidden_text_.append(text);
      return;
    }
    if (say_gap_) {
      // The parser joins say blocks with a blank line; here each block is its own message instead. A
      // block's text is trimmed (6.2), so leading line breaks after a block's end are that joint.
      text.remove_prefix(std::min(text.find_first_not_of('\n'), text.size()));
      if (text.empty()) return;
      say_gap_ = false;
    }
    if (queue_.empty()) {
      // Nothing waits before it (the common case, a token of plain text): straight out, without a queue
      // item and its copy of the text.
      if (!silent_ && !text.empty()) send_text(text);
      return;
    }
    push_text(text);
    flush();
  }

  void on_directive(const parse::DirectiveEvent& e) override {
    dispatch_pending_inline();
    if (e.action == registry_.options().say_action) {
      // Delivery, not an action (6.1): its text has gone through on_text; here the message ends.
      if (!e.valid) return;
      std::lock_guard lock(mu_);
      say_gap_ = true;
      if (silent_) return;
      queue_.push_back(Item{{}, -1, {}, true});
      flush();
      return;
    }
    std::unique_lock lock(mu_);
    Slot& s = slots_.emplace_back();
    s.directive.ordinal = static_cast<int>(slots_.size() - 1);
    s.directive.action = e.action;
    s.directive.args = e.args();
    s.directive.clean_offset = e.clean_offset;
    s.spec = registry_.find_action(e.action);
    s.entry.ordinal = s.directive.ordinal;
    s.entry.action = e.action;
    s.serial = s.spec && s.spec->concurrency == catalog::Concurrency::SerialPerConversation;
    s.timeout = s.spec ? s.spec->timeout : options_.default_timeout;
    if (auto it = options_.timeouts.find(e.action); it != options_.timeouts.end()) s.timeout = it->second;
    const bool result_to_user = s.spec && s.spec->result_to == catalog::ResultTo::User;
    s.holds = result_to_user || (s.spec && s.spec->delivers);
    if (s.holds) queue_.push_back(Item{{}, s.directive.ordinal, {}});

    if (!e.valid) {
      settle(s, ResultStatus::Refused, e.error.empty() ? "invalid directive" : one_line(e.error));
      flush();
      return;
    }
    s.handler = handlers_.find(e.action);
    if (!s.handler) {
      settle(s, ResultStatus::Error, "no handler for " + e.action);
      flush();
      return;
    }
    s.quick = handlers_.quick(e.action);
    if (s.spec && s.spec->result_to == catalog::ResultTo::Inline) {
      // The parser calls the inline resolver right after this event; if it does not, the next event runs it.
      pending_inline_ = s.directive.ordinal;
      pending_inline_span_ = e.span_begin;
      return;
    }
    to_begin_.push_back(s.directive.ordinal);
    if (!options_.bursts) start_pending(lock);
  }

  // The caller fed the parser a burst of text: the directives found in it start now, their keys begun
  // together.
  void end_burst() {
    dispatch_pending_inline();
    std::unique_lock lock(mu_);
    start_pending(lock);
  }

  void on_diagnostic(const parse::Diagnostic&) override {}
  void on_silence(std::uint64_t) override {
    std::lock_guard lock(mu_);
    go_silent();
  }
  void on_fallback() override {
    std::lock_guard lock(mu_);
    push_text(hidden_text_);
    hidden_text_.clear();
    flush();
  }
  void on_end(bool silent) override {
    dispatch_pending_inline();
    std::unique_lock lock(mu_);
    start_pending(lock);
    if (silent) go_silent();
  }

  // mu_ held. The reply is silent (spec 7.4): no more of its text goes out, text still held back behind a
  // directive is dropped, and the outbox learns whether some already went (a late sentinel, 12.7).
  // Directives still run and their deliveries still go.
  void go_silent() {
    if (silent_) return;
    silent_ = true;
    // Text and message ends go; directives (their deliveries) and late deliveries stay.
    std::erase_if(queue_, [](const Item& item) { return item.ordinal < 0 && item.late.empty(); });
    outbox_.silence(text_sent_);
    flush();
  }

  // ---------------------------------------------------------------------------------- inline
  std::optional<std::string> resolve_inline(const parse::DirectiveEvent& e) {
    std::unique_lock lock(mu_);
    if (!pending_inline_ || pending_inline_span_ != e.span_begin) return std::nullopt;
    Slot& s = slots_[static_cast<std::size_t>(*pending_inline_)];
    pending_inline_.reset();
    s.urgent = true;
    to_begin_.push_back(s.directive.ordinal);
    start_pending(lock);
    done_cv_.wait(lock, [&] { return s.final; });
    if (s.entry.status == ResultStatus::Ok || (s.entry.status == ResultStatus::Duplicate && s.stored_ok))
      return s.entry.message;
    return std::nullopt;
  }

  // ---------------------------------------------------------------------------------- finish
  TurnReport finish() {
    dispatch_pending_inline();
    std::unique_lock lock(mu_);
    start_pending(lock);
    done_cv_.wait(lock, [&] {
      return std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.final; });
    });
    flush();
    finishing_ = true;
    for (const auto& [d, ordinal] : held_attachments_)
      send(d, ordinal >= 0 ? &slots_[static_cast<std::size_t>(ordinal)] : nullptr);
    held_attachments_.clear();
    outbox_.end();
    TurnReport report;
    report.deliveries = sent_.ops();
    for (const Slot& s : slots_) report.results.push_back(s.entry);
    report.silent = silent_;
    report.late_silence = silent_ && text_sent_;
    finished_ = true;
    return report;
  }

  std::vector<std::string> model_lines() const {
    std::lock_guard lock(mu_);
    std::vector<std::string> lines;
    for (const Slot& s : slots_) {
      if (!to_model(s)) continue;
      std::string out = "[" + std::to_string(s.entry.ordinal + 1) + "] " + s.entry.action + ": " +
                        std::string(to_string(s.entry.status)) + ": ";
      // Handlers and the validator start their messages with the action's name; the line already has it.
      std::string_view message = s.entry.message;
      const std::string prefix = s.entry.action + ": ";
      if (message.substr(0, prefix.size()) == prefix) message.remove_prefix(prefix.size());
      if (!message.empty())
        out += message;
      else if (!s.entry.result.is_null())
        out += boost::json::serialize(s.entry.result);
      lines.push_back(std::move(out));
    }
    return lines;
  }

  std::size_t max_results_bytes() const { return options_.max_results_bytes; }

  bool needs_model_call() const {
    std::lock_guard lock(mu_);
    return std::any_of(slots_.begin(), slots_.end(), [this](const Slot& s) { return to_model(s); });
  }

 private:
  // The outbox queue: text, or a holding directive (ordinal >= 0), or late deliveries (text empty, late).
  struct Item {
    std::string text;
    int ordinal = -1;
    std::vector<Delivery> late;
    bool message_end = false;  // Outbox::end_message() (a say block ended)
  };
  static bool is_text(const Item& item) { return item.ordinal < 0 && item.late.empty() && !item.message_end; }

  bool to_model(const Slot& s) const {
    catalog::ResultTo to = s.spec ? s.spec->result_to : catalog::ResultTo::ModelOnError;
    bool failed = is_failure(s.entry.status) || (s.entry.status == ResultStatus::Duplicate && !s.stored_ok);
    switch (to) {
      case catalog::ResultTo::Model:
        return true;
      case catalog::ResultTo::None:
        return false;
      default:
        return failed;
    }
  }

  void dispatch_pending_inline() {
    std::unique_lock lock(mu_);
    if (!pending_inline_) return;
    to_begin_.push_back(*pending_inline_);
    pending_inline_.reset();
    if (!options_.bursts) start_pending(lock);
  }

  store::Scope scope() const { return {ids_.user, ids_.conversation, store::MemoryScope::per_user}; }

  // ---------------------------------------------------------------------------------- starting
  // mu_ held (it may be released meanwhile). Starts the directives waiting to be begun: their keys are
  // begun together, here when that is cheap (a store in memory), else by a job on the pool, so the
  // thread that streams text never waits for an fsync.
  void start_pending(std::unique_lock<std::mutex>& lock) {
    if (to_begin_.empty() || shutting_down_) return;
    if (begin_here_) return begin_batch(lock);
    if (begin_job_) return;  // the job takes these too before it ends
    begin_job_ = true;
    pool_.post([self = shared_from_this()] { self->begin_job(); });
  }

  void begin_job() {
    std::unique_lock lock(mu_);
    if (shutting_down_) {
      begin_job_ = false;
      return;
    }
    ++active_;
    while (!to_begin_.empty() && !shutting_down_) begin_batch(lock);
    begin_job_ = false;
    --active_;
    idle_cv_.notify_all();
  }

  // mu_ held (released around the store and quick handlers). Begins the keys of every directive waiting,
  // in one store call (group commit: one transaction, one fsync), and only then starts each fresh one
  // (12.4): quick handlers right here, in reply order, the rest on the pool.
  void begin_batch(std::unique_lock<std::mutex>& lock) {
    std::vector<int> batch;
    batch.swap(to_begin_);
    std::vector<std::string> keys;
    keys.reserve(batch.size());
    for (int o : batch) {
      Slot& s = slots_[static_cast<std::size_t>(o)];
      s.key =
          once_keys_.key(static_cast<std::uint32_t>(o), s.directive.action, canonical_json(s.directive.args));
      keys.push_back(s.key);
    }
    lock.unlock();
    std::vector<store::Result<store::Begun>> begun = store_.once_begin_many(scope(), keys, options_.now());
    lock.lock();
    std::vector<int> quick;
    bool serial_here = false;  // a quick serial handler runs here: the pool's serial queue waits for it
    for (std::size_t i = 0; i < batch.size(); ++i) {
      Slot& s = slots_[static_cast<std::size_t>(batch[i])];
      if (!settle_begun(s, begun[i])) continue;
      // A quick serial handler runs here only while no other serial one runs or waits before it.
      const bool serial_free = serial_.empty() && (serial_here || !serial_busy_);
      if (s.quick && (!s.serial || serial_free)) {
        if (s.serial && !serial_here) serial_busy_ = serial_here = true;
        quick.push_back(batch[i]);
      } else {
        route(s);
      }
    }
    flush();
    start_jobs();  // the others need not wait for the quick ones
    if (quick.empty()) return;
    run_quick(quick, lock);
    if (serial_here) {
      serial_busy_ = false;
      start_jobs();
    }
  }

  // mu_ held. The outcome of beginning a slot's key; true when it is fresh (to be run).
  bool settle_begun(Slot& s, const store::Result<store::Begun>& begun) {
    if (!begun) {
      settle(s, ResultStatus::Error, "exactly-once log: " + one_line(begun.error()));
      return false;
    }
    switch (begun->state) {
      case store::OnceState::completed: {
        boost::system::error_code ec;
        const boost::json::value stored = boost::json::parse(begun->result_json, ec);
        std::string message;
        boost::json::value result;
        s.stored_ok = true;
        if (!ec && stored.is_object()) {
          const auto& o = stored.get_object();
          if (auto* m = o.if_contains("message"); m && m->is_string()) message = std::string(m->get_string());
          if (auto* r = o.if_contains("result")) result = *r;
          if (auto* ok = o.if_contains("ok"); ok && ok->is_bool()) s.stored_ok = ok->get_bool();
        }
        settle(s, ResultStatus::Duplicate, std::move(message), std::move(result));
        return false;
      }
      case store::OnceState::running:
        settle(s, ResultStatus::Refused, std::string(kRunning));
        return false;
      case store::OnceState::in_doubt:
        settle(s, ResultStatus::Refused, std::string(kInDoubt));
        return false;
      case store::OnceState::fresh:
        return true;
    }
    return false;
  }

  // mu_ held. A fresh slot waits for a pool job.
  void route(Slot& s) {
    const int o = s.directive.ordinal;
    if (s.serial)
      serial_.push_back(o);
    else if (s.urgent)
      ready_.push_front(o);
    else
      ready_.push_back(o);
  }

  // mu_ held (released around the handlers and the store). Runs quick handlers one after another on this
  // thread, then completes their keys together.
  void run_quick(const std::vector<int>& ordinals, std::unique_lock<std::mutex>& lock) {
    std::vector<HandlerResult> results;
    results.reserve(ordinals.size());
    for (int o : ordinals) {
      Slot& s = slots_[static_cast<std::size_t>(o)];
      s.running = true;
      std::stop_token token = s.stop.get_token();
      std::stop_source slot_stop = s.stop;
      std::shared_ptr<ActionHandler> handler = s.handler;
      lock.unlock();
      results.push_back(call_handler(*handler, s.directive, token, slot_stop));
      lock.lock();
      s.running = false;
      s.returned = true;
    }
    std::vector<std::string> json;
    json.reserve(results.size());
    for (const HandlerResult& r : results) json.push_back(stored_result_json(r));
    std::vector<store::OnceCompletion> done;
    done.reserve(ordinals.size());
    for (std::size_t i = 0; i < ordinals.size(); ++i)
      done.push_back({slots_[static_cast<std::size_t>(ordinals[i])].key, json[i]});
    lock.unlock();
    (void)store_.once_complete_many(scope(), done, options_.now());
    lock.lock();
    for (std::size_t i = 0; i < ordinals.size(); ++i)
      complete(slots_[static_cast<std::size_t>(ordinals[i])], std::move(results[i]), true);
  }

  // mu_ held. Posts as many pool jobs as there is work that no job of this turn will take soon, within
  // ExecOptions::workers running at once.
  void start_jobs() {
    if (shutting_down_) return;
    const std::size_t work = ready_.size() + (!serial_busy_ && !serial_.empty() ? 1 : 0);
    const std::size_t cap = std::max(1u, options_.workers);
    while (jobs_ < cap && jobs_ - in_handler_ < work) {
      ++jobs_;
      pool_.post([self = shared_from_this()] { self->drain(); });
    }
  }

  // mu_ held. Settles a slot that produced no deliveries.
  void settle(Slot& s, ResultStatus status, std::string message, boost::json::value result = nullptr) {
    s.entry.status = status;
    s.entry.message = std::move(message);
    s.entry.result = std::move(result);
    s.final = true;
    done_cv_.notify_all();
  }

  // mu_ held.
  void push_text(std::string_view text) {
    if (text.empty() || silent_) return;
    if (!queue_.empty() && is_text(queue_.back())) {
      queue_.back().text.append(text);
    } else {
      queue_.push_back(Item{std::string(text), -1, {}});
    }
  }

  // mu_ held. Sends everything that no longer waits for a handler, in order.
  void flush() {
    while (!queue_.empty()) {
      Item& item = queue_.front();
      if (item.ordinal >= 0) {
        Slot& s = slots_[static_cast<std::size_t>(item.ordinal)];
        if (!s.final) return;
        emit(s);
      } else if (!item.late.empty()) {
        for (const Delivery& d : item.late) send(d, nullptr);
      } else if (item.message_end) {
        outbox_.end_message();
        sent_.end_message();  // the report lists the next text as a message of its own
      } else {
        send_text(item.text);
      }
      queue_.pop_front();
    }
  }

  void send_text(std::string_view text) {
    if (text.empty()) return;
    text_sent_ = true;
    outbox_.text(text);
    sent_.text(text);
  }

  void send(const Delivery& d, Slot* owner) {
    const bool attachment = d.op == Delivery::Op::File || d.op == Delivery::Op::Voice;
    if (attachment && options_.say_mode && !finishing_) {
      // 6.4: they go with the last say block, when the reply ends.
      held_attachments_.push_back({d, owner ? owner->directive.ordinal : -1});
      return;
    }
    if (attachment && !d.sha256.empty()) {
      std::string id = std::to_string(static_cast<int>(d.op)) + ":" + d.sha256;
      if (!attachments_.insert(id).second) {
        if (owner) owner->entry.notes.push_back("duplicate-attachment: " + d.path);
        return;
      }
    }
    outbox_.deliver(d);
    sent_.deliver(d);
  }

  // mu_ held; s is final.
  void emit(Slot& s) {
    if (s.emitted) return;
    s.emitted = true;
    for (const Delivery& d : s.deliveries) send(d, &s);
    if (s.entry.status == ResultStatus::Ok && s.spec && s.spec->result_to == catalog::ResultTo::User &&
        !s.entry.message.empty()) {
      Delivery d;
      d.op = Delivery::Op::Text;
      d.text = s.entry.message;
      send(d, &s);
    }
  }

  // mu_ held: the handler's outcome is final.
  void complete(Slot& s, HandlerResult r, bool from_handler) {
    s.entry.status = r.status == HandlerResult::Status::Ok ? ResultStatus::Ok : ResultStatus::Error;
    s.entry.message = one_line(std::move(r.message));
    s.entry.result = std::move(r.result);
    if (from_handler && r.status == HandlerResult::Status::Ok) s.deliveries = std::move(r.deliveries);
    s.final = true;
    if (!s.holds && !s.deliveries.empty()) {
      // Not expected of a non-holding action: its deliveries go out now, after the text already queued.
      queue_.push_back(Item{{}, -1, std::move(s.deliveries)});
      s.deliveries.clear();
    }
    done_cv_.notify_all();
    flush();
  }

  // ---------------------------------------------------------------------------------- pool jobs
  // A pool job: runs this turn's ready directives until none is left for it.
  void drain() {
    std::unique_lock lock(mu_);
    ++active_;
    while (!shutting_down_) {
      int ordinal;
      bool serial = false;
      if (!ready_.empty()) {
        ordinal = ready_.front();
        ready_.pop_front();
      } else if (!serial_busy_ && !serial_.empty()) {
        ordinal = serial_.front();
        serial_.pop_front();
        serial_busy_ = true;
        serial = true;
      } else {
        break;
      }
      ++in_handler_;
      run(slots_[static_cast<std::size_t>(ordinal)], lock);
      --in_handler_;
      if (serial) serial_busy_ = false;
    }
    --jobs_;
    --active_;
    idle_cv_.notify_all();
    start_jobs();  // a serial directive may have become free for another job
  }

  HandlerResult call_handler(ActionHandler& handler, const Directive& directive, const std::stop_token& token,
                             std::stop_source slot_stop) {
    ActionContext context(ids_, store_, token, options_.now, options_.services);
    const std::stop_callback on_cancel(options_.cancel, [&slot_stop]() { slot_stop.request_stop(); });
    try {
      return handler.run(directive, context);
    } catch (const std::exception& e) {
      return HandlerResult::error(std::string("handler failed: ") + e.what());
    } catch (...) {
      return HandlerResult::error("handler failed");
    }
  }

  // Called with the lock held; releases it around the handler and the store. The key is begun.
  void run(Slot& s, std::unique_lock<std::mutex>& lock) {
    s.running = true;
    s.deadline = SteadyClock::now() + s.timeout;
    s.timer = pool_.call_at(s.deadline, [weak = weak_from_this(), o = s.directive.ordinal] {
      if (auto self = weak.lock()) self->on_deadline(o);
    });
    std::stop_token token = s.stop.get_token();
    std::stop_source slot_stop = s.stop;  // a handle: the callback must not touch the slot
    std::shared_ptr<ActionHandler> handler = s.handler;
    const Directive directive = s.directive;
    lock.unlock();
    HandlerResult r = call_handler(*handler, directive, token, std::move(slot_stop));
    lock.lock();
    s.running = false;
    s.returned = true;
    pool_.cancel(s.timer);
    if (s.timed_out) return;  // late: discarded; the time-out completed the key
    const std::string key = s.key;
    lock.unlock();
    (void)store_.once_complete(scope(), key, stored_result_json(r), options_.now());
    lock.lock();
    complete(s, std::move(r), true);
  }

  // On the pool's timer thread: a handler's time is up.
  void on_deadline(int ordinal) {
    std::unique_lock lock(mu_);
    if (shutting_down_) return;
    Slot& s = slots_[static_cast<std::size_t>(ordinal)];
    if (!s.running || s.returned || s.timed_out) return;
    ++active_;
    s.timed_out = true;
    s.stop.request_stop();
    HandlerResult r = HandlerResult::error("timed out after " + std::to_string(s.timeout.count()) + " ms");
    const std::string key = s.key;
    const std::string json = stored_result_json(r);
    complete(s, std::move(r), false);
    lock.unlock();
    (void)store_.once_complete(scope(), key, json, options_.now());
    lock.lock();
    --active_;
    idle_cv_.notify_all();
  }

  const catalog::Registry& registry_;
  const HandlerTable& handlers_;
  store::Store& store_;
  Outbox& outbox_;
  const TurnIds ids_;
  const ExecOptions options_;
  HandlerPool& pool_;
  const store::OnceKeys once_keys_;  // this turn's keys: key(ordinal, action, canonical args)
  const bool begin_here_;  // begins (and quick handlers) on the dispatching thread: the store is in memory

  mutable std::mutex mu_;
  // Separate wake-ups: finish() and the inline resolver wait for results, ~Executor for this turn's jobs.
  std::condition_variable done_cv_, idle_cv_;
  std::deque<Slot> slots_;  // by ordinal; a deque keeps references stable
  std::deque<Item> queue_;
  std::vector<int> to_begin_;  // found, key not begun yet
  std::deque<int> ready_;      // begun, waiting for a pool job
  std::deque<int> serial_;
  bool serial_busy_ = false;
  bool begin_job_ = false;      // a pool job begins keys (queued or running)
  std::size_t jobs_ = 0;        // drain jobs queued or running
  std::size_t in_handler_ = 0;  // drain jobs inside a handler
  std::size_t active_ = 0;      // jobs and time-outs running code that uses the store, handlers or outbox
  bool shutting_down_ = false;
  bool finished_ = false;
  std::optional<int> pending_inline_;
  std::uint64_t pending_inline_span_ = 0;
  std::string hidden_text_;
  bool say_gap_ = false;    // a say block ended: the line breaks joining it to the next are not text
  bool finishing_ = false;  // finish() is sending what was held
  struct HeldAttachment {
    Delivery delivery;
    int ordinal;  // the directive that made it, or -1
  };
  std::vector<HeldAttachment> held_attachments_;  // say mode (6.4)
  bool silent_ = false;                           // the reply turned silent: its text is no longer sent
  bool text_sent_ = false;                        // some reply text reached the outbox
  RecordingOutbox sent_;                          // what reached the outbox, as the report lists it
  std::set<std::string> attachments_;
};

Executor::Executor(const catalog::Registry& registry, const HandlerTable& handlers, store::Store& store,
                   Outbox& outbox, TurnIds ids, ExecOptions options)
    : pool_(options.pool ? std::move(options.pool)
                         : std::make_shared<HandlerPool>(std::max(1u, options.workers))),
      impl_(std::make_shared<Impl>(registry, handlers, store, outbox, std::move(ids), std::move(options),
                                   *pool_)) {}

Executor::~Executor() { impl_->shutdown(); }

parse::EventSink& Executor::sink() { return *impl_; }

std::function<std::optional<std::string>(const parse::DirectiveEvent&)> Executor::inline_resolver() {
  return [impl = impl_.get()](const parse::DirectiveEvent& e) { return impl->resolve_inline(e); };
}

void Executor::end_burst() { impl_->end_burst(); }
TurnReport Executor::finish() { return impl_->finish(); }
std::vector<std::string> Executor::model_lines() const { return impl_->model_lines(); }
std::string Executor::model_message() const {
  return results_message(impl_->model_lines(), impl_->max_results_bytes());
}
bool Executor::needs_model_call() const { return impl_->needs_model_call(); }

}  // namespace sigil::exec
