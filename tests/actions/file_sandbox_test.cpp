// Spec 13 (send-file), 14 (auto kind), 15 (security): the file sandbox, against a real temporary tree.
#include "sigil/actions/file_sandbox.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/openat2.h>
#include <stdio.h>  // renameat2
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "../support/temp_dir.h"
#include "sigil/store/sha256.h"

namespace sigil::actions {
namespace {

namespace fs = std::filesystem;
using Resolver = FileSandbox::Resolver;

constexpr std::uint64_t kLimit = 1 << 20;  // the fixture's size limit: 1 MiB
constexpr std::string_view kOutside = "OUTSIDE: must never be read";

void write_file(const fs::path& p, std::string_view content) {
  std::ofstream out(p, std::ios::binary);
  out << content;
  ASSERT_TRUE(out.good()) << p;
}

void make_sparse(const fs::path& p, std::uint64_t size) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << p;
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
  ::close(fd);
}

bool openat2_available() {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH;
  const long fd = ::syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof how);
  if (fd < 0) return false;
  ::close(static_cast<int>(fd));
  return true;
}

class FileSandboxTest : public ::testing::TestWithParam<Resolver> {
 protected:
  void SetUp() override {
    if (GetParam() == Resolver::openat2 && !openat2_available()) GTEST_SKIP() << "no openat2 on this kernel";
    root_ = tree_.path() / "root";
    outside_ = tree_.path() / "outside";
    fs::create_directories(root_ / "a" / "b");
    fs::create_directories(root_ / "emptydir");
    fs::create_directories(outside_);
    fs::create_directories(tree_.path() / "root_evil");
    write_file(root_ / "ok.txt", "INSIDE ok");
    write_file(root_ / "a" / "b" / "nested.txt", "INSIDE nested");
    write_file(root_ / "Report.PDF", "INSIDE pdf");
    write_file(outside_ / "secret.txt", kOutside);
    write_file(tree_.path() / "root_evil" / "secret.txt", kOutside);

    fs::create_symlink(outside_ / "secret.txt", root_ / "link_out");
    fs::create_symlink("../outside/secret.txt", root_ / "link_out_relative");
    fs::create_symlink(outside_, root_ / "dir_out");
    fs::create_symlink("ok.txt", root_ / "link_in");
    fs::create_symlink("a", root_ / "dir_in");
    fs::create_symlink("/etc/passwd", root_ / "link_etc");
    fs::create_symlink("loop2", root_ / "loop1");
    fs::create_symlink("loop1", root_ / "loop2");
    fs::create_symlink("self", root_ / "self");
    fs::create_symlink("/proc/self/root", root_ / "proc_root");
    fs::create_symlink("/dev/null", root_ / "dev_null");

    outside_fd_ = ::open((outside_ / "secret.txt").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(outside_fd_, 0);
    proc_fd_path_ = "/proc/self/fd/" + std::to_string(outside_fd_);
    fs::create_symlink(proc_fd_path_, root_ / "proc_fd");

    ASSERT_EQ(::mkfifo((root_ / "fifo").c_str(), 0644), 0);
    sock_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(sock_, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string sock_path = (root_ / "sock").string();
    ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
    std::memcpy(addr.sun_path, sock_path.c_str(), sock_path.size() + 1);
    ASSERT_EQ(::bind(sock_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    // A real device node needs CAP_MKNOD, which containers often drop: test it where we can.
    have_devnode_ = ::mknod((root_ / "devnode").c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0;

    make_sparse(root_ / "big.bin", kLimit + 1);
    make_sparse(root_ / "exact.bin", kLimit);

    auto sb = FileSandbox::create({{root_}, kLimit, GetParam()});
    ASSERT_TRUE(sb.ok()) << sb.error().message;
    sandbox_.emplace(std::move(*sb));
    ASSERT_EQ(sandbox_->resolver(), GetParam());
  }
  void TearDown() override {
    if (outside_fd_ >= 0) ::close(outside_fd_);
    if (sock_ >= 0) ::close(sock_);
  }

  const FileSandbox& sandbox() const { return *sandbox_; }

  // A temporary tree:
  //   base/root/            the allowed folder (ok.txt, a/b/nested.txt, links, a FIFO, a socket, ...)
  //   base/root_evil/       a sibling whose name starts with the root's
  //   base/outside/         what must never be read
  test::TempDir tree_{"sigil-sandbox"};
  fs::path root_, outside_;
  int outside_fd_ = -1, sock_ = -1;
  std::string proc_fd_path_;
  bool have_devnode_ = false;
  std::optional<FileSandbox> sandbox_;
};

std::string param_name(const ::testing::TestParamInfo<Resolver>& info) {
  return std::string(to_string(info.param));
}

INSTANTIATE_TEST_SUITE_P(FileSandboxResolvers, FileSandboxTest,
                         ::testing::Values(Resolver::openat2, Resolver::walk), param_name);

// ---------------------------------------------------------------- good files

TEST_P(FileSandboxTest, OpensRelativeAbsoluteAndNestedFiles) {
  struct Case {
    std::string path, relative, name, content;
  };
  const std::vector<Case> cases = {
      {"ok.txt", "ok.txt", "ok.txt", "INSIDE ok"},
      {"./ok.txt", "ok.txt", "ok.txt", "INSIDE ok"},
      {"a/b/nested.txt", "a/b/nested.txt", "nested.txt", "INSIDE nested"},
      {"a//b/./nested.txt", "a/b/nested.txt", "nested.txt", "INSIDE nested"},
      {(root_ / "ok.txt").string(), "ok.txt", "ok.txt", "INSIDE ok"},
      {(root_ / "a/b/nested.txt").string(), "a/b/nested.txt", "nested.txt", "INSIDE nested"},
      {root_.string() + "//a/./b/nested.txt", "a/b/nested.txt", "nested.txt", "INSIDE nested"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    auto f = sandbox().open(c.path);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_EQ(f->relative_path(), c.relative);
    EXPECT_EQ(f->name(), c.name);
    EXPECT_EQ(f->size(), c.content.size());
    EXPECT_EQ(f->root(), root_);
    auto content = f->read_all();
    ASSERT_TRUE(content.ok());
    EXPECT_EQ(*content, c.content);
  }
}

TEST_P(FileSandboxTest, ReadsStreamsAndHashesFromTheOpenDescriptor) {
  std::string big(200'000, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  write_file(root_ / "big.txt", big);
  auto f = sandbox().open("big.txt");
  ASSERT_TRUE(f.ok()) << f.error().message;

  std::string streamed;
  std::size_t chunks = 0;
  auto n = f->stream(
      [&](std::string_view piece) -> Result<void> {
        streamed.append(piece);
        ++chunks;
        return {};
      },
      4096);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, big.size());
  EXPECT_EQ(streamed, big);
  EXPECT_GE(chunks, big.size() / 4096);

  // The open descriptor keeps the file: replacing the name changes nothing that is read.
  fs::remove(root_ / "big.txt");
  write_file(root_ / "big.txt", "replaced");
  auto all = f->read_all();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, big);

  auto hash = f->sha256();
  ASSERT_TRUE(hash.ok());
  EXPECT_EQ(*hash, store::sha256_hex(big));

  char buf[5];
  auto r = f->read_at(26, buf);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::string_view(buf, *r), "abcde");
  auto end = f->read_at(big.size(), buf);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(*end, 0u);

  // A sink's error stops the stream and is returned as is.
  auto stopped =
      f->stream([](std::string_view) -> Result<void> { return make_error(ErrorCode::io, "sink full"); });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().message, "sink full");
}

TEST_P(FileSandboxTest, SizeLimitIsInclusive) {
  auto exact = sandbox().open("exact.bin");
  ASSERT_TRUE(exact.ok()) << exact.error().message;
  EXPECT_EQ(exact->size(), kLimit);
}

TEST_P(FileSandboxTest, FileGrowingPastTheLimitWhileReadIsCut) {
  write_file(root_ / "grows.bin", "small");
  auto f = sandbox().open("grows.bin");
  ASSERT_TRUE(f.ok());
  make_sparse(root_ / "grows.bin", kLimit + 10);  // same inode, now too large
  auto all = f->read_all();
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.error().code, ErrorCode::too_large);
}

// ---------------------------------------------------------------- the hostile corpus

struct Hostile {
  std::string path;
  ErrorCode code;
};

TEST_P(FileSandboxTest, HostileCorpusIsRefusedWithAReason) {
  const std::string root = root_.string();
  const std::string base = tree_.path().string();
  std::vector<Hostile> corpus = {
      // `..`, even when it would stay inside
      {"../outside/secret.txt", ErrorCode::invalid_argument},
      {"a/../../outside/secret.txt", ErrorCode::invalid_argument},
      {"./../outside/secret.txt", ErrorCode::invalid_argument},
      {"a/../ok.txt", ErrorCode::invalid_argument},
      {"..", ErrorCode::invalid_argument},
      {root + "/../outside/secret.txt", ErrorCode::invalid_argument},
      // absolute paths out, and prefix tricks
      {"/etc/passwd", ErrorCode::outside_root},
      {"//etc/passwd", ErrorCode::outside_root},
      {"/", ErrorCode::outside_root},
      {base + "/outside/secret.txt", ErrorCode::outside_root},
      {base + "/root_evil/secret.txt", ErrorCode::outside_root},
      {root + "_evil/secret.txt", ErrorCode::outside_root},
      {"/proc/self/root/etc/passwd", ErrorCode::outside_root},
      {"/proc/self/root" + root + "/ok.txt", ErrorCode::outside_root},
      {"/proc/self/cwd/ok.txt", ErrorCode::outside_root},
      {proc_fd_path_, ErrorCode::outside_root},
      // symbolic links, out and in, loops, magic links
      {"link_out", ErrorCode::symlink},
      {"link_out_relative", ErrorCode::symlink},
      {"dir_out/secret.txt", ErrorCode::symlink},
      {root + "/dir_out/secret.txt", ErrorCode::symlink},
      {"link_in", ErrorCode::symlink},
      {"dir_in/b/nested.txt", ErrorCode::symlink},
      {"link_etc", ErrorCode::symlink},
      {"loop1", ErrorCode::symlink},
      {"loop1/x", ErrorCode::symlink},
      {"self", ErrorCode::symlink},
      {"self/self/self", ErrorCode::symlink},
      {"proc_root/etc/passwd", ErrorCode::symlink},
      {"proc_fd", ErrorCode::symlink},
      {"dev_null", ErrorCode::symlink},
      // not regular files
      {"fifo", ErrorCode::not_regular},
      {"sock", ErrorCode::not_regular},
      {"a", ErrorCode::not_regular},
      {"a/b", ErrorCode::not_regular},
      {"a/", ErrorCode::not_regular},
      {"ok.txt/", ErrorCode::not_regular},
      {"emptydir", ErrorCode::not_regular},
      {".", ErrorCode::not_regular},
      {root, ErrorCode::not_regular},
      {root + "/", ErrorCode::not_regular},
      // too large
      {"big.bin", ErrorCode::too_large},
      {root + "/big.bin", ErrorCode::too_large},
      // malformed
      {"", ErrorCode::invalid_argument},
      {std::string("ok.txt\0../../outside/secret.txt", 32), ErrorCode::invalid_argument},
      {std::string("\0", 1), ErrorCode::invalid_argument},
      {std::string(5000, 'a'), ErrorCode::invalid_argument},
      {[] {
         std::string s;
         while (s.size() < 5000) s += "a/";
         return s + "x";
       }(),
       ErrorCode::invalid_argument},
      {std::string(300, 'x'), ErrorCode::invalid_argument},
      {"a/" + std::string(256, 'x') + "/ok.txt", ErrorCode::invalid_argument},
      // missing
      {"missing.txt", ErrorCode::not_found},
      {"ok.txt/x", ErrorCode::not_found},
      {"a/missing/x.txt", ErrorCode::not_found},
  };
  if (have_devnode_) corpus.push_back({"devnode", ErrorCode::not_regular});

  for (const auto& h : corpus) {
    SCOPED_TRACE("path: '" + h.path.substr(0, 120) + "'");
    auto f = sandbox().open(h.path);
    ASSERT_FALSE(f.ok()) << "opened " << f->relative_path() << ": " << f->read_all().value();
    EXPECT_EQ(f.error().code, h.code) << to_string(f.error().code) << ": " << f.error().message;
    EXPECT_FALSE(f.error().message.empty());
  }
}

TEST_P(FileSandboxTest, ReasonsSayWhat) {
  EXPECT_NE(sandbox().open("../x").error().message.find("'..'"), std::string::npos);
  EXPECT_NE(sandbox().open("link_in").error().message.find("symbolic link"), std::string::npos);
  EXPECT_NE(sandbox().open("fifo").error().message.find("FIFO"), std::string::npos);
  EXPECT_NE(sandbox().open("a").error().message.find("directory"), std::string::npos);
  EXPECT_NE(sandbox().open("sock").error().message.find("socket"), std::string::npos);
  EXPECT_NE(sandbox().open("big.bin").error().message.find("too large"), std::string::npos);
  EXPECT_NE(sandbox().open(std::string("a\0b", 3)).error().message.find("NUL"), std::string::npos);
  EXPECT_NE(sandbox().open(std::string(5000, 'a')).error().message.find("too long"), std::string::npos);
  EXPECT_NE(sandbox().open(std::string(300, 'a')).error().message.find("component too long"),
            std::string::npos);
  EXPECT_NE(sandbox().open("/etc/passwd").error().message.find("not inside an allowed folder"),
            std::string::npos);
  if (have_devnode_) {
    EXPECT_NE(sandbox().open("devnode").error().message.find("character device"), std::string::npos);
  }
}

// A FIFO must be refused without blocking; if open() ever blocked on it, a writer unblocks it and we fail.
TEST_P(FileSandboxTest, FifoNeverBlocks) {
  const fs::path fifo = root_ / "fifo";
  auto pending = std::async(std::launch::async, [&] { return sandbox().open("fifo"); });
  if (pending.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (w >= 0) ::close(w);
    FAIL() << "opening a FIFO blocked";
  }
  auto r = pending.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::not_regular);
}

// The default limit is 50 MiB, checked on the open file (sparse files: no disk used).
TEST_P(FileSandboxTest, DefaultLimitIsFiftyMebibytes) {
  auto sb = FileSandbox::create({{root_}, FileSandbox::kDefaultMaxBytes, GetParam()});
  ASSERT_TRUE(sb.ok());
  EXPECT_EQ(sb->max_bytes(), std::uint64_t{50} * 1024 * 1024);
  make_sparse(root_ / "fifty.bin", FileSandbox::kDefaultMaxBytes);
  make_sparse(root_ / "fifty1.bin", FileSandbox::kDefaultMaxBytes + 1);
  EXPECT_TRUE(sb->open("fifty.bin").ok());
  auto over = sb->open("fifty1.bin");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, ErrorCode::too_large);
}

