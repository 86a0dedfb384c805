#include "sigil/actions/command.h"

#include <algorithm>
#include <boost/json/object.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "actions/subprocess.h"
#include "sigil/text/ascii.h"
#include "sigil/text/utf8.h"

namespace sigil::actions {
namespace {

namespace ascii = text::ascii;

constexpr std::size_t kListedNames = 10;
constexpr std::size_t kStderrLine = 200;
// Output beyond max_output is cut, but a program writing this many times more is a runaway: killed.
constexpr std::size_t kRunawayFactor = 64;

// Well-formed UTF-8: ill-formed units become U+FFFD (the model and JSON both need valid text).
std::string valid_utf8(std::string_view s) {
  if (text::is_valid_utf8(s)) return std::string(s);
  std::string out;
  text::Utf8Sanitizer sanitizer;
  auto append = [&](std::string_view piece) { out += piece; };
  sanitizer.feed(s, append);
  sanitizer.finish(append);
  return out;
}

// The first non-empty line of stderr, trimmed and capped, for a one-line message.
std::string first_line(std::string_view errors) {
  while (!errors.empty()) {
    const auto nl = errors.find('\n');
    const std::string_view line = ascii::trim(errors.substr(0, nl));
    if (!line.empty()) {
      const std::size_t cut = text::safe_cut(line, kStderrLine);
      return valid_utf8(line.substr(0, cut)) + (cut < line.size() ? "…" : "");
    }
    if (nl == std::string_view::npos) break;
    errors.remove_prefix(nl + 1);
  }
  return {};
}

std::string quoted(std::string_view name) {
  const std::size_t cut = text::safe_cut(name, 80);
  std::string shown = valid_utf8(name.substr(0, cut));
  for (char& c : shown)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return "\"" + shown + (cut < name.size() ? "…" : "") + "\"";
}

exec::HandlerResult unknown(std::string_view name, const CommandConfig& config) {
  std::string known;
  for (std::size_t i = 0; i < config.commands.size() && i < kListedNames; ++i)
    known += (i ? ", " : "") + config.commands[i].name;
  if (config.commands.size() > kListedNames)
    known += ", … (" + std::to_string(config.commands.size() - kListedNames) + " more)";
  return exec::HandlerResult::error("command: unknown command " + quoted(name) + "; known: " + known);
}

exec::HandlerResult run(const CommandSpec& spec, exec::ActionContext& ctx) {
  const std::string who = "command " + spec.name;
  if (ctx.stop_requested()) return exec::HandlerResult::error(who + ": stopped before it ran");

  detail::RunRequest request;
  request.program = spec.program;
  request.args = spec.args;
  request.timeout = spec.timeout;
  request.max_output = std::max<std::size_t>(spec.max_output, 1) * kRunawayFactor;
  request.stop = ctx.stop_token();
  auto outcome = detail::run_captured(request);
  if (!outcome) {
    const Error& e = outcome.error();
    switch (e.code) {
      case ErrorCode::timeout:
        return exec::HandlerResult::error(who + ": " +
                                          (ctx.stop_requested() ? "stopped; killed" : e.message));
      case ErrorCode::tool_missing:
        return exec::HandlerResult::error(who + ": cannot run it: " + e.message);
      case ErrorCode::permission_denied:
        return exec::HandlerResult::error(who + ": cannot run it: " + e.message);
      default:
        return exec::HandlerResult::error(who + ": failed: " + e.message);
    }
  }
  if (!outcome->exited)
    return exec::HandlerResult::error(who + ": killed by signal " + std::to_string(outcome->signal));
  if (outcome->exit_code != 0) {
    std::string m = who + ": exited with status " + std::to_string(outcome->exit_code);
    if (std::string line = first_line(outcome->errors); !line.empty()) m += ": " + line;
    return exec::HandlerResult::error(std::move(m));
  }

  const std::string& out = outcome->output;
  const std::size_t cut = text::safe_cut(out, spec.max_output);
  boost::json::object result;
  result["exit"] = 0;
  result["output"] = valid_utf8(std::string_view(out).substr(0, cut));
  if (cut < out.size()) result["truncated"] = true;
  return exec::HandlerResult::ok(who + ": done", std::move(result));
}

}  // namespace

void add_command_handlers(exec::HandlerTable& table, CommandConfig config) {
  auto shared = std::make_shared<const CommandConfig>(std::move(config));
  table.add("command", [shared](const exec::Directive& d, exec::ActionContext& ctx) {
    if (shared->commands.empty()) return exec::HandlerResult::error("command: no commands are configured");
    const auto* arg = d.args.if_contains("name");
    const std::string_view name = ascii::trim(
        arg != nullptr && arg->is_string() ? std::string_view(arg->get_string()) : std::string_view());
    if (name.empty()) return exec::HandlerResult::error("command: no command name given");
    for (const CommandSpec& spec : shared->commands)
      if (ascii::iequals(spec.name, name)) return run(spec, ctx);
    return unknown(name, *shared);
  });
}

}  // namespace sigil::actions
