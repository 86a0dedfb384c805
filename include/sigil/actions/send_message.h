// The `send-message` action (spec 13, 9.6, 15): a text to another chat, only to allow-listed targets.
// Spellings: `<send-message channel="telegram" chat="123">text</send-message>` and
// `<sendTelegram>{"chat":"123","text":"…"}</sendTelegram>`, whose channel is fixed to telegram and whose chat
// defaults to the operator's default Telegram chat.
//
// What the handler promises:
// - Nothing leaves unless (channel, chat) is on the allow-list: channel compared ASCII case-insensitively,
//   chat exactly. Otherwise an error `send-message: telegram:123 is not an allowed target` and no delivery.
//   The allow-list itself is never shown to the model.
// - No channel in args means the sendTelegram spelling (its preset is not put in args, 9.6): telegram. No
//   chat on telegram means `default_telegram_chat`; when that is empty too, an error says so.
// - The text is trimmed; empty text, or text over `max_text` bytes, is an error (never cut).
// - The handler sends the text itself, through `send` (the gateway's configured channels), and reports
//   what happened: ok `sent to telegram:123` only when the channel took it; the channel's error otherwise
//   ("send-message: telegram: 403 Forbidden: bot was blocked by the user"). Without `send`, or when `send`
//   says no such channel is configured, it is an error: the action never reports a message it did not
//   send.
// - Success: one Delivery{op=Message, channel (as the allow-list spells it), chat, text} and ok
//   `sent to telegram:123`, result {"channel":…,"chat":…}. The delivery is for the chat that asked (the
//   web chat shows what was relayed); it is already sent, and outboxes must not send it again.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/exec/handler.h"

namespace sigil::actions {

struct MessageTarget {
  std::string channel, chat;
};

// Sends a text to an allowed target: "" when the channel took it, else why not (one line).
using MessageSender = std::function<std::string(const MessageTarget& target, std::string_view text)>;

struct SendMessageConfig {
  std::vector<MessageTarget> allowed;
  MessageSender send;                 // unset: no channel can send (every send-message is an error)
  std::string default_telegram_chat;  // sendTelegram without a chat; empty: the chat must be written
  std::size_t max_text = 4096 * 4;    // bytes
};

// The allow-list entry for (channel, chat), or nullptr: channel ASCII case-insensitive, chat exact. Also
// for other handlers that send to another chat (send-file's channel + chat).
const MessageTarget* find_allowed_target(std::span<const MessageTarget> allowed, std::string_view channel,
                                         std::string_view chat);

void add_send_message_handlers(exec::HandlerTable& table, SendMessageConfig config);

}  // namespace sigil::actions