// ---------------------------------------------------------------- roots

TEST_P(FileSandboxTest, SeveralRootsAndRootSpellings) {
  const fs::path second = tree_.path() / "second";
  fs::create_directories(second);
  write_file(second / "only_second.txt", "SECOND");
  write_file(second / "ok.txt", "SECOND ok");
  // The first root configured through a link: requests may use that spelling or the canonical one.
  fs::create_symlink(root_, tree_.path() / "alias");
  auto sb = FileSandbox::create({{tree_.path() / "alias", second.string() + "/"}, kLimit, GetParam()});
  ASSERT_TRUE(sb.ok()) << sb.error().message;

  auto first = sb->open("ok.txt");  // first root wins
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->read_all().value(), "INSIDE ok");
  EXPECT_EQ(first->root(), tree_.path() / "alias");
  auto only = sb->open("only_second.txt");  // not in the first: found in the second
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->read_all().value(), "SECOND");
  auto via_alias = sb->open((tree_.path() / "alias" / "ok.txt").string());
  ASSERT_TRUE(via_alias.ok()) << via_alias.error().message;
  auto via_canonical = sb->open((root_ / "a/b/nested.txt").string());
  ASSERT_TRUE(via_canonical.ok()) << via_canonical.error().message;
  auto abs_second = sb->open((second / "ok.txt").string());
  ASSERT_TRUE(abs_second.ok());
  EXPECT_EQ(abs_second->read_all().value(), "SECOND ok");
  // A symlink in the first root is an error there, not a reason to look in the second.
  EXPECT_EQ(sb->open("link_in").error().code, ErrorCode::symlink);
  EXPECT_EQ(sb->open("nowhere.txt").error().code, ErrorCode::not_found);
}

