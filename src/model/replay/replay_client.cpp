#include <algorithm>
#include <atomic>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <optional>
#include <queue>
#include <random>
#include <sstream>
#include <thread>

#include "model/replay/wakeable_sleep.h"
#include "sigil/model/replay.h"
#include "sigil/text/ascii.h"

namespace sigil::model {

namespace json = boost::json;

namespace {

using text::ascii::is_markup_space;

bool is_word_byte(unsigned char c) {
  return c >= 0x80 || text::ascii::is_alnum(static_cast<char>(c)) || c == '_';
}
bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// "{{url}}" in a reply becomes the first http(s) URL of the user message it answers (a result line
// such as `publishWebPage: ok: published "x" at http://…`), or else its first word that starts with '/'
// (a relative link), so a canned reply can show a live link.
// "{{result}}" in a reply becomes what an action reported back: the rest of the first line of the user
// message it answers after ": ok: " (e.g. `getScheduledTasks: ok: 1 task: ...`), else nothing.
std::string with_result(const std::string& reply, std::string_view user) {
  static constexpr std::string_view placeholder = "{{result}}";
  const std::size_t at = reply.find(placeholder);
  if (at == std::string::npos) return reply;
  std::string_view result;
  if (const std::size_t ok = user.find(": ok: "); ok != std::string_view::npos) {
    result = user.substr(ok + 6);
    result = result.substr(0, result.find('\n'));
  }
  std::string out = reply;
  out.replace(at, placeholder.size(), result);
  return out;
}

std::string with_url(const std::string& reply, std::string_view user) {
  static constexpr std::string_view placeholder = "{{url}}";
  const std::size_t at = reply.find(placeholder);
  if (at == std::string::npos) return reply;
  std::size_t start = user.find("http://");
  if (const std::size_t s = user.find("https://"); s < start) start = s;
  if (start == std::string_view::npos) {
    for (std::size_t i = 0; i + 1 < user.size(); ++i) {
      if (user[i + 1] == '/' && is_markup_space(user[i])) {
        start = i + 1;
        break;
      }
    }
  }
  std::string url;
  if (start != std::string_view::npos) {
    std::size_t end = start;
    while (end < user.size() && !is_markup_space(user[end]) && user[end] != ';' && user[end] != '"') ++end;
    url = std::string(user.substr(start, end - start));
  }
  std::string out = reply;
  out.replace(at, placeholder.size(), url);
  return out;
}

[[noreturn]] void fail(const std::string& path, std::size_t line, const std::string& why) {
  throw std::runtime_error("replay file " + path + " line " + std::to_string(line) + ": " + why);
}

std::string read_string(const json::object& o, std::string_view key, const std::string& path,
                        std::size_t line, bool required) {
  auto it = o.find(key);
  if (it == o.end()) {
    if (required) fail(path, line, "missing \"" + std::string(key) + "\"");
    return {};
  }
  if (!it->value().is_string()) fail(path, line, "\"" + std::string(key) + "\" must be a string");
  return std::string(it->value().get_string());
}

ReplayEntry parse_entry(std::string_view text, const std::string& path, std::size_t line) {
  json::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec) fail(path, line, "not JSON (" + ec.message() + ")");
  if (!value.is_object()) fail(path, line, "not a JSON object");
  const json::object& o = value.get_object();
  ReplayEntry entry;
  entry.reply = read_string(o, "reply", path, line, true);
  entry.has_match = o.contains("match");
  entry.match = read_string(o, "match", path, line, false);
  entry.error = read_string(o, "error", path, line, false);
  if (auto it = o.find("tool_calls"); it != o.end()) {
    if (!it->value().is_array()) fail(path, line, "\"tool_calls\" must be an array");
    for (const json::value& c : it->value().get_array()) {
      if (!c.is_object()) fail(path, line, "each tool call must be an object");
      const json::object& call = c.get_object();
      ToolCall tool;
      tool.id = read_string(call, "id", path, line, false);
      if (tool.id.empty())
        tool.id = "call_" + std::to_string(line) + "_" + std::to_string(entry.tool_calls.size());
      tool.name = read_string(call, "name", path, line, true);
      if (auto a = call.find("arguments"); a != call.end()) {
        tool.arguments_json =
            a->value().is_string() ? std::string(a->value().get_string()) : json::serialize(a->value());
      } else {
        tool.arguments_json = "{}";
      }
      entry.tool_calls.push_back(std::move(tool));
    }
  }
  entry.finish = entry.tool_calls.empty() ? FinishReason::stop : FinishReason::tool_calls;
  if (o.contains("finish")) {
    std::string finish = read_string(o, "finish", path, line, false);
    if (finish == "stop") {
      entry.finish = FinishReason::stop;
    } else if (finish == "length") {
      entry.finish = FinishReason::length;
    } else if (finish == "content_filter") {
      entry.finish = FinishReason::content_filter;
    } else if (finish == "tool_calls") {
      entry.finish = FinishReason::tool_calls;
    } else {
      fail(path, line,
           "\"finish\" must be stop, length, content_filter or tool_calls, not \"" + finish + "\"");
    }
  }
  return entry;
}

// ------------------------------------------------------------------------------------------------
// One call's progress. Only the timer thread touches everything but `cancelled`.
struct CallState {
  std::shared_ptr<StreamSink> sink;
  std::vector<std::string> tokens;
  std::size_t next = 0;
  // Shared with the client: a sink may destroy the client while the timer thread still finishes this call.
  std::shared_ptr<const std::vector<ReplayEntry>> entries;
  const ReplayEntry* entry = nullptr;  // into *entries
  std::atomic<bool> cancelled{false};
  bool finished = false;
  std::mt19937_64 rng;
};

// The one timer thread of a client: a queue ordered by due time, FIFO among equal times.
class Scheduler : public std::enable_shared_from_this<Scheduler> {
 public:
  using Clock = std::chrono::steady_clock;

