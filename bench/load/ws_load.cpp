// sigil_load: the gateway under load (issue 4, "Load"): N concurrent WebSocket conversations with the
// replay model at R tokens/s for D seconds; reports errors, the latency the gateway adds per token, the
// server's memory per idle conversation and its CPU time.
//
// How it measures (README "Load"):
// - Two processes. main() forks before any thread exists: the PARENT is the server (SqliteStore in a temp
//   folder, the builtin registry and handlers, the replay model, Agent, HttpServer on 127.0.0.1:0); the
//   CHILD runs every WebSocket client on its own io threads. So the server's RSS and CPU time are the
//   server's alone, and the clients compete with it for the cores the way real clients on the same machine
//   would (on a 2-core machine this is a pessimistic set-up: the clients' work is load the server does not
//   have in production).
// - Added latency per token: the replay client is wrapped in a ModelClient whose sink rewrites each "@" of
//   the recorded reply into "t<CLOCK_MONOTONIC ns>z" at the moment the model hands the token to the agent.
//   The client parses every stamp from the `text` frames it reads and records now - stamp (steady_clock is
//   CLOCK_MONOTONIC, shared by both processes). That is the parser + executor + hub + WebSocket write +
//   client read path. Model pacing itself is not in it; how far the model's timer fell behind is reported
//   separately (model_stretch: the mean reply duration over the nominal one), and so is the rate of every
//   token the model wrote, markup included (model_tokens_per_conversation_second): a directive's tokens
//   take the model's time but reach the client as no text token, so with directives the delivered rate
//   stays below the model's by their share even when the gateway keeps pace.
// - Every Mth recorded reply carries a react and a remember, so the executor and the delivery path are on
//   the measured path too. Markup reaching the client ('<' or '[' in a text frame) counts as an error.
// - Memory: the server's VmRSS and glibc's heap in use (mallinfo2) after start, after half of the
//   conversations connected (hello received), after all of them, after the load (all N still open, idle),
//   and after the clients closed. Memory per idle conversation = (all - half) / (N - half): the marginal
//   cost of one more open conversation, free of one-time costs (thread stacks, caches, first allocations).
//
// The exit status is 0 only when no error was seen, every turn ended and latency samples were taken; the
// ctest `load.smoke` runs a tiny load with it.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "load_common.h"
#include "sigil/actions/builtin_handlers.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/registry.h"
#include "sigil/model/client.h"
#include "sigil/model/replay.h"
#include "sigil/server/http_server.h"
#include "sigil/store/sqlite.h"

namespace sigil_load {
namespace {

// ================================================================================================ clients
struct Shared {
  const Options& opt;
  tcp::endpoint endpoint;
  std::atomic<int> connected{0};  // hello received
  std::atomic<int> failed{0};     // could not connect
  std::atomic<int> active{0};     // conversations still in the load phase
  std::atomic<int> closed{0};
  std::atomic<bool> loading{false};
  Clock::time_point deadline;
  std::mutex mu;
  std::condition_variable cv;
  explicit Shared(const Options& o) : opt(o) {}
  void notify() {
    std::lock_guard lock(mu);
    cv.notify_all();
  }
};

struct ConnStats {
  std::uint64_t turns_started = 0, turns_ended = 0, tokens = 0, text_frames = 0, reactions = 0,
                deliveries = 0, model_calls = 0;
  std::uint64_t error_frames = 0, markup_seen = 0, bad_end = 0, token_mismatch = 0, protocol_errors = 0,
                connection_lost = 0;
  std::vector<std::int64_t> latency_ns;
  // From the first message sent to the last `end` read: the conversation's own time under load, without
  // the stagger before it and the wait for the slowest conversation after it.
  Clock::time_point first_sent{}, last_end{};
};
// Every counter of ConnStats: the run's totals are their sums over the connections.
constexpr std::uint64_t ConnStats::*kConnCounters[] = {
    &ConnStats::turns_started,  &ConnStats::turns_ended,    &ConnStats::tokens,
    &ConnStats::text_frames,    &ConnStats::reactions,      &ConnStats::deliveries,
    &ConnStats::model_calls,    &ConnStats::error_frames,   &ConnStats::markup_seen,
    &ConnStats::bad_end,        &ConnStats::token_mismatch, &ConnStats::protocol_errors,
    &ConnStats::connection_lost};

class Conn : public std::enable_shared_from_this<Conn> {
 public:
  Conn(asio::io_context& ioc, Shared& shared, int index)
      : shared_(shared),
        name_("load-" + std::to_string(index)),
        ws_(asio::make_strand(ioc)),
        timer_(ws_.get_executor()) {}

