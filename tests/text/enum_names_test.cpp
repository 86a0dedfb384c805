#include "sigil/text/enum_names.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "sigil/actions/mcp_elicitation.h"
#include "sigil/deliver/capabilities.h"
#include "sigil/deliver/delivery.h"

namespace sigil::text {
namespace {

enum class Colour : std::uint8_t { red, green, blue };
constexpr EnumNames<Colour::blue> kColours{{"red", "green", "blue"}, "none"};

// The table is a constant: a name is known while compiling, so a caller may use it in a static_assert.
static_assert(kColours.name(Colour::green) == "green");
static_assert(kColours.parse("blue") == Colour::blue);

TEST(EnumNames, NamesEveryEnumeratorByItsValue) {
  EXPECT_EQ(kColours.name(Colour::red), "red");
  EXPECT_EQ(kColours.name(Colour::green), "green");
  EXPECT_EQ(kColours.name(Colour::blue), "blue");
}

TEST(EnumNames, AValueOutsideTheEnumGetsTheFallback) {
  EXPECT_EQ(kColours.name(static_cast<Colour>(3)), "none");
  EXPECT_EQ(kColours.name(static_cast<Colour>(255)), "none");
}

TEST(EnumNames, ParsesExactNamesOnly) {
  EXPECT_EQ(kColours.parse("red"), Colour::red);
  EXPECT_EQ(kColours.parse("green"), Colour::green);
  EXPECT_EQ(kColours.parse("Green"), std::nullopt);
  EXPECT_EQ(kColours.parse("none"), std::nullopt);  // the fallback is not a name
  EXPECT_EQ(kColours.parse(""), std::nullopt);
}

// The tables that replaced switches keep every string the switches returned, the fallback included.
TEST(EnumNames, FoldedTablesKeepTheirStrings) {
  EXPECT_EQ(deliver::to_string(deliver::Delivery::Op::Message), "message");
  EXPECT_EQ(deliver::to_string(deliver::TextUnit::CodePoints), "code-points");
  EXPECT_EQ(deliver::to_string(deliver::MarkdownFlavour::TelegramMarkdownV2), "telegram-markdown-v2");
  EXPECT_EQ(deliver::to_string(static_cast<deliver::MarkdownFlavour>(200)), "plain");
  EXPECT_EQ(actions::parse_mcp_elicitation_policy("defaults"), actions::McpElicitationPolicy::defaults);
  EXPECT_EQ(actions::parse_mcp_elicitation_policy("Defaults"), std::nullopt);
  EXPECT_EQ(actions::to_string(actions::McpElicitationPolicy::cancel), "cancel");
}

}  // namespace
}  // namespace sigil::text
