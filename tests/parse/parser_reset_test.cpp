// Parser::reset(): a parser reused across replies gives, for every conformance vector, exactly the events a
// newly constructed parser gives (every event in order, every field), whatever the reused parser read before:
// a finished reply, or a reply cut off mid-construct and never finished.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <vector>

#include "../support/conformance_vectors.h"
#include "../support/run_parse.h"
#include "sigil/parse/parser.h"

namespace {

namespace json = boost::json;
namespace parse = sigil::parse;

// Every event as one line of text, all fields included.
class TraceSink final : public parse::EventSink {
 public:
  void on_text(std::string_view text, bool hidden) override {
    // Where text events split may differ between chunkings, not between two parsers fed alike.
    trace.push_back(std::string(hidden ? "hidden " : "text ") + std::string(text));
  }
  void on_directive(const parse::DirectiveEvent& d) override {
    trace.push_back("directive " + d.action + " " + json::serialize(d.args()) +
                    " valid=" + std::to_string(d.valid) + " error=" + d.error +
                    " span=" + std::to_string(d.span_begin) + "-" + std::to_string(d.span_end) +
                    " clean=" + std::to_string(d.clean_offset) + " spelling=" + std::to_string(d.spelling) +
                    " interrupts=" + std::to_string(d.interrupts));
  }
  void on_diagnostic(const parse::Diagnostic& d) override {
    trace.push_back("diagnostic " + d.code + " " + std::to_string(d.offset) + " " + d.message);
  }
  void on_silence(std::uint64_t offset) override { trace.push_back("silence " + std::to_string(offset)); }
  void on_fallback() override { trace.push_back("fallback"); }
  void on_end(bool silent) override { trace.push_back("end " + std::to_string(silent)); }

  std::vector<std::string> trace;
};

struct Vector {
  std::string id;
  std::string reply;
  parse::ParserOptions options;
  bool cut_off = false;
};

std::vector<Vector> all_vectors() {
  std::vector<Vector> out;
  for (const sigil::testing::ConformanceVector& v : sigil::testing::read_vector_dir(SIGIL_CONFORMANCE_DIR))
    out.push_back({v.id, v.reply, sigil::testing::parser_options(v.options), v.options.cut_off});
  return out;
}

void feed(parse::Parser& parser, std::string_view reply, std::size_t chunk) {
  const std::size_t step = chunk == 0 ? std::max<std::size_t>(reply.size(), 1) : chunk;
  for (std::size_t i = 0; i < reply.size(); i += step) parser.feed(reply.substr(i, step));
}

// The counts of stats() that a reply alone decides.
std::vector<std::uint64_t> counts(const parse::ParserStats& s) {
  return {s.bytes_in,        s.bytes_examined, s.bytes_replayed,   s.text_bytes,        s.directives,
          s.diagnostics,     s.max_held,       s.direct_text_runs, s.shared_code_bytes, s.told_dead_bytes,
          s.ordinary_pieces, s.plain_runs,     s.blank_gaps};
}

std::vector<std::string> fresh_trace(const parse::CompiledGrammar& grammar, const Vector& v,
                                     std::size_t chunk, std::vector<std::uint64_t>* stats = nullptr) {
  TraceSink sink;
  parse::Parser parser(grammar, sink, v.options);
  feed(parser, v.reply, chunk);
  parser.finish(v.cut_off ? parse::FinishReason::Length : parse::FinishReason::Stop);
  if (stats != nullptr) *stats = counts(parser.stats());
  return sink.trace;
}

TEST(ParserReset, ReusedParserGivesAFreshParsersEventsOnEveryVector) {
  const std::vector<Vector> vectors = all_vectors();
  ASSERT_GT(vectors.size(), 300u);
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  // One reused parser per set of options, as a conversation keeps one; each has read other vectors before.
  struct Reused {
    TraceSink sink;
    std::unique_ptr<parse::Parser> parser;
  };
  std::map<std::tuple<bool, bool, std::vector<std::string>>, Reused> reused;
  std::size_t compared = 0, unfinished = 0;
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    const Vector& v = vectors[i];
    Reused& r = reused[{v.options.say_mode, v.options.think_open, v.options.denied_actions}];
    if (!r.parser) r.parser = std::make_unique<parse::Parser>(grammar, r.sink, v.options);
    for (std::size_t chunk : {0, 7}) {
      r.parser->reset();
      r.sink.trace.clear();
      feed(*r.parser, v.reply, chunk);
      r.parser->finish(v.cut_off ? parse::FinishReason::Length : parse::FinishReason::Stop);
      std::vector<std::uint64_t> fresh_stats;
      EXPECT_EQ(r.sink.trace, fresh_trace(grammar, v, chunk, &fresh_stats))
          << v.id << " (chunk " << chunk << ")";
      EXPECT_EQ(r.parser->stats().bytes_in, v.reply.size()) << v.id;
      EXPECT_EQ(counts(r.parser->stats()), fresh_stats) << v.id << " (chunk " << chunk << ")";
      ++compared;
    }
    // Leave the next reply a parser stopped halfway through this one, never finished: reset() drops it.
    if (i % 2 == 0) {
      r.parser->reset();
      feed(*r.parser, std::string_view(v.reply).substr(0, v.reply.size() / 2), 3);
      ++unfinished;
    }
  }
  EXPECT_EQ(compared, 2 * vectors.size());
  EXPECT_GT(unfinished, 0u);
}