TEST(FileSandboxCreate, RefusesBadRoots) {
  EXPECT_EQ(FileSandbox::create({}).error().code, ErrorCode::invalid_argument);
  EXPECT_EQ(FileSandbox::create({{""}}).error().code, ErrorCode::invalid_argument);
  EXPECT_EQ(FileSandbox::create({{"/nonexistent/sigil/root"}}).error().code, ErrorCode::not_found);
  EXPECT_FALSE(FileSandbox::create({{"/etc/passwd"}}).ok());  // not a directory
}

TEST(FileSandboxCreate, AutomaticPicksOpenat2WhereTheKernelHasIt) {
  auto sb = FileSandbox::create({{fs::temp_directory_path()}});
  ASSERT_TRUE(sb.ok());
#ifdef SIGIL_FILE_SANDBOX_FORCE_WALK
  EXPECT_EQ(sb->resolver(), Resolver::walk);
#else
  EXPECT_EQ(sb->resolver(), openat2_available() ? Resolver::openat2 : Resolver::walk);
#endif
  auto walk = FileSandbox::create({{fs::temp_directory_path()}, kLimit, Resolver::walk});
  ASSERT_TRUE(walk.ok());
  EXPECT_EQ(walk->resolver(), Resolver::walk);
}

// ---------------------------------------------------------------- cleanup

