#include "app/serve_command.h"

#include <pthread.h>

#include <csignal>
#include <cstring>
#include <ostream>
#include <string>

#include "app/gateway.h"
#include "app/log_sink.h"
#include "sigil/log/log.h"

namespace sigil::app {

int run_serve(const ConfigFlags& flags, std::ostream& out, std::ostream& err) {
  // Block the stop signals before any thread exists: every thread inherits the mask, and this thread
  // alone takes them with sigwait (no async-signal-safety puzzles).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  if (const int rc = pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr); rc != 0) {
    err << "sigil serve: cannot block signals: " << std::strerror(rc) << '\n';
    return 1;
  }

  Config config;
  try {
    config = load_config(flags);
  } catch (const ConfigError& e) {
    err << "sigil serve: " << e.what() << '\n';
    return 2;
  }

  log::install(stream_sink(err, config.server.log_format == "json" ? LogFormat::json : LogFormat::text),
               log::level_from_string(config.server.log_level).value_or(log::Level::info));
  try {
    Gateway gateway(config);
    const unsigned short port = gateway.start();
    const std::string host = config.server.host.find(':') != std::string::npos
                                 ? "[" + config.server.host + "]"
                                 : config.server.host;
    out << "sigil " << SIGIL_VERSION << '\n';
    out << "sigil: config: "
        << (config.file.empty() ? "none (no --config, no ./sigil.toml): defaults and environment"
                                : config.file)
        << '\n';
    out << "sigil: model: " << gateway.model_description() << '\n';
    if (gateway.replay_model())
      out << "sigil: replies are replayed, not written by a model: set SIGIL_MODEL_URL or [model] url\n";
    out << "sigil: data: " << gateway.data_dir().string() << '\n';
    if (config.channels.telegram.enabled)
      out << "sigil: telegram: "
          << (config.channels.telegram.mode == "webhook" ? "webhook " + config.channels.telegram.webhook_url +
                                                               " via " + config.channels.telegram.api_url
                                                         : "polling " + config.channels.telegram.api_url)
          << " ("
          << (config.channels.telegram.allowed_users.empty()
                  ? std::string("anyone may write")
                  : std::to_string(config.channels.telegram.allowed_users.size()) + " allowed users")
          << ")\n";
    if (config.channels.discord.enabled)
      out << "sigil: discord: gateway via " << config.channels.discord.api_url << " ("
          << (config.channels.discord.allowed_users.empty()
                  ? std::string("anyone may write")
                  : std::to_string(config.channels.discord.allowed_users.size()) + " allowed users")
          << ")\n";
    if (config.channels.slack.enabled)
      out << "sigil: slack: socket mode via " << config.channels.slack.api_url << " ("
          << (config.channels.slack.allowed_users.empty()
                  ? std::string("anyone in the workspace may write")
                  : std::to_string(config.channels.slack.allowed_users.size()) + " allowed users")
          << ")\n";
    if (config.channels.matrix.enabled)
      out << "sigil: matrix: sync via " << config.channels.matrix.homeserver_url << " ("
          << (config.channels.matrix.allowed_users.empty()
                  ? std::string("anyone may write or invite")
                  : std::to_string(config.channels.matrix.allowed_users.size()) + " allowed users")
          << ")\n";
    if (config.channels.signal.enabled)
      out << "sigil: signal: " << config.channels.signal.account << " via signal-cli at "
          << config.channels.signal.rpc_url << " (" << config.channels.signal.allowed_users.size()
          << " allowed users, " << config.channels.signal.allowed_groups.size() << " allowed groups)\n";
    if (config.channels.whatsapp.enabled)
      out << "sigil: whatsapp: webhook at " << config.channels.whatsapp.webhook_path << ", number "
          << config.channels.whatsapp.phone_number_id << " via " << config.channels.whatsapp.api_url << " ("
          << (config.channels.whatsapp.allowed_users.empty()
                  ? std::string("anyone may write")
                  : std::to_string(config.channels.whatsapp.allowed_users.size()) + " allowed users")
          << ")\n";
    for (const std::string& name : gateway.mcp_servers()) out << "sigil: mcp: " << name << " connected\n";
    for (const std::string& error : gateway.mcp_errors()) out << "sigil: mcp: " << error << " (not taught)\n";
    out << "sigil: listening on http://" << host << ':' << port << std::endl;

    int signal = 0;
    while (sigwait(&stop_signals, &signal) != 0) {
    }
    out << "sigil: " << (signal == SIGINT ? "SIGINT" : "SIGTERM") << ": stopping" << std::endl;
    gateway.stop();
    out << "sigil: stopped" << std::endl;
    return 0;
  } catch (const GatewayConfigError& e) {
    err << "sigil serve: " << e.what() << '\n';
    return 2;
  } catch (const GatewayError& e) {
    err << "sigil serve: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace sigil::app