  Scheduler(double tokens_per_second, double jitter) : jitter_(std::clamp(jitter, 0.0, 1.0)) {
    if (tokens_per_second > 0) gap_ = std::chrono::duration<double>(1.0 / tokens_per_second);
  }
  ~Scheduler() {
    if (thread_.joinable()) thread_.join();
  }

  // The thread keeps the scheduler alive until it leaves run(), even if the client dies on it.
  void launch() {
    thread_ = std::thread([self = shared_from_this()] { self->run(); });
  }

  void schedule(std::shared_ptr<CallState> call, Clock::time_point due) {
    bool wake = false;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;  // the drain delivers on_done(cancelled) to every open call
      queue_.push(Entry{due, seq_++, std::move(call)});
      // Only a sleeper that would oversleep this entry is woken: the timer thread's own schedules (one
      // per token) find it awake and cost no system call.
      wake = due < sleeping_until_;
    }
    if (wake) sleep_.wake();
  }

  Clock::duration gap(CallState& call) {
    if (gap_.count() <= 0) return Clock::duration::zero();
    double factor = 1.0;
    if (jitter_ > 0) factor += std::uniform_real_distribution<double>(-jitter_, jitter_)(call.rng);
    return std::chrono::duration_cast<Clock::duration>(gap_ * factor);
  }

  // Cancels every open call (each still gets on_done) and joins the thread. Idempotent.
  void shutdown() {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    sleep_.wake();
    // A sink may drop the last reference to the client on the timer thread itself: then detach; the
    // thread drains the queue and leaves run() on its own.
    if (thread_.get_id() == std::this_thread::get_id()) {
      thread_.detach();
    } else if (thread_.joinable()) {
      thread_.join();
    }
  }

 private:
  struct Entry {
    Clock::time_point due;
    std::uint64_t seq;
    std::shared_ptr<CallState> call;
    bool operator>(const Entry& other) const { return due != other.due ? due > other.due : seq > other.seq; }
  };

