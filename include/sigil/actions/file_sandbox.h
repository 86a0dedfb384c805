// The file sandbox behind `send-file` and `<file>` (spec 13, 15) and the `auto` file kind (spec 14).
//
// A FileSandbox holds one O_PATH directory descriptor per allowed folder, opened once when it is created.
// open() resolves a requested path beneath one of them without following any symbolic link:
// - openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS where the kernel has it
//   (Linux 5.6+);
// - otherwise (ENOSYS or EPERM from a seccomp filter, the Resolver::walk option, or the build flag
//   SIGIL_FILE_SANDBOX_FORCE_WALK) a walk of one openat(O_PATH | O_DIRECTORY | O_NOFOLLOW) per folder.
// Both give the same answers; the tests run every case through both.
//
// Rules, in the order they are checked:
// - The path must be non-empty, hold no NUL byte, be shorter than PATH_MAX, and have no component longer
//   than NAME_MAX. No `..` component, even one that would stay inside (`a/../b`): the model never needs it
//   and refusing it lexically keeps both resolvers identical. `.` and repeated slashes are ignored; a
//   trailing slash is refused (it names a directory).
// - A relative path is looked up beneath each folder in the configured order; the first folder that has it
//   wins. An absolute path must lie textually under a folder, compared component by component (so
//   `/data_evil/x` is not under `/data`), against the folder as configured or its canonical form; the
//   longest matching folder wins and the rest is resolved beneath it. `/proc/self/root/...`,
//   `/proc/self/fd/N` and every other absolute path elsewhere are refused as outside.
// - No symbolic link anywhere on the path, not even one that points inside the folder: links can be
//   swapped between check and use, and "only links that stay inside" is exactly the check that races.
// - The final file is first looked at with fstatat(AT_SYMLINK_NOFOLLOW) so FIFOs, devices and sockets are
//   refused without ever being opened (opening a device can have side effects). That look is advisory:
//   the file is then opened once, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY (so a FIFO swapped in still
//   cannot block), and every decision that matters (regular file, size limit) is re-made with fstat on that
//   open descriptor. Everything read comes from that descriptor; nothing is ever reopened by name.
//
// Not guarded: hard links. A hard link inside a folder to a file elsewhere is the same file, which no path
// check can tell apart; whoever can create links inside a folder is trusted as much as the folder.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/actions/result.h"
#include "sigil/actions/unique_fd.h"
#include "sigil/text/media_types.h"

namespace sigil::actions {

// ---------------------------------------------------------------- file kinds (spec 6.3, 14)

// The one vocabulary of file kinds (text/media_types.h); to_string gives their names: "auto", "image",
// "document", "audio", "voice", "video".
using text::FileKind;
using text::parse_file_kind;  // the spellings of spec 6.3 (doc, document, file, photo, image, ...)
using text::to_string;

// The kind a file is sent as (spec 14). An asked kind other than auto is kept as is (voice only this
// way); absent or auto goes by the extension (text::file_kind_for_name: images, audio and video by the
// spec's table, anything else, or no extension, document). Never returns FileKind::automatic.
FileKind kind_for(std::string_view path, std::optional<FileKind> asked) noexcept;

// ---------------------------------------------------------------- opened files

// A regular file opened by FileSandbox::open. Owns its descriptor. Every read goes to that descriptor with
// pread, so the const members are safe to call from several threads at once. The file can still change
// while it is open (same inode, new bytes): reads stop with too_large if it grows past the limit.
class OpenedFile {
 public:
  OpenedFile(OpenedFile&&) noexcept = default;
  OpenedFile& operator=(OpenedFile&&) noexcept = default;
  OpenedFile(const OpenedFile&) = delete;
  OpenedFile& operator=(const OpenedFile&) = delete;
  ~OpenedFile() = default;

  // The open descriptor, e.g. for sendfile(2) or an upload. Still owned here: do not close it.
  int fd() const noexcept { return fd_.get(); }
  // Size in bytes, from fstat on the open descriptor.
  std::uint64_t size() const noexcept { return size_; }
  // The last component, e.g. "report.pdf": what a channel shows as the file name.
  const std::string& name() const noexcept { return name_; }
  // The path beneath its folder, normalised ("a/b/report.pdf").
  const std::string& relative_path() const noexcept { return relative_; }
  // The allowed folder it was found in, as configured.
  const std::filesystem::path& root() const noexcept { return root_; }

