// A chat channel on a terminal (or any std::ostream): `sigil chat` talks to the agent through it.
//
// What it shows, exactly:
// - text as it streams: a message is written when sent and extended by append_text(); text_done() ends its
//   line. Plain text: Markdown is written as the model wrote it.
// - a reaction as its own line: `(reacted 👍)`;
// - a file saved into options.media_dir, then `[file: report.pdf, 12.3 KB -> ./data/out/report.pdf]`
//   (caption after it, if any); a voice note saved as .ogg, then
//   `[voice note: voice.ogg, 0:03, 12.3 KB -> ./data/out/voice.ogg]`. An existing file is never overwritten:
//   `report-2.pdf`, `report-3.pdf`, ... With no media_dir, files and voice notes fail (the outbox then shows
//   a text line).
// Output that comes while a streamed line is open starts on a new line; the streamed text then goes on
// at the start of the next line (without the spaces it began with).
//
// Capabilities: append (a terminal can add to what it shows but never change it), no edits, no deletes,
// reactions (any emoji), every file kind, voice notes, no text limit, plain text, no rate limit.
// Thread-safe: calls are serialised by a mutex.
#pragma once

#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

#include "sigil/deliver/channel.h"

namespace sigil::channels::console {

struct ConsoleChannelOptions {
  // Folder for files and voice notes; created when needed; shown as written here.
  std::string media_dir;
};

class ConsoleChannel final : public deliver::Channel {
 public:
  ConsoleChannel(std::ostream& out, ConsoleChannelOptions options = {});

  deliver::ChannelCapabilities capabilities() const override;
  deliver::ChannelResult send_text(std::string_view text) override;
  deliver::ChannelResult append_text(const std::string& id, std::string_view more) override;
  void text_done(const std::string& id) override;
  deliver::ChannelResult send_file(const deliver::OutgoingFile& file) override;
  deliver::ChannelResult send_voice(const deliver::OutgoingFile& voice) override;
  deliver::ChannelResult react(const std::string& message_id, std::string_view emoji) override;

  // Ends an open streamed line (if any), e.g. before the terminal prints its prompt.
  void end_line();

 private:
  std::string next_id();
  void end_line_locked();
  void write(std::string_view s);
  // Saves the payload into media_dir under a free name derived from `name`; returns the shown path or an
  // error (ok == false).
  deliver::ChannelResult save(const deliver::OutgoingFile& file, std::string name);

  std::ostream& out_;
  ConsoleChannelOptions options_;
  std::mutex mu_;
  std::uint64_t serial_ = 0;
  std::string open_id_;     // the streamed message whose line is open
  bool line_open_ = false;  // the last byte written was not a line break
};

}  // namespace sigil::channels::console