  void run() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      // A copy: pushes from other threads may move the queue's storage while we sleep.
      const std::optional<Clock::time_point> due =
          queue_.empty() ? std::nullopt : std::optional<Clock::time_point>(queue_.top().due);
      if (!due || *due > Clock::now()) {
        const std::uint32_t ticket = sleep_.ticket();  // before the lock goes: no wake-up is lost
        sleeping_until_ = due.value_or(Clock::time_point::max());
        lock.unlock();
        sleep_.sleep_until(ticket, due);
        lock.lock();
        sleeping_until_ = Clock::time_point::min();  // awake: nobody need wake it
        continue;
      }
      std::shared_ptr<CallState> call = queue_.top().call;
      queue_.pop();
      lock.unlock();  // sinks may call cancel() or start(), which lock
      step(*call, call);
      lock.lock();
    }
    while (!queue_.empty()) {
      std::shared_ptr<CallState> call = queue_.top().call;
      queue_.pop();
      lock.unlock();
      finish(*call, Outcome{FinishReason::cancelled, {}, 1, 0, {}});
      lock.lock();
    }
  }

  void finish(CallState& call, const Outcome& outcome) {
    if (call.finished) return;
    call.finished = true;
    call.sink->on_done(outcome);
    call.sink.reset();
  }

  void step(CallState& call, const std::shared_ptr<CallState>& self) {
    if (call.finished) return;  // a stale entry (e.g. the regular tick after a cancel)
    if (call.cancelled.load()) {
      finish(call, Outcome{FinishReason::cancelled, {}, 1, 0, {}});
      return;
    }
    if (call.next < call.tokens.size()) {
      call.sink->on_text(call.tokens[call.next++]);
      if (call.next < call.tokens.size() || !call.entry->tool_calls.empty()) {
        schedule(self, Clock::now() + gap(call));
        return;
      }
    }
    for (const ToolCall& tool : call.entry->tool_calls) {
      if (call.cancelled.load()) break;
      call.sink->on_tool_call(tool);
    }
    if (call.cancelled.load()) {
      finish(call, Outcome{FinishReason::cancelled, {}, 1, 0, {}});
    } else if (!call.entry->error.empty()) {
      finish(call, Outcome{FinishReason::error, call.entry->error, 1, 0, {}});
    } else {
      finish(call, Outcome{call.entry->finish, {}, 1, 0, {}});
    }
  }

  std::mutex mutex_;
  replay::WakeableSleep sleep_;
  // mutex_ held: the deadline the timer thread sleeps to (max: none), or min while it is awake.
  Clock::time_point sleeping_until_ = Clock::time_point::min();
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  std::uint64_t seq_ = 0;
  bool stopping_ = false;
  std::chrono::duration<double> gap_{0};
  double jitter_;
  std::thread thread_;
};

class ReplayCall final : public Call {
 public:
  ReplayCall(std::shared_ptr<CallState> state, std::weak_ptr<Scheduler> scheduler)
      : state_(std::move(state)), scheduler_(std::move(scheduler)) {}
  void cancel() override {
    if (state_->cancelled.exchange(true)) return;
    if (auto scheduler = scheduler_.lock()) scheduler->schedule(state_, Scheduler::Clock::now());
  }

 private:
  std::shared_ptr<CallState> state_;
  std::weak_ptr<Scheduler> scheduler_;
};

class ReplayClient final : public ModelClient {
 public:
  ReplayClient(ReplayConfig config, std::vector<ReplayEntry> entries)
      : config_(std::move(config)),
        entries_(std::make_shared<const std::vector<ReplayEntry>>(std::move(entries))),
        scheduler_(std::make_shared<Scheduler>(config_.tokens_per_second, config_.jitter)) {
    for (std::size_t i = 0; i < entries_->size(); ++i) {
      if (!(*entries_)[i].has_match) unmatched_.push_back(i);
    }
    if (unmatched_.empty()) {
      for (std::size_t i = 0; i < entries_->size(); ++i) unmatched_.push_back(i);
    }
    scheduler_->launch();
  }

