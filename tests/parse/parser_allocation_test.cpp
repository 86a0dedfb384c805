// The parser allocates nothing per directive in the steady state (issue 11, item 3), counted: every call of
// the global operator new on this thread (tests/support/alloc_counter.h) while a reused parser reads a
// thousand common directives, after a warm-up, into a sink that allocates nothing itself.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "../support/alloc_counter.h"
#include "../support/run_parse.h"
#include "sigil/parse/parser.h"
#include "sigil/parse/tidier.h"

namespace {

namespace parse = sigil::parse;
using sigil::testing::AllocationCount;

// Counts what it is told and keeps nothing. `ask`: whether it reads the arguments (building them).
class CountingSink final : public parse::EventSink {
 public:
  explicit CountingSink(bool ask = true) : ask_(ask) {}
  void on_text(std::string_view text, bool) override { text_bytes += text.size(); }
  void on_directive(const parse::DirectiveEvent& d) override {
    ++directives;
    if (d.args_deferred()) ++unbuilt;  // no JSON built by the parser
    if (d.valid && d.action == "react" && (!ask_ || d.args().size() == 1)) ++valid_reacts;
  }
  void on_diagnostic(const parse::Diagnostic&) override { ++diagnostics; }
  void on_silence(std::uint64_t) override {}
  void on_fallback() override {}
  void on_end(bool) override { ++ends; }

  std::size_t text_bytes = 0, directives = 0, unbuilt = 0, valid_reacts = 0, diagnostics = 0, ends = 0;