TEST_P(FileSandboxTest, RemoveNeedsOperatorPermission) {
  write_file(root_ / "a" / "sent.txt", "x");
  auto f = sandbox().open("a/sent.txt");
  ASSERT_TRUE(f.ok());
  auto refused = sandbox().remove(*f, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::permission_denied);
  EXPECT_TRUE(fs::exists(root_ / "a" / "sent.txt"));

  auto done = sandbox().remove(*f, true);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_FALSE(fs::exists(root_ / "a" / "sent.txt"));
  EXPECT_EQ(sandbox().remove(*f, true).error().code, ErrorCode::not_found);
}

TEST_P(FileSandboxTest, RemoveRefusesAReplacedFileOrFolder) {
  write_file(root_ / "a" / "b" / "sent.txt", "original");
  auto f = sandbox().open("a/b/sent.txt");
  ASSERT_TRUE(f.ok());
  // Same name, another inode.
  fs::remove(root_ / "a" / "b" / "sent.txt");
  write_file(root_ / "a" / "b" / "sent.txt", "someone else's");
  auto r = sandbox().remove(*f, true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::changed);
  EXPECT_TRUE(fs::exists(root_ / "a" / "b" / "sent.txt"));

  // The folder swapped for another one holding a file of the same name.
  auto g = sandbox().open("a/b/sent.txt");
  ASSERT_TRUE(g.ok());
  fs::rename(root_ / "a" / "b", root_ / "a" / "b_old");
  fs::create_directories(root_ / "a" / "b");
  fs::create_hard_link(root_ / "a" / "b_old" / "sent.txt",
                       root_ / "a" / "b" / "sent.txt");  // even the same inode
  auto s = sandbox().remove(*g, true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::changed);
  EXPECT_TRUE(fs::exists(root_ / "a" / "b" / "sent.txt"));

  // The folder replaced by a link to outside, with a file of the same name there.
  fs::remove_all(root_ / "a" / "b");
  fs::create_symlink(outside_, root_ / "a" / "b");
  write_file(outside_ / "sent.txt", kOutside);
  auto t = sandbox().remove(*g, true);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::symlink);
  EXPECT_TRUE(fs::exists(outside_ / "sent.txt"));
}

