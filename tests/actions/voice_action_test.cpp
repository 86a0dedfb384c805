// The voice action (spec 13) through the real parser and executor, with the real espeak-ng.
#include "sigil/actions/voice_action.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../support/run_turn.h"
#include "sigil/actions/file_sandbox.h"
#include "support/handler_context.h"

namespace sigil::actions {
namespace {

using Op = exec::Delivery::Op;

exec::HandlerTable voice_table(VoiceSynth::Options options = {}) {
  exec::HandlerTable table;
  add_voice_handlers(table, VoiceConfig{std::make_shared<const VoiceSynth>(std::move(options))});
  return table;
}

std::string head(const exec::Payload& p, std::size_t n) {
  std::string out(n, '\0');
  const std::int64_t got = p.read_at(0, out);
  out.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return out;
}

TEST(VoiceAction, VoiceTagBecomesAnOggOpusNoteWhereItStood) {
  auto store = test::memory_store();
  auto run = test::run_turn("Listen: <voice>Hello from sigil.</voice> Bye.", voice_table(), *store);
  const exec::Delivery* d = run.sole_delivery();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->op, Op::Voice);
  ASSERT_TRUE(d->payload);
  EXPECT_EQ(head(*d->payload, 4), "OggS");
  EXPECT_EQ(d->payload->mime_type(), "audio/ogg; codecs=opus");
  EXPECT_GT(d->duration_ms, 300u);
  EXPECT_EQ(d->sha256.size(), 64u);
  EXPECT_TRUE(std::filesystem::exists(d->path));
  const std::string path = d->path;
  run.outbox = {};
  run.report = {};
  EXPECT_FALSE(std::filesystem::exists(path)) << "the note's file goes with its last holder";
}

TEST(VoiceAction, SameTextTwiceIsSentOnce) {
  auto store = test::memory_store();
  auto run = test::run_turn("<voice>Same words.</voice><voice>Same words.</voice>", voice_table(), *store);
  int voices = 0;
  for (const auto& d : run.outbox.ops()) voices += d.op == Op::Voice ? 1 : 0;
  EXPECT_EQ(voices, 1);
}

TEST(VoiceAction, MissingEspeakIsAClearError) {
  auto store = test::memory_store();
  VoiceSynth::Options o;
  o.espeak_binary = "/nonexistent/espeak-ng";
  auto run = test::run_turn("<voice>Hello.</voice>", voice_table(o), *store);
  ASSERT_EQ(run.report.results.size(), 1u);
  EXPECT_EQ(run.report.results[0].status, exec::ResultStatus::Error);
  EXPECT_EQ(run.report.results[0].message.rfind("voice: ", 0), 0u) << run.report.results[0].message;
  EXPECT_NE(run.report.results[0].message.find("espeak-ng"), std::string::npos);
  EXPECT_TRUE(run.outbox.ops().empty());
}

TEST(VoiceAction, OverLongTextIsRefused) {
  auto store = test::memory_store();
  VoiceSynth::Options o;
  o.max_text_bytes = 10;
  auto run = test::run_turn("<voice>This is far longer than ten bytes.</voice>", voice_table(o), *store);
  EXPECT_EQ(run.report.results[0].status, exec::ResultStatus::Error);
}

TEST(VoiceAction, NotConfiguredIsAnError) {
  auto store = test::memory_store();
  exec::HandlerTable table;
  add_voice_handlers(table, VoiceConfig{});
  auto run = test::run_turn("<voice>Hello.</voice>", table, *store);
  EXPECT_EQ(run.report.results[0].message, "voice: voice notes are not configured");
}

}  // namespace
}  // namespace sigil::actions
