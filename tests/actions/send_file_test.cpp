// send-file and <file> (spec 13, 14, 15) through the real parser and executor: the file is opened once by
// the sandbox and the delivery reads from that open file.
#include "sigil/actions/send_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../support/run_turn.h"
#include "../support/temp_dir.h"
#include "sigil/store/sha256.h"
#include "store/sqlite/sqlite_store.h"

namespace sigil::actions {
namespace {

namespace fs = std::filesystem;
using Op = exec::Delivery::Op;

std::string read_payload(const exec::Payload& p) {
  std::string out, buf(7, '\0');  // an odd buffer size: several reads
  std::uint64_t off = 0;
  for (;;) {
    const std::int64_t n = p.read_at(off, buf);
    if (n <= 0) break;
    out.append(buf.data(), static_cast<std::size_t>(n));
    off += static_cast<std::uint64_t>(n);
  }
  return out;
}

class SendFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(base_ / "out" / "sub");
    fs::create_directories(base_ / "secret");
    write(base_ / "out" / "report.pdf", "%PDF-1.4 report");
    write(base_ / "out" / "sub" / "cat.PNG", "png bytes");
    write(base_ / "out" / "copy.pdf", "%PDF-1.4 report");  // same bytes as report.pdf
    write(base_ / "secret" / "key", "SECRET");
    fs::create_symlink(base_ / "secret" / "key", base_ / "out" / "link");
    auto opened = store::sqlite::SqliteStore::open(":memory:");
    ASSERT_TRUE(opened.ok());
    store_ = std::move(opened).value();
  }
  static void write(const fs::path& p, std::string_view s) { std::ofstream(p, std::ios::binary) << s; }

  exec::HandlerTable handlers(bool allow_cleanup = false, std::vector<MessageTarget> targets = {}) {
    FilesConfig config;
    FileSandbox::Options o;
    o.roots = {base_ / "out"};
    o.max_bytes = 1024;
    auto sandbox = FileSandbox::create(o);
    EXPECT_TRUE(sandbox.ok());
    config.sandbox = std::make_shared<const FileSandbox>(std::move(*sandbox));
    config.allow_cleanup = allow_cleanup;
    config.allowed_targets = std::move(targets);
    exec::HandlerTable table;
    add_send_file_handlers(table, std::move(config));
    return table;
  }

  test::TempDir tmp_{"sigil-sendfile"};
  const fs::path base_ = tmp_.path();
  std::unique_ptr<store::Store> store_;
};

TEST_F(SendFileTest, FileTagSendsTheOpenedFileWhereItStood) {
  auto run = test::run_turn("Here it is: <file>report.pdf</file> Enjoy.", handlers(), *store_);
  const exec::Delivery* d = run.sole_delivery();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->op, Op::File);
  EXPECT_EQ(d->path, "report.pdf");
  EXPECT_EQ(d->kind, "document");
  EXPECT_EQ(d->sha256, store::sha256_hex("%PDF-1.4 report"));
  ASSERT_TRUE(d->payload);
  EXPECT_EQ(d->payload->name(), "report.pdf");
  EXPECT_EQ(d->payload->mime_type(), "application/pdf");
  EXPECT_EQ(d->payload->size(), 15u);
  EXPECT_EQ(read_payload(*d->payload), "%PDF-1.4 report");
  EXPECT_EQ(run.text(), "Here it is: Enjoy.");
}

TEST_F(SendFileTest, PayloadReadsTheOpenFileEvenAfterTheNameChanges) {
  auto run = test::run_turn("<send-file path=\"report.pdf\"/>", handlers(), *store_);
  ASSERT_EQ(run.outbox.ops().size(), 1u);
  // Replace the file by name after the handler ran: the delivery still sends what was opened.
  fs::remove(base_ / "out" / "report.pdf");
  write(base_ / "out" / "report.pdf", "SWAPPED");
  EXPECT_EQ(read_payload(*run.outbox.ops()[0].payload), "%PDF-1.4 report");
}

TEST_F(SendFileTest, KindByExtensionCaptionAndAskedKind) {
  auto run = test::run_turn(
      "<send-file path=\"sub/cat.PNG\" caption=\"my cat\"/><send-file file=\"report.pdf\" kind=\"photo\"/>",
      handlers(), *store_);
  ASSERT_EQ(run.outbox.ops().size(), 2u);
  EXPECT_EQ(run.outbox.ops()[0].kind, "image");
  EXPECT_EQ(run.outbox.ops()[0].caption, "my cat");
  EXPECT_EQ(run.outbox.ops()[0].path, "sub/cat.PNG");
  EXPECT_EQ(run.outbox.ops()[1].kind, "image");  // asked kinds are kept (spec 14)
}

