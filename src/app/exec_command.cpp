#include "exec_command.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>

#include "action_names.h"
#include "sigil/actions/builtin_handlers.h"
#include "sigil/actions/schedule.h"
#include "sigil/actions/scheduler.h"
#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/parse/json_text.h"
#include "sigil/parse/parser.h"
#include "sigil/store/sqlite.h"
#include "sigil/text/random_id.h"

namespace sigil::app {
namespace {

namespace fs = std::filesystem;

// The console channel keeps voice notes: a voice delivery's temporary file is gone after the turn, so
// its bytes are copied to DATA/voice/<sha256>.ogg and the report shows that path.
bool keep_voice_note(exec::Delivery& d, const fs::path& voice_dir, std::ostream& err) {
  if (d.op != exec::Delivery::Op::Voice || !d.payload) return true;
  const fs::path target = voice_dir / (d.sha256 + ".ogg");
  std::ofstream file(target, std::ios::binary | std::ios::trunc);
  std::string buffer(64 * 1024, '\0');
  std::uint64_t offset = 0;
  for (;;) {
    const std::int64_t n = d.payload->read_at(offset, buffer);
    if (n < 0) {
      err << "sigil exec: cannot read a voice note\n";
      return false;
    }
    if (n == 0) break;
    file.write(buffer.data(), n);
    offset += static_cast<std::uint64_t>(n);
  }
  if (!file) {
    err << "sigil exec: cannot write " << target << '\n';
    return false;
  }
  d.path = target.string();
  return true;
}

}  // namespace

int run_exec(const ExecCommandOptions& options, int in_fd, std::ostream& out, std::ostream& err) {
  std::optional<store::TimePoint> fixed_now;
  if (!options.now.empty()) {
    auto parsed = actions::parse_time(options.now, std::chrono::minutes{0});
    if (!parsed) {
      err << "sigil exec: --now: " << parsed.error().message << '\n';
      return 2;
    }
    fixed_now = *parsed;
  }
  const std::function<store::TimePoint()> now = [fixed_now] {
    return fixed_now ? *fixed_now : store::Clock::now();
  };

  const catalog::Registry registry = catalog::Registry::builtin();
  if (!check_action_names(registry, options.deny, "sigil exec: --deny", err)) return 2;

  const fs::path data(options.data_dir);
  std::error_code ec;
  fs::create_directories(data / "outbound", ec);
  if (!ec) fs::create_directories(data / "voice", ec);
  if (ec) {
    err << "sigil exec: cannot create folders in " << data << ": " << ec.message() << '\n';
    return 1;
  }
  auto opened = store::sqlite::open((data / "sigil.db").string());
  if (!opened) {
    err << "sigil exec: cannot open the store: " << opened.error() << '\n';
    return 1;
  }
  store::Store& store = **opened;

  actions::BuiltinConfig config;
  if (options.files_dirs.empty())
    config.file_roots = {data / "outbound"};
  else
    config.file_roots.assign(options.files_dirs.begin(), options.files_dirs.end());
  auto handlers = actions::builtin_handlers(config);
  if (!handlers) {
    err << "sigil exec: " << handlers.error().message << '\n';
    return 1;
  }

  exec::TurnIds ids{options.user, options.conversation,
                    options.turn.empty() ? text::random_id("turn-") : options.turn};
  exec::ExecOptions exec_options;
  exec_options.now = now;
  exec::RecordingOutbox outbox;
  exec::Executor executor(registry, *handlers, store, outbox, ids, exec_options);
  parse::ParserOptions parser_options;
  parser_options.say_mode = options.say;
  parser_options.denied_actions = options.deny;
  parser_options.inline_resolver = executor.inline_resolver();
  parse::Parser parser(registry, executor.sink(), parser_options);

  // Feed what arrives as it arrives: directives run while the rest of the reply is still coming.
  std::string block(options.chunk != 0 ? options.chunk : 64 * 1024, '\0');
  for (;;) {
    const ssize_t n = ::read(in_fd, block.data(), block.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      err << "sigil exec: reading the reply: " << std::strerror(errno) << '\n';
      break;  // what arrived is still parsed and run: nothing is lost silently
    }
    if (n == 0) break;
    parser.feed(std::string_view(block.data(), static_cast<std::size_t>(n)));
  }
  parser.finish();
  exec::TurnReport report = executor.finish();
  for (exec::Delivery& d : report.deliveries) keep_voice_note(d, data / "voice", err);

  // Tasks due now (the --now clock) fire as turns of their own; the console has no model to run them, so
  // firing lists them.
  boost::json::array fired;
  actions::SchedulerOptions scheduler_options;
  scheduler_options.now = now;
  actions::Scheduler scheduler(
      store,
      [&fired](const store::ScheduledTask& task, const std::string& turn_id) {
        fired.push_back(boost::json::object{{"id", task.id},
                                            {"user", task.scope.user_id},
                                            {"conversation", task.scope.conversation_id},
                                            {"message", task.message},
                                            {"due_at", actions::format_utc(task.due_at)},
                                            {"turn", turn_id}});
        return true;
      },
      scheduler_options);
  scheduler.run_due();

  boost::json::value json = report.json();
  json.as_object()["fired"] = std::move(fired);
  json.as_object()["turn"] = ids.turn;
  out << parse::json_text(json) << '\n';
  return 0;
}

}  // namespace sigil::app
