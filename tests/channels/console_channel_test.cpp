#include "sigil/channels/console/console_channel.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "deliver/fake_channel.h"
#include "sigil/deliver/chat_outbox.h"
#include "support/temp_dir.h"

namespace sigil::channels::console {
namespace {

namespace dt = sigil::deliver::testing;
using deliver::ChatOutbox;
using deliver::ChatOutboxOptions;
using deliver::StreamPolicy;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ChatOutboxOptions streaming() {
  ChatOutboxOptions o;
  o.reply_to = "you";
  o.stream = StreamPolicy::Always;
  return o;
}

// A console on a string stream, and the outbox of a turn over it (streaming() unless told).
struct Console {
  explicit Console(ConsoleChannelOptions channel = {}, const ChatOutboxOptions& options = streaming())
      : ch(out, std::move(channel)), box(ch, options) {}
  std::ostringstream out;
  ConsoleChannel ch;
  ChatOutbox box;
};

TEST(ConsoleChannel, Capabilities) {
  std::ostringstream out;
  ConsoleChannel ch(out);
  const auto c = ch.capabilities();
  EXPECT_TRUE(c.append);
  EXPECT_FALSE(c.edits);
  EXPECT_FALSE(c.deletes);
  EXPECT_TRUE(c.reactions);
  EXPECT_TRUE(c.voice_notes);
  EXPECT_EQ(c.text_limit, 0U);
  EXPECT_EQ(c.markdown, deliver::MarkdownFlavour::Plain);
  for (const char* kind : {"image", "document", "audio", "video"}) EXPECT_TRUE(c.accepts_file_kind(kind));
}

TEST(ConsoleChannel, ATurnExactly) {
  test::TempDir dir;
  const std::string media = dir.file("out");
  Console c({media + "/"});
  c.box.deliver(dt::reaction("\xF0\x9F\x91\x8D"));
  c.box.text("Here is ");
  c.box.text("the report:\n\n");
  c.box.deliver(dt::file_delivery("report.pdf", "document", std::string(12345, 'p'), "Q3 figures"));
  c.box.deliver(dt::voice_delivery("hello.ogg", 3200));
  c.box.text("Anything else?");
  c.box.end();
  EXPECT_EQ(c.out.str(),
            "(reacted \xF0\x9F\x91\x8D)\n"
            "Here is the report:\n"
            "[file: report.pdf, 12.3 KB -> " +
                media +
                "/report.pdf] Q3 figures\n"
                "[voice note: hello.ogg, 0:03, 8 B -> " +
                media +
                "/hello.ogg]\n"
                "Anything else?\n");
  EXPECT_EQ(read_file(media + "/report.pdf"), std::string(12345, 'p'));
  EXPECT_EQ(read_file(media + "/hello.ogg"), "OggS....");
  EXPECT_TRUE(c.box.report().empty());
}

TEST(ConsoleChannel, TextStreamsAsItComes) {
  Console c;
  c.box.text("Hel");
  EXPECT_EQ(c.out.str(), "Hel");
  c.box.text("lo ");
  EXPECT_EQ(c.out.str(), "Hello");  // trailing space waits for what follows
  c.box.text("world");
  EXPECT_EQ(c.out.str(), "Hello world");
  c.box.end();
  EXPECT_EQ(c.out.str(), "Hello world\n");
}

TEST(ConsoleChannel, AutoPolicyHoldsTextSinceTheConsoleCannotDelete) {
  ChatOutboxOptions o = streaming();
  o.stream = StreamPolicy::Auto;
  Console c({}, o);
  c.box.text("Hello");
  EXPECT_EQ(c.out.str(), "");
  c.box.end();
  EXPECT_EQ(c.out.str(), "Hello\n");
}

TEST(ConsoleChannel, AReactionMidLineGetsItsOwnLine) {
  Console c;
  c.box.text("Sure");
  c.box.deliver(dt::reaction("\xE2\x9D\xA4\xEF\xB8\x8F"));
  c.box.text(" and done.");
  c.box.end();
  EXPECT_EQ(c.out.str(), "Sure\n(reacted \xE2\x9D\xA4\xEF\xB8\x8F)\nand done.\n");
}

TEST(ConsoleChannel, NeverOverwritesAFile) {
  test::TempDir dir;
  const std::string media = dir.file("out");
  Console c({media});
  c.box.deliver(dt::file_delivery("a.txt", "document", "one"));
  c.box.deliver(dt::file_delivery("a.txt", "document", "two"));
  c.box.deliver(dt::file_delivery("../../etc/passwd", "document", "three"));
  c.box.deliver(dt::voice_delivery("note", 0));
  EXPECT_EQ(c.out.str(), "[file: a.txt, 3 B -> " + media + "/a.txt]\n[file: a.txt, 3 B -> " + media +
                             "/a-2.txt]\n[file: passwd, 5 B -> " + media +
                             "/passwd]\n[voice note: note.ogg, 8 B -> " + media + "/note.ogg]\n");
  EXPECT_EQ(read_file(media + "/a.txt"), "one");
  EXPECT_EQ(read_file(media + "/a-2.txt"), "two");
  EXPECT_EQ(read_file(media + "/passwd"), "three");
}

TEST(ConsoleChannel, WithoutAFolderFilesBecomeTextLines) {
  Console c;
  c.box.deliver(dt::file_delivery("report.pdf", "document", std::string(12345, 'p')));
  EXPECT_EQ(c.out.str(), "[file: report.pdf, 12.3 KB]\n");
  ASSERT_EQ(c.box.report().notes.size(), 1U);
  EXPECT_EQ(
      c.box.report().lines().at(0),
      "fallback: file report.pdf (document): sent as a text line (sending as document: channel error: no "
      "folder for files (media_dir))");
}

TEST(ConsoleChannel, AReadErrorLeavesNoFile) {
  test::TempDir dir;
  const std::string media = dir.file("out");
  std::ostringstream out;
  ConsoleChannel ch(out, {media});
  auto payload = std::make_shared<dt::MemoryPayload>("bad.bin", "xyz");
  payload->fail_reads = true;
  deliver::OutgoingFile f;
  f.payload = payload;
  f.name = "bad.bin";
  f.kind = "document";
  const auto r = ch.send_file(f);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "cannot read bad.bin");
  EXPECT_FALSE(std::filesystem::exists(media + "/bad.bin"));
  EXPECT_EQ(out.str(), "");
}

TEST(ConsoleChannel, AppendOnlyToTheOpenMessage) {
  std::ostringstream out;
  ConsoleChannel ch(out);
  const auto a = ch.send_text("one");
  ch.text_done(a.value());
  const auto b = ch.send_text("two");
  EXPECT_FALSE(ch.append_text(a.value(), "x").ok());
  EXPECT_TRUE(ch.append_text(b.value(), "!").ok());
  ch.end_line();
  EXPECT_EQ(out.str(), "one\ntwo!\n");
}

}  // namespace
}  // namespace sigil::channels::console