  ~ReplayClient() override { scheduler_->shutdown(); }

  std::shared_ptr<Call> start(ChatRequest request, std::shared_ptr<StreamSink> sink) override {
    const ReplayEntry& entry = choose(last_user_message(request));
    auto state = std::make_shared<CallState>();
    std::uint64_t n = calls_.fetch_add(1);
    state->sink = std::move(sink);
    state->entries = entries_;
    state->entry = &entry;
    state->tokens = split_tokens(
        with_result(with_url(entry.reply, last_user_message(request)), last_user_message(request)),
        config_.split, config_.seed + n);
    state->rng.seed(config_.seed ^ (n * 0x9E3779B97F4A7C15ULL));
    auto due = Scheduler::Clock::now() + scheduler_->gap(*state);
    auto call = std::make_shared<ReplayCall>(state, scheduler_);
    scheduler_->schedule(std::move(state), due);
    return call;
  }

  std::string describe() const override {
    return "replay " + config_.path + " (" + std::to_string(entries_->size()) + " replies)";
  }

 private:
  const ReplayEntry& choose(std::string_view user) {
    for (const ReplayEntry& entry : *entries_) {
      if (entry.has_match && text::ascii::icontains(user, entry.match)) return entry;
    }
    return (*entries_)[unmatched_[next_.fetch_add(1) % unmatched_.size()]];
  }

  ReplayConfig config_;
  std::shared_ptr<const std::vector<ReplayEntry>> entries_;
  std::vector<std::size_t> unmatched_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::uint64_t> calls_{0};
  std::shared_ptr<Scheduler> scheduler_;
};

}  // namespace

namespace {

std::vector<ReplayEntry> load_replay_stream(std::istream& in, const std::string& path) {
  std::vector<ReplayEntry> entries;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    entries.push_back(parse_entry(line, path, number));
  }
  return entries;
}

}  // namespace

std::vector<ReplayEntry> load_replay_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("replay file " + path + ": cannot open it");
  return load_replay_stream(in, path);
}

std::vector<ReplayEntry> load_replay_text(std::string_view text, const std::string& name) {
  std::istringstream in{std::string(text)};
  return load_replay_stream(in, name);
}

std::vector<std::string> split_tokens(std::string_view reply, TokenSplit split, std::uint64_t seed) {
  std::vector<std::string> words;
  std::size_t i = 0;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(reply[k]); };
  while (i < reply.size()) {
    std::size_t start = i;
    while (i < reply.size() && is_markup_space(reply[i])) ++i;
    if (i < reply.size()) {
      if (is_word_byte(byte(i))) {
        while (i < reply.size() && is_word_byte(byte(i))) ++i;
      } else {
        ++i;  // one ASCII punctuation character: markup such as <, [, {, " arrives alone
      }
    }
    words.emplace_back(reply.substr(start, i - start));
  }
  if (split == TokenSplit::words) return words;

  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> length(1, 3);
  std::vector<std::string> pieces;
  for (const std::string& word : words) {
    std::size_t k = 0;
    while (k < word.size()) {
      std::size_t end = std::min(word.size(), k + static_cast<std::size_t>(length(rng)));
      // Never cut a UTF-8 sequence: the model APIs deliver whole characters in each delta.
      while (end < word.size() && is_continuation(static_cast<unsigned char>(word[end]))) ++end;
      pieces.push_back(word.substr(k, end - k));
      k = end;
    }
  }
  return pieces;
}

std::unique_ptr<ModelClient> make_replay_client(ReplayConfig config) {
  std::vector<ReplayEntry> entries =
      config.text.empty() ? load_replay_file(config.path) : load_replay_text(config.text, config.path);
  if (entries.empty()) throw std::runtime_error("replay file " + config.path + ": holds no replies");
  return std::make_unique<ReplayClient>(std::move(config), std::move(entries));
}

}  // namespace sigil::model
