#include "sigil/deliver/chat_outbox.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "deliver/fake_channel.h"
#include "sigil/deliver/split.h"

namespace sigil::deliver {
namespace {

using ::testing::ElementsAre;
using testing::FakeChannel;
using testing::FakeClock;
using ::testing::HasSubstr;

ChatOutboxOptions opts(FakeClock* clock = nullptr) {
  ChatOutboxOptions o;
  o.reply_to = "in-1";
  o.clock = clock;
  return o;
}

// A channel as `caps` has it, with messages of at most `limit` `unit`s.
ChannelCapabilities limited(ChannelCapabilities caps, std::size_t limit, TextUnit unit = TextUnit::Bytes) {
  caps.text_limit = limit;
  caps.text_unit = unit;
  return caps;
}

// A channel as `caps` has it, taking calls at `rate` (per second, burst).
ChannelCapabilities paced(ChannelCapabilities caps, RateLimit rate) {
  caps.rate = rate;
  return caps;
}

// ---------------------------------------------------------------- order across every delivery mix

// What the user ends up with, in the order it appeared: "text:<final text>", "file:<name>", "voice:<name>",
// "route:<text>" (a message to another chat).
std::vector<std::string> shown_items(FakeChannel& ch, const std::vector<std::string>& routed_log) {
  std::vector<std::string> out;
  std::size_t route = 0;
  for (const std::string& line : ch.log) {
    if (line.starts_with("send ")) {
      const std::string id = line.substr(5, line.find(' ', 5) - 5);
      out.push_back("text:" + ch.text_of(id));
    } else if (line.starts_with("file ")) {
      out.push_back("file:" + line.substr(line.rfind(' ') + 1));
    } else if (line.starts_with("voice ")) {
      out.push_back("voice:" + line.substr(6));
    } else if (line == "route") {
      out.push_back("route:" + routed_log.at(route++));
    }
  }
  return out;
}

TEST(DeliverChatOutbox, OrderKeptForEveryDeliveryMix) {
  // Every sequence of up to 4 operations over: streamed text (t), a file (f), a voice note (v), a separate
  // text delivery (x), a message to another chat (m); on channels that edit, append, or neither.
  const std::string ops = "tfvxm";
  std::vector<std::string> sequences{""};
  for (int len = 1; len <= 4; ++len) {
    std::vector<std::string> next;
    for (const auto& s : sequences) {
      if (static_cast<int>(s.size()) != len - 1) continue;
      for (const char op : ops) next.push_back(s + op);
    }
    sequences.insert(sequences.end(), next.begin(), next.end());
  }
  const std::vector<std::pair<const char*, ChannelCapabilities>> channels = {
      {"edits", testing::caps_edit()},
      {"append", testing::caps_append()},
      {"neither", testing::caps_plain()}};
  int checked = 0;
  for (const auto& [channel_name, caps] : channels) {
    for (const std::string& seq : sequences) {
      FakeChannel ch(caps);
      std::vector<std::string> routed;
      ChatOutboxOptions o = opts();
      o.stream = StreamPolicy::Always;
      o.other_chat = [&](const deliver::Delivery& d) {
        ch.log.emplace_back("route");
        routed.push_back(d.text);
        return std::string();
      };
      ChatOutbox box(ch, o);
      std::vector<std::string> expected;
      bool text_open = false;
      for (std::size_t i = 0; i < seq.size(); ++i) {
        const std::string tag = std::to_string(i);
        switch (seq[i]) {
          case 't':
            box.text("a" + tag);
            if (text_open) {
              expected.back() += "a" + tag;
            } else {
              expected.push_back("text:a" + tag);
            }
            text_open = true;
            continue;
          case 'f':
            box.deliver(testing::file_delivery("f" + tag + ".pdf", "document"));
            expected.push_back("file:f" + tag + ".pdf");
            break;
          case 'v':
            box.deliver(testing::voice_delivery("v" + tag + ".ogg"));
            expected.push_back("voice:v" + tag + ".ogg");
            break;
          case 'x':
            box.deliver(testing::text_delivery("x" + tag));
            expected.push_back("text:x" + tag);
            break;
          case 'm':
            box.deliver(testing::message_delivery("telegram", "42", "m" + tag));
            expected.push_back("route:m" + tag);
            break;
        }
        text_open = false;
      }
      box.end();
      EXPECT_EQ(shown_items(ch, routed), expected) << channel_name << " " << seq;
      EXPECT_TRUE(box.report().empty()) << channel_name << " " << seq;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3 * (1 + 5 + 25 + 125 + 625));
}

TEST(DeliverChatOutbox, TextFileTextIsThreeThingsInOrder) {
  struct Case {
    const char* name;
    ChannelCapabilities caps;
    std::vector<std::string> log;
  };
  const std::vector<Case> cases = {
      {"edits",
       testing::caps_edit(),
       {"send m1 Here", "edit m1 Here it is:", "done m1", "file document report.pdf", "send m3 More.",
        "done m3"}},
      {"append",
       testing::caps_append(),
       {"send m1 Here", "append m1  it is:", "done m1", "file document report.pdf", "send m3 More.",
        "done m3"}},
      {"neither",
       testing::caps_plain(),
       {"send m1 Here it is:", "done m1", "file document report.pdf", "send m3 More.", "done m3"}},
  };
  for (const auto& c : cases) {
    FakeChannel ch(c.caps);
    ChatOutboxOptions o = opts();
    o.stream = StreamPolicy::Always;
    ChatOutbox box(ch, o);
    box.text("Here");
    box.text(" it is:\n\n");
    box.deliver(testing::file_delivery("report.pdf", "document"));
    box.text("\n\nMore.");
    box.end();
    EXPECT_EQ(ch.log, c.log) << c.name;
  }
}

// ---------------------------------------------------------------- streaming

TEST(DeliverChatOutbox, EditsGrowOneMessage) {
  FakeChannel ch(testing::caps_edit());
  ChatOutbox box(ch, opts());
  EXPECT_TRUE(box.streaming());
  box.text("Hel");
  box.text("lo ");
  box.text("world");
  EXPECT_THAT(ch.log, ElementsAre("send m1 Hel", "edit m1 Hello", "edit m1 Hello world"));
  box.end();
  EXPECT_THAT(ch.log, ElementsAre("send m1 Hel", "edit m1 Hello", "edit m1 Hello world", "done m1"));
  EXPECT_EQ(box.report().messages_sent, 1U);
  EXPECT_EQ(box.report().edits, 2U);
}

TEST(DeliverChatOutbox, AppendSendsOnlyWhatIsNew) {
  FakeChannel ch(testing::caps_append());
  ChatOutbox box(ch, opts());
  box.text("Hel");
  box.text("lo ");
  box.text("world\n");
  box.end();
  EXPECT_THAT(ch.log, ElementsAre("send m1 Hel", "append m1 lo", "append m1  world", "done m1"));
  EXPECT_EQ(ch.texts.at(0), "Hello world");
}

TEST(DeliverChatOutbox, ChannelWithBothStreamsByAppend) {
  FakeChannel ch(ChannelCapabilities::everything());
  ChatOutbox box(ch, opts());
  box.text("a");
  box.text("b");
  box.end();
  EXPECT_THAT(ch.log, ElementsAre("send m1 a", "append m1 b", "done m1"));
}

TEST(DeliverChatOutbox, EditsThrottledToTheRateLimitAndTheLastEditIsExact) {
  FakeClock clock;
  FakeChannel ch(paced(testing::caps_edit(), {1.0, 1}));  // one call per second
  ChatOutbox box(ch, opts(&clock));
  box.text("a");  // sent: the bucket is empty now
  box.text("b");  // too soon
  clock.advance(std::chrono::milliseconds(500));
  box.text("c");  // still too soon
  clock.advance(std::chrono::milliseconds(600));
  box.text("d");  // 1.1 s after the send: one edit
  box.text("e");  // too soon
  EXPECT_THAT(ch.log, ElementsAre("send m1 a", "edit m1 abcd"));
  EXPECT_TRUE(clock.sleeps.empty());
  box.end();  // the final edit waits for its token
  EXPECT_THAT(ch.log, ElementsAre("send m1 a", "edit m1 abcd", "edit m1 abcde", "done m1"));
  ASSERT_EQ(clock.sleeps.size(), 1U);
  EXPECT_GE(clock.sleeps[0], std::chrono::milliseconds(900));
  EXPECT_LE(clock.sleeps[0], std::chrono::milliseconds(1000));
  EXPECT_EQ(box.report().waits, 1U);
}

TEST(DeliverChatOutbox, ManyPiecesFewEdits) {
  FakeClock clock;
  FakeChannel ch(paced(testing::caps_edit(), {2.0, 3}));
  ChatOutbox box(ch, opts(&clock));
  std::string all;
  for (int i = 0; i < 300; ++i) {
    const std::string piece = "w" + std::to_string(i) + " ";
    all += piece;
    box.text(piece);
    clock.advance(std::chrono::milliseconds(10));  // 3 s in all
  }
  box.end();
  // One send, then at most one edit per 0.5 s over 3 s, plus the final edit.
  EXPECT_EQ(box.report().messages_sent, 1U);
  EXPECT_GE(box.report().edits, 2U);
  EXPECT_LE(box.report().edits, 8U);
  all.pop_back();
  EXPECT_EQ(ch.texts.at(0), all);
  EXPECT_EQ(ch.log.back(), "done m1");
}

TEST(DeliverChatOutbox, ExplicitEditIntervalOnAnUnlimitedChannel) {
  FakeClock clock;
  FakeChannel ch(testing::caps_edit());
  ChatOutboxOptions o = opts(&clock);
  o.edit_interval = std::chrono::milliseconds(250);
  ChatOutbox box(ch, o);
  box.text("a");
  box.text("b");
  clock.advance(std::chrono::milliseconds(250));
  box.text("c");
  box.end();
  EXPECT_THAT(ch.log, ElementsAre("send m1 a", "edit m1 abc", "done m1"));
}

struct PolicyCase {
  const char* name;
  ChannelCapabilities caps;
  StreamPolicy policy;
  bool streams;
};

TEST(DeliverChatOutbox, StreamPolicyByCapabilities) {
  ChannelCapabilities edits_no_delete = testing::caps_edit();
  edits_no_delete.deletes = false;
  ChannelCapabilities append_no_delete = testing::caps_append();
  append_no_delete.deletes = false;
  const std::vector<PolicyCase> cases = {
      {"edit+delete auto", testing::caps_edit(), StreamPolicy::Auto, true},
      {"edit, no delete, auto: held (12.7)", edits_no_delete, StreamPolicy::Auto, false},
      {"edit, no delete, always", edits_no_delete, StreamPolicy::Always, true},
      {"append, no delete, auto", append_no_delete, StreamPolicy::Auto, false},
      {"append, no delete, always", append_no_delete, StreamPolicy::Always, true},
      {"edit+delete never", testing::caps_edit(), StreamPolicy::Never, false},
      {"plain always: cannot", testing::caps_plain(), StreamPolicy::Always, false},
  };
  for (const auto& c : cases) {
    FakeChannel ch(c.caps);
    ChatOutboxOptions o = opts();
    o.stream = c.policy;
    ChatOutbox box(ch, o);
    EXPECT_EQ(box.streaming(), c.streams) << c.name;
    box.text("Hello");
    EXPECT_EQ(ch.log.empty(), !c.streams) << c.name;
    box.end();
    ASSERT_FALSE(ch.texts.empty()) << c.name;
    EXPECT_EQ(ch.texts.back(), "Hello") << c.name;
  }
}

TEST(DeliverChatOutbox, AStreamedTextThatShowsNothingYetIsNotSent) {
  // A channel whose rendering of an opened code block is empty (Telegram: 400 "message text is empty").
  FakeChannel ch(testing::caps_edit());
  ch.shows = [](std::string_view t) { return t.find("code") != std::string_view::npos; };
  ChatOutboxOptions o = opts();
  o.stream = StreamPolicy::Always;
  ChatOutbox box(ch, o);
  box.text("```sh\n");
  EXPECT_TRUE(ch.log.empty());
  box.text("code\n");
  ASSERT_EQ(ch.log.size(), 1u);
  EXPECT_EQ(ch.log[0], "send m1 ```sh\ncode");
  box.end();
  ASSERT_FALSE(ch.texts.empty());
  EXPECT_EQ(ch.texts.back(), "```sh\ncode");
}

// ---------------------------------------------------------------- splitting while streaming

TEST(DeliverChatOutbox, AnyChunkingGivesTheMessagesOfSplitText) {
  std::string text;
  for (int i = 0; i < 12; ++i) {
    text += "Paragraph " + std::to_string(i) + " has some words \xF0\x9F\x98\x80 and caf\xC3\xA9. ";
    if (i % 3 == 0) text += "\n\n";
    if (i == 5) text += "```cpp\nint a = 1;\nint b = 2;\nint c = 3;\nint d = 4;\n```\n";
    if (i == 8) text += std::string(90, 'z') + " ";
  }
  std::mt19937 rng(11);
  for (const TextUnit unit : {TextUnit::Bytes, TextUnit::Utf16, TextUnit::CodePoints}) {
    for (const std::size_t limit : {40U, 64U, 100U}) {
      const auto expected = split_text(text, limit, unit);
      ASSERT_GT(expected.size(), 2U);
      for (auto caps : {testing::caps_edit(), testing::caps_plain(), testing::caps_append()}) {
        caps.text_limit = limit;
        caps.text_unit = unit;
        for (int round = 0; round < 8; ++round) {
          FakeChannel ch(caps);
          ChatOutboxOptions o = opts();
          o.stream = StreamPolicy::Always;
          ChatOutbox box(ch, o);
          std::size_t at = 0;
          while (at < text.size()) {
            const std::size_t n = std::uniform_int_distribution<std::size_t>(1, round == 0 ? 1 : 23)(rng);
            box.text(std::string_view(text).substr(at, n));  // may cut a UTF-8 sequence: the outbox holds it
            at += n;
          }
          box.end();
          if (!caps.append) {
            EXPECT_EQ(ch.texts, expected) << "limit " << limit << " unit " << to_string(unit);
          }
          for (const std::string& t : ch.texts) EXPECT_LE(text_units(t, unit), limit) << t;
          for (const std::string& line : ch.log) {
            if (line.starts_with("edit ")) {
              EXPECT_LE(text_units(line.substr(line.find(' ', 5) + 1), unit), limit);
            }
          }
          EXPECT_FALSE(box.report().empty());
          EXPECT_EQ(box.report().notes.back().outcome, DeliveryNote::Outcome::Split);
        }
      }
    }
  }
}

TEST(DeliverChatOutbox, AppendedTextIsNeverTakenBackWhenSplitting) {
  FakeChannel ch(limited(testing::caps_append(), 10));
  ChatOutbox box(ch, opts());
  box.text("aa\n\nbbbbbb");  // 10: fits, shown
  box.text("c");             // 11: the best cut (the paragraph) is before what is shown
  box.end();
  EXPECT_EQ(ch.texts, (std::vector<std::string>{"aa\n\nbbbbbb", "c"}));
}

TEST(DeliverChatOutbox, HeldTextSplitWhenFlushed) {
  FakeChannel ch(limited(testing::caps_plain(), 12, TextUnit::Utf16));
  ChatOutbox box(ch, opts());
  box.text("Hello there. ");
  box.text("How are you?");
  EXPECT_TRUE(ch.log.empty());
  box.end();
  EXPECT_THAT(ch.log, ElementsAre("send m1 Hello there.", "done m1", "send m2 How are you?", "done m2"));
  ASSERT_EQ(box.report().notes.size(), 1U);
  EXPECT_EQ(box.report().notes[0].outcome, DeliveryNote::Outcome::Split);
  EXPECT_EQ(box.report().notes[0].done, "2 messages");
  EXPECT_EQ(box.report().notes[0].why, "longer than the channel's limit of 12 utf16");
}

TEST(DeliverChatOutbox, TextDeliverySplitToo) {
  FakeChannel ch(limited(testing::caps_edit(), 10));
  ChatOutbox box(ch, opts());
  box.deliver(testing::text_delivery("aaaa bbbb cccc"));
  EXPECT_THAT(ch.log, ElementsAre("send m1 aaaa bbbb", "done m1", "send m2 cccc", "done m2"));
  ASSERT_EQ(box.report().notes.size(), 1U);
  EXPECT_EQ(box.report().notes[0].outcome, DeliveryNote::Outcome::Split);
}

TEST(DeliverChatOutbox, WhitespaceOnlyTextSendsNothing) {
  for (auto caps : {testing::caps_edit(), testing::caps_plain(), testing::caps_append()}) {
    FakeChannel ch(caps);
    ChatOutbox box(ch, opts());
    box.text("\n\n  ");
    box.deliver(testing::file_delivery("a.pdf", "document"));
    box.text(" \n");
    box.end();
    EXPECT_THAT(ch.log, ElementsAre("file document a.pdf"));
  }
}

TEST(DeliverChatOutbox, EndThenMoreTextStartsANewMessage) {
  FakeChannel ch(testing::caps_edit());
  ChatOutbox box(ch, opts());
  box.text("first");
  box.end();
  box.text("second");
  box.end();
  EXPECT_THAT(ch.log, ElementsAre("send m1 first", "done m1", "send m2 second", "done m2"));
}

// ---------------------------------------------------------------- fallbacks

// One delivery against one channel: the calls it makes and the note it leaves. A field left out keeps its
// default: the channel as caps_edit() has it, the reply answering in-1, nothing refused, no note.
struct DeliveryCase {
  const char* name;
  std::function<void(ChannelCapabilities&)> caps = [](ChannelCapabilities&) {};
  std::string reply_to = "in-1";
  deliver::Delivery delivery;
  std::set<std::string> fail = {};
  bool media_url = false;
  std::vector<std::string> log;
  struct Note {
    DeliveryNote::Outcome outcome;
    std::string done;  // fallbacks: what was done instead (reactions: not checked)
    std::string why;   // fallbacks: a substring of the note's why; reactions: the whole why
  };
  std::optional<Note> note = std::nullopt;  // nullopt: no note
};

// What a case's channel logged and its outbox reported, after the delivery (and the reply's end when `end`).
struct Delivered {
  std::vector<std::string> log;
  DeliveryReport report;
};
Delivered deliver_case(const DeliveryCase& c, bool end) {
  ChannelCapabilities caps = testing::caps_edit();
  c.caps(caps);
  FakeChannel ch(caps);
  ch.fail = c.fail;
  ChatOutboxOptions o = opts();
  o.reply_to = c.reply_to;
  if (c.media_url)
    o.media_url = [](const deliver::Delivery& d) {
      return "https://chat.example/media/" + d.payload->name();
    };
  ChatOutbox box(ch, o);
  box.deliver(c.delivery);
  if (end) box.end();
  return {ch.log, box.report()};
}

// A file or voice case run to the reply's end: the calls, and the note (a fallback's `why` as a substring)
// or none.
void expect_file_case(const DeliveryCase& c) {
  const Delivered r = deliver_case(c, true);
  EXPECT_EQ(r.log, c.log) << c.name;
  if (!c.note) {
    EXPECT_TRUE(r.report.empty()) << c.name << ": " << ::testing::PrintToString(r.report.lines());
    return;
  }
  ASSERT_EQ(r.report.notes.size(), 1U) << c.name;
  const DeliveryNote& n = r.report.notes[0];
  EXPECT_EQ(n.outcome, c.note->outcome) << c.name;
  EXPECT_EQ(n.done, c.note->done) << c.name;
  EXPECT_THAT(n.why, HasSubstr(c.note->why)) << c.name;
}

TEST(DeliverChatOutbox, FallbacksAreTakenAndReported) {
  constexpr auto fallback = DeliveryNote::Outcome::Fallback;
  const auto no_voice = [](ChannelCapabilities& c) { c.voice_notes = false; };
  const auto no_files = [](ChannelCapabilities& c) { c.file_kinds.clear(); };
  const auto no_voice_no_files = [](ChannelCapabilities& c) {
    c.voice_notes = false;
    c.file_kinds.clear();
  };
  deliver::Delivery no_payload = testing::file_delivery("r.pdf", "document");
  no_payload.payload.reset();
  const deliver::Delivery report = testing::file_delivery("r.pdf", "document");
  const deliver::Delivery captioned = testing::file_delivery("r.pdf", "document", "PDF!", "the report");
  const std::vector<DeliveryCase> cases = {
      {.name = "voice -> audio",
       .caps = no_voice,
       .delivery = testing::voice_delivery(),
       .log = {"file audio hello.ogg"},
       .note = {{fallback, "sent as audio file", "channel has no voice notes"}}},
      {.name = "voice -> document",
       .caps =
           [](ChannelCapabilities& c) {
             c.voice_notes = false;
             c.file_kinds = {"document"};
           },
       .delivery = testing::voice_delivery(),
       .log = {"file document hello.ogg"},
       .note = {{fallback, "sent as document file",
                 "channel has no voice notes; channel cannot send audio files"}}},
      {.name = "voice -> text line",
       .caps = no_voice_no_files,
       .delivery = testing::voice_delivery(),
       .log = {"send m1 [voice note: hello.ogg, 8 B, 0:03]", "done m1"},
       .note = {{fallback, "sent as a text line", "channel cannot send documents"}}},
      {.name = "voice -> text line with a link",
       .caps = no_voice_no_files,
       .delivery = testing::voice_delivery(),
       .media_url = true,
       .log = {"send m1 [voice note: hello.ogg, 8 B, 0:03] https://chat.example/media/hello.ogg", "done m1"},
       .note = {{fallback, "sent as a text line with a link", "no voice notes"}}},
      {.name = "voice refused -> audio",
       .delivery = testing::voice_delivery(),
       .fail = {"voice"},
       .log = {"file audio hello.ogg"},
       .note = {{fallback, "sent as audio file", "sending as voice: channel error: voice refused"}}},
      {.name = "video -> document",
       .caps =
           [](ChannelCapabilities& c) {
             c.file_kinds = {"image", "document"};
           },
       .delivery = testing::file_delivery("clip.mp4", "video"),
       .log = {"file document clip.mp4"},
       .note = {{fallback, "sent as document file", "channel cannot send video files"}}},
      {.name = "image -> text line",
       .caps = no_files,
       .delivery = testing::file_delivery("cat.png", "image"),
       .log = {"send m1 [file: cat.png, 4 B]", "done m1"},
       .note = {{fallback, "sent as a text line", "channel cannot send image files"}}},
      {.name = "caption kept in the text line",
       .caps = no_files,
       .delivery = captioned,
       .log = {"send m1 [file: r.pdf, 4 B] the report", "done m1"},
       .note = {{fallback, "sent as a text line", "cannot send document files"}}},
      {.name = "no bytes -> text line",
       .delivery = no_payload,
       .log = {"send m1 [file: r.pdf]", "done m1"},
       .note = {{fallback, "sent as a text line", "no bytes to send"}}},
      {.name = "every way refused",
       .caps = [](ChannelCapabilities& c) { c.file_kinds = {"document"}; },
       .delivery = report,
       .fail = {"file:document", "send"},
       .log = {},
       .note = {{DeliveryNote::Outcome::Failed, "not sent",
                 "sending as document: channel error: document refused"}}},
      {.name = "a throwing channel is an error",
       .delivery = report,
       .fail = {"throw"},
       .log = {"send m1 [file: r.pdf, 4 B]", "done m1"},
       .note = {{fallback, "sent as a text line", "channel threw: boom"}}},
  };
  for (const auto& c : cases) expect_file_case(c);
}

TEST(DeliverChatOutbox, FilesGoAsTheirKindSaysWhereTheChannelTakesIt) {
  const deliver::Delivery captioned = testing::file_delivery("r.pdf", "document", "PDF!", "the report");
  const std::vector<DeliveryCase> cases = {
      {.name = "voice as voice", .delivery = testing::voice_delivery(), .log = {"voice hello.ogg"}},
      {.name = "auto kind by extension",
       .delivery = testing::file_delivery("cat.PNG", "auto"),
       .log = {"file image cat.PNG"}},
      {.name = "empty kind by extension",
       .delivery = testing::file_delivery("song.mp3", ""),
       .log = {"file audio song.mp3"}},
      {.name = "caption passed with the file",
       .delivery = captioned,
       .log = {"file document r.pdf | the report"}},
      {.name = "send-file kind voice is a voice note",
       .delivery = testing::file_delivery("x.ogg", "voice"),
       .log = {"voice x.ogg"}},
  };
  for (const auto& c : cases) expect_file_case(c);
}

TEST(DeliverChatOutbox, ReactionsShownOrSkipped) {
  constexpr auto skipped = DeliveryNote::Outcome::Skipped;
  const std::string heart = "\xE2\x9D\xA4";                   // ❤
  const std::string heart_vs16 = "\xE2\x9D\xA4\xEF\xB8\x8F";  // ❤️
  const std::string thumbs = "\xF0\x9F\x91\x8D";
  const std::string party = "\xF0\x9F\x8E\x89";
  const auto allowed = [&](ChannelCapabilities& c) {
    c.allowed_reactions = std::vector<std::string>{thumbs, heart_vs16};
  };
  const std::vector<DeliveryCase> cases = {
      {.name = "shown on the message answered",
       .delivery = testing::reaction(thumbs),
       .log = {"react in-1 " + thumbs}},
      {.name = "shown on the message named",
       .delivery = testing::reaction(thumbs, "m9"),
       .log = {"react m9 " + thumbs}},
      {.name = "no reactions here",
       .caps = [](ChannelCapabilities& c) { c.reactions = false; },
       .delivery = testing::reaction(thumbs),
       .log = {},
       .note = {{skipped, "", "channel has no reactions"}}},
      {.name = "allowed without its variation selector",
       .caps = allowed,
       .delivery = testing::reaction(heart),
       .log = {"react in-1 " + heart}},
      {.name = "not allowed",
       .caps = allowed,
       .delivery = testing::reaction(party),
       .log = {},
       .note = {{skipped, "", "not among the channel's allowed reactions"}}},
      {.name = "nothing to react to",
       .reply_to = "",
       .delivery = testing::reaction(thumbs),
       .log = {},
       .note = {{skipped, "", "no message to react to"}}},
      {.name = "refused",
       .delivery = testing::reaction(thumbs),
       .fail = {"react"},
       .log = {},
       .note = {{DeliveryNote::Outcome::Failed, "", "channel error: reaction refused"}}},
  };
  for (const auto& c : cases) {
    const Delivered r = deliver_case(c, false);  // a reaction does not wait for the reply's end
    EXPECT_EQ(r.log, c.log) << c.name;
    if (!c.note) {
      EXPECT_TRUE(r.report.empty()) << c.name;
      EXPECT_EQ(r.report.reactions, 1U) << c.name;
      continue;
    }
    ASSERT_EQ(r.report.notes.size(), 1U) << c.name;
    EXPECT_EQ(r.report.notes[0].outcome, c.note->outcome) << c.name;
    EXPECT_EQ(r.report.notes[0].why, c.note->why) << c.name;
  }
}

TEST(DeliverChatOutbox, AReactionDoesNotEndTheStreamedMessage) {
  FakeClock clock;
  FakeChannel ch(paced(testing::caps_edit(), {1.0, 2}));
  ChatOutbox box(ch, opts(&clock));
  box.text("Sure");
  box.text(", done");  // throttled: not shown yet
  box.deliver(testing::reaction("\xF0\x9F\x91\x8D"));
  box.text(".");
  box.end();
  // The text before the reaction is brought up to date first; the message then goes on.
  EXPECT_THAT(ch.log, ElementsAre("send m1 Sure", "edit m1 Sure, done", "react in-1 \xF0\x9F\x91\x8D",
                                  "edit m1 Sure, done.", "done m1"));
}

TEST(DeliverChatOutbox, HeldTextStaysHeldAcrossAReaction) {
  FakeChannel ch(testing::caps_plain());
  ChatOutbox box(ch, opts());
  box.text("Sure");
  box.deliver(testing::reaction("\xF0\x9F\x91\x8D"));
  box.text(", done.");
  box.end();
  EXPECT_THAT(ch.log, ElementsAre("react in-1 \xF0\x9F\x91\x8D", "send m1 Sure, done.", "done m1"));
}

TEST(DeliverChatOutbox, MessagesToOtherChats) {
  {
    FakeChannel ch(testing::caps_edit());
    ChatOutbox box(ch, opts());
    box.deliver(testing::message_delivery("telegram", "42", "hi"));
    ASSERT_EQ(box.report().notes.size(), 1U);
    EXPECT_EQ(box.report().lines().at(0),
              "skipped: message to telegram:42: skipped (no route to other chats from this outbox)");
  }
  {
    FakeChannel ch(testing::caps_edit());
    ChatOutboxOptions o = opts();
    o.other_chat = [](const deliver::Delivery&) { return std::string("telegram is not configured"); };
    ChatOutbox box(ch, o);
    box.deliver(testing::message_delivery("telegram", "42", "hi"));
    ASSERT_EQ(box.report().notes.size(), 1U);
    EXPECT_EQ(box.report().notes[0].outcome, DeliveryNote::Outcome::Failed);
    EXPECT_EQ(box.report().notes[0].why, "telegram is not configured");
  }
}

// ---------------------------------------------------------------- late sentinels

TEST(DeliverChatOutbox, RetractDeletesWhatWasShown) {
  FakeChannel ch(limited(testing::caps_edit(), 10));
  ChatOutbox box(ch, opts());
  box.text("aaaa bbbb cccc");  // two messages shown
  box.retract();
  box.end();
  EXPECT_THAT(ch.log, ElementsAre("send m1 aaaa bbbb", "done m1", "send m2 cccc", "delete m1", "delete m2",
                                  "done m2"));
  ASSERT_EQ(box.report().notes.size(), 1U);
  EXPECT_EQ(box.report().notes[0].outcome, DeliveryNote::Outcome::Retracted);
  EXPECT_EQ(box.report().notes[0].done, "2 of 2 messages deleted");
}

// On a channel that holds a reply's text until its end (caps_plain), `text` and then `drop` (a retraction, a
// silence) show nothing and leave no note.
void expect_held_text_dropped(std::string_view text, const std::function<void(ChatOutbox&)>& drop) {
  FakeChannel ch(testing::caps_plain());
  ChatOutbox box(ch, opts());
  box.text(text);
  drop(box);
  box.end();
  EXPECT_TRUE(ch.log.empty());
  EXPECT_TRUE(box.report().empty());
}

TEST(DeliverChatOutbox, RetractDropsHeldText) {
  expect_held_text_dropped("NO_REPLY is late", [](ChatOutbox& box) { box.retract(); });
}

TEST(DeliverChatOutbox, RetractOnAChannelThatCannotDeleteIsReported) {
  ChannelCapabilities caps = testing::caps_append();
  caps.deletes = false;
  FakeChannel ch(caps);
  ChatOutboxOptions o = opts();
  o.stream = StreamPolicy::Always;
  ChatOutbox box(ch, o);
  box.text("shown");
  box.retract();
  EXPECT_EQ(box.report().lines().at(0),
            "retracted: text: 1 messages still shown (late sentinel; channel cannot delete)");
}

TEST(DeliverChatOutbox, SilenceDropsTheRestOfTheReplyUntilEnd) {
  FakeChannel ch(testing::caps_edit());
  ChatOutbox box(ch, opts());
  deliver::Outbox& outbox = box;
  outbox.text("NO_REPLY ");
  outbox.silence(true);
  outbox.text("more text of the silent reply");
  outbox.deliver(testing::reaction("\xF0\x9F\x91\x8D"));  // directives still run
  outbox.end();
  outbox.text("next call");
  outbox.end();
  EXPECT_THAT(ch.log, ElementsAre("send m1 NO_REPLY", "delete m1", "done m1", "react in-1 \xF0\x9F\x91\x8D",
                                  "send m2 next call", "done m2"));
}

TEST(DeliverChatOutbox, EarlySilenceOnAHoldingChannelShowsNothing) {
  expect_held_text_dropped("Thinking out loud", [](ChatOutbox& box) { box.silence(false); });
}

// ---------------------------------------------------------------- report

TEST(DeliverChatOutbox, ReportAsJsonAndTaken) {
  ChannelCapabilities caps = testing::caps_edit();
  caps.voice_notes = false;
  FakeChannel ch(caps);
  ChatOutbox box(ch, opts());
  box.text("hi");
  box.deliver(testing::voice_delivery());
  box.end();
  EXPECT_EQ(
      boost::json::serialize(box.report().json()),
      R"({"notes":[{"outcome":"fallback","asked":"voice note hello.ogg","done":"sent as audio file",)"
      R"("why":"channel has no voice notes"}],"messages":1,"edits":0,"files":1,"reactions":0,"waits":0})");
  const DeliveryReport r = box.take_report();
  EXPECT_EQ(r.notes.size(), 1U);
  EXPECT_TRUE(box.report().empty());
}

TEST(DeliverChatOutbox, WebCapabilitiesAreEverything) {
  const ChannelCapabilities c = ChannelCapabilities::everything();
  EXPECT_TRUE(c.reactions && c.voice_notes && c.edits && c.append && c.deletes);
  EXPECT_FALSE(c.allowed_reactions.has_value());
  EXPECT_EQ(c.text_limit, 0U);
  EXPECT_EQ(c.rate.per_second, 0);
  for (const char* kind : {"image", "document", "audio", "video"}) EXPECT_TRUE(c.accepts_file_kind(kind));
}

// The bucket itself: tests/deliver/token_bucket_test.cpp. Here, on the outbox's clock, as the outbox uses it.
TEST(DeliverTokenBucket, BurstThenRate) {
  FakeClock clock;
  TokenBucket bucket(2.0, 3, clock.now());
  EXPECT_TRUE(bucket.try_take(clock.now()));
  EXPECT_TRUE(bucket.try_take(clock.now()));
  EXPECT_TRUE(bucket.try_take(clock.now()));
  EXPECT_FALSE(bucket.try_take(clock.now()));
  clock.advance(std::chrono::milliseconds(499));
  EXPECT_FALSE(bucket.try_take(clock.now()));
  clock.advance(std::chrono::milliseconds(2));
  EXPECT_TRUE(bucket.try_take(clock.now()));
  const auto slept =
      std::chrono::duration_cast<std::chrono::milliseconds>(take_waiting(bucket, clock)).count();
  EXPECT_GE(slept, 490);
  EXPECT_LE(slept, 500);
  TokenBucket unlimited(0, 1, clock.now());
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(unlimited.try_take(clock.now()));
  EXPECT_EQ(take_waiting(unlimited, clock).count(), 0);
}

}  // namespace
}  // namespace sigil::deliver
