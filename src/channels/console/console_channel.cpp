#include "sigil/channels/console/console_channel.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "sigil/deliver/format.h"
#include "sigil/text/ascii.h"

namespace sigil::channels::console {

namespace {

using deliver::channel_error;
using deliver::ChannelResult;

// A file name safe to create in the media folder: no directories, no leading dots, no control bytes.
std::string safe_name(std::string_view name) {
  const auto slash = name.find_last_of('/');
  if (slash != std::string_view::npos) name = name.substr(slash + 1);
  while (!name.empty() && name.front() == '.') name.remove_prefix(1);
  std::string out;
  for (const char c : name) out.push_back(static_cast<unsigned char>(c) < 0x20 ? '_' : c);
  if (out.empty()) out = "file";
  return out;
}

}  // namespace

ConsoleChannel::ConsoleChannel(std::ostream& out, ConsoleChannelOptions options)
    : out_(out), options_(std::move(options)) {
  while (options_.media_dir.size() > 1 && options_.media_dir.back() == '/') options_.media_dir.pop_back();
}

deliver::ChannelCapabilities ConsoleChannel::capabilities() const {
  // A terminal shows everything, as plain text; what it printed stays: appended to, never edited or deleted.
  deliver::ChannelCapabilities c = deliver::ChannelCapabilities::everything();
  c.edits = false;
  c.deletes = false;
  c.markdown = deliver::MarkdownFlavour::Plain;
  return c;
}

std::string ConsoleChannel::next_id() { return "console-" + std::to_string(++serial_); }

void ConsoleChannel::write(std::string_view s) {
  if (s.empty()) return;
  out_.write(s.data(), static_cast<std::streamsize>(s.size()));
  out_.flush();
  line_open_ = s.back() != '\n';
}

void ConsoleChannel::end_line_locked() {
  if (line_open_) write("\n");
  open_id_.clear();
}

void ConsoleChannel::end_line() {
  std::lock_guard lock(mu_);
  end_line_locked();
}

ChannelResult ConsoleChannel::send_text(std::string_view text) {
  std::lock_guard lock(mu_);
  end_line_locked();
  write(text);
  open_id_ = next_id();
  return ChannelResult(open_id_);
}

ChannelResult ConsoleChannel::append_text(const std::string& id, std::string_view more) {
  std::lock_guard lock(mu_);
  if (id != open_id_) return channel_error("message " + id + " is no longer the last one shown");
  // The line was broken by something else (a reaction): the text goes on at the start of a new line.
  if (!line_open_) more = text::ascii::trim_left(more, text::ascii::is_blank);
  write(more);
  return ChannelResult(id);
}

void ConsoleChannel::text_done(const std::string& id) {
  std::lock_guard lock(mu_);
  if (id == open_id_) end_line_locked();
}

ChannelResult ConsoleChannel::save(const deliver::OutgoingFile& file, std::string name) {
  if (options_.media_dir.empty()) return channel_error("no folder for files (media_dir)");
  if (!file.payload) return channel_error("no bytes to save");
  std::error_code ec;
  std::filesystem::create_directories(options_.media_dir, ec);
  if (ec) return channel_error("cannot create " + options_.media_dir + ": " + ec.message());

  // A free name: name, then stem-2.ext, stem-3.ext, ... (O_EXCL: never overwrite).
  const auto dot = name.find_last_of('.');
  const std::string stem = dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
  const std::string ext = dot == std::string::npos || dot == 0 ? std::string() : name.substr(dot);
  int fd = -1;
  std::string shown;
  for (int n = 1; n <= 1000 && fd < 0; ++n) {
    const std::string candidate = n == 1 ? name : stem + "-" + std::to_string(n) + ext;
    shown = options_.media_dir + "/" + candidate;
    fd = ::open(shown.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST)
      return channel_error("cannot create " + shown + ": " + std::strerror(errno));
  }
  if (fd < 0) return channel_error("no free name for " + name + " in " + options_.media_dir);

  std::vector<char> buf(64 * 1024);
  std::uint64_t offset = 0;
  std::string error;
  for (;;) {
    const std::int64_t got = file.payload->read_at(offset, buf);
    if (got < 0) {
      error = "cannot read " + file.name;
      break;
    }
    if (got == 0) break;
    std::size_t done = 0;
    while (done < static_cast<std::size_t>(got)) {
      const ssize_t w = ::write(fd, buf.data() + done, static_cast<std::size_t>(got) - done);
      if (w < 0) {
        if (errno == EINTR) continue;
        error = "cannot write " + shown + ": " + std::strerror(errno);
        break;
      }
      done += static_cast<std::size_t>(w);
    }
    if (!error.empty()) break;
    offset += static_cast<std::uint64_t>(got);
  }
  ::close(fd);
  if (!error.empty()) {
    ::unlink(shown.c_str());
    return channel_error(error);
  }
  return ChannelResult(shown);
}

ChannelResult ConsoleChannel::send_file(const deliver::OutgoingFile& file) {
  std::lock_guard lock(mu_);
  const std::string name = safe_name(file.name);
  ChannelResult saved = save(file, name);
  if (!saved.ok()) return saved;
  end_line_locked();
  std::string line = "[file: " + name + ", " + deliver::human_size(file.size) + " -> " + saved.value() + "]";
  if (!file.caption.empty()) line += " " + file.caption;
  write(line + "\n");
  return ChannelResult(next_id());
}

ChannelResult ConsoleChannel::send_voice(const deliver::OutgoingFile& voice) {
  std::lock_guard lock(mu_);
  std::string name = safe_name(voice.name.empty() ? "voice.ogg" : voice.name);
  if (!name.ends_with(".ogg")) name += ".ogg";
  ChannelResult saved = save(voice, name);
  if (!saved.ok()) return saved;
  end_line_locked();
  std::string line = "[voice note: " + name;
  if (voice.duration_ms > 0) line += ", " + deliver::human_duration(voice.duration_ms);
  line += ", " + deliver::human_size(voice.size) + " -> " + saved.value() + "]";
  write(line + "\n");
  return ChannelResult(next_id());
}

ChannelResult ConsoleChannel::react(const std::string& message_id, std::string_view emoji) {
  std::lock_guard lock(mu_);
  const bool was_open = line_open_;
  // A reaction belongs to another message: it gets its own line, and a streamed line goes on after it.
  if (was_open) write("\n");
  write("(reacted " + std::string(emoji) + ")\n");
  (void)message_id;
  return ChannelResult(message_id);
}

}  // namespace sigil::channels::console