  // Starts connecting; `done` runs (on the strand) once the hello arrived or the connection failed.
  void connect(std::function<void()> done) {
    on_connected_ = std::move(done);
    beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(60));
    beast::get_lowest_layer(ws_).async_connect(
        shared_.endpoint, [self = shared_from_this()](beast::error_code ec) { self->on_connect(ec); });
  }

  // Begins the load phase after `delay`.
  void begin(Clock::duration delay) {
    asio::post(ws_.get_executor(), [self = shared_from_this(), delay] {
      if (!self->open_) {
        self->leave_load();
        return;
      }
      self->timer_.expires_after(delay);
      self->timer_.async_wait([self](beast::error_code ec) {
        if (!ec) self->send_message();
      });
    });
  }

  void close() {
    asio::post(ws_.get_executor(), [self = shared_from_this()] {
      self->closing_ = true;
      if (!self->open_) {
        self->count_closed();
        return;
      }
      self->ws_.async_close(websocket::close_code::normal,
                            [self](beast::error_code) { self->count_closed(); });
    });
  }

  bool in_turn() const { return in_turn_; }  // read after the io threads stopped
  ConnStats& stats() { return stats_; }

 private:
  void on_connect(beast::error_code ec) {
    if (ec) return connect_failed("connect", ec);
    beast::get_lowest_layer(ws_).expires_never();
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
    ws_.read_message_max(std::size_t{1} << 20);
    const std::string host = "127.0.0.1:" + std::to_string(shared_.endpoint.port());
    ws_.async_handshake(host, "/v1/ws?conversation=" + name_ + "&user=" + name_,
                        [self = shared_from_this()](beast::error_code ec) {
                          if (ec) return self->connect_failed("handshake", ec);
                          self->read();
                        });
  }

  void connect_failed(const char* what, beast::error_code ec) {
    if (shared_.failed.fetch_add(1) < 5)
      std::cerr << "sigil_load: " << name_ << ": " << what << " failed: " << ec.message() << "\n";
    finish_connecting();
  }

  void finish_connecting() {
    if (auto done = std::move(on_connected_)) {
      on_connected_ = nullptr;
      done();
    }
  }

