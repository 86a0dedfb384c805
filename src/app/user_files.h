// Files people send on a chat platform, kept where the assistant's actions can use them: beneath the first of
// [actions] file_roots (the folder the send-file sandbox, and so the image and file actions, reads), in
// <channel>/<chat>/. Each channel fetches the bytes its own way; this is what they share.
//
// What it promises:
// - keep_user_file() writes under a temporary name and renames, so a crash never leaves half a file under the
//   final name; the same relative path always names the same message's file (a resumed turn downloads it
//   again over itself).
// - Both answers are the one line the model reads after the user's text:
//   "[the user sent a photo: telegram/1001/17-photo.jpg (image/jpeg, 12.3 KB)]" or
//   "[the user sent a document report.pdf (25.0 MB): not downloaded: larger than the 20.0 MB limit]".
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/base/result.h"
#include "sigil/net/blocking_fetch.h"

namespace sigil::app {

// What the platform says about a file before it is downloaded.
struct UserFile {
  std::string kind;       // as the model reads it: "photo", "document", "voice note", "image", "file", …
  std::string name;       // the sender's file name ("" when the platform gives none)
  std::string mime_type;  // "" when the platform gives none: guessed from the kept name
  std::int64_t size = 0;  // bytes; 0 when unknown
};

// `name` reduced to one safe path component: [A-Za-z0-9._-], at most 100 bytes, no leading dot.
std::string safe_file_name(std::string_view name);

// "[the user sent a <kind> <name> (<size>): not downloaded: <why>]" ("an" before a vowel).
std::string not_kept_line(const UserFile& file, std::string_view why);

// "larger than the 20.0 MB limit".
std::string over_limit(std::uint64_t max_bytes);

// Why a download of at most `max_bytes` kept nothing, as not_kept_line() takes it: over_limit() when the
// file was too large, else the download's own message.
std::string download_refused(const net::DownloadError& error, std::uint64_t max_bytes);

// Writes `bytes` to root/relative and answers the line naming it (or why it was not kept). `event` names the
// log record ("telegram-file-kept"), `chat` the conversation in it.
std::string keep_user_file(const std::filesystem::path& root, const std::string& relative,
                           std::string_view bytes, const UserFile& file, std::string_view event,
                           std::string_view chat);

// A file by its Content-Type (its parameters cut off): kind "image", "audio file", "video" or "file".
UserFile typed_user_file(std::string name, std::string_view content_type, std::int64_t size);

// A file a Discord or Slack message carries: what the model is told of it, and where the bot fetches it.
struct MessageFile {
  UserFile about;
  std::string url;
};
using FileDownload =
    std::function<Result<std::string, net::DownloadError>(const std::string& url, std::uint64_t max_bytes)>;

// The lines the model reads after the text of a Discord or Slack message, one a file: the first 10 (Discord's
// own limit a message) are fetched with `download` (at most max_bytes) and kept at
// <channel>/<chat>/<message id>[-<n>]-<name> beneath root (the index keeps a message's files of one name
// apart; log event "<channel>-file-kept"); the others, and the files that cannot be kept, say why not.
std::string message_file_lines(const std::vector<MessageFile>& files, std::string_view channel,
                               const std::string& chat, const std::string& message_id,
                               const std::filesystem::path& root, std::uint64_t max_bytes,
                               const FileDownload& download);

}  // namespace sigil::app
