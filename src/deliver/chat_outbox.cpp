#include "sigil/deliver/chat_outbox.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "sigil/deliver/format.h"
#include "sigil/deliver/split.h"
#include "sigil/text/ascii.h"
#include "sigil/text/media_types.h"

namespace sigil::deliver {

namespace {

using text::ascii::trim_left;
using text::ascii::trim_right;

std::string base_name(std::string_view path) {
  const auto slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Spec 14, for a File delivery whose kind was left `auto` or empty.
std::string kind_by_extension(std::string_view name) {
  return std::string(text::to_string(text::file_kind_for_name(name)));
}

}  // namespace

ChatOutbox::ChatOutbox(Channel& channel, ChatOutboxOptions options)
    : channel_(channel),
      options_(std::move(options)),
      caps_(channel.capabilities()),
      clock_(options_.clock != nullptr ? *options_.clock : SteadyClock::instance()),
      bucket_(caps_.rate.per_second, caps_.rate.burst, clock_.now()) {
  if (options_.edit_interval.count() > 0) {
    edit_interval_ = options_.edit_interval;
  } else if (caps_.rate.per_second > 0) {
    edit_interval_ =
        std::chrono::ceil<Clock::duration>(std::chrono::duration<double>(1.0 / caps_.rate.per_second));
  }
  streaming_ = wants_stream();
  use_append_ = streaming_ && caps_.append;
}

ChatOutbox::~ChatOutbox() = default;

bool ChatOutbox::wants_stream() const {
  const bool can = caps_.edits || caps_.append;
  switch (options_.stream) {
    case StreamPolicy::Never:
      return false;
    case StreamPolicy::Always:
      return can;
    case StreamPolicy::Auto:
      return can && caps_.deletes;
  }
  return false;
}

DeliveryReport ChatOutbox::take_report() { return std::exchange(report_, DeliveryReport{}); }

bool ChatOutbox::take_token(bool required) {
  if (bucket_.unlimited()) return true;
  if (!required) return bucket_.try_take(clock_.now());
  if (take_waiting(bucket_, clock_).count() > 0) ++report_.waits;
  return true;
}

ChannelResult ChatOutbox::call(const std::function<ChannelResult()>& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return channel_error(std::string("channel threw: ") + e.what());
  } catch (...) {
    return channel_error("channel threw");
  }
}

void ChatOutbox::note(DeliveryNote::Outcome outcome, std::string asked, std::string done, std::string why) {
  report_.notes.push_back({outcome, std::move(asked), std::move(done), std::move(why)});
}

namespace {

// Bytes of s up to an incomplete UTF-8 sequence at its end (held until the next piece completes it).
std::size_t complete_prefix(std::string_view s) {
  const std::size_t n = s.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto b = static_cast<unsigned char>(s[n - back]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const std::size_t need = b >= 0xF0 && b <= 0xF4   ? 4
                             : b >= 0xE0 && b <= 0xEF ? 3
                             : b >= 0xC2 && b <= 0xDF ? 2
                                                      : 1;
    return need > back ? n - back : n;
  }
  return n;
}

}  // namespace

std::string_view ChatOutbox::shown() const {
  return use_append_ ? std::string_view(msg_).substr(0, open_.shown_size) : std::string_view(open_.shown);
}

void ChatOutbox::set_shown(std::string_view visible) {
  open_.shown_size = visible.size();
  if (!use_append_) open_.shown.assign(visible);
}

// Appending: what is shown is a prefix of the text, so equal lengths mean equal texts (no compare of the
// whole message per piece).
bool ChatOutbox::shows(std::string_view visible) const {
  return use_append_ ? visible.size() == open_.shown_size : visible == open_.shown;
}

void ChatOutbox::append_visible(std::string_view piece) {
  std::string joined;
  if (!partial_.empty()) {
    joined = std::exchange(partial_, {});
    joined.append(piece);
    piece = joined;
  }
  const std::size_t complete = complete_prefix(piece);
  partial_.assign(piece.substr(complete));
  piece = piece.substr(0, complete);
  if (msg_.empty()) piece = trim_left(piece);
  msg_.append(piece);
  if (caps_.text_limit != 0) msg_units_ += text_units(piece, caps_.text_unit);
}

void ChatOutbox::text(std::string_view piece) {
  if (silenced_) return;
  append_visible(piece);
  if (!streaming_) return;  // held: split when flushed
  split_overflow();
  stream_update();
}

void ChatOutbox::split_overflow() {
  // Counted as it grows, so a message within the limit costs nothing per piece.
  if (caps_.text_limit == 0 || msg_units_ <= caps_.text_limit) return;
  split_while_over();
  msg_units_ = text_units(msg_, caps_.text_unit);
}

void ChatOutbox::split_while_over() {
  // Trailing whitespace alone never splits: the next piece may not come.
  while (auto cut = split_once(trim_right(msg_), caps_.text_limit, caps_.text_unit)) {
    // Appended text cannot be taken back: if more is shown than the cut keeps, the message ends there.
    if (use_append_ && !open_.id.empty() && !std::string_view(cut->head).starts_with(shown())) {
      cut->head = std::string(shown());
      cut->consumed = open_.shown_size;
      cut->reopen.clear();
    }
    finish_message(cut->head);
    msg_ = rest_after(msg_, *cut);
    ++split_parts_;
  }
}

void ChatOutbox::stream_update() {
  const std::string_view visible = trim_right(msg_);
  if (visible.empty()) return;
  if (open_.id.empty()) {
    if (!channel_.shows_text(visible) || !take_token(false)) return;
    const ChannelResult r = call([&] { return channel_.send_text(visible); });
    // A failed first send is tried again by the next update, and reported if the final one fails.
    if (!r.ok()) return;
    open_.id = r.value();
    set_shown(visible);
    open_.last_update = clock_.now();
    ++report_.messages_sent;
    reply_ids_.push_back(r.value());
    return;
  }
  if (shows(visible)) return;
  if (clock_.now() - open_.last_update < edit_interval_) return;
  if (!channel_.shows_text(visible) || !take_token(false)) return;
  const ChannelResult r =
      use_append_ ? call([&] { return channel_.append_text(open_.id, visible.substr(open_.shown_size)); })
                  : call([&] { return channel_.edit_text(open_.id, visible); });
  if (!r.ok()) return;  // caught up by a later update or the final one
  set_shown(visible);
  open_.last_update = clock_.now();
  ++report_.edits;
}

void ChatOutbox::finish_message(std::string_view head) {
  if (head.empty()) return;
  if (open_.id.empty()) {
    take_token(true);
    ChannelResult r = call([&] { return channel_.send_text(head); });
    // Its outcome may be unknown (a time-out after it went out): the channel's repeat is the same
    // transaction.
    if (!r.ok() && options_.repeat_failed_sends) r = call([&] { return channel_.send_text(head); });
    if (r.ok()) {
      ++report_.messages_sent;
      reply_ids_.push_back(r.value());
      try {
        channel_.text_done(r.value());
      } catch (...) {  // nothing to undo: the text is out
      }
    } else {
      note(DeliveryNote::Outcome::Failed, "text", "not sent", "channel error: " + r.error());
    }
    open_ = {};
    return;
  }
  if (head != shown()) {
    take_token(true);
    ChannelResult r = channel_error("the message cannot be changed to its final text");
    if (use_append_ && head.starts_with(shown())) {
      r = call([&] { return channel_.append_text(open_.id, head.substr(open_.shown_size)); });
    } else if (caps_.edits) {
      r = call([&] { return channel_.edit_text(open_.id, head); });
    }
    if (r.ok()) {
      ++report_.edits;
    } else {
      note(DeliveryNote::Outcome::Failed, "text", "last update not shown", "channel error: " + r.error());
    }
  }
  try {
    channel_.text_done(open_.id);
  } catch (...) {
  }
  open_ = {};
}

void ChatOutbox::flush_text() {
  if (!partial_.empty()) {  // an incomplete sequence at the very end: passed on as it is
    msg_.append(std::exchange(partial_, {}));
  }
  if (caps_.text_limit != 0) split_while_over();
  const std::string_view last = trim_right(msg_);
  if (!last.empty()) {
    finish_message(last);
    ++split_parts_;
  } else if (!open_.id.empty()) {
    finish_message(std::string(shown()));
  }
  if (split_parts_ > 1) {
    note(DeliveryNote::Outcome::Split, "text", std::to_string(split_parts_) + " messages",
         "longer than the channel's limit of " + std::to_string(caps_.text_limit) + " " +
             std::string(to_string(caps_.text_unit)));
  }
  msg_.clear();
  msg_units_ = 0;
  open_ = {};
  split_parts_ = 0;
}

void ChatOutbox::deliver(const deliver::Delivery& d) {
  using Op = deliver::Delivery::Op;
  if (d.op == Op::Reaction) {
    react(d);  // a reaction marks the message being answered; it does not end the reply's text message
    return;
  }
  flush_text();
  switch (d.op) {
    case Op::Text:
      send_text_delivery(d);
      break;
    case Op::File:
    case Op::Voice:
      send_attachment(d);
      break;
    case Op::Message:
      other_chat(d);
      break;
    case Op::Reaction:
      break;
  }
}

void ChatOutbox::end() {
  flush_text();
  reply_ids_.clear();
  silenced_ = false;
}

void ChatOutbox::end_message() { flush_text(); }  // a say block: its own message (spec 6.1)

void ChatOutbox::silence(bool /*late*/) {
  // Whether text was shown is known here too (reply_ids_); `late` only says some text was passed on.
  retract();
  silenced_ = true;
}

bool ChatOutbox::send_line(const std::string& line) {
  for (const std::string& part : split_text(line, caps_.text_limit, caps_.text_unit)) {
    take_token(true);
    const ChannelResult r = call([&] { return channel_.send_text(part); });
    if (!r.ok()) return false;
    ++report_.messages_sent;
    try {
      channel_.text_done(r.value());
    } catch (...) {
    }
  }
  return true;
}

void ChatOutbox::send_text_delivery(const deliver::Delivery& d) {
  const auto parts = split_text(d.text, caps_.text_limit, caps_.text_unit);
  for (const std::string& part : parts) {
    take_token(true);
    const ChannelResult r = call([&] { return channel_.send_text(part); });
    if (!r.ok()) {
      note(DeliveryNote::Outcome::Failed, "text", "not sent", "channel error: " + r.error());
      return;
    }
    ++report_.messages_sent;
    try {
      channel_.text_done(r.value());
    } catch (...) {
    }
  }
  if (parts.size() > 1) {
    note(DeliveryNote::Outcome::Split, "text", std::to_string(parts.size()) + " messages",
         "longer than the channel's limit of " + std::to_string(caps_.text_limit) + " " +
             std::string(to_string(caps_.text_unit)));
  }
}

void ChatOutbox::send_attachment(const deliver::Delivery& d) {
  const bool voice = d.op == deliver::Delivery::Op::Voice || d.kind == "voice";
  OutgoingFile f;
  f.payload = d.payload;
  f.name = d.payload ? d.payload->name() : std::string();
  if (f.name.empty()) f.name = base_name(d.path);
  f.size = d.payload ? d.payload->size() : 0;
  f.mime_type = d.payload ? d.payload->mime_type() : std::string();
  f.caption = d.caption;
  f.duration_ms = d.duration_ms;
  f.sha256 = d.sha256;
  std::string wanted = voice ? "voice" : d.kind;
  if (wanted.empty() || wanted == "auto") wanted = kind_by_extension(f.name);
  const std::string asked = voice ? "voice note " + f.name : "file " + f.name + " (" + wanted + ")";

  // The ways to show it, best first (spec 14: voice -> audio -> document), then a text line.
  std::vector<std::string> ways;
  std::vector<std::string> why;
  if (!d.payload) {
    why.emplace_back("no bytes to send");
  } else {
    if (voice) {
      if (caps_.voice_notes) {
        ways.emplace_back("voice");
      } else {
        why.emplace_back("channel has no voice notes");
      }
      if (caps_.accepts_file_kind("audio")) {
        ways.emplace_back("audio");
      } else {
        why.emplace_back("channel cannot send audio files");
      }
    } else if (caps_.accepts_file_kind(wanted)) {
      ways.push_back(wanted);
    } else {
      why.push_back("channel cannot send " + wanted + " files");
    }
    if (wanted != "document") {
      if (caps_.accepts_file_kind("document")) {
        ways.emplace_back("document");
      } else {
        why.emplace_back("channel cannot send documents");
      }
    }
  }
  const auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) {
      if (!out.empty()) out += "; ";
      out += s;
    }
    return out;
  };

  for (const std::string& way : ways) {
    take_token(true);
    ChannelResult r = channel_error("not sent");
    if (way == "voice") {
      r = call([&] { return channel_.send_voice(f); });
    } else {
      OutgoingFile as = f;
      as.kind = way;
      r = call([&] { return channel_.send_file(as); });
    }
    if (r.ok()) {
      ++report_.files_sent;
      const bool as_asked = (voice && way == "voice") || (!voice && way == wanted);
      if (!as_asked) {
        note(DeliveryNote::Outcome::Fallback, asked,
             way == "voice" ? "sent as voice note" : "sent as " + way + " file", join(why));
      }
      return;
    }
    why.push_back("sending as " + way + ": channel error: " + r.error());
  }

  // Last way: a text line with the name (and a link when there is one).
  std::string line = voice ? "[voice note: " + f.name : "[file: " + f.name;
  if (d.payload) line += ", " + human_size(f.size);
  if (voice && d.duration_ms > 0) line += ", " + human_duration(d.duration_ms);
  line += "]";
  if (!d.caption.empty()) line += " " + d.caption;
  std::string url;
  if (options_.media_url) {
    try {
      url = options_.media_url(d);
    } catch (...) {
      url.clear();
    }
  }
  if (!url.empty()) line += " " + url;
  if (send_line(line)) {
    note(DeliveryNote::Outcome::Fallback, asked,
         url.empty() ? "sent as a text line" : "sent as a text line with a link", join(why));
  } else {
    why.emplace_back("the text line failed too");
    note(DeliveryNote::Outcome::Failed, asked, "not sent", join(why));
  }
}

