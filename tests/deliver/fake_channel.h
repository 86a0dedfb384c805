// Test doubles for deliver/: a channel that records every call as one line, a clock that never sleeps,
// and a payload held in memory.
#pragma once

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/deliver/channel.h"
#include "sigil/deliver/clock.h"
#include "sigil/exec/handler.h"

namespace sigil::deliver::testing {

class FakeClock final : public Clock {
 public:
  time_point now() override { return now_; }
  void sleep_until(time_point t) override {
    if (t > now_) {
      sleeps.push_back(t - now_);
      now_ = t;
    }
  }
  void advance(std::chrono::milliseconds d) { now_ += d; }
  std::vector<duration> sleeps;

 private:
  time_point now_{std::chrono::seconds(1000)};
};

class MemoryPayload final : public deliver::Payload {
 public:
  MemoryPayload(std::string name, std::string bytes, std::string mime = {})
      : name_(std::move(name)), bytes_(std::move(bytes)), mime_(std::move(mime)) {}
  std::uint64_t size() const override { return bytes_.size(); }
  std::string name() const override { return name_; }
  std::string mime_type() const override { return mime_; }
  std::int64_t read_at(std::uint64_t offset, std::span<char> out) const override {
    if (fail_reads) return -1;
    if (offset >= bytes_.size()) return 0;
    const std::size_t n = std::min<std::size_t>(out.size(), bytes_.size() - offset);
    std::memcpy(out.data(), bytes_.data() + offset, n);
    return static_cast<std::int64_t>(n);
  }
  bool fail_reads = false;

 private:
  std::string name_, bytes_, mime_;
};

// Every call becomes one line of `log`:
//   send m1 <text> | edit m1 <text> | append m1 <more> | done m1 | delete m1 |
//   file <kind> <name> | voice <name> | react <message> <emoji>
// `texts` holds each text message's current text by id, in creation order.
class FakeChannel final : public Channel {
 public:
  explicit FakeChannel(ChannelCapabilities caps) : caps_(std::move(caps)) {}

  ChannelCapabilities capabilities() const override { return caps_; }
  bool shows_text(std::string_view text) const override { return !shows || shows(text); }

  ChannelResult send_text(std::string_view text) override {
    if (fail.count("send")) return channel_error("send refused");
    const std::string id = "m" + std::to_string(++serial_);
    log.push_back("send " + id + " " + std::string(text));
    ids.push_back(id);
    texts.emplace_back(text);
    return ChannelResult(id);
  }
  ChannelResult edit_text(const std::string& id, std::string_view text) override {
    if (!caps_.edits) return channel_error("no edits");
    if (fail.count("edit")) return channel_error("edit refused");
    log.push_back("edit " + id + " " + std::string(text));
    text_of(id) = std::string(text);
    return ChannelResult(id);
  }
  ChannelResult append_text(const std::string& id, std::string_view more) override {
    if (!caps_.append) return channel_error("no append");
    log.push_back("append " + id + " " + std::string(more));
    text_of(id) += std::string(more);
    return ChannelResult(id);
  }
  void text_done(const std::string& id) override { log.push_back("done " + id); }
  ChannelResult delete_message(const std::string& id) override {
    if (!caps_.deletes) return channel_error("no deletes");
    log.push_back("delete " + id);
    return ChannelResult(id);
  }
  ChannelResult send_file(const OutgoingFile& file) override {
    if (fail.count("file:" + file.kind)) return channel_error(file.kind + " refused");
    if (fail.count("throw")) throw std::runtime_error("boom");
    log.push_back("file " + file.kind + " " + file.name + (file.caption.empty() ? "" : " | " + file.caption));
    return ChannelResult("f" + std::to_string(++serial_));
  }
  ChannelResult send_voice(const OutgoingFile& voice) override {
    if (fail.count("voice")) return channel_error("voice refused");
    log.push_back("voice " + voice.name);
    return ChannelResult("v" + std::to_string(++serial_));
  }
  ChannelResult react(const std::string& message_id, std::string_view emoji) override {
    if (fail.count("react")) return channel_error("reaction refused");
    log.push_back("react " + message_id + " " + std::string(emoji));
    return ChannelResult(message_id);
  }

  std::string& text_of(const std::string& id) {
    const auto it = std::find(ids.begin(), ids.end(), id);
    if (it == ids.end()) throw std::logic_error("unknown message " + id);
    return texts[static_cast<std::size_t>(it - ids.begin())];
  }

  std::function<bool(std::string_view)> shows;  // shows_text(); unset: every text shows
  std::vector<std::string> log;
  std::vector<std::string> ids;
  std::vector<std::string> texts;
  std::set<std::string> fail;  // "send", "edit", "file:<kind>", "voice", "react", "throw"

 private:
  ChannelCapabilities caps_;
  int serial_ = 0;
};

// Everything a channel can do but append to a sent message, in plain text: a channel that streams by editing.
inline ChannelCapabilities caps_edit() {
  ChannelCapabilities c = ChannelCapabilities::everything();
  c.append = false;
  c.markdown = MarkdownFlavour::Plain;
  return c;
}

inline ChannelCapabilities caps_append() {
  ChannelCapabilities c = caps_edit();
  c.edits = false;
  c.append = true;
  return c;
}

inline ChannelCapabilities caps_plain() {
  ChannelCapabilities c = caps_edit();
  c.edits = false;
  c.deletes = false;
  return c;
}

inline deliver::Delivery text_delivery(std::string text) {
  deliver::Delivery d;
  d.op = deliver::Delivery::Op::Text;
  d.text = std::move(text);
  return d;
}

inline deliver::Delivery file_delivery(std::string name, std::string kind, std::string bytes = "PDF!",
                                       std::string caption = {}) {
  deliver::Delivery d;
  d.op = deliver::Delivery::Op::File;
  d.path = "/files/" + name;
  d.kind = std::move(kind);
  d.caption = std::move(caption);
  d.payload = std::make_shared<MemoryPayload>(name, std::move(bytes));
  return d;
}

inline deliver::Delivery voice_delivery(std::string name = "hello.ogg", std::uint64_t duration_ms = 3200) {
  deliver::Delivery d;
  d.op = deliver::Delivery::Op::Voice;
  d.path = "voice/" + name;
  d.duration_ms = duration_ms;
  d.payload = std::make_shared<MemoryPayload>(name, "OggS....", "audio/ogg; codecs=opus");
  return d;
}

inline deliver::Delivery reaction(std::string emoji, std::string message = {}) {
  deliver::Delivery d;
  d.op = deliver::Delivery::Op::Reaction;
  d.emoji = std::move(emoji);
  d.message = std::move(message);
  return d;
}

inline deliver::Delivery message_delivery(std::string channel, std::string chat, std::string text) {
  deliver::Delivery d;
  d.op = deliver::Delivery::Op::Message;
  d.channel = std::move(channel);
  d.chat = std::move(chat);
  d.text = std::move(text);
  return d;
}

}  // namespace sigil::deliver::testing
