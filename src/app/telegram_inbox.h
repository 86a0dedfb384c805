// Files Telegram users send (a photo, document, voice note, audio, video) kept where the assistant's actions
// can use them: beneath the first of [actions] file_roots, the folder the send-file sandbox (and so the
// image and file actions) reads, in telegram/<chat id>/.
//
// What it promises:
// - keep_inbound_file(): getFile, then the download (BotApi::download), written under a temporary name and
//   renamed, so a crash never leaves half a file under the final name. The name is
//   "<message id>-<the sender's name>" (photos "photo.jpg", voice notes "voice.ogg" when Telegram gives no
//   name), reduced to [A-Za-z0-9._-] and 100 bytes, so the same message always lands on the same file (a
//   resumed turn downloads it again over itself).
// - A file larger than `max_bytes` (by Telegram's size before any call, or by what arrives) is not kept.
// - The answer is the line the model reads after the user's text, in either case:
//   "[the user sent a photo: telegram/1001/17-photo.jpg (image/jpeg, 12.3 KB)]" or
//   "[the user sent a document report.pdf (25.0 MB): not downloaded: larger than the 20.0 MB limit]".
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "sigil/channels/telegram/bot_api.h"
#include "sigil/channels/telegram/update_poller.h"

namespace sigil::app {

std::string keep_inbound_file(channels::telegram::BotApi& api, const std::filesystem::path& root,
                              std::int64_t chat_id, std::int64_t message_id,
                              const channels::telegram::InboundFile& file, std::uint64_t max_bytes);

}  // namespace sigil::app