TEST_P(FileSandboxTest, RemoveRefusesAFileFromAnotherSandbox) {
  const fs::path other = tree_.path() / "other";
  fs::create_directories(other);
  write_file(other / "ok.txt", "other");
  auto sb = FileSandbox::create({{other}, kLimit, GetParam()});
  ASSERT_TRUE(sb.ok());
  auto f = sb->open("ok.txt");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(sandbox().remove(*f, true).error().code, ErrorCode::invalid_argument);
  EXPECT_TRUE(fs::exists(other / "ok.txt"));
  EXPECT_TRUE(fs::exists(root_ / "ok.txt"));
}

// ---------------------------------------------------------------- time of check, time of use

// A thread swaps, atomically and as fast as it can, (1) a folder on the path with a link to an outside
// folder holding a file of the same name, and (2) the file itself with a link to an outside file. The main
// thread opens both paths 10,000 times each: every open either reads the inside marker or is refused.
TEST_P(FileSandboxTest, SwappingLinksInDuringOpenNeverReadsOutside) {
  fs::create_directories(root_ / "race_dir");
  write_file(root_ / "race_dir" / "secret.txt", "INSIDE race");
  write_file(outside_ / "race_secret.txt", kOutside);
  fs::create_symlink(outside_, root_ / "race_dir_swap");  // outside/ has secret.txt too
  write_file(root_ / "race_file", "INSIDE race");
  fs::create_symlink(outside_ / "race_secret.txt", root_ / "race_file_swap");

  const int root_fd = ::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(root_fd, 0);
  std::atomic<bool> stop{false};
  std::atomic<long> swaps{0};
  std::thread swapper([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      if (::renameat2(root_fd, "race_dir", root_fd, "race_dir_swap", RENAME_EXCHANGE) == 0) ++swaps;
      if (::renameat2(root_fd, "race_file", root_fd, "race_file_swap", RENAME_EXCHANGE) == 0) ++swaps;
    }
  });

  constexpr int kIterations = 10'000;
  long opened = 0, refused = 0, outside_reads = 0;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < kIterations; ++i) {
    for (const char* path : {"race_dir/secret.txt", "race_file"}) {
      auto f = sandbox().open(path);
      if (!f.ok()) {
        ++refused;
        EXPECT_TRUE(f.error().code == ErrorCode::symlink || f.error().code == ErrorCode::not_found)
            << to_string(f.error().code) << ": " << f.error().message;
        continue;
      }
      ++opened;
      auto content = f->read_all();
      if (!content.ok() || *content != "INSIDE race")
        ++outside_reads;  // no ASSERT: the swapper must be joined
    }
  }
  const auto elapsed = std::chrono::steady_clock::now() - started;
  stop = true;
  swapper.join();
  ::close(root_fd);

  EXPECT_EQ(outside_reads, 0);
  EXPECT_EQ(opened + refused, 2 * kIterations);
  EXPECT_GT(swaps.load(), 0);
  std::printf(
      "[ TOCTOU   ] %s: %d x 2 opens in %lld ms, %ld opened (%ld read outside), %ld refused, %ld swaps\n",
      std::string(to_string(GetParam())).c_str(), kIterations,
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()), opened,
      outside_reads, refused, swaps.load());
}

