// A fresh parser (one per reply) allocates nothing while it reads a typical reply (issue 11, case (e)): its
// state lives inside the Parser object (parser.h), and the open-tag scanner's attributes, the arguments'
// bytes of a validation and a bracket read whole waiting for its next byte are kept inside the objects that
// own them, up to a bound; past it they go to the heap, once. Counted with tests/support/alloc_counter.h.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../support/alloc_counter.h"
#include "../support/run_parse.h"
#include "app/bench_inputs.h"
#include "parse/inline_list.h"
#include "sigil/parse/grammar.h"
#include "sigil/parse/parser.h"

namespace {

namespace parse = sigil::parse;
using sigil::testing::AllocationCount;

class CountingSink final : public parse::EventSink {
 public:
  void on_text(std::string_view text, bool) override { text_bytes += text.size(); }
  void on_directive(const parse::DirectiveEvent& d) override {
    ++directives;
    if (d.valid) ++valid;
  }
  void on_diagnostic(const parse::Diagnostic&) override {}
  void on_silence(std::uint64_t) override {}
  void on_fallback() override {}
  void on_end(bool) override {}

  std::size_t text_bytes = 0, directives = 0, valid = 0;
};

// The allocations of one fresh parser reading `reply` whole and finishing (what (e) measures).
std::uint64_t fresh_parse(const parse::CompiledGrammar& grammar, const std::string& reply, bool whole_markup,
                          CountingSink& sink) {
  parse::ParserOptions o;
  o.whole_markup = whole_markup;
  const AllocationCount count;
  {
    parse::Parser parser(grammar, sink, o);
    parser.feed(reply);
    parser.finish();
  }
  return count.count();
}

TEST(ConstructAllocations, AFreshParserReadsATypicalReplyWithoutAllocating) {
  const parse::CompiledGrammar grammar(sigil::testing::conformance_registry());
  const std::string reply = sigil::app::bench::typical_reply();
  CountingSink warm;
  (void)fresh_parse(grammar, reply, true, warm);  // tables every parser shares are built once per process
  CountingSink sink;
  EXPECT_EQ(fresh_parse(grammar, reply, true, sink), 0u);  // the parser's state is inside the Parser
  EXPECT_EQ(sink.directives, 2u);                          // the react and the 50-byte REMEMBER bracket
  EXPECT_EQ(sink.valid, 2u);
  // The byte machine holds the bracket in the construct's held string (and copies the tag's attributes):
  // allocations, which the count sees.
  CountingSink held;
  EXPECT_GT(fresh_parse(grammar, reply, false, held), 0u);
  EXPECT_EQ(held.directives, 2u);
}

TEST(ConstructAllocations, ArgumentBytesStayInsideUpToTheirBound) {
  parse::ArgArena arena;
  const std::string a(100, 'a'), b(156, 'b');
  {
    const AllocationCount count;
    EXPECT_EQ(arena.append(a), 0u);
    EXPECT_EQ(arena.append(b), 100u);  // exactly kInline bytes: still inside
    EXPECT_EQ(count.count(), 0u);
  }
  EXPECT_EQ(arena.view(0, 100), a);
  EXPECT_EQ(arena.view(100, 156), b);
  const parse::ArgArena copy = arena;  // offsets: a copy stays whole
  EXPECT_EQ(copy.view(100, 156), b);
  {
    const AllocationCount count;
    EXPECT_EQ(arena.append("c"), 256u);  // one byte more: the heap, once
    EXPECT_EQ(count.count(), 1u);
  }
  EXPECT_EQ(arena.view(0, 100), a);
  EXPECT_EQ(arena.view(100, 156), b);
  EXPECT_EQ(arena.view(256, 1), "c");
  arena.clear();
  {
    const AllocationCount count;  // the heap's storage stays
    EXPECT_EQ(arena.append(a), 0u);
    EXPECT_EQ(arena.append(b), 100u);
    EXPECT_EQ(count.count(), 0u);
  }
  EXPECT_EQ(arena.view(100, 156), b);
  EXPECT_EQ(arena.size(), 256u);
}

// ArgArena copies a short value (up to 16 bytes) by overlapping words: every length at every offset, up to
// and past the inline bound, must read back exactly, with the bytes around it untouched (a word written past
// the value would change the next one; ASan fails a read past the source's end: each value is a heap
// block of exactly its size).
TEST(ConstructAllocations, ArgumentValuesOfEveryShortLengthCopyExactly) {
  std::size_t checked = 0;
  for (std::size_t lead = 0; lead < 24; ++lead) {
    parse::ArgArena arena;
    std::vector<std::pair<std::size_t, std::string>> written;
    if (lead > 0) written.emplace_back(arena.append(std::string(lead, '.')), std::string(lead, '.'));
    for (std::size_t n = 0; arena.size() + n <= parse::ArgArena::kInline + 40; n = (n + 1) % 21) {
      const std::unique_ptr<char[]> bytes(new char[n]);  // exactly n bytes on the heap
      for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>('a' + (i + n + lead) % 26);
      const std::string_view value(bytes.get(), n);
      written.emplace_back(arena.append(value), std::string(value));
    }
    for (const auto& [at, value] : written) {
      EXPECT_EQ(arena.view(at, value.size()), value) << "lead " << lead << ", at " << at;
      ++checked;
    }
  }
  EXPECT_GT(checked, 24u * 20u);
}

TEST(ConstructAllocations, AnInlineListSpillsOnce) {
  parse::InlineList<int, 3> list;
  {
    const AllocationCount count;
    for (int i = 0; i < 3; ++i) list.push_back(i);
    EXPECT_EQ(count.count(), 0u);
  }
  list.push_back(3);
  list[0] = 10;
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list.items()[0], 10);
  EXPECT_EQ(list.items()[3], 3);
  list.clear();
  EXPECT_TRUE(list.empty());
  {
    const AllocationCount count;  // spilled: the heap's storage stays
    for (int i = 0; i < 4; ++i) list.push_back(i);
    EXPECT_EQ(count.count(), 0u);
  }
  EXPECT_EQ(list.items().back(), 3);
}

}  // namespace
