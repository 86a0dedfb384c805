// The route table: which endpoint a target names, and what each asks of a request (server/route.h).
#include "server/route.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "support/expect_each.h"

namespace sigil::server {
namespace {

using Kind = Route::Kind;

// route_of(target) is of this kind, with this param and this label where the test names them.
void expect_route(std::string_view target, Kind kind, std::optional<std::string_view> param,
                  std::optional<std::string_view> label = std::nullopt) {
  const Route r = route_of(target);
  EXPECT_EQ(r.kind, kind) << target;
  if (param) {
    EXPECT_EQ(r.param, *param) << target;
  }
  if (label) {
    EXPECT_EQ(r.label, *label) << target;
  }
}

TEST(RouteTest, FixedPathsIgnoreTheQuery) {
  EXPECT_EQ(route_of("/healthz").kind, Kind::Health);
  EXPECT_EQ(route_of("/metrics?x=1").kind, Kind::Metrics);
  EXPECT_EQ(route_of("/v1/ws?conversation=c&user=u").kind, Kind::WebSocket);
  EXPECT_EQ(route_of("/v1/chat/completions").kind, Kind::Completions);
  EXPECT_EQ(route_of("/").kind, Kind::Index);
  EXPECT_EQ(route_of("/index.html").kind, Kind::Index);
  EXPECT_EQ(route_of("/healthz/").kind, Kind::Unknown);
  EXPECT_EQ(route_of("/HEALTHZ").kind, Kind::Unknown);
  EXPECT_EQ(route_of("").kind, Kind::Unknown);
}

TEST(RouteTest, TemplatesCarryTheirParamAndLabelNeverTheUrl) {
  expect_route("/v1/conversations/c-1/messages?user=u&limit=5", Kind::Messages, "c-1",
               "/v1/conversations/{id}/messages");
  // raw: the handler checks the id as given
  expect_route("/v1/conversations/c%2E1/settings", Kind::Settings, "c%2E1",
               "/v1/conversations/{id}/settings");

  expect_route("/media/abc/a%20b.png", Kind::Media, "abc/a%20b.png", "/media/{sha256}");
  EXPECT_EQ(route_of("/media/").param, "");  // the handler answers 400

  expect_route("/assets/js/app.js", Kind::Asset, "js/app.js");
  EXPECT_EQ(route_of("/assets/").kind, Kind::Unknown);

  expect_route("/pages/holiday-1f2e", Kind::Page, "holiday-1f2e", "/pages/{slug}");
  EXPECT_EQ(route_of("/pages/").kind, Kind::Unknown);
  EXPECT_EQ(route_of("/pages/a/b").kind, Kind::Unknown);

  expect_route("/v1/models", Kind::Models, "");
  expect_route("/v1/models/sigil", Kind::Models, "sigil", "/v1/models/{id}");
  EXPECT_EQ(route_of("/v1/models/a/b").kind, Kind::Unknown);

  expect_route("/secret/path/42", Kind::Unknown, std::nullopt, "other");
}

TEST(RouteTest, ConversationRoutesNeedOneNonEmptySegment) {
  EXPECT_EQ(route_of("/v1/conversations//messages").kind, Kind::Unknown);
  EXPECT_EQ(route_of("/v1/conversations/a/b/messages").kind, Kind::Unknown);
  EXPECT_EQ(route_of("/v1/conversations/").kind, Kind::Unknown);
  // One segment names a conversation as a whole, whatever its id spells.
  expect_route("/v1/conversations/messages?user=u", Kind::Conversation, "messages", "/v1/conversations/{id}");
  expect_route("/v1/conversations?user=u&limit=5", Kind::Conversations, std::nullopt, "/v1/conversations");
  EXPECT_EQ(route_of("/v1/conversations/a/settings/").kind, Kind::Unknown);
  EXPECT_EQ(route_of("/v1/conversations/a/other").kind, Kind::Unknown);
}

// The methods of `tried` that `check(kind, method)` lets through, in order, each followed by a space but the
// last: one line per route of what a table of checks would say method by method.
template <class Check>
std::string passing(Check check, Kind kind, std::initializer_list<std::string_view> tried) {
  std::string out;
  for (std::string_view method : tried)
    if (check(kind, method)) out += (out.empty() ? "" : " ") + std::string(method);
  return out;
}

TEST(RouteTest, MethodsPerRoute) {
  test::expect_each<Kind>(allowed_methods, {
                                               {Kind::Messages, "GET, HEAD, POST"},
                                               {Kind::Settings, "GET, HEAD, PUT"},
                                               {Kind::Completions, "POST"},
                                               {Kind::Conversations, "GET, HEAD"},
                                               {Kind::Conversation, "DELETE"},
                                               {Kind::Health, "GET, HEAD"},
                                               {Kind::Models, "GET, HEAD"},
                                               {Kind::WebSocket, "GET"},  // an upgrade has no HEAD form
                                               {Kind::Unknown, ""},
                                           });
  EXPECT_EQ(passing(method_allowed, Kind::Messages, {"GET", "POST", "PUT"}), "GET POST");
  EXPECT_EQ(passing(method_allowed, Kind::Settings, {"PUT", "POST"}), "PUT");
  EXPECT_EQ(passing(method_allowed, Kind::Completions, {"GET", "HEAD"}), "");
  EXPECT_EQ(passing(method_allowed, Kind::Health, {"get", "HEAD", "GET, POST"}), "HEAD");  // case-sensitive
  EXPECT_EQ(passing(method_allowed, Kind::WebSocket, {"HEAD"}), "");
  EXPECT_EQ(passing(method_allowed, Kind::Unknown, {""}), "");
}

TEST(RouteTest, WhoMayCall) {
  for (Kind k : {Kind::Health, Kind::Media, Kind::Index, Kind::Asset, Kind::Page}) {
    EXPECT_TRUE(public_route(k));
    EXPECT_TRUE(cross_origin_readable(k));
  }
  // The WebSocket checks its own token (query or header) but never takes a foreign page's connection.
  EXPECT_TRUE(public_route(Kind::WebSocket));
  EXPECT_FALSE(cross_origin_readable(Kind::WebSocket));
  for (Kind k : {Kind::Metrics, Kind::Messages, Kind::Settings, Kind::Completions, Kind::Conversations,
                 Kind::Conversation, Kind::Unknown}) {
    EXPECT_FALSE(public_route(k));
    EXPECT_FALSE(cross_origin_readable(k));
  }
  EXPECT_EQ(passing(json_body_route, Kind::Messages, {"POST", "GET"}), "POST");
  EXPECT_EQ(passing(json_body_route, Kind::Settings, {"PUT", "GET"}), "PUT");
  EXPECT_EQ(passing(json_body_route, Kind::Completions, {"POST"}), "POST");
  EXPECT_EQ(passing(json_body_route, Kind::WebSocket, {"GET"}), "");
}

}  // namespace
}  // namespace sigil::server
