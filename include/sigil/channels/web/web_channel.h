// The built-in web chat as a chat channel (architecture: channels/web/): what the deliver layer's outbox
// calls become as web chat protocol frames (JSON, docs/gateway.md). The server only carries the frames
// (every WebSocket watching the conversation) and keeps the media; this file decides what they say.
//
// Frames, all with "turn":
// - {"type":"text","message":ID,"text":T}: a new text message ID (send_text) or more text at its end
//   (append_text); {"type":"text","message":ID,"text":T,"replace":true} replaces its text (edit_text).
// - {"type":"delete","message":ID}: the message is taken back (a late sentinel, spec 12.7).
// - {"type":"delivery","op":"file"|"voice",name,kind,caption,sha256,mime,size,url[,duration_ms]}: the
//   url serves exactly the delivered bytes; {"type":"delivery","op":"reaction","emoji":E,"message":M}
//   where M is "" for the message that started the turn, or another turn's id;
//   {"type":"delivery","op":"message","text","channel","chat"} for a text relayed to another chat.
// Message ids are "m1", "m2", ... per channel (one channel per turn), so they are unique within a turn.
//
// Capabilities: everything (ChannelCapabilities::everything()): it streams by append and can delete, so
// late sentinels take text back. A file whose bytes cannot be kept fails, and the outbox falls back
// (document, then a text line), which the turn report shows.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sigil/channels/web/web_frame.h"
#include "sigil/deliver/channel.h"
#include "sigil/deliver/delivery.h"

namespace sigil::channels::web {

// Where a file's bytes can be fetched (what the server's media store made of them).
struct PublishedMedia {
  std::string url;  // empty: not kept (nobody watches the conversation); the frame says url null
  std::string name, mime, sha256;
  std::uint64_t size = 0;
};

struct WebTransport {
  // Sends a frame to every page watching the conversation. Must not block for long.
  std::function<void(WebFrame frame)> send;
  // Keeps a file's bytes for download; returns where, or an error message (the call then fails).
  std::function<bool(const deliver::OutgoingFile& file, bool voice, PublishedMedia& out, std::string& error)>
      publish;
  // Keeps a delivery with the history (a file or voice note as published, a reaction, a relayed text): the
  // delivery frame's fields without "type" and "turn". Optional.
  std::function<void(const boost::json::object& delivery)> keep;
};

class WebChannel final : public deliver::Channel {
 public:
  // The message id that means "the message that started this turn": pass it as
  // ChatOutboxOptions::reply_to, so a reaction without a target goes there.
  static constexpr std::string_view kTurnMessage = "@turn";

  // `turn`: the id the frames carry (may be set later: set_turn()).
  WebChannel(WebTransport transport, std::string turn);

  deliver::ChannelCapabilities capabilities() const override;
  deliver::ChannelResult send_text(std::string_view text) override;
  deliver::ChannelResult edit_text(const std::string& id, std::string_view text) override;
  deliver::ChannelResult append_text(const std::string& id, std::string_view more) override;
  deliver::ChannelResult delete_message(const std::string& id) override;
  deliver::ChannelResult send_file(const deliver::OutgoingFile& file) override;
  deliver::ChannelResult send_voice(const deliver::OutgoingFile& voice) override;
  deliver::ChannelResult react(const std::string& message_id, std::string_view emoji) override;
  // ChatOutboxOptions::other_chat: shows a text the turn relayed to another chat. Returns "".
  std::string relayed(const deliver::Delivery& delivery);

  // The turn id can be learnt late (a scheduled turn announces itself at its first event).
  void set_turn(std::string turn) { turn_ = SharedId(std::move(turn)); }
  const std::string& turn() const { return turn_.str(); }

 private:
  deliver::ChannelResult attachment(const deliver::OutgoingFile& file, bool voice);
  void send(WebFrame frame);
  // Sends a delivery frame and hands it to transport_.keep.
  void deliver_frame(boost::json::object frame);

  WebTransport transport_;
  SharedId turn_;  // shared with every text piece of the turn
  std::uint64_t next_message_ = 0;
};

}  // namespace sigil::channels::web