  void read() {
    ws_.async_read(buffer_,
                   [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    const std::int64_t now = mono_ns();
    if (ec) {
      const bool was_open = open_;
      open_ = false;
      if (!was_open && !hello_) {
        connect_failed("read before hello", ec);
        return;
      }
      if (!closing_) {
        ++stats_.connection_lost;
        if (stats_.connection_lost == 1 && shared_.failed.load() < 5)
          std::cerr << "sigil_load: " << name_ << ": connection lost: " << ec.message() << "\n";
        if (in_turn_ || in_load_) leave_load();
      }
      return;
    }
    const auto data = buffer_.cdata();
    handle(std::string_view(static_cast<const char*>(data.data()), data.size()), now);
    buffer_.consume(buffer_.size());
    // An idle connection keeps no large read buffer around.
    if (buffer_.capacity() > 16384) buffer_.shrink_to_fit();
    read();
  }

  void handle(std::string_view frame, std::int64_t now) {
    unsigned char scratch[4096];
    json::monotonic_resource mr(scratch, sizeof scratch);
    json::error_code jec;
    json::value v = json::parse(frame, jec, &mr);
    if (jec || !v.is_object()) return protocol_error("a frame that is not a JSON object");
    const json::object& o = v.get_object();
    const json::value* type = o.if_contains("type");
    if (type == nullptr || !type->is_string()) return protocol_error("a frame without a type");
    const std::string_view t = type->get_string();
    if (t == "hello") {
      if (hello_) return protocol_error("a second hello");
      hello_ = true;
      open_ = true;
      shared_.connected.fetch_add(1);
      finish_connecting();
      return;
    }
    if (t == "error") {
      ++stats_.error_frames;
      if (stats_.error_frames == 1)
        std::cerr << "sigil_load: " << name_ << ": error frame: " << frame << "\n";
      return;
    }
    const json::value* turn = o.if_contains("turn");
    const std::string_view turn_id =
        turn != nullptr && turn->is_string() ? std::string_view(turn->get_string()) : "";
    if (t == "turn") {
      const json::value* cid = o.if_contains("client_id");
      if (!in_turn_ || !turn_id_.empty() || cid == nullptr || !cid->is_string() ||
          cid->get_string() != client_id_)
        return protocol_error("a turn frame that is not the one this client started");
      turn_id_ = turn_id;
      return;
    }
    if (turn_id.empty() || turn_id != turn_id_) return protocol_error("an event for an unknown turn");
    if (t == "text") {
      ++stats_.text_frames;
      const json::value* text = o.if_contains("text");
      if (text == nullptr || !text->is_string()) return protocol_error("a text frame without text");
      const std::string_view piece = text->get_string();
      if (piece.find_first_of("<[") != std::string_view::npos) {
        if (stats_.markup_seen++ == 0)
          std::cerr << "sigil_load: " << name_ << ": markup seen: " << piece << "\n";
      }
      take_stamps(piece, now);
    } else if (t == "delivery") {
      ++stats_.deliveries;
      const json::value* op = o.if_contains("op");
      if (op != nullptr && op->is_string() && op->get_string() == "reaction") ++stats_.reactions;
    } else if (t == "model_call") {
      ++stats_.model_calls;
    } else if (t == "end") {
      const json::value* status = o.if_contains("status");
      const json::value* diagnostics = o.if_contains("diagnostics");
      const bool ok = status != nullptr && status->is_string() && status->get_string() == "ok" &&
                      diagnostics != nullptr && diagnostics->is_array() && diagnostics->get_array().empty();
      if (!ok && stats_.bad_end++ == 0)
        std::cerr << "sigil_load: " << name_ << ": turn ended badly: " << frame << "\n";
      if (turn_tokens_ != static_cast<std::uint64_t>(shared_.opt.reply_tokens) || !carry_.empty()) {
        if (stats_.token_mismatch++ == 0)
          std::cerr << "sigil_load: " << name_ << ": " << turn_tokens_ << " stamps in a turn of "
                    << shared_.opt.reply_tokens << " tokens\n";
      }
      ++stats_.turns_ended;
      stats_.last_end = Clock::now();
      in_turn_ = false;
      turn_id_.clear();
      carry_.clear();
      next_turn();
    } else {
      return protocol_error("an unknown frame type");
    }
  }

  // Pieces may cut a stamp anywhere: an unfinished "t<digits>" is carried to the next piece.
  void take_stamps(std::string_view piece, std::int64_t now) {
    std::string_view s = piece;
    if (!carry_.empty()) {
      carry_.append(piece);
      s = carry_;
    }
    std::size_t keep_from = std::string_view::npos;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] != 't') continue;
      std::size_t j = i + 1;
      std::int64_t value = 0;
      while (j < s.size() && s[j] >= '0' && s[j] <= '9') value = value * 10 + (s[j++] - '0');
      if (j == s.size()) {
        keep_from = i;
        break;
      }
      if (s[j] == 'z' && j > i + 1) {
        stats_.latency_ns.push_back(now - value);
        ++stats_.tokens;
        ++turn_tokens_;
      }
      i = j - 1;
    }
    std::string rest = keep_from == std::string_view::npos ? std::string() : std::string(s.substr(keep_from));
    carry_ = std::move(rest);
  }

  void protocol_error(const char* what) {
    if (stats_.protocol_errors++ == 0)
      std::cerr << "sigil_load: " << name_ << ": protocol error: " << what << "\n";
  }