  // Up to out.size() bytes from `offset`; 0 at the end of the file.
  Result<std::size_t> read_at(std::uint64_t offset, std::span<char> out) const;
  // The whole file in chunks of up to `chunk` bytes, from offset 0, to `sink`; stops at the first error a
  // sink returns. Gives the number of bytes read.
  Result<std::uint64_t> stream(const std::function<Result<void>(std::string_view)>& sink,
                               std::size_t chunk = 64 * 1024) const;
  Result<std::string> read_all() const;
  // Lower-case hex SHA-256 of the content, read from the descriptor.
  Result<std::string> sha256() const;

 private:
  friend class FileSandbox;
  OpenedFile() = default;

  UniqueFd fd_;
  std::uint64_t size_ = 0;
  std::uint64_t max_bytes_ = 0;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  dev_t parent_dev_ = 0;
  ino_t parent_ino_ = 0;
  std::size_t root_index_ = 0;
  std::filesystem::path root_;
  std::string name_;
  std::string relative_;
};

// ---------------------------------------------------------------- the sandbox

class FileSandbox {
 public:
  static constexpr std::uint64_t kDefaultMaxBytes = std::uint64_t{50} << 20;  // 50 MiB (spec 15)

  enum class Resolver {
    automatic,  // openat2 when the kernel has it, else walk
    openat2,    // openat2 only; create() fails where it is missing
    walk,       // the O_NOFOLLOW walk even where openat2 exists (tests, or a distrusted kernel)
  };

  struct Options {
    std::vector<std::filesystem::path> roots;  // the allowed folders; at least one
    std::uint64_t max_bytes = kDefaultMaxBytes;
    Resolver resolver = Resolver::automatic;
  };

  // Opens every root (O_PATH | O_DIRECTORY; a link in the configured root path itself is followed, since
  // the operator wrote it) and picks the resolver. Fails if a root cannot be opened or is not a directory.
  static Result<FileSandbox> create(Options options);

  FileSandbox(FileSandbox&&) noexcept = default;
  FileSandbox& operator=(FileSandbox&&) noexcept = default;
  FileSandbox(const FileSandbox&) = delete;
  FileSandbox& operator=(const FileSandbox&) = delete;
  ~FileSandbox() = default;

  // Opens a regular file beneath an allowed folder, or says why not (see the rules at the top).
  // Thread-safe: the sandbox is not modified.
  Result<OpenedFile> open(std::string_view requested_path) const;

  // Deletes an opened file after it was sent (the `cleanup` parameter). Refused unless the operator
  // allows it; the caller checks `cleanup` itself. Deletes only if the file's path, resolved again from
  // its folder with the same rules, still leads to the same parent directory and the same inode (changed
  // otherwise). Between that check and the unlink there is an unavoidable window of one system call, in
  // which someone who can write inside the folder could swap the name; they could delete it anyway.
  Result<void> remove(const OpenedFile& file, bool operator_allows) const;

  // The resolver in use: openat2 or walk, never automatic.
  Resolver resolver() const noexcept { return resolver_; }
  std::uint64_t max_bytes() const noexcept { return max_bytes_; }

 private:
  struct Root {
    std::filesystem::path configured;           // as given (made absolute, lexically normal)
    std::vector<std::string> configured_parts;  // its components
    std::vector<std::string> canonical_parts;   // components of its canonical path
    UniqueFd fd;                                // O_PATH | O_DIRECTORY
  };
  FileSandbox() = default;
  Result<OpenedFile> open_beneath(std::size_t root, const std::vector<std::string_view>& parts) const;
  Result<UniqueFd> open_dir_beneath(int root_fd, const std::vector<std::string_view>& parts) const;
  Result<UniqueFd> open_leaf(int dir_fd, const std::string& name, int flags) const;

  std::vector<Root> roots_;
  std::uint64_t max_bytes_ = kDefaultMaxBytes;
  Resolver resolver_ = Resolver::walk;
};

std::string_view to_string(FileSandbox::Resolver resolver) noexcept;

}  // namespace sigil::actions
