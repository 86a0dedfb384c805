// The bytes of file and voice deliveries, kept so the web client can download them by URL
// (/media/<sha256>/<name>).
//
// What it promises:
// - put() reads a Payload once (read_at, from offset 0 to its end), computing the SHA-256 of what it read,
//   and keeps the bytes under that hash: in `dir`/<sha256> when a directory is set (written to a temporary
//   name first, then renamed, so a reader never sees half a file; the folder is created when missing; a
//   small JSON per (bytes, name) link keeps the name, type and disposition across restarts), else in memory,
//   at most `memory_limit` bytes in all (the oldest entries are dropped first; a payload larger than the
//   whole cache is refused).
// - find() takes only a validated hash (valid_hash(): 64 lowercase hex digits): no other part of a URL ever
//   reaches the file system.
// - Voice notes are served inline (an <audio> element plays them) with an audio/* type; everything else
//   is an attachment.
// - Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "sigil/base/result.h"
#include "sigil/exec/handler.h"

namespace sigil::server {

struct MediaInfo {
  std::string sha256;  // of the bytes read
  std::uint64_t size = 0;
  std::string name;  // the payload's name (or "file")
  std::string mime;  // the payload's type, or guessed from the name
  bool inline_disposition = false;
};

struct MediaFound {
  MediaInfo info;
  std::string file;                          // with a directory: the file to send
  std::shared_ptr<const std::string> bytes;  // in memory
};

class MediaStore {
 public:
  static constexpr std::size_t kDefaultMemoryLimit = std::size_t{64} << 20;
  static constexpr std::uint64_t kDefaultDiskLimit = std::uint64_t{4} << 30;

  // disk_limit: the media folder's bytes in all (counted at construction, then kept); a new file that would
  // go past it is refused (put() says so, the delivery falls back). 0: no cap.
  explicit MediaStore(std::string dir, std::size_t memory_limit = kDefaultMemoryLimit,
                      std::uint64_t disk_limit = kDefaultDiskLimit);

  static bool valid_hash(std::string_view hash);

  Result<MediaInfo> put(const exec::Payload& payload, bool voice);
  // name: the URL's last segment. Each (bytes, name) link keeps the name, type and disposition it was first
  // delivered with: a later delivery of the same bytes (another user's, as a voice note) never changes it.
  // Without a name: what the first delivery of the bytes was.
  std::optional<MediaFound> find(std::string_view hash, std::string_view name = {}) const;

 private:
  Result<MediaInfo> put_file(const exec::Payload& payload, MediaInfo info);
  Result<MediaInfo> put_memory(const exec::Payload& payload, MediaInfo info);
  static MediaInfo unknown_link(std::string_view hash, std::string_view name, std::uint64_t size);

  const std::string dir_;
  const std::size_t memory_limit_;
  const std::uint64_t disk_limit_;
  std::uint64_t disk_bytes_ = 0;  // guarded by mu_
  mutable std::mutex mu_;
  struct Entry {
    MediaInfo info;
    std::shared_ptr<const std::string> bytes;
  };
  std::map<std::string, Entry, std::less<>> memory_;
  std::map<std::string, MediaInfo, std::less<>> names_;  // "<hash>/<name>": each link as first delivered
  std::deque<std::string> order_;                        // oldest first
  std::size_t memory_bytes_ = 0;
};

}  // namespace sigil::server