  void next_turn() {
    if (!shared_.loading.load() || Clock::now() >= shared_.deadline) {
      leave_load();
      return;
    }
    if (shared_.opt.pause_ms > 0) {
      timer_.expires_after(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double, std::milli>(shared_.opt.pause_ms)));
      timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (!ec) self->send_message();
      });
    } else {
      send_message();
    }
  }

  void send_message() {
    if (!open_ || Clock::now() >= shared_.deadline) {
      leave_load();
      return;
    }
    in_load_ = true;
    ++sent_;
    client_id_ = name_ + "-" + std::to_string(sent_);
    out_ = json::serialize(json::object{
        {"type", "message"}, {"text", "message " + std::to_string(sent_)}, {"client_id", client_id_}});
    in_turn_ = true;
    turn_tokens_ = 0;
    if (stats_.turns_started == 0) stats_.first_sent = Clock::now();
    ++stats_.turns_started;
    ws_.async_write(asio::buffer(out_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec && !self->closing_) {
        ++self->stats_.connection_lost;
        self->leave_load();
      }
    });
  }

  // This conversation sends no more messages.
  void leave_load() {
    if (left_) return;
    left_ = true;
    in_load_ = false;
    if (shared_.active.fetch_sub(1) == 1) shared_.notify();
  }

  void count_closed() {
    if (shared_.closed.fetch_add(1) + 1 == shared_.opt.conversations) shared_.notify();
  }

  Shared& shared_;
  std::string name_;
  websocket::stream<beast::tcp_stream> ws_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_{4096};
  std::function<void()> on_connected_;
  bool hello_ = false, open_ = false, closing_ = false, in_turn_ = false, in_load_ = false, left_ = false;
  std::uint64_t sent_ = 0, turn_tokens_ = 0;
  std::string client_id_, turn_id_, carry_, out_;
  ConnStats stats_;
};

template <class Pred>
bool wait_for(Shared& shared, Clock::duration limit, Pred pred) {
  std::unique_lock lock(shared.mu);
  return shared.cv.wait_for(lock, limit, pred);
}

int percentile_index(std::size_t n, double p) {
  if (n == 0) return 0;
  const double idx = p * static_cast<double>(n - 1);
  return static_cast<int>(std::llround(idx));
}

// Runs the clients; returns their JSON part of the report.

}  // namespace