void ChatOutbox::react(const deliver::Delivery& d) {
  const std::string asked = "reaction " + d.emoji;
  const std::string& target = d.message.empty() ? options_.reply_to : d.message;
  if (!caps_.reactions) {
    note(DeliveryNote::Outcome::Skipped, asked, "skipped", "channel has no reactions");
    return;
  }
  if (!caps_.accepts_reaction(d.emoji)) {
    note(DeliveryNote::Outcome::Skipped, asked, "skipped", "not among the channel's allowed reactions");
    return;
  }
  if (target.empty()) {
    note(DeliveryNote::Outcome::Skipped, asked, "skipped", "no message to react to");
    return;
  }
  // Streamed text written before the reaction is shown before it.
  if (streaming_ && !open_.id.empty()) {
    const std::string_view visible = trim_right(msg_);
    if (!shows(visible)) {
      take_token(true);
      const ChannelResult u =
          use_append_ ? call([&] { return channel_.append_text(open_.id, visible.substr(open_.shown_size)); })
                      : call([&] { return channel_.edit_text(open_.id, visible); });
      if (u.ok()) {
        set_shown(visible);
        open_.last_update = clock_.now();
        ++report_.edits;
      }
    }
  } else if (streaming_) {
    stream_update();
  }
  take_token(true);
  const ChannelResult r = call([&] { return channel_.react(target, d.emoji); });
  if (r.ok()) {
    ++report_.reactions;
  } else {
    note(DeliveryNote::Outcome::Failed, asked, "not shown", "channel error: " + r.error());
  }
}