TEST_F(SendFileTest, HostilePathsAreRefusedWithTheirReason) {
  struct Case {
    const char* path;
    const char* reason;
  };
  for (const Case c : {Case{"../secret/key", ".."}, Case{"link", "link"}, Case{"/etc/passwd", "not inside"},
                       Case{"missing.txt", "no such"}, Case{"sub", "not a regular"},
                       Case{"/proc/self/root/etc/passwd", "not inside"}}) {
    const std::string reply = std::string("<send-file path=\"") + c.path + "\"/>";
    auto run = test::run_turn(reply, handlers(), *store_);
    ASSERT_EQ(run.report.results.size(), 1u) << c.path;
    const auto& r = run.report.results[0];
    EXPECT_EQ(r.status, exec::ResultStatus::Error) << c.path;
    EXPECT_EQ(r.message.rfind("send-file: \"", 0), 0u) << r.message;
    EXPECT_NE(r.message.find(c.reason), std::string::npos) << c.path << " -> " << r.message;
    EXPECT_TRUE(run.outbox.ops().empty()) << c.path;
    EXPECT_NE(run.model_message.find("send-file: error"), std::string::npos) << run.model_message;
  }
}

TEST_F(SendFileTest, OverSizeFileIsRefused) {
  write(base_ / "out" / "big.bin", std::string(2048, 'x'));
  auto run = test::run_turn("<send-file path=\"big.bin\"/>", handlers(), *store_);
  ASSERT_EQ(run.report.results.size(), 1u);
  EXPECT_EQ(run.report.results[0].status, exec::ResultStatus::Error);
  EXPECT_NE(run.report.results[0].message.find("limit"), std::string::npos) << run.report.results[0].message;
}

TEST_F(SendFileTest, IdenticalFilesInOneTurnGoOnce) {
  auto run = test::run_turn("<file>report.pdf</file> and <file>copy.pdf</file>", handlers(), *store_);
  int files = 0;
  for (const auto& d : run.outbox.ops()) files += d.op == Op::File ? 1 : 0;
  EXPECT_EQ(files, 1);
  ASSERT_EQ(run.report.results.size(), 2u);
  ASSERT_EQ(run.report.results[1].notes.size(), 1u);
  EXPECT_EQ(run.report.results[1].notes[0], "duplicate-attachment: copy.pdf");
}

TEST_F(SendFileTest, CleanupNeedsTheOperatorsPermission) {
  auto kept = test::run_turn("<send-file path=\"report.pdf\" cleanup=\"true\"/>", handlers(false), *store_);
  EXPECT_TRUE(fs::exists(base_ / "out" / "report.pdf"));
  EXPECT_EQ(kept.report.results[0].status, exec::ResultStatus::Ok);
  EXPECT_NE(kept.report.results[0].message.find("kept"), std::string::npos) << kept.report.results[0].message;

  auto removed = test::run_turn("<send-file path=\"report.pdf\" cleanup=\"true\"/>", handlers(true), *store_,
                                {"alice", "conv-1", "turn-2"});
  EXPECT_FALSE(fs::exists(base_ / "out" / "report.pdf"));
  ASSERT_EQ(removed.outbox.ops().size(), 1u);
  EXPECT_EQ(read_payload(*removed.outbox.ops()[0].payload), "%PDF-1.4 report");  // sent from the open file
}

TEST_F(SendFileTest, OtherChatsOnlyWhenAllowListed) {
  auto refused = test::run_turn("<send-file path=\"report.pdf\" channel=\"telegram\" chat=\"42\"/>",
                                handlers(), *store_);
  EXPECT_EQ(refused.report.results[0].status, exec::ResultStatus::Error);
  EXPECT_EQ(refused.report.results[0].message, "send-file: telegram:42 is not an allowed target");
  EXPECT_TRUE(refused.outbox.ops().empty());

  auto sent = test::run_turn("<send-file path=\"report.pdf\" channel=\"Telegram\" chat=\"42\"/>",
                             handlers(false, {{"telegram", "42"}}), *store_, {"alice", "conv-1", "turn-2"});
  ASSERT_EQ(sent.outbox.ops().size(), 1u);
  EXPECT_EQ(sent.outbox.ops()[0].chat, "42");
}

TEST_F(SendFileTest, NoFolderConfiguredIsAnError) {
  exec::HandlerTable table;
  add_send_file_handlers(table, FilesConfig{});
  auto run = test::run_turn("<file>report.pdf</file>", table, *store_);
  EXPECT_EQ(run.report.results[0].status, exec::ResultStatus::Error);
  EXPECT_EQ(run.report.results[0].message, "send-file: no folder is configured for files");
}

}  // namespace
}  // namespace sigil::actions
