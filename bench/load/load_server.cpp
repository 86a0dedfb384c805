// sigil_load's gateway process: the server half of the load benchmark (ws_load.cpp says how it measures).
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

// ================================================================================================ server
// Wraps the replay clients: every '@' the model emits becomes "t<monotonic ns>z", stamped when the token
// leaves the model. Calls go to the clients in turn, so their timer threads (one each) share the streams,
// as an OpenAI client's io threads would. Also measures how long each call took against its nominal
// duration.
class StampingClient final : public sigil::model::ModelClient {
 public:
  StampingClient(std::vector<std::unique_ptr<sigil::model::ModelClient>> inner, double nominal_s)
      : inner_(std::move(inner)), nominal_s_(nominal_s) {}

  std::shared_ptr<sigil::model::Call> start(sigil::model::ChatRequest request,
                                            std::shared_ptr<sigil::model::StreamSink> sink) override {
    sigil::model::ModelClient& inner = *inner_[next_.fetch_add(1) % inner_.size()];
    return inner.start(std::move(request), std::make_shared<Sink>(std::move(sink), *this));
  }
  std::string describe() const override {
    return inner_.front()->describe() + " (" + std::to_string(inner_.size()) +
           " timer threads, timestamped by sigil_load)";
  }

  std::uint64_t calls() const { return calls_.load(); }
  // Every token the model wrote, markup included: what the gateway had to keep pace with.
  std::uint64_t tokens() const { return tokens_.load(); }
  // Mean call duration over the nominal one: 1.0 means the model's timer kept pace.
  double stretch() const {
    const std::uint64_t n = calls_.load();
    return n == 0 || nominal_s_ <= 0 ? 0.0 : static_cast<double>(total_ns_.load()) / 1e9 / n / nominal_s_;
  }

 private:
  class Sink final : public sigil::model::StreamSink {
   public:
    Sink(std::shared_ptr<sigil::model::StreamSink> inner, StampingClient& owner)
        : inner_(std::move(inner)), owner_(owner), started_(mono_ns()) {}
    void on_text(std::string_view delta) override {
      owner_.tokens_.fetch_add(1);
      if (delta.find('@') == std::string_view::npos) {
        inner_->on_text(delta);
        return;
      }
      std::string out;
      out.reserve(delta.size() + 24);
      for (char c : delta) {
        if (c != '@') {
          out += c;
          continue;
        }
        out += 't';
        out += std::to_string(mono_ns());
        out += 'z';
      }
      inner_->on_text(out);
    }
    void on_tool_call(const sigil::model::ToolCall& call) override { inner_->on_tool_call(call); }
    void on_done(const sigil::model::Outcome& outcome) override {
      owner_.total_ns_.fetch_add(static_cast<std::uint64_t>(mono_ns() - started_));
      owner_.calls_.fetch_add(1);
      inner_->on_done(outcome);
    }

   private:
    std::shared_ptr<sigil::model::StreamSink> inner_;
    StampingClient& owner_;
    std::int64_t started_;
  };

  std::vector<std::unique_ptr<sigil::model::ModelClient>> inner_;
  std::atomic<std::size_t> next_{0};
  double nominal_s_;
  std::atomic<std::uint64_t> calls_{0};
  std::atomic<std::uint64_t> total_ns_{0};
  std::atomic<std::uint64_t> tokens_{0};
};

struct MemorySample {
  std::int64_t rss_kib = 0;     // VmRSS
  std::int64_t heap_bytes = 0;  // malloc'd bytes in use (arena + mmapped chunks)
};

MemorySample sample_memory() {
  MemorySample m;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) m.rss_kib = std::stoll(line.substr(6));
  }
  const struct mallinfo2 mi = mallinfo2();
  m.heap_bytes = static_cast<std::int64_t>(mi.uordblks + mi.hblkhd);
  return m;
}

json::object memory_json(const MemorySample& m) {
  return {{"rss_kib", m.rss_kib}, {"heap_kib", m.heap_bytes / 1024}};
}

