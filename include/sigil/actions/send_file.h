// The `send-file` action and the `<file>` tag (spec 13, 14, 15): a file from an allowed folder, opened once
// through the FileSandbox and sent from that open descriptor.
//
// What the handler promises:
// - The path goes through FileSandbox::open (no links, no `..`, regular files only, size cap on the open
//   file); a refusal is an error result naming the reason, e.g. `send-file: "../etc/passwd": ...`.
// - The delivery carries the open file as its Payload and the file's SHA-256 (identical attachments in one
//   turn go once, 12.4); `path` in the delivery is the path beneath its folder, for reports only.
// - kind: as asked, or by extension (spec 14). caption: as written.
// - cleanup: deletes the file only when the operator allows it (FilesConfig::allow_cleanup); it is removed
//   right after it was opened and hashed, so what is sent is still the opened file. Asked without
//   permission: the file is sent and kept, and the result says so (not an error: the user got the file).
// - channel + chat (another chat): only to targets in FilesConfig::allowed_targets, else an error and
//   nothing is sent.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sigil/actions/file_sandbox.h"
#include "sigil/actions/send_message.h"
#include "sigil/exec/handler.h"

namespace sigil::actions {

struct FilesConfig {
  // Shared: handlers run concurrently and only call its const members.
  std::shared_ptr<const FileSandbox> sandbox;
  bool allow_cleanup = false;
  std::vector<MessageTarget> allowed_targets;  // as send-message's allow-list
};

// A payload backed by a file opened by the sandbox.
std::shared_ptr<const exec::Payload> make_file_payload(OpenedFile file, std::string mime_type);

// Registers send-file. Without a sandbox, every directive is an error "send-file: no folder is configured".
void add_send_file_handlers(exec::HandlerTable& table, FilesConfig config);

}  // namespace sigil::actions