int run_clients(const Options& o, LinePipe& pipe) {
  std::optional<std::string> first = pipe.receive();
  if (!first || first->rfind("port ", 0) != 0) return 2;  // the server said why
  Shared shared(o);
  shared.endpoint = tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                                  static_cast<unsigned short>(std::stoi(first->substr(5))));
  asio::io_context ioc;
  auto guard = asio::make_work_guard(ioc);
  std::vector<std::thread> threads;
  for (int i = 0; i < std::max(1, o.client_threads); ++i) threads.emplace_back([&ioc] { ioc.run(); });

  std::vector<std::shared_ptr<Conn>> conns;
  conns.reserve(static_cast<std::size_t>(o.conversations));
  for (int i = 0; i < o.conversations; ++i) conns.push_back(std::make_shared<Conn>(ioc, shared, i));

  // At most max_connecting handshakes at a time: a burst of a thousand SYNs would only measure the
  // listen backlog.
  std::mutex cmu;
  std::size_t next_conn = 0;
  std::function<void()> connect_next;
  int launched_upto = 0;
  connect_next = [&] {
    std::size_t i;
    {
      std::lock_guard lock(cmu);
      if (next_conn >= static_cast<std::size_t>(launched_upto)) return;
      i = next_conn++;
    }
    conns[i]->connect([&] {
      connect_next();
      shared.notify();
    });
  };
  auto connect_range = [&](int upto) {
    {
      std::lock_guard lock(cmu);
      launched_upto = upto;
    }
    for (int k = 0; k < o.max_connecting; ++k) connect_next();
    const auto limit = std::chrono::seconds(120);
    return wait_for(shared, limit, [&] { return shared.connected.load() + shared.failed.load() >= upto; });
  };

  const auto t_connect = Clock::now();
  const int half = o.conversations / 2;
  bool ok = true;
  ok = ok && connect_range(half);
  ok = ok && pipe.send("half " + std::to_string(shared.connected.load())) && pipe.receive().has_value();
  ok = ok && connect_range(o.conversations);
  const double connect_s = std::chrono::duration<double>(Clock::now() - t_connect).count();
  ok = ok && pipe.send("connected " + std::to_string(shared.connected.load())) && pipe.receive().has_value();
  if (!ok) std::cerr << "sigil_load: clients: connecting timed out or the server went away\n";

  // Load: every conversation sends, reads its reply to `end`, sends the next, until the deadline. First
  // messages are spread over `stagger` so the conversations' tokens do not all fall due at one instant.
  const double reply_s = o.tokens_per_second > 0 ? o.reply_tokens / o.tokens_per_second : 0.1;
  const double stagger = o.stagger_s >= 0 ? o.stagger_s : reply_s;
  shared.active.store(o.conversations);
  const double cpu_start = cpu_seconds(RUSAGE_SELF);
  const auto t_load = Clock::now();
  shared.deadline =
      t_load + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  shared.loading.store(ok);
  for (int i = 0; i < o.conversations; ++i) {
    const double at = o.conversations > 1 ? stagger * i / o.conversations : 0;
    conns[static_cast<std::size_t>(i)]->begin(
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(at)));
  }
  const auto drain_limit =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds + o.drain_s));
  const bool drained = wait_for(shared, drain_limit, [&] { return shared.active.load() == 0; });
  const double load_s = std::chrono::duration<double>(Clock::now() - t_load).count();
  const double client_cpu = cpu_seconds(RUSAGE_SELF) - cpu_start;
  if (!drained)
    std::cerr << "sigil_load: clients: turns still open " << o.drain_s << " s after the load phase\n";

  ok = pipe.send("idle") && pipe.receive().has_value() && ok;
  for (auto& c : conns) c->close();
  wait_for(shared, std::chrono::seconds(60), [&] { return shared.closed.load() >= o.conversations; });
  ok = pipe.send("closed") && pipe.receive().has_value() && ok;
  guard.reset();
  ioc.stop();
  for (auto& t : threads) t.join();

  ConnStats total;
  std::uint64_t not_ended = 0;
  double active_s = 0;
  for (auto& c : conns) {
    ConnStats& s = c->stats();
    if (s.turns_ended > 0) active_s += std::chrono::duration<double>(s.last_end - s.first_sent).count();
    for (const auto counter : kConnCounters) total.*counter += s.*counter;
    if (c->in_turn()) ++not_ended;
    total.latency_ns.insert(total.latency_ns.end(), s.latency_ns.begin(), s.latency_ns.end());
    std::vector<std::int64_t>().swap(s.latency_ns);
  }
  std::vector<std::int64_t>& lat = total.latency_ns;
  std::sort(lat.begin(), lat.end());
  auto us = [&](double p) {
    return lat.empty()
               ? 0.0
               : static_cast<double>(lat[static_cast<std::size_t>(percentile_index(lat.size(), p))]) / 1e3;
  };
  double mean = 0;
  for (std::int64_t x : lat) mean += static_cast<double>(x);
  if (!lat.empty()) mean /= static_cast<double>(lat.size()) * 1e3;

  const std::uint64_t connect_failures = static_cast<std::uint64_t>(shared.failed.load());
  const std::uint64_t errors = connect_failures + total.error_frames + total.markup_seen + total.bad_end +
                               total.token_mismatch + total.protocol_errors + total.connection_lost +
                               not_ended;
  json::object r;
  r["connected"] = shared.connected.load();
  r["connect_seconds"] = connect_s;
  r["load_seconds"] = load_s;
  r["turns_started"] = total.turns_started;
  r["turns_ended"] = total.turns_ended;
  r["tokens_received"] = total.tokens;
  r["tokens_per_conversation_second"] =
      o.conversations > 0 && load_s > 0 ? static_cast<double>(total.tokens) / o.conversations / load_s : 0.0;
  // The same over each conversation's own time (first message to last end): the pace while it chatted.
  r["tokens_per_active_second"] = active_s > 0 ? static_cast<double>(total.tokens) / active_s : 0.0;
  r["text_frames"] = total.text_frames;
  r["deliveries"] = total.deliveries;
  r["reactions"] = total.reactions;
  r["model_calls_seen"] = total.model_calls;
  r["errors"] = json::object{{"total", errors},
                             {"connect_failures", connect_failures},
                             {"connections_lost", total.connection_lost},
                             {"error_frames", total.error_frames},
                             {"markup_seen", total.markup_seen},
                             {"turns_not_ok", total.bad_end},
                             {"turns_not_ended", not_ended},
                             {"token_count_mismatch", total.token_mismatch},
                             {"protocol_errors", total.protocol_errors}};
  r["latency_us"] = json::object{{"samples", lat.size()},
                                 {"mean", mean},
                                 {"p50", us(0.50)},
                                 {"p90", us(0.90)},
                                 {"p99", us(0.99)},
                                 {"p999", us(0.999)},
                                 {"max", lat.empty() ? 0.0 : static_cast<double>(lat.back()) / 1e3}};
  r["client_cpu_seconds"] = client_cpu;
  pipe.send("result " + json::serialize(r));
  return ok && drained ? 0 : 1;
}

}  // namespace sigil_load

