// A chat platform's channel (Telegram, Discord): a deliver::Channel that can also show the platform's typing
// indicator, and that keeps for the turn's end whether anything was shown and which calls ended in doubt.
//
// What it promises:
// - shown_anything() turns true with the first call that showed something (a message, a file, a reaction)
//   and stays true; the turn stops renewing the typing indicator then. It may be read from any thread.
// - in_doubt() lists, in order, the calls whose outcome is unknown (a time-out after the request went out):
//   the outbox never resends them blindly, and the turn's log names them.
// - shown(id) is what a send call that succeeded returns: the message's id, and shown_anything() is true.
// - failed() is what a send call that did not succeed returns, logged as a warning (CallLog): its error, or,
//   in doubt, "call: error" noted for in_doubt(); a call in doubt that sent no text reports success with no
//   id, since the outbox's next way (an audio file for a voice note, a document for a photo) would be a
//   second copy if the first one arrived.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/deliver/channel.h"

namespace sigil::channels {

class PlatformChannel : public deliver::Channel {
 public:
  // Shows the typing indicator once (the platform fades it after a few seconds). Best effort: false when it
  // failed.
  virtual bool typing() = 0;
  bool shown_anything() const { return shown_.load(); }
  std::vector<std::string> in_doubt() const;

 protected:
  deliver::ChannelResult shown(std::string id);
  // The warning a failed call logs: the platform's event, and its names for the chat's and the call's fields.
  struct CallLog {
    std::string_view event, chat_field;
    std::string chat;
    std::string_view call_field;
  };
  // `doubt_note` follows the error of in-doubt text.
  deliver::ChannelResult failed(const CallLog& log, std::string_view call, const std::string& error,
                                bool in_doubt, bool text, std::string_view doubt_note = "");

 private:
  std::atomic<bool> shown_{false};
  mutable std::mutex mu_;
  std::vector<std::string> in_doubt_;
};

}  // namespace sigil::channels
