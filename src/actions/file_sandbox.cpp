#include "sigil/actions/file_sandbox.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <memory>
#include <system_error>
#include <utility>

#include "sigil/text/ascii.h"
#include "sigil/text/enum_names.h"

namespace sigil::actions {
namespace {

constexpr std::uint64_t kResolveFlags = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
// openat2 can return EAGAIN when a concurrent rename races with its lookup; it asks to be retried.
constexpr int kOpenat2Retries = 16;

std::string errno_text(int err) { return std::system_category().message(err); }

// A short, printable excerpt of a name for messages (names can be long or hold control bytes).
std::string excerpt(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
  if (s.size() > 40) out += "...";
  return out;
}

const char* describe_type(mode_t mode) noexcept {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

Error symlink_error() {
  return make_error(ErrorCode::symlink,
                    "a symbolic link is on the path; links are never followed, not even ones "
                    "that stay inside the allowed folder");
}

Error not_regular_error(mode_t mode) {
  return make_error(ErrorCode::not_regular, std::string("not a regular file: it is ") + describe_type(mode) +
                                                "; only regular files are sent");
}

Error open_errno_error(int err) {
  switch (err) {
    case ELOOP:
      return symlink_error();
    case EXDEV:
      return make_error(ErrorCode::outside_root, "the path leads outside the allowed folder");
    case ENOENT:
      return make_error(ErrorCode::not_found, "no such file in the allowed folder");
    case ENOTDIR:
      return make_error(ErrorCode::not_found, "a component of the path is not a directory");
    case EACCES:
    case EPERM:
      return make_error(ErrorCode::permission_denied, "permission denied: " + errno_text(err));
    case ENXIO:
      return make_error(ErrorCode::not_regular, "not a regular file (a socket or a device)");
    case ENAMETOOLONG:
      return make_error(ErrorCode::invalid_argument, "path too long");
    default:
      return make_error(ErrorCode::io, "cannot open: " + errno_text(err));
  }
}

long raw_openat2(int dirfd, const char* path, std::uint64_t flags, std::uint64_t resolve) noexcept {
  open_how how{};
  how.flags = flags;
  how.mode = 0;
  how.resolve = resolve;
  return ::syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

// openat2 beneath dirfd with the sandbox's resolve flags; -1 and errno on failure.
int openat2_beneath(int dirfd, const char* path, int flags) noexcept {
  for (int attempt = 0;; ++attempt) {
    const long fd = raw_openat2(dirfd, path, static_cast<std::uint64_t>(flags), kResolveFlags);
    if (fd >= 0) return static_cast<int>(fd);
    if ((errno != EAGAIN && errno != EINTR) || attempt >= kOpenat2Retries) return -1;
  }
}

int openat_retry(int dirfd, const char* path, int flags) noexcept {
  for (;;) {
    const int fd = ::openat(dirfd, path, flags);
    if (fd >= 0 || errno != EINTR) return fd;
  }
}

// The requested path, split and checked lexically.
struct SplitPath {
  bool absolute = false;
  std::vector<std::string_view> parts;  // no "", ".", ".."
};

Result<SplitPath> split_path(std::string_view p) {
  if (p.empty()) return make_error(ErrorCode::invalid_argument, "empty path");
  if (p.find('\0') != std::string_view::npos)
    return make_error(ErrorCode::invalid_argument, "the path contains a NUL byte");
  if (p.size() >= PATH_MAX)
    return make_error(ErrorCode::invalid_argument, "path too long: " + std::to_string(p.size()) +
                                                       " bytes, the limit is " +
                                                       std::to_string(PATH_MAX - 1));
  SplitPath out;
  out.absolute = p.front() == '/';
  std::size_t i = 0;
  while (i < p.size()) {
    const std::size_t slash = p.find('/', i);
    const std::size_t end = slash == std::string_view::npos ? p.size() : slash;
    const std::string_view part = p.substr(i, end - i);
    i = end + 1;
    if (part.empty() || part == ".") continue;
    if (part.size() > NAME_MAX)
      return make_error(ErrorCode::invalid_argument,
                        "path component too long: " + std::to_string(part.size()) + " bytes, the limit is " +
                            std::to_string(NAME_MAX) + " ('" + excerpt(part) + "')");
    if (part == "..") return make_error(ErrorCode::invalid_argument, "'..' is not allowed in a path");
    out.parts.push_back(part);
  }
  if (p.back() == '/' && !out.parts.empty())
    return make_error(ErrorCode::not_regular, "the path ends with '/', so it names a directory");
  return out;
}

std::vector<std::string> components_of(const std::filesystem::path& p) {
  std::vector<std::string> out;
  for (const auto& c : p) {
    const std::string s = c.string();
    if (s.empty() || s == "/" || s == ".") continue;
    out.push_back(s);
  }
  return out;
}

// Length of `prefix` if it is a component-wise prefix of `parts`, else -1.
long prefix_length(const std::vector<std::string>& prefix, const std::vector<std::string_view>& parts) {
  if (prefix.size() > parts.size()) return -1;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (prefix[i] != parts[i]) return -1;
  return static_cast<long>(prefix.size());
}

std::string join(const std::vector<std::string_view>& parts, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t i = begin; i < end; ++i) {
    if (!out.empty()) out.push_back('/');
    out.append(parts[i]);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- file kinds

FileKind kind_for(std::string_view path, std::optional<FileKind> asked) noexcept {
  if (asked && *asked != FileKind::automatic) return *asked;
  return text::file_kind_for_name(path);
}

namespace {
constexpr text::EnumNames<FileSandbox::Resolver::walk> kResolverNames{{"automatic", "openat2", "walk"},
                                                                      "automatic"};
}  // namespace

std::string_view to_string(FileSandbox::Resolver resolver) noexcept { return kResolverNames.name(resolver); }

// ---------------------------------------------------------------- SHA-256

namespace {

struct EvpCtxFree {
  void operator()(EVP_MD_CTX* ctx) const noexcept { EVP_MD_CTX_free(ctx); }
};
using EvpCtx = std::unique_ptr<EVP_MD_CTX, EvpCtxFree>;

Result<EvpCtx> sha256_begin() {
  EvpCtx ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    return make_error(ErrorCode::io, "SHA-256: cannot initialise OpenSSL's digest");
  return ctx;
}

Result<std::string> sha256_end(EVP_MD_CTX* ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx, digest, &len) != 1) return make_error(ErrorCode::io, "SHA-256: digest failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(std::size_t{len} * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xf]);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- OpenedFile

Result<std::size_t> OpenedFile::read_at(std::uint64_t offset, std::span<char> out) const {
  for (;;) {
    const ssize_t n = ::pread(fd_.get(), out.data(), out.size(), static_cast<off_t>(offset));
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) return make_error(ErrorCode::io, "read failed: " + errno_text(errno));
  }
}

Result<std::uint64_t> OpenedFile::stream(const std::function<Result<void>(std::string_view)>& sink,
                                         std::size_t chunk) const {
  if (chunk == 0) chunk = 64 * 1024;
  std::vector<char> buf(chunk);
  std::uint64_t offset = 0;
  for (;;) {
    auto n = read_at(offset, buf);
    if (!n) return std::move(n).error();
    if (*n == 0) return offset;
    offset += *n;
    if (offset > max_bytes_)
      return make_error(ErrorCode::too_large, "the file grew past the size limit (" +
                                                  std::to_string(max_bytes_) + " bytes) while being read");
    if (auto r = sink(std::string_view(buf.data(), *n)); !r) return std::move(r).error();
  }
}

Result<std::string> OpenedFile::read_all() const {
  std::string out;
  out.reserve(static_cast<std::size_t>(size_));
  auto r = stream([&](std::string_view piece) -> Result<void> {
    out.append(piece);
    return {};
  });
  if (!r) return std::move(r).error();
  return out;
}

Result<std::string> OpenedFile::sha256() const {
  auto ctx = sha256_begin();
  if (!ctx) return std::move(ctx).error();
  auto r = stream([&](std::string_view piece) -> Result<void> {
    if (EVP_DigestUpdate(ctx->get(), piece.data(), piece.size()) != 1)
      return make_error(ErrorCode::io, "SHA-256: digest update failed");
    return {};
  });
  if (!r) return std::move(r).error();
  return sha256_end(ctx->get());
}

// ---------------------------------------------------------------- FileSandbox

Result<FileSandbox> FileSandbox::create(Options options) {
  if (options.roots.empty()) return make_error(ErrorCode::invalid_argument, "no allowed folder configured");
  FileSandbox sb;
  sb.max_bytes_ = options.max_bytes;
  for (const auto& given : options.roots) {
    if (given.empty()) return make_error(ErrorCode::invalid_argument, "an allowed folder is an empty path");
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(given, ec);
    if (ec) return make_error(ErrorCode::io, "allowed folder '" + given.string() + "': " + ec.message());
    abs = abs.lexically_normal();
    Root root;
    root.configured = abs;
    root.configured_parts = components_of(abs);
    root.fd = UniqueFd(openat_retry(AT_FDCWD, abs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root.fd) {
      const int err = errno;
      return make_error(err == ENOENT ? ErrorCode::not_found : ErrorCode::io,
                        "allowed folder '" + abs.string() + "' cannot be opened: " + errno_text(err));
    }
    const std::filesystem::path canonical = std::filesystem::canonical(abs, ec);
    root.canonical_parts = ec ? root.configured_parts : components_of(canonical);
    sb.roots_.push_back(std::move(root));
  }

  Resolver wanted = options.resolver;
#ifdef SIGIL_FILE_SANDBOX_FORCE_WALK
  if (wanted == Resolver::automatic) wanted = Resolver::walk;
#endif
  if (wanted == Resolver::walk) {
    sb.resolver_ = Resolver::walk;
  } else {
    // Probe once: ENOSYS on kernels before 5.6, EPERM under some seccomp filters (older container runtimes).
    const long fd =
        raw_openat2(sb.roots_.front().fd.get(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC, kResolveFlags);
    const int err = errno;
    if (fd >= 0) {
      ::close(static_cast<int>(fd));
      sb.resolver_ = Resolver::openat2;
    } else if (wanted == Resolver::openat2) {
      return make_error(ErrorCode::io, "openat2 is not available: " + errno_text(err));
    } else {
      sb.resolver_ = Resolver::walk;
    }
  }
  return sb;
}

Result<UniqueFd> FileSandbox::open_dir_beneath(int root_fd,
                                               const std::vector<std::string_view>& parts) const {
  if (parts.empty()) {
    UniqueFd dup(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
    if (!dup)
      return make_error(ErrorCode::io, "cannot duplicate the folder's descriptor: " + errno_text(errno));
    return dup;
  }
  if (resolver_ == Resolver::openat2) {
    const std::string rel = join(parts, 0, parts.size());
    UniqueFd fd(openat2_beneath(root_fd, rel.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd) return open_errno_error(errno);
    return fd;
  }
  // The walk: one component at a time, never following a link. O_PATH | O_NOFOLLOW on a link would give a
  // descriptor of the link itself; O_DIRECTORY turns that into ENOTDIR, which we tell apart below.
  UniqueFd cur(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!cur)
    return make_error(ErrorCode::io, "cannot duplicate the folder's descriptor: " + errno_text(errno));
  for (const std::string_view part : parts) {
    const std::string name(part);
    UniqueFd next(openat_retry(cur.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) {
      const int err = errno;
      struct stat st {};
      if ((err == ENOTDIR || err == ELOOP) &&
          ::fstatat(cur.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return symlink_error();
      return open_errno_error(err);
    }
    struct stat st {};
    if (::fstat(next.get(), &st) != 0) return make_error(ErrorCode::io, "fstat failed: " + errno_text(errno));
    if (!S_ISDIR(st.st_mode)) return open_errno_error(ENOTDIR);
    cur = std::move(next);
  }
  return cur;
}

Result<UniqueFd> FileSandbox::open_leaf(int dir_fd, const std::string& name, int flags) const {
  // `name` is one component, so O_NOFOLLOW alone already keeps the walk beneath dir_fd; openat2 is used
  // anyway where we have it so that both steps go through the same kernel checks.
  const int fd = resolver_ == Resolver::openat2 ? openat2_beneath(dir_fd, name.c_str(), flags | O_NOFOLLOW)
                                                : openat_retry(dir_fd, name.c_str(), flags | O_NOFOLLOW);
  if (fd < 0) return open_errno_error(errno);
  return UniqueFd(fd);
}

Result<OpenedFile> FileSandbox::open_beneath(std::size_t root,
                                             const std::vector<std::string_view>& parts) const {
  if (parts.empty())
    return make_error(ErrorCode::not_regular, "the path names the allowed folder itself, a directory");
  const std::vector<std::string_view> dir_parts(parts.begin(), parts.end() - 1);
  auto dir = open_dir_beneath(roots_[root].fd.get(), dir_parts);
  if (!dir) return std::move(dir).error();
  const std::string name(parts.back());

  // Advisory look before opening, so a FIFO, device or socket is never opened at all. Decided again below
  // on the open descriptor, which is what counts.
  struct stat pre {};
  if (::fstatat(dir->get(), name.c_str(), &pre, AT_SYMLINK_NOFOLLOW) != 0) return open_errno_error(errno);
  if (S_ISLNK(pre.st_mode)) return symlink_error();
  if (!S_ISREG(pre.st_mode)) return not_regular_error(pre.st_mode);

  auto fd = open_leaf(dir->get(), name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (!fd) return std::move(fd).error();
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return make_error(ErrorCode::io, "fstat failed: " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) return not_regular_error(st.st_mode);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes_)
    return make_error(ErrorCode::too_large, "file too large: " + std::to_string(size) +
                                                " bytes, the limit is " + std::to_string(max_bytes_) +
                                                " bytes");
  struct stat dst {};
  if (::fstat(dir->get(), &dst) != 0) return make_error(ErrorCode::io, "fstat failed: " + errno_text(errno));

  OpenedFile f;
  f.fd_ = std::move(*fd);
  f.size_ = size;
  f.max_bytes_ = max_bytes_;
  f.dev_ = st.st_dev;
  f.ino_ = st.st_ino;
  f.parent_dev_ = dst.st_dev;
  f.parent_ino_ = dst.st_ino;
  f.root_index_ = root;
  f.root_ = roots_[root].configured;
  f.name_ = name;
  f.relative_ = join(parts, 0, parts.size());
  return f;
}

Result<OpenedFile> FileSandbox::open(std::string_view requested_path) const {
  auto split = split_path(requested_path);
  if (!split) return std::move(split).error();
  const std::vector<std::string_view>& parts = split->parts;

  if (split->absolute) {
    long best = -1;
    std::size_t best_root = 0;
    for (std::size_t i = 0; i < roots_.size(); ++i) {
      for (const auto* root_parts : {&roots_[i].configured_parts, &roots_[i].canonical_parts}) {
        const long len = prefix_length(*root_parts, parts);
        if (len > best) best = len, best_root = i;
      }
    }
    if (best < 0)
      return make_error(ErrorCode::outside_root, "the absolute path is not inside an allowed folder");
    const std::vector<std::string_view> rel(parts.begin() + best, parts.end());
    return open_beneath(best_root, rel);
  }

  std::optional<Error> first_missing;
  for (std::size_t i = 0; i < roots_.size(); ++i) {
    auto r = open_beneath(i, parts);
    if (r || r.error().code != ErrorCode::not_found) return r;
    if (!first_missing) first_missing = std::move(r).error();
  }
  return std::move(*first_missing);
}

Result<void> FileSandbox::remove(const OpenedFile& file, bool operator_allows) const {
  if (!operator_allows)
    return make_error(ErrorCode::permission_denied,
                      "not deleted: deleting a file after sending it needs the operator's permission");
  if (!file.fd_ || file.root_index_ >= roots_.size() || file.root_ != roots_[file.root_index_].configured)
    return make_error(ErrorCode::invalid_argument, "not deleted: the file was not opened by this sandbox");
  auto split = split_path(file.relative_);
  if (!split || split->parts.empty())
    return make_error(ErrorCode::invalid_argument, "not deleted: the file's path is not valid");
  const std::vector<std::string_view>& parts = split->parts;
  const std::vector<std::string_view> dir_parts(parts.begin(), parts.end() - 1);

  auto dir = open_dir_beneath(roots_[file.root_index_].fd.get(), dir_parts);
  if (!dir) {
    Error e = std::move(dir).error();
    e.message = "not deleted: " + e.message;
    return e;
  }
  struct stat dst {};
  if (::fstat(dir->get(), &dst) != 0)
    return make_error(ErrorCode::io, "not deleted: fstat: " + errno_text(errno));
  if (dst.st_dev != file.parent_dev_ || dst.st_ino != file.parent_ino_)
    return make_error(ErrorCode::changed,
                      "not deleted: the folder now at that path is not the one the file was "
                      "opened from");
  struct stat st {};
  if (::fstatat(dir->get(), file.name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    const int err = errno;
    if (err == ENOENT) return make_error(ErrorCode::not_found, "not deleted: the file is already gone");
    return make_error(ErrorCode::io, "not deleted: " + errno_text(err));
  }
  if (st.st_dev != file.dev_ || st.st_ino != file.ino_)
    return make_error(ErrorCode::changed,
                      "not deleted: the path now names a different file than the one sent");
  if (::unlinkat(dir->get(), file.name_.c_str(), 0) != 0) {
    const int err = errno;
    return make_error(err == EACCES || err == EPERM ? ErrorCode::permission_denied : ErrorCode::io,
                      "not deleted: " + errno_text(err));
  }
  return {};
}

}  // namespace sigil::actions