 private:
  bool ask_;
};

parse::ParserOptions unlimited() {
  parse::ParserOptions o;
  o.max_directives = 1u << 30;  // every directive validated and reported, none refused as over the limit
  return o;
}

void feed(parse::Parser& parser, std::string_view s, std::size_t chunk) {
  for (std::size_t i = 0; i < s.size(); i += chunk) parser.feed(s.substr(i, chunk));
}

// A reply line as the benchmark's case (b) writes them: prose, then a reaction.
const std::string kLine = "Great idea, let's do it. <react emoji=\"thumbsup\"/>\n";

TEST(ParserAllocations, NoneInTheSteadyStateOfOneReply) {
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  for (std::size_t chunk : {kLine.size(), std::size_t{16}, std::size_t{1}}) {
    CountingSink sink;  // asks for every directive's arguments: building them reuses the event's object
    parse::Parser parser(grammar, sink, unlimited());
    for (int i = 0; i < 100; ++i) feed(parser, kLine, chunk);  // warm-up: buffers reach their size
    const AllocationCount count;
    for (int i = 0; i < 1000; ++i) feed(parser, kLine, chunk);
    const std::uint64_t allocations = count.count();
    EXPECT_EQ(allocations, 0u) << "chunk " << chunk << ": " << allocations
                               << " allocations for 1,000 directives";
    parser.finish();
    EXPECT_EQ(sink.valid_reacts, 1100u) << "chunk " << chunk;
    EXPECT_EQ(sink.unbuilt, 1100u) << "chunk " << chunk;  // the parser deferred them all
    EXPECT_EQ(sink.diagnostics, 0u);
  }
}

TEST(ParserAllocations, NoArgumentsBuiltWhenNobodyAsks) {
  // A sink that never reads the arguments gets every common directive with them unbuilt, a bracket's too,
  // and nothing is allocated for them.
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  CountingSink sink(false);
  parse::Parser parser(grammar, sink, unlimited());
  const std::string lines = kLine + "Noted. [REMEMBER:User likes green tea]\n";
  for (int i = 0; i < 100; ++i) parser.feed(lines);
  const AllocationCount count;
  for (int i = 0; i < 500; ++i) parser.feed(lines);
  EXPECT_EQ(count.count(), 0u);
  parser.finish();
  EXPECT_EQ(sink.directives, 1200u);
  EXPECT_EQ(sink.unbuilt, 1200u);
  EXPECT_EQ(sink.valid_reacts, 600u);
}

TEST(ParserAllocations, NoneForTheBenchmarksReactsInActionsBlocks) {
  // Case (b)'s shape (src/app/bench_inputs.cpp): a paragraph, then an <actions> block of reacts, emoji
  // cycling.
  const char* emoji[] = {"👍", "🎉", "❤️", "😂", "🙏", "👀", "✅", "🔥"};
  std::string block = "Some prose before the block, as a model writes it.\n<actions>\n";
  for (const char* e : emoji) block += std::string("  <react emoji=\"") + e + "\"/>\n";
  block += "</actions>\n\n";
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  CountingSink sink;
  parse::Parser parser(grammar, sink, unlimited());
  for (int i = 0; i < 20; ++i) parser.feed(block);
  const AllocationCount count;
  for (int i = 0; i < 125; ++i) parser.feed(block);  // 1,000 directives
  EXPECT_EQ(count.count(), 0u);
  parser.finish();
  EXPECT_EQ(sink.valid_reacts, 145u * 8);
}

TEST(ParserAllocations, NoneForCommonBrackets) {
  const std::string lines[] = {"Noted. [REMEMBER:User likes green tea in the morning]\n",
                               "That makes [CALCULATE:12 * 7] in all.\n"};
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  CountingSink sink;
  parse::Parser parser(grammar, sink, unlimited());
  for (int i = 0; i < 100; ++i)
    for (const std::string& line : lines) parser.feed(line);
  const AllocationCount count;
  for (int i = 0; i < 500; ++i)
    for (const std::string& line : lines) parser.feed(line);  // 1,000 directives
  EXPECT_EQ(count.count(), 0u);
  parser.finish();
  EXPECT_EQ(sink.directives, 1200u);
  EXPECT_EQ(sink.diagnostics, 0u);
}

TEST(ParserAllocations, NonePerDirectiveAcrossRepliesOfAReusedParser) {
  // A conversation keeps one parser: reset() costs a fixed number of allocations per reply (a fresh parser
  // state, whose text stages grow their buffers once per reply), and a reply's directives add none: a
  // hundred reacts cost what ten do.
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  CountingSink sink;
  parse::Parser parser(grammar, sink, unlimited());
  auto reply = [&](int directives) {
    parser.reset();
    for (int i = 0; i < directives; ++i) parser.feed(kLine);
    parser.finish();
  };
  for (int i = 0; i < 10; ++i) reply(100);  // warm-up
  AllocationCount ten;
  reply(10);
  const std::uint64_t per_reply = ten.count();
  AllocationCount hundred;
  reply(100);
  EXPECT_EQ(hundred.count(), per_reply);
  EXPECT_LE(per_reply, 4u);  // the bound stated in docs/performance.md (the fresh Impl and little else)
  EXPECT_EQ(sink.ends, 12u);
  EXPECT_EQ(sink.valid_reacts, 1110u);
}

// Keeps what it is told (allocating as it grows).
class StringSink final : public parse::TextSink {
 public:
  void clean_text(std::string_view bytes) override { text.append(bytes); }
  std::string text;
};

// Passes text on without keeping it (a Recorder's string would allocate): counts bytes and calls, and
// folds the bytes into a hash so that two runs can be compared.
class HashingSink final : public parse::TextSink {
 public:
  void clean_text(std::string_view bytes) override {
    for (unsigned char b : bytes) hash = (hash ^ b) * 1099511628211u;
    size += bytes.size();
    ++calls;
  }
  std::uint64_t hash = 1469598103934665603u;
  std::size_t size = 0, calls = 0;
};

// The small pieces the machine releases (the text after a held emphasis run, blanks around a gap, a blank
// line's break) are gathered in the tidier's own storage: a tidier reading thousands of them allocates
// nothing, a call that gathers more than the storage holds passes it on as it fills, and the text is what
// a Recorder gets (byte for byte, by hash).
TEST(ParserAllocations, ATidierGathersSmallPiecesWithoutAllocating) {
  const std::string_view pieces[] = {"Start  *a*  b", "  c _d_ e\n\n", "- f  g ~h~", " i\n"};
  // A long emphasis run held at a piece's end, released by the next piece: more than the storage holds.
  const std::string run_end = "x" + std::string(3000, '*');
  const auto run = [&](parse::TextSink& sink, std::size_t rounds) {
    parse::Tidier t(sink);
    const AllocationCount count;
    for (std::size_t r = 0; r < rounds; ++r) {
      for (std::string_view p : pieces) t.text(p);
      t.gap(parse::GapKind::Directive);
    }
    const std::uint64_t before_stepped = t.gathered_calls();
    t.text(run_end);
    t.text("y");
    EXPECT_GE(t.gathered_calls() - before_stepped, 3u);  // passed on as the storage filled, in order
    t.finish();
    EXPECT_GT(t.gathered_calls(), rounds);  // the gathering path is taken, at least once a round
    return count.count();
  };
  HashingSink hashing;
  EXPECT_EQ(run(hashing, 2000), 0u);
  StringSink recorded;
  (void)run(recorded, 2000);
  EXPECT_EQ(hashing.size, recorded.text.size());
  HashingSink again;
  again.clean_text(recorded.text);
  EXPECT_EQ(hashing.hash, again.hash);
  EXPECT_GT(hashing.size, 2000u * 20);
}

TEST(ParserAllocations, TheCounterCounts) {
  // The hook is live in this binary: a parser made on the heap (as the agent makes one per turn) is counted.
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  CountingSink sink;
  const AllocationCount count;
  auto parser = std::make_unique<parse::Parser>(grammar, sink, unlimited());
  parser->feed(kLine);
  EXPECT_GT(count.count(), 0u);
}

// Making a parser allocates nothing: its whole state is built inside the Parser object (parser.h,
// Parser::kStateBytes), in either mode, and so does destroying it; reset() keeps it so.
TEST(ParserAllocations, AParserHoldsItsStateInsideItself) {
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  CountingSink sink;
  // The process's first parser builds what every parser shares, once (the sentinel judge's table of forms,
  // a function-local static): alone in its process (as ctest runs it) this test would count that too.
  { parse::Parser first(grammar, sink, unlimited()); }
  for (const bool say : {false, true}) {
    parse::ParserOptions options = unlimited();
    options.say_mode = say;
    options.think_open = say;
    const AllocationCount count;
    {
      parse::Parser parser(grammar, sink, std::move(options));
      parser.reset();
      EXPECT_EQ(parser.stats().bytes_in, 0u);
    }
    EXPECT_EQ(count.count(), 0u) << "say mode " << say;
  }
  // A parser that compiles its own grammar allocates for that (the name index), as before.
  const AllocationCount own;
  { parse::Parser parser(sigil::testing::conformance_registry(), sink, unlimited()); }
  EXPECT_GT(own.count(), 0u);
}

}  // namespace

