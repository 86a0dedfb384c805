#include "app/chat_command.h"

#include <unistd.h>

#include <condition_variable>
#include <iostream>
#include <istream>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include "app/gateway.h"
#include "app/log_sink.h"
#include "sigil/agent/channel_observer.h"
#include "sigil/channels/console/console_channel.h"
#include "sigil/deliver/chat_outbox.h"
#include "sigil/log/log.h"

namespace sigil::app {

namespace {

// One turn's output on the console: a ChannelObserver on the console channel. Text streams (the console
// appends); each model call's text is its own message.
class ConsoleTurn final : public agent::ChannelObserver {
 public:
  ConsoleTurn(channels::console::ConsoleChannel& channel, std::ostream& err, std::mutex& err_mu)
      : ChannelObserver(channel, outbox_options()), err_(err), err_mu_(err_mu) {}

  void turn_ended(const agent::TurnSummary& summary, const deliver::DeliveryReport& report) override {
    {
      std::lock_guard lock(err_mu_);
      for (const std::string& line : report.lines()) err_ << "sigil: " << line << '\n';
      for (const std::string& line : summary.diagnostics) err_ << "sigil: " << line << '\n';
      err_.flush();
    }
    std::lock_guard lock(mu_);
    ended_ = true;
    cv_.notify_all();
  }

  void wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return ended_; });
  }

 private:
  static deliver::ChatOutboxOptions outbox_options() {
    deliver::ChatOutboxOptions o;
    // A terminal cannot delete, but its user wants to see the reply as it comes (docs/channels.md).
    o.stream = deliver::StreamPolicy::Always;
    o.reply_to = "you";  // reactions go on the user's line; the console shows them as "(reacted ...)"
    return o;
  }

  std::ostream& err_;
  std::mutex& err_mu_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool ended_ = false;
};

}  // namespace

int run_chat(const ChatCommandOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  Config config;
  try {
    config = load_config(options.flags);
  } catch (const ConfigError& e) {
    err << "sigil chat: " << e.what() << '\n';
    return 2;
  }

  // The terminal is the conversation: only warnings and errors, unless --log-level asks for more.
  const std::string level = options.flags.log_level.empty() ? "warn" : config.server.log_level;
  log::install(stream_sink(err, config.server.log_format == "json" ? LogFormat::json : LogFormat::text),
               log::level_from_string(level).value_or(log::Level::warn));
  std::mutex err_mu;
  try {
    // The channel needs the data folder, which the gateway decides; scheduled turns may fire as soon as
    // it starts, so the channel exists before start() and the observer factory reads it through a pointer.
    std::unique_ptr<channels::console::ConsoleChannel> channel;
    GatewayOptions gateway_options;
    gateway_options.http_server = false;
    gateway_options.task_observer = [&](const store::ScheduledTask&) -> std::shared_ptr<agent::TurnObserver> {
      if (!channel) return nullptr;
      return std::make_shared<ConsoleTurn>(*channel, err, err_mu);
    };
    Gateway gateway(config, gateway_options);
    channel = std::make_unique<channels::console::ConsoleChannel>(
        out, channels::console::ConsoleChannelOptions{(gateway.data_dir() / "out").string()});
    gateway.start();
    {
      std::lock_guard lock(err_mu);
      err << "sigil: model: " << gateway.model_description()
          << (gateway.replay_model()
                  ? " (replayed replies, no real model: set [model] url or SIGIL_MODEL_URL)"
                  : "")
          << '\n';
    }

    const bool interactive = &in == &std::cin && ::isatty(STDIN_FILENO) == 1;
    std::string line;
    for (;;) {
      if (interactive) {
        channel->end_line();
        out << "> " << std::flush;
      }
      if (!std::getline(in, line)) break;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      agent::TurnInput input;
      input.user = options.user;
      input.conversation = options.conversation;
      input.text = line;
      auto turn = std::make_shared<ConsoleTurn>(*channel, err, err_mu);
      gateway.agent().start_turn(std::move(input), turn);
      turn->wait();
    }
    channel->end_line();
    gateway.stop();
    return 0;
  } catch (const GatewayError& e) {
    std::lock_guard lock(err_mu);
    err << "sigil chat: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace sigil::app
