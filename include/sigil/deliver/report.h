// What the outbox did differently from what was asked: fallbacks, skips, failures and splits, in order,
// for the turn report (architecture: "unsupported reaction -> skipped and reported").
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::deliver {

struct DeliveryNote {
  enum class Outcome : unsigned char {
    Fallback,   // shown, but another way (a voice note as an audio file, a file as a text line)
    Skipped,    // not shown, on purpose (no reactions here, emoji not allowed, no route)
    Failed,     // the channel refused every way we tried
    Split,      // a text went out as several messages
    Retracted,  // shown text taken back (late sentinel), or could not be
  };
  Outcome outcome = Outcome::Fallback;
  std::string asked;  // "voice note hello.ogg", "reaction 👍", "file report.pdf (video)", "text"
  std::string done;   // "sent as audio file", "skipped", "3 messages"
  std::string why;    // "channel has no voice notes", "channel error: ..."
};
std::string_view to_string(DeliveryNote::Outcome outcome);

struct DeliveryReport {
  std::vector<DeliveryNote> notes;
  std::size_t messages_sent = 0;  // text messages created
  std::size_t edits = 0;          // edit_text and append_text calls
  std::size_t files_sent = 0;     // files and voice notes sent (as any kind)
  std::size_t reactions = 0;
  std::size_t waits = 0;  // times a rate limit made the outbox wait

  bool empty() const { return notes.empty(); }
  // One line each: "<outcome>: <asked>: <done> (<why>)".
  std::vector<std::string> lines() const;
  // {"notes":[{"outcome":…,"asked":…,"done":…,"why":…}],"messages":N,"edits":N,"files":N,"reactions":N,
  //  "waits":N}
  boost::json::value json() const;
};

}  // namespace sigil::deliver