// A fresh parser keeps its state and stage 1's masks of a window of up to 4 KiB (64 blocks) inside itself:
// reading a whole typical reply (two windows of it, as one chunk each) allocates nothing; one byte more than
// the inline storage holds takes exactly one allocation (the masks on the heap), once.
TEST(ParserAllocations, AFreshParsersMasksOfAWholeTypicalReplyNeedNoAllocation) {
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  std::string prose;
  while (prose.size() < 8192)
    prose += "Plain words of a reply, line after line,\nwith nothing to parse in them. ";
  const auto fresh_parse = [&](std::size_t bytes) {
    CountingSink sink;
    const AllocationCount count;
    {
      parse::Parser parser(grammar, sink, unlimited());
      parser.feed(std::string_view(prose).substr(0, bytes));
      parser.feed(std::string_view(prose).substr(0, bytes));  // a second window of the same size: no growth
      parser.finish();
    }
    EXPECT_GT(sink.text_bytes, bytes);  // both windows reached the sink
    return count.count();
  };
  (void)fresh_parse(2048);  // the first parser builds the tables every parser shares (once per process)
  EXPECT_EQ(fresh_parse(2048), 0u);  // the parser's state is inside the Parser object
  EXPECT_EQ(fresh_parse(4096), 0u);
  EXPECT_EQ(fresh_parse(4097), 1u);
}
