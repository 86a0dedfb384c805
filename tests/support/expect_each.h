// Table-driven checks: a test lists its cases (input, the text expected) and each gets its own EXPECT_EQ,
// the input named when it fails. For the many "this text in, that text out" tests (renderers, parsers of one
// string, error messages), so a case is one line of data rather than one more copy of the same assertion.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace sigil::test {

// One case: what goes in, what must come out. Text by default; an enum, a number or a bool where a test
// says so.
template <class In = std::string, class Want = std::string>
struct Case {
  In in;
  Want want;
};

using TextCase = Case<>;

// EXPECT_EQ(fn(in), want) for every case, in order: test::expect_each(fn, {{in, want}, ...}), or
// test::expect_each<Kind>(fn, {...}) where the input is not text.
template <class In = std::string, class Want = std::string, class Fn>
void expect_each(const Fn& fn, std::initializer_list<Case<In, Want>> cases) {
  for (const Case<In, Want>& c : cases)
    EXPECT_EQ(fn(c.in), c.want) << "for the input " << ::testing::PrintToString(c.in);
}

}  // namespace sigil::test