// ---------------------------------------------------------------- file kinds (spec 14, 6.3)

TEST(FileSandboxKind, AutoGoesByExtension) {
  const std::optional<FileKind> absent;
  struct Case {
    std::string_view path;
    FileKind kind;
  };
  const Case cases[] = {
      {"a.png", FileKind::image},
      {"a.JPG", FileKind::image},
      {"x/y/photo.jpeg", FileKind::image},
      {"a.gif", FileKind::image},
      {"a.WebP", FileKind::image},
      {"a.bmp", FileKind::image},
      {"a.tif", FileKind::image},
      {"a.tiff", FileKind::image},
      {"a.heic", FileKind::image},
      {"a.HEIF", FileKind::image},
      {"a.ogg", FileKind::audio},
      {"a.oga", FileKind::audio},
      {"a.opus", FileKind::audio},
      {"a.MP3", FileKind::audio},
      {"a.m4a", FileKind::audio},
      {"a.wav", FileKind::audio},
      {"a.aac", FileKind::audio},
      {"a.flac", FileKind::audio},
      {"a.mp4", FileKind::video},
      {"a.m4v", FileKind::video},
      {"a.MOV", FileKind::video},
      {"a.webm", FileKind::video},
      {"a.mkv", FileKind::video},
      {"a.avi", FileKind::video},
      {"report.pdf", FileKind::document},
      {"archive.tar.gz", FileKind::document},
      {"README", FileKind::document},
      {".png", FileKind::document},
      {"dir.png/file", FileKind::document},
      {"a.", FileKind::document},
      {"a.png.txt", FileKind::document},
      {"a.txt.png", FileKind::image},
      {"", FileKind::document},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(kind_for(c.path, absent), c.kind) << c.path;
    EXPECT_EQ(kind_for(c.path, FileKind::automatic), c.kind) << c.path;
  }
}