// The recorded replies: `reply_tokens` placeholders each; every `directive_every`th line also reacts and
// remembers (two directives the executor runs, one of which delivers a reaction).
std::vector<std::string> recorded_replies(const Options& o) {
  const int lines = o.directive_every > 0 ? o.directive_every : 1;
  std::vector<std::string> replies;
  for (int line = 0; line < lines; ++line) {
    const bool directives = o.directive_every > 0 && line == 0;
    std::string reply;
    for (int i = 0; i < o.reply_tokens; ++i) {
      if (i > 0) reply += ' ';
      if (directives && i == 2) reply += "<react emoji=\"thumbsup\"/> ";
      if (directives && i == o.reply_tokens / 2) reply += "[REMEMBER:the load test likes round numbers] ";
      reply += '@';
    }
    replies.push_back(std::move(reply));
  }
  return replies;
}

void fail_server(LinePipe& pipe, const std::string& why) {
  std::cerr << "sigil_load: server: " << why << "\n";
  pipe.send("fail " + why);
}

}  // namespace

// Runs the server; returns the server's JSON part of the report (empty object on failure).
json::object run_server(const Options& o, LinePipe& pipe, bool& ok) {
  namespace fs = std::filesystem;
  ok = false;
  json::object report;
  std::string base = o.store_dir;
  if (base.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string templ = (fs::path(base) / "sigil-load-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) {
    fail_server(pipe, "cannot create a folder under " + base);
    return report;
  }
  const fs::path dir = templ;
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{dir};

  const fs::path replay_path = dir / "replay.jsonl";
  {
    std::ofstream file(replay_path);
    for (const std::string& reply : recorded_replies(o))
      file << json::serialize(json::object{{"reply", reply}}) << '\n';
  }
  auto opened = sigil::store::sqlite::open((dir / "sigil.db").string());
  if (!opened) {
    fail_server(pipe, opened.error());
    return report;
  }
  std::unique_ptr<sigil::store::Store> store = std::move(opened).value();
  const sigil::catalog::Registry registry = sigil::catalog::Registry::builtin();
  auto handlers = sigil::actions::builtin_handlers(sigil::actions::BuiltinConfig{});
  if (!handlers) {
    fail_server(pipe, handlers.error().message);
    return report;
  }
  sigil::model::ReplayConfig replay;
  replay.path = replay_path.string();
  replay.tokens_per_second = o.tokens_per_second;
  replay.jitter = o.jitter;
  replay.split = sigil::model::TokenSplit::words;
  std::vector<std::unique_ptr<sigil::model::ModelClient>> replay_clients;
  for (int i = 0; i < std::max(1, o.model_threads); ++i)
    replay_clients.push_back(sigil::model::make_replay_client(replay));
  // One gap before each token of a reply.
  const double nominal_s = o.tokens_per_second > 0 ? o.reply_tokens / o.tokens_per_second : 0;
  StampingClient client(std::move(replay_clients), nominal_s);

  std::optional<sigil::agent::Agent> agent;
  sigil::agent::AgentConfig agent_config;
  agent_config.finish_threads = o.finish_threads;
  agent.emplace(registry, *handlers, *store, client, std::move(agent_config));
  sigil::server::HttpServerOptions options;
  options.threads = o.server_threads;
  options.frame_tick = std::chrono::microseconds(o.frame_tick_us);
  options.model_label = client.describe();
  options.replay_model = true;
  options.messages_per_minute = 0;  // unlimited: the load is the point
  options.max_connections = static_cast<std::size_t>(o.conversations) * 2 + 64;
  std::optional<sigil::server::HttpServer> server;
  server.emplace(*agent, *store, options);
  unsigned short port = 0;
  try {
    port = server->start();
  } catch (const std::exception& e) {
    fail_server(pipe, e.what());
    return report;
  }

  // Lets the server finish what the last client event caused (hello writes, the last end frames).
  auto settle = [&] {
    agent->wait_idle();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  };
  settle();
  const MemorySample m_start = sample_memory();
  pipe.send("port " + std::to_string(port));

  MemorySample m_half, m_all, m_loaded, m_closed;
  int half = 0, all = 0;
  double cpu_load_start = 0, cpu_load = 0;
  Usage usage_start, usage_end;
  double wall_load_start = 0, wall_load = 0;
  double load_average_start = -1, load_average_end = -1;  // the machine's, at the load's start and end
  bool child_ok = true;
  for (bool done = false; !done;) {
    std::optional<std::string> line = pipe.receive();
    if (!line) {
      std::cerr << "sigil_load: server: the client process ended early\n";
      child_ok = false;
      break;
    }
    std::string_view l = *line;
    if (l.rfind("half ", 0) == 0) {
      half = std::stoi(std::string(l.substr(5)));
      settle();
      m_half = sample_memory();
    } else if (l.rfind("connected ", 0) == 0) {
      all = std::stoi(std::string(l.substr(10)));
      settle();
      m_all = sample_memory();
      cpu_load_start = cpu_seconds(RUSAGE_SELF);
      usage_start = usage(RUSAGE_SELF);
      load_average_start = load_average();
      wall_load_start = static_cast<double>(mono_ns()) / 1e9;
    } else if (l == "idle") {
      settle();
      cpu_load = cpu_seconds(RUSAGE_SELF) - cpu_load_start;
      usage_end = usage(RUSAGE_SELF);
      load_average_end = load_average();
      wall_load = static_cast<double>(mono_ns()) / 1e9 - wall_load_start;
      m_loaded = sample_memory();
    } else if (l == "closed") {
      settle();
      m_closed = sample_memory();
      done = true;
    } else {
      std::cerr << "sigil_load: server: unexpected line from the client process: " << l << "\n";
      child_ok = false;
      break;
    }
    if (!pipe.send("go")) {
      child_ok = false;
      break;
    }
  }
  server->stop();
  server.reset();
  agent.reset();

  const int marginal = all - half;
  json::object memory;
  memory["start"] = memory_json(m_start);
  memory["half_connected"] = memory_json(m_half);
  memory["all_connected"] = memory_json(m_all);
  memory["after_load_idle"] = memory_json(m_loaded);
  memory["after_close"] = memory_json(m_closed);
  memory["connected_half"] = half;
  memory["connected_all"] = all;
  if (marginal > 0) {
    memory["rss_per_idle_conversation_bytes"] = (m_all.rss_kib - m_half.rss_kib) * 1024 / marginal;
    memory["heap_per_idle_conversation_bytes"] = (m_all.heap_bytes - m_half.heap_bytes) / marginal;
  }
  if (all > 0) {
    memory["rss_per_conversation_from_start_bytes"] = (m_all.rss_kib - m_start.rss_kib) * 1024 / all;
    memory["rss_per_conversation_after_load_bytes"] = (m_loaded.rss_kib - m_start.rss_kib) * 1024 / all;
    memory["heap_per_conversation_after_load_bytes"] = (m_loaded.heap_bytes - m_start.heap_bytes) / all;
  }
  report["memory"] = std::move(memory);
  report["cpu_seconds_during_load"] = cpu_load;
  report["cpu_cores_during_load"] = wall_load > 0 ? cpu_load / wall_load : 0.0;
  report["user_seconds_during_load"] = usage_end.user_s - usage_start.user_s;
  report["system_seconds_during_load"] = usage_end.system_s - usage_start.system_s;
  report["voluntary_switches_during_load"] = usage_end.voluntary_switches - usage_start.voluntary_switches;
  report["involuntary_switches_during_load"] =
      usage_end.involuntary_switches - usage_start.involuntary_switches;
  report["load_average_start"] = load_average_start;
  report["load_average_end"] = load_average_end;
  report["frame_tick_us"] = o.frame_tick_us;
  report["model_calls"] = client.calls();
  report["model_stretch"] = client.stretch();
  report["model_tokens"] = client.tokens();
  report["store"] = (dir / "sigil.db").string();
  ok = child_ok;
  return report;
}

}  // namespace sigil_load