using namespace sigil_load;  // NOLINT(google-build-using-namespace): main is this program's only user

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"sigil_load: N concurrent WebSocket conversations against an in-process gateway"};
  app.add_option("--conversations", o.conversations, "Concurrent WebSocket conversations")
      ->check(CLI::PositiveNumber);
  app.add_option("--seconds", o.seconds, "Length of the load phase")->check(CLI::PositiveNumber);
  app.add_option("--tokens-per-second", o.tokens_per_second, "Replay model speed per conversation");
  app.add_option("--reply-tokens", o.reply_tokens, "Tokens (timestamped words) per reply")
      ->check(CLI::PositiveNumber);
  app.add_option("--directive-every", o.directive_every, "Every Nth reply reacts and remembers (0: never)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--pause-ms", o.pause_ms, "Pause between a reply's end and the next message");
  app.add_option("--stagger", o.stagger_s,
                 "Seconds over which first messages are spread (default: one reply)");
  app.add_option("--client-threads", o.client_threads, "io threads of the client process")
      ->check(CLI::PositiveNumber);
  app.add_option("--model-threads", o.model_threads, "Replay clients (timer threads) for the calls")
      ->check(CLI::PositiveNumber);
  app.add_option("--server-threads", o.server_threads, "HttpServerOptions::threads")
      ->check(CLI::PositiveNumber);
  app.add_option("--finish-threads", o.finish_threads, "AgentConfig::finish_threads")
      ->check(CLI::PositiveNumber);
  app.add_option("--frame-tick-us", o.frame_tick_us,
                 "The gateway's write tick in microseconds (HttpServerOptions::frame_tick; 0: none)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--jitter", o.jitter, "Replay jitter (0..1)");
  app.add_option("--drain", o.drain_s, "Seconds open turns may take to end after the load phase");
  app.add_option("--store-dir", o.store_dir,
                 "Where the temporary SQLite store goes (default $TMPDIR or /tmp)");
  app.add_flag("--json", o.json_only, "Print only the JSON report");
  CLI11_PARSE(app, argc, argv);

  // Two thousand sockets between the two processes: lift the soft descriptor limit to the hard one.
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < static_cast<rlim_t>(o.conversations) + 256) {
    std::cerr << "sigil_load: " << o.conversations << " conversations need more open files than the limit ("
              << lim.rlim_cur << ")\n";
    return 2;
  }
  ::signal(SIGPIPE, SIG_IGN);

  int to_child[2], to_parent[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(to_parent, O_CLOEXEC) != 0) {
    std::perror("sigil_load: pipe");
    return 2;
  }
  std::cout.flush();
  std::cerr.flush();
  // Before any thread exists: the child is a plain copy of this single-threaded process.
  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("sigil_load: fork");
    return 2;
  }
  if (child == 0) {
    ::close(to_child[1]);
    ::close(to_parent[0]);
    LinePipe pipe(to_child[0], to_parent[1]);
    int rc = 2;
    try {
      rc = run_clients(o, pipe);
    } catch (const std::exception& e) {
      std::cerr << "sigil_load: clients: " << e.what() << "\n";
    }
    ::close(to_parent[1]);
    return rc;
  }
  ::close(to_child[0]);
  ::close(to_parent[1]);
  LinePipe pipe(to_parent[0], to_child[1]);
  bool server_ok = false;
  json::object report;
  try {
    report["server"] = run_server(o, pipe, server_ok);
  } catch (const std::exception& e) {
    std::cerr << "sigil_load: server: " << e.what() << "\n";
  }
  std::optional<std::string> result = server_ok ? pipe.receive() : std::nullopt;
  ::close(to_child[1]);
  int status = 0;
  ::waitpid(child, &status, 0);
  const bool child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!result || result->rfind("result ", 0) != 0) {
    std::cerr << "sigil_load: no result from the client process\n";
    return 1;
  }
  json::value clients = json::parse(std::string_view(*result).substr(7));
  report["conversations"] = o.conversations;
  report["seconds"] = o.seconds;
  report["tokens_per_second"] = o.tokens_per_second;
  report["reply_tokens"] = o.reply_tokens;
  report["directive_every"] = o.directive_every;
  report["client_threads"] = o.client_threads;
  report["server_threads"] = o.server_threads;
  report["model_threads"] = o.model_threads;
  report["finish_threads"] = o.finish_threads;
  report["clients"] = clients;

  const json::object& c = clients.as_object();
  const json::object& lat = c.at("latency_us").as_object();
  const std::uint64_t errors = c.at("errors").at("total").to_number<std::uint64_t>();
  const std::uint64_t samples = lat.at("samples").to_number<std::uint64_t>();
  if (json::object* server = report["server"].if_object()) {
    const double tokens = c.at("tokens_received").to_number<double>();
    const json::value* cpu = server->if_contains("cpu_seconds_during_load");
    (*server)["cpu_us_per_token"] =
        cpu != nullptr && tokens > 0 ? cpu->to_number<double>() * 1e6 / tokens : 0.0;
    auto per_token = [&](std::string_view key, double scale) {
      const json::value* v = server->if_contains(key);
      return v != nullptr && tokens > 0 ? v->to_number<double>() * scale / tokens : 0.0;
    };
    (*server)["user_us_per_token"] = per_token("user_seconds_during_load", 1e6);
    (*server)["system_us_per_token"] = per_token("system_seconds_during_load", 1e6);
    (*server)["voluntary_switches_per_token"] = per_token("voluntary_switches_during_load", 1);
    (*server)["involuntary_switches_per_token"] = per_token("involuntary_switches_during_load", 1);
    // The pace the gateway kept: the model's tokens, markup included (a directive's tokens take the
    // model's time but reach nobody as text), per conversation per second of its own time under load.
    const json::value* model_tokens = server->if_contains("model_tokens");
    const double active = c.at("tokens_per_active_second").to_number<double>();
    (*server)["model_tokens_per_active_second"] =
        model_tokens != nullptr && tokens > 0 ? active * model_tokens->to_number<double>() / tokens : 0.0;
  }
  std::cout << json::serialize(report) << "\n";
  if (!o.json_only) {
    const json::object& mem = report["server"].as_object()["memory"].as_object();
    auto num = [](const json::object& obj, std::string_view key) {
      const json::value* v = obj.if_contains(key);
      return v == nullptr ? 0.0 : v->to_number<double>();
    };
    std::printf(
        "sigil_load: %d conversations x %.0f s at %.0f tok/s: %llu tokens, %llu errors, added latency p50 "
        "%.0f us "
        "p99 %.0f us max %.0f us; %.1f tokens/s per conversation (%.1f while it chatted; the model wrote "
        "%.1f, markup included); server %.1f KiB RSS per idle conversation "
        "(%.1f KiB after the load), %.2f cores, %.1f us CPU per token (%.1f user, %.1f kernel), %.2f "
        "context switches per token; load average %.1f-%.1f\n",
        o.conversations, o.seconds, o.tokens_per_second,
        static_cast<unsigned long long>(c.at("tokens_received").to_number<std::uint64_t>()),
        static_cast<unsigned long long>(errors), num(lat, "p50"), num(lat, "p99"), num(lat, "max"),
        num(c, "tokens_per_conversation_second"), num(c, "tokens_per_active_second"),
        num(report["server"].as_object(), "model_tokens_per_active_second"),
        num(mem, "rss_per_idle_conversation_bytes") / 1024,
        num(mem, "rss_per_conversation_after_load_bytes") / 1024,
        num(report["server"].as_object(), "cpu_cores_during_load"),
        num(report["server"].as_object(), "cpu_us_per_token"),
        num(report["server"].as_object(), "user_us_per_token"),
        num(report["server"].as_object(), "system_us_per_token"),
        num(report["server"].as_object(), "voluntary_switches_per_token") +
            num(report["server"].as_object(), "involuntary_switches_per_token"),
        num(report["server"].as_object(), "load_average_start"),
        num(report["server"].as_object(), "load_average_end"));
  }
  return errors == 0 && samples > 0 && child_ok && server_ok ? 0 : 1;
}