TEST(FileSandboxKind, AskedKindWinsAndVoiceOnlyWhenAsked) {
  EXPECT_EQ(kind_for("song.mp3", FileKind::document), FileKind::document);
  EXPECT_EQ(kind_for("note.ogg", FileKind::voice), FileKind::voice);
  EXPECT_EQ(kind_for("note.ogg", std::nullopt), FileKind::audio);
  EXPECT_EQ(kind_for("note.opus", FileKind::automatic), FileKind::audio);
  EXPECT_EQ(kind_for("clip.png", FileKind::video), FileKind::video);
  for (std::string_view p : {"a.ogg", "a.opus", "a.mp3", "a.wav", "a.txt", "a"})
    EXPECT_NE(kind_for(p, std::nullopt), FileKind::voice) << p;
}

TEST(FileSandboxKind, NamesOfSpec63) {
  EXPECT_EQ(parse_file_kind("doc"), FileKind::document);
  EXPECT_EQ(parse_file_kind("Document"), FileKind::document);
  EXPECT_EQ(parse_file_kind("file"), FileKind::document);
  EXPECT_EQ(parse_file_kind("photo"), FileKind::image);
  EXPECT_EQ(parse_file_kind("IMAGE"), FileKind::image);
  EXPECT_EQ(parse_file_kind("video"), FileKind::video);
  EXPECT_EQ(parse_file_kind("audio"), FileKind::audio);
  EXPECT_EQ(parse_file_kind("voice"), FileKind::voice);
  EXPECT_EQ(parse_file_kind("auto"), FileKind::automatic);
  EXPECT_EQ(parse_file_kind("gif"), std::nullopt);
  EXPECT_EQ(parse_file_kind("gif").value_or(FileKind::automatic), FileKind::automatic);
  for (FileKind k : {FileKind::automatic, FileKind::image, FileKind::document, FileKind::audio,
                     FileKind::voice, FileKind::video})
    EXPECT_EQ(parse_file_kind(to_string(k)), k);
}

}  // namespace
}  // namespace sigil::actions
