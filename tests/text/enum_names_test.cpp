#include "sigil/text/enum_names.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "sigil/actions/file_sandbox.h"
#include "sigil/actions/mcp_elicitation.h"
#include "sigil/actions/result.h"
#include "sigil/agent/agent.h"
#include "sigil/catalog/action_spec.h"
#include "sigil/channels/discord/inbound.h"
#include "sigil/channels/telegram/update_poller.h"
#include "sigil/deliver/capabilities.h"
#include "sigil/deliver/delivery.h"
#include "sigil/deliver/report.h"
#include "sigil/exec/turn_report.h"
#include "sigil/model/client.h"
#include "sigil/net/error.h"
#include "sigil/text/media_types.h"
#include "sigil/text/stage1.h"

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

// A table is indexed by the enumerator's value, which the compiler cannot match to a name: every enumerator
// of every folded enum is pinned here by name, so an enum reordered without its table fails.
TEST(EnumNames, EveryFoldedTableNamesEachEnumeratorAsItsSwitchDid) {
  using deliver::Delivery;
  using deliver::DeliveryNote;
  using deliver::MarkdownFlavour;
  using deliver::TextUnit;
  EXPECT_EQ(to_string(Delivery::Op::Text), "text");
  EXPECT_EQ(to_string(Delivery::Op::File), "file");
  EXPECT_EQ(to_string(Delivery::Op::Voice), "voice");
  EXPECT_EQ(to_string(Delivery::Op::Reaction), "reaction");
  EXPECT_EQ(to_string(Delivery::Op::Message), "message");
  EXPECT_EQ(to_string(DeliveryNote::Outcome::Fallback), "fallback");
  EXPECT_EQ(to_string(DeliveryNote::Outcome::Skipped), "skipped");
  EXPECT_EQ(to_string(DeliveryNote::Outcome::Failed), "failed");
  EXPECT_EQ(to_string(DeliveryNote::Outcome::Split), "split");
  EXPECT_EQ(to_string(DeliveryNote::Outcome::Retracted), "retracted");
  EXPECT_EQ(to_string(TextUnit::Bytes), "bytes");
  EXPECT_EQ(to_string(TextUnit::Utf16), "utf16");
  EXPECT_EQ(to_string(TextUnit::CodePoints), "code-points");
  EXPECT_EQ(to_string(MarkdownFlavour::Plain), "plain");
  EXPECT_EQ(to_string(MarkdownFlavour::CommonMark), "commonmark");
  EXPECT_EQ(to_string(MarkdownFlavour::Gfm), "gfm");
  EXPECT_EQ(to_string(MarkdownFlavour::TelegramMarkdownV2), "telegram-markdown-v2");
  EXPECT_EQ(to_string(MarkdownFlavour::SlackMrkdwn), "slack-mrkdwn");
  EXPECT_EQ(to_string(MarkdownFlavour::Html), "html");

  EXPECT_EQ(to_string(exec::ResultStatus::Ok), "ok");
  EXPECT_EQ(to_string(exec::ResultStatus::Error), "error");
  EXPECT_EQ(to_string(exec::ResultStatus::Refused), "refused");
  EXPECT_EQ(to_string(exec::ResultStatus::Duplicate), "duplicate");
  EXPECT_EQ(to_string(agent::TurnStatus::Ok), "ok");
  EXPECT_EQ(to_string(agent::TurnStatus::LoopLimit), "loop-limit");
  EXPECT_EQ(to_string(agent::TurnStatus::ModelError), "model-error");
  EXPECT_EQ(to_string(agent::TurnStatus::StoreError), "store-error");

  using catalog::ParamType;
  using catalog::ResultTo;
  EXPECT_EQ(to_string(ParamType::String), "string");
  EXPECT_EQ(to_string(ParamType::Integer), "integer");
  EXPECT_EQ(to_string(ParamType::Number), "number");
  EXPECT_EQ(to_string(ParamType::Boolean), "boolean");
  EXPECT_EQ(to_string(ParamType::Enum), "enum");
  EXPECT_EQ(to_string(ParamType::Duration), "duration");
  EXPECT_EQ(to_string(ParamType::Datetime), "datetime");
  EXPECT_EQ(to_string(ParamType::Array), "array");
  EXPECT_EQ(to_string(ParamType::Json), "json");
  EXPECT_EQ(to_string(ResultTo::Model), "model");
  EXPECT_EQ(to_string(ResultTo::ModelOnError), "model_on_error");
  EXPECT_EQ(to_string(ResultTo::User), "user");
  EXPECT_EQ(to_string(ResultTo::Inline), "inline");
  EXPECT_EQ(to_string(ResultTo::None), "none");

  using model::FinishReason;
  EXPECT_EQ(to_string(FinishReason::stop), "stop");
  EXPECT_EQ(to_string(FinishReason::length), "length");
  EXPECT_EQ(to_string(FinishReason::tool_calls), "tool_calls");
  EXPECT_EQ(to_string(FinishReason::content_filter), "content_filter");
  EXPECT_EQ(to_string(FinishReason::error), "error");
  EXPECT_EQ(to_string(FinishReason::cancelled), "cancelled");
  EXPECT_EQ(to_string(FileKind::automatic), "auto");
  EXPECT_EQ(to_string(FileKind::image), "image");
  EXPECT_EQ(to_string(FileKind::document), "document");
  EXPECT_EQ(to_string(FileKind::audio), "audio");
  EXPECT_EQ(to_string(FileKind::voice), "voice");
  EXPECT_EQ(to_string(FileKind::video), "video");

  using Resolver = actions::FileSandbox::Resolver;
  using actions::McpElicitationPolicy;
  EXPECT_EQ(to_string(Resolver::automatic), "automatic");
  EXPECT_EQ(to_string(Resolver::openat2), "openat2");
  EXPECT_EQ(to_string(Resolver::walk), "walk");
  EXPECT_EQ(to_string(McpElicitationPolicy::decline), "decline");
  EXPECT_EQ(to_string(McpElicitationPolicy::cancel), "cancel");
  EXPECT_EQ(to_string(McpElicitationPolicy::defaults), "defaults");

  namespace discord = channels::discord;
  namespace telegram = channels::telegram;
  EXPECT_EQ(to_string(discord::Verdict::Admitted), "admitted");
  EXPECT_EQ(to_string(discord::Verdict::Own), "the bot's own message");
  EXPECT_EQ(to_string(discord::Verdict::FromBot), "sent by a bot");

  using actions::ErrorCode;
  EXPECT_EQ(to_string(ErrorCode::invalid_argument), "invalid_argument");
  EXPECT_EQ(to_string(ErrorCode::outside_root), "outside_root");
  EXPECT_EQ(to_string(ErrorCode::symlink), "symlink");
  EXPECT_EQ(to_string(ErrorCode::not_found), "not_found");
  EXPECT_EQ(to_string(ErrorCode::not_regular), "not_regular");
  EXPECT_EQ(to_string(ErrorCode::too_large), "too_large");
  EXPECT_EQ(to_string(ErrorCode::permission_denied), "permission_denied");
  EXPECT_EQ(to_string(ErrorCode::changed), "changed");
  EXPECT_EQ(to_string(ErrorCode::timeout), "timeout");
  EXPECT_EQ(to_string(ErrorCode::tool_missing), "tool_missing");
  EXPECT_EQ(to_string(ErrorCode::tool_failed), "tool_failed");
  EXPECT_EQ(to_string(ErrorCode::io), "io");
  EXPECT_EQ(to_string(static_cast<ErrorCode>(99)), "unknown");

  using net::NetErrorKind;
  EXPECT_EQ(to_string(NetErrorKind::bad_url), "bad_url");
  EXPECT_EQ(to_string(NetErrorKind::bad_request), "bad_request");
  EXPECT_EQ(to_string(NetErrorKind::cancelled), "cancelled");
  EXPECT_EQ(to_string(NetErrorKind::resolve_failed), "resolve_failed");
  EXPECT_EQ(to_string(NetErrorKind::connect_failed), "connect_failed");
  EXPECT_EQ(to_string(NetErrorKind::connect_timeout), "connect_timeout");
  EXPECT_EQ(to_string(NetErrorKind::tls_verify_failed), "tls_verify_failed");
  EXPECT_EQ(to_string(NetErrorKind::tls_failed), "tls_failed");
  EXPECT_EQ(to_string(NetErrorKind::send_failed), "send_failed");
  EXPECT_EQ(to_string(NetErrorKind::send_timeout), "send_timeout");
  EXPECT_EQ(to_string(NetErrorKind::first_byte_timeout), "first_byte_timeout");
  EXPECT_EQ(to_string(NetErrorKind::lost_before_response), "lost_before_response");
  EXPECT_EQ(to_string(NetErrorKind::bad_response), "bad_response");
  EXPECT_EQ(to_string(NetErrorKind::idle_timeout), "idle_timeout");
  EXPECT_EQ(to_string(NetErrorKind::broken), "broken");
  EXPECT_EQ(to_string(NetErrorKind::deadline), "deadline");
  EXPECT_EQ(to_string(NetErrorKind::internal), "internal");
  EXPECT_EQ(to_string(static_cast<NetErrorKind>(99)), "unknown");

  using stage1::Kernel;
  EXPECT_EQ(stage1::kernel_name(Kernel::Scalar), "scalar");
  EXPECT_EQ(stage1::kernel_name(Kernel::Sse2), "sse2");
  EXPECT_EQ(stage1::kernel_name(Kernel::Avx2), "avx2");
  EXPECT_EQ(stage1::kernel_name(Kernel::Avx512), "avx512");
  EXPECT_EQ(to_string(discord::Verdict::NotAllowed), "sender not in allowed_users");
  EXPECT_EQ(to_string(discord::Verdict::NoText), "no text");
  EXPECT_EQ(to_string(discord::Verdict::NotAddressed), "guild message not addressed to the bot");
  EXPECT_EQ(to_string(telegram::Verdict::Admitted), "admitted");
  EXPECT_EQ(to_string(telegram::Verdict::NoText), "no text");
  EXPECT_EQ(to_string(telegram::Verdict::NotAllowed), "sender not in allowed_users");
  EXPECT_EQ(to_string(telegram::Verdict::NotAddressed), "group message not addressed to the bot");
  EXPECT_EQ(to_string(telegram::Verdict::FromBot), "sent by a bot");
}

}  // namespace
}  // namespace sigil::text