void ChatOutbox::other_chat(const deliver::Delivery& d) {
  const std::string asked = "message to " + d.channel + ":" + d.chat;
  if (!options_.other_chat) {
    note(DeliveryNote::Outcome::Skipped, asked, "skipped", "no route to other chats from this outbox");
    return;
  }
  std::string error;
  try {
    error = options_.other_chat(d);
  } catch (const std::exception& e) {
    error = std::string("threw: ") + e.what();
  } catch (...) {
    error = "threw";
  }
  if (!error.empty()) note(DeliveryNote::Outcome::Failed, asked, "not sent", error);
}

void ChatOutbox::retract() {
  msg_.clear();
  msg_units_ = 0;
  partial_.clear();
  split_parts_ = 0;
  const std::size_t shown = reply_ids_.size();
  if (shown == 0) {
    open_ = {};
    return;
  }
  if (caps_.deletes) {
    std::size_t deleted = 0;
    std::string errors;
    for (const std::string& id : reply_ids_) {
      take_token(true);
      const ChannelResult r = call([&] { return channel_.delete_message(id); });
      if (r.ok()) {
        ++deleted;
      } else {
        if (!errors.empty()) errors += "; ";
        errors += "channel error: " + r.error();
      }
    }
    note(DeliveryNote::Outcome::Retracted, "text",
         std::to_string(deleted) + " of " + std::to_string(shown) + " messages deleted",
         errors.empty() ? "late sentinel" : "late sentinel; " + errors);
  } else {
    note(DeliveryNote::Outcome::Retracted, "text", std::to_string(shown) + " messages still shown",
         "late sentinel; channel cannot delete");
  }
  if (!open_.id.empty()) {
    try {
      channel_.text_done(open_.id);
    } catch (...) {
    }
  }
  open_ = {};
  reply_ids_.clear();
}

}  // namespace sigil::deliver
