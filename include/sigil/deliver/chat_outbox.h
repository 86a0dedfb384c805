// The ordered outbox of one chat (architecture: deliver/): an deliver::Outbox that shows a turn's output on
// a Channel, asking the channel's capabilities and never assuming them.
//
// What it promises:
// - Reply order: every channel call happens in the order the executor called text() and deliver(); text
//   before a file is finished (its last edit made, or sent) before the file goes, and text after it starts
//   a new message. All calls are synchronous: when text()/deliver()/end() returns, the channel has been told.
// - Streaming (StreamPolicy): on a channel that can append, the first visible text is sent at once and
//   later text is appended; on one that can edit (and not append), one message is edited as the text grows,
//   edits throttled to the rate limit and to `edit_interval`; the last edit of a message always carries its
//   exact full text. Without streaming, text is held and sent when a non-text delivery comes or at end().
// - Splitting: a message never exceeds the channel's text limit (split.h): the cut message is finished and
//   the rest starts a new one. Streamed or held, any chunking gives the same messages as split_text() of the
//   same text.
// - A message holds the text between two non-text deliveries with leading whitespace and trailing
//   whitespace removed; whitespace-only text sends nothing.
// - A text send that failed is made once more when options.repeat_failed_sends says the channel makes that
//   safe, and never otherwise.
// - Fallbacks (each recorded in report()): voice note -> audio file -> document -> a text line with the
//   name, size (and a link when media_url gives one); a file kind the channel lacks -> document -> text line;
//   a channel error on one way tries the next. A reaction the channel cannot show, or whose emoji is not in
//   its allowed set, is skipped. A Message delivery (another chat) goes to `other_chat`, or is skipped.
// - Rate limit (capabilities().rate): a token bucket on the injected Clock. Required calls (sends, final
//   edits, files, reactions) wait for a token; streaming updates (intermediate edits, appends) are skipped
//   when none is there and caught up later. Waiting blocks the caller: with a slow channel (1 message/s)
//   the executor's thread waits too.
// - end() finishes the open message; the outbox stays usable (the next text starts a new message), so one
//   outbox can serve the several model calls of a turn.
// - Not thread-safe: one caller at a time (the executor calls outboxes under its own lock).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/deliver/capabilities.h"
#include "sigil/deliver/channel.h"
#include "sigil/deliver/clock.h"
#include "sigil/deliver/delivery.h"
#include "sigil/deliver/report.h"

namespace sigil::deliver {

enum class StreamPolicy : unsigned char {
  // Stream when the channel can take shown text back (it can delete, and edit or append), so a late
  // sentinel can still silence the reply (spec 7.4, 12.7); otherwise hold text until it is final.
  Auto,
  Always,  // stream whenever the channel can edit or append (a terminal shows a late sentinel's text)
  Never,   // always hold
};

struct ChatOutboxOptions {
  // The message being answered: reactions with no `message` go on it (empty: such reactions are skipped).
  std::string reply_to;
  StreamPolicy stream = StreamPolicy::Auto;
  // Least time between two streaming updates of one message; zero: 1 s / rate (no wait when unlimited).
  std::chrono::milliseconds edit_interval{0};
  // A URL where the user can fetch a delivery's bytes, for the text-line fallback; empty: no link.
  std::function<std::string(const deliver::Delivery&)> media_url;
  // Where Message deliveries (to another chat, already allow-listed) go; returns "" or an error. Unset:
  // they are skipped and reported.
  std::function<std::string(const deliver::Delivery&)> other_chat;
  // Clock for the rate limit; null: SteadyClock::instance().
  Clock* clock = nullptr;
  // The channel sends every message under an idempotency key the platform deduplicates, and sends a text
  // again under the same key (Matrix's txnId): a text send that failed, perhaps after it went out (a
  // time-out, a dropped connection), is then made once more instead of being reported lost. Only for such a
  // channel: elsewhere the repeat could show the text twice.
  bool repeat_failed_sends = false;
};

class ChatOutbox final : public deliver::Outbox {
 public:
  // The channel must outlive the outbox. Capabilities are read once, here.
  explicit ChatOutbox(Channel& channel, ChatOutboxOptions options = {});
  ~ChatOutbox() override;
  ChatOutbox(const ChatOutbox&) = delete;
  ChatOutbox& operator=(const ChatOutbox&) = delete;

  void text(std::string_view text) override;
  void deliver(const deliver::Delivery& delivery) override;
  void end() override;

  // The reply turned silent after text was passed on (a late sentinel, spec 7.4): held text is dropped,
  // shown text messages since the last end() are deleted when the channel can, else that is reported.
  void retract();
  // deliver::Outbox: the reply is silent (spec 7.4): retract(), and text() is ignored until end(); deliveries
  // still go out.
  void silence(bool late) override;
  // deliver::Outbox: the open text message is finished (sent, or its last edit made); the next text starts a
  // new message (say mode: one message per say block, spec 6.1).
  void end_message() override;

  // Whether text streams on this channel with these options.
  bool streaming() const { return streaming_; }
  const ChannelCapabilities& capabilities() const { return caps_; }
  const DeliveryReport& report() const { return report_; }
  // Moves the report out (and starts a fresh one), for the caller's turn report.
  DeliveryReport take_report();

 private:
  // One text message in progress: msg_ is its whole text so far (leading whitespace removed).
  struct Open {
    std::string id;  // empty: not sent yet
    // What the channel shows now: its length, and (editing channels only) a copy. On an appending channel
    // it is always a prefix of msg_, so no copy is kept: copying it on every append made streaming a long
    // message quadratic.
    std::size_t shown_size = 0;
    std::string shown;
    Clock::time_point last_update{};
  };

  bool wants_stream() const;
  std::string_view shown() const;
  void set_shown(std::string_view visible);
  bool shows(std::string_view visible) const;  // `visible` (the open message's text now) is what is shown
  // Channel calls, exceptions caught. `required`: wait for a rate-limit token; otherwise give up if none.
  bool take_token(bool required);
  ChannelResult call(const std::function<ChannelResult()>& fn);
  void append_visible(std::string_view piece);
  void split_overflow();
  void split_while_over();  // finishes messages off the front of msg_ while it is over the channel's limit
  void stream_update();
  void finish_message(std::string_view head);  // sends or finishes the open message with exactly head
  void flush_text();                           // finishes msg_ (all of it), splitting as needed
  void send_text_delivery(const deliver::Delivery& d);
  void send_attachment(const deliver::Delivery& d);
  void react(const deliver::Delivery& d);
  void other_chat(const deliver::Delivery& d);
  bool send_line(const std::string& line);
  void note(DeliveryNote::Outcome outcome, std::string asked, std::string done, std::string why);

  Channel& channel_;
  ChatOutboxOptions options_;
  ChannelCapabilities caps_;
  Clock& clock_;
  TokenBucket bucket_;
  Clock::duration edit_interval_{};
  bool streaming_ = false;
  bool use_append_ = false;
  std::string msg_;
  std::size_t msg_units_ = 0;  // text_units(msg_) when there is a limit
  std::string partial_;        // an incomplete UTF-8 sequence at the end of the text so far
  Open open_;
  bool silenced_ = false;               // until end(): the reply is silent, its text is dropped
  std::size_t split_parts_ = 0;         // messages the current text went out as (for the Split note)
  std::vector<std::string> reply_ids_;  // text messages shown since the last end() (for retract())
  DeliveryReport report_;
};

}  // namespace sigil::deliver