// A parser's construction leaves storage that is always written before it is read unset (UnsetSlots: the
// deferred arguments, the open-tag scanner's inline attributes; the argument arena's inline bytes). A parser
// built over storage that held other bytes must then give exactly the events of one built over zeros: a slot
// read before it is written would carry those bytes into an event or a count.
TEST(ParserReset, AParserBuiltOverAnyBytesGivesTheSameEvents) {
  const std::vector<Vector> vectors = all_vectors();
  ASSERT_GT(vectors.size(), 300u);
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  struct alignas(parse::Parser) Storage {
    std::byte bytes[sizeof(parse::Parser)];
  };
  auto storage = std::make_unique<Storage>();
  auto run_over = [&](unsigned char fill, const Vector& v, std::size_t chunk,
                      std::vector<std::uint64_t>& stats) {
    std::memset(storage->bytes, fill, sizeof storage->bytes);
    TraceSink sink;
    auto* parser = new (storage->bytes) parse::Parser(grammar, sink, v.options);
    feed(*parser, v.reply, chunk);
    parser->finish(v.cut_off ? parse::FinishReason::Length : parse::FinishReason::Stop);
    stats = counts(parser->stats());
    parser->~Parser();
    return sink.trace;
  };
  std::size_t directives = 0;
  for (const Vector& v : vectors) {
    for (std::size_t chunk : {0, 7}) {
      std::vector<std::uint64_t> zeros_stats, other_stats;
      const std::vector<std::string> zeros = run_over(0x00, v, chunk, zeros_stats);
      for (unsigned char fill : {0xA5, 0xFF}) {
        EXPECT_EQ(run_over(fill, v, chunk, other_stats), zeros) << v.id << " (chunk " << chunk << ")";
        EXPECT_EQ(other_stats, zeros_stats) << v.id << " (chunk " << chunk << ")";
      }
      directives += zeros_stats[4];
    }
  }
  EXPECT_GT(directives, 300u);  // the deferred arguments and the scanner's attributes were used
}

TEST(ParserReset, DropsAnUnfinishedReplyWithoutEvents) {
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  TraceSink sink;
  parse::Parser parser(grammar, sink);
  parser.feed("Hello <voice>half a bo");
  const std::size_t before = sink.trace.size();
  parser.reset();
  EXPECT_EQ(sink.trace.size(), before);  // nothing of the dropped reply is reported
  EXPECT_EQ(parser.stats().bytes_in, 0u);
  parser.feed("Hi <react emoji=\"x\"/>");
  parser.finish();
  Vector v{"", "Hi <react emoji=\"x\"/>", {}, false};
  EXPECT_EQ(
      std::vector<std::string>(sink.trace.begin() + static_cast<std::ptrdiff_t>(before), sink.trace.end()),
      fresh_trace(grammar, v, 0));
}

}  // namespace
