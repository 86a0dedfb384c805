#include "sigil/actions/send_message.h"

#include <boost/json/object.hpp>
#include <memory>
#include <string>
#include <utility>

#include "sigil/text/ascii.h"
#include "sigil/text/utf8.h"

namespace sigil::actions {
namespace {

namespace ascii = text::ascii;

std::string_view string_arg(const exec::Directive& d, const char* name) {
  const auto* v = d.args.if_contains(name);
  return v != nullptr && v->is_string() ? ascii::trim(std::string_view(v->get_string())) : std::string_view();
}

// A target as the model sees it in messages: one line, capped.
std::string shown(std::string_view channel, std::string_view chat) {
  std::string s = std::string(channel) + ":" + std::string(chat);
  const std::size_t cut = text::safe_cut(s, 120);
  std::string out = s.substr(0, cut);
  for (char& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return cut < s.size() ? out + "…" : out;
}

exec::HandlerResult send(const SendMessageConfig& config, const exec::Directive& d) {
  std::string_view channel = string_arg(d, "channel");
  if (channel.empty()) channel = "telegram";  // sendTelegram: its fixed channel is not in args (9.6)
  std::string_view chat = string_arg(d, "chat");
  if (chat.empty() && ascii::iequals(channel, "telegram")) {
    chat = config.default_telegram_chat;
    if (chat.empty())
      return exec::HandlerResult::error(
          "send-message: no chat given and no default Telegram chat is configured; write \"chat\"");
  }
  if (chat.empty())
    return exec::HandlerResult::error("send-message: no chat given for " + std::string(channel));

  const MessageTarget* target = find_allowed_target(config.allowed, channel, chat);
  if (target == nullptr)
    return exec::HandlerResult::error("send-message: " + shown(channel, chat) + " is not an allowed target");

  const std::string_view text = string_arg(d, "text");
  if (text.empty()) return exec::HandlerResult::error("send-message: the text is empty");
  if (text.size() > config.max_text)
    return exec::HandlerResult::error("send-message: the text is " + std::to_string(text.size()) +
                                      " bytes; at most " + std::to_string(config.max_text) + " are allowed");

  if (!config.send)
    return exec::HandlerResult::error("send-message: no channel is configured to send to " +
                                      shown(target->channel, target->chat) + "; nothing was sent");
  if (const std::string failed = config.send(*target, text); !failed.empty())
    return exec::HandlerResult::error("send-message: " + shown(target->channel, target->chat) +
                                      ": not sent: " + failed.substr(0, text::safe_cut(failed, 300)));

  exec::Delivery delivery;
  delivery.op = exec::Delivery::Op::Message;
  delivery.channel = target->channel;
  delivery.chat = target->chat;
  delivery.text = std::string(text);
  boost::json::object result;
  result["channel"] = target->channel;
  result["chat"] = target->chat;
  exec::HandlerResult r =
      exec::HandlerResult::ok("sent to " + shown(target->channel, target->chat), std::move(result));
  r.deliveries.push_back(std::move(delivery));
  return r;
}

}  // namespace

const MessageTarget* find_allowed_target(std::span<const MessageTarget> allowed, std::string_view channel,
                                         std::string_view chat) {
  for (const MessageTarget& t : allowed)
    if (ascii::iequals(t.channel, channel) && t.chat == chat) return &t;
  return nullptr;
}

void add_send_message_handlers(exec::HandlerTable& table, SendMessageConfig config) {
  auto shared = std::make_shared<const SendMessageConfig>(std::move(config));
  table.add("send-message", [shared](const exec::Directive& d, exec::ActionContext& ctx) {
    if (ctx.stop_requested()) return exec::HandlerResult::error("send-message: stopped before it ran");
    return send(*shared, d);
  });
}

}  // namespace sigil::actions
