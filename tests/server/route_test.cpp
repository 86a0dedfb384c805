// The route table: which endpoint a target names, and what each asks of a request (server/route.h).
#include "server/route.h"

#include <gtest/gtest.h>

namespace sigil::server {
namespace {

using Kind = Route::Kind;

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
  const Route messages = route_of("/v1/conversations/c-1/messages?user=u&limit=5");
  EXPECT_EQ(messages.kind, Kind::Messages);
  EXPECT_EQ(messages.param, "c-1");
  EXPECT_EQ(messages.label, "/v1/conversations/{id}/messages");

  const Route settings = route_of("/v1/conversations/c%2E1/settings");
  EXPECT_EQ(settings.kind, Kind::Settings);
  EXPECT_EQ(settings.param, "c%2E1");  // raw: the handler checks the id as given
  EXPECT_EQ(settings.label, "/v1/conversations/{id}/settings");

  const Route media = route_of("/media/abc/a%20b.png");
  EXPECT_EQ(media.kind, Kind::Media);
  EXPECT_EQ(media.param, "abc/a%20b.png");
  EXPECT_EQ(media.label, "/media/{sha256}");
  EXPECT_EQ(route_of("/media/").param, "");  // the handler answers 400

  const Route asset = route_of("/assets/js/app.js");
  EXPECT_EQ(asset.kind, Kind::Asset);
  EXPECT_EQ(asset.param, "js/app.js");
  EXPECT_EQ(route_of("/assets/").kind, Kind::Unknown);

  const Route page = route_of("/pages/holiday-1f2e");
  EXPECT_EQ(page.kind, Kind::Page);
  EXPECT_EQ(page.param, "holiday-1f2e");
  EXPECT_EQ(page.label, "/pages/{slug}");
  EXPECT_EQ(route_of("/pages/").kind, Kind::Unknown);
  EXPECT_EQ(route_of("/pages/a/b").kind, Kind::Unknown);

  const Route models = route_of("/v1/models");
  EXPECT_EQ(models.kind, Kind::Models);
  EXPECT_EQ(models.param, "");
  const Route model = route_of("/v1/models/sigil");
  EXPECT_EQ(model.kind, Kind::Models);
  EXPECT_EQ(model.param, "sigil");
  EXPECT_EQ(model.label, "/v1/models/{id}");
  EXPECT_EQ(route_of("/v1/models/a/b").kind, Kind::Unknown);

  const Route other = route_of("/secret/path/42");
  EXPECT_EQ(other.kind, Kind::Unknown);
  EXPECT_EQ(other.label, "other");
}

TEST(RouteTest, ConversationRoutesNeedOneNonEmptySegment) {
  EXPECT_EQ(route_of("/v1/conversations//messages").kind, Kind::Unknown);
  EXPECT_EQ(route_of("/v1/conversations/a/b/messages").kind, Kind::Unknown);
  EXPECT_EQ(route_of("/v1/conversations/").kind, Kind::Unknown);
  // One segment names a conversation as a whole, whatever its id spells.
  const Route whole = route_of("/v1/conversations/messages?user=u");
  EXPECT_EQ(whole.kind, Kind::Conversation);
  EXPECT_EQ(whole.param, "messages");
  EXPECT_EQ(whole.label, "/v1/conversations/{id}");
  const Route list = route_of("/v1/conversations?user=u&limit=5");
  EXPECT_EQ(list.kind, Kind::Conversations);
  EXPECT_EQ(list.label, "/v1/conversations");
  EXPECT_EQ(route_of("/v1/conversations/a/settings/").kind, Kind::Unknown);
  EXPECT_EQ(route_of("/v1/conversations/a/other").kind, Kind::Unknown);
}

TEST(RouteTest, MethodsPerRoute) {
  EXPECT_EQ(allowed_methods(Kind::Messages), "GET, HEAD, POST");
  EXPECT_EQ(allowed_methods(Kind::Settings), "GET, HEAD, PUT");
  EXPECT_EQ(allowed_methods(Kind::Completions), "POST");
  EXPECT_EQ(allowed_methods(Kind::Conversations), "GET, HEAD");
  EXPECT_EQ(allowed_methods(Kind::Conversation), "DELETE");
  EXPECT_EQ(allowed_methods(Kind::Health), "GET, HEAD");
  EXPECT_EQ(allowed_methods(Kind::Models), "GET, HEAD");
  EXPECT_EQ(allowed_methods(Kind::WebSocket), "GET");  // an upgrade has no HEAD form
  EXPECT_EQ(allowed_methods(Kind::Unknown), "");
  EXPECT_TRUE(method_allowed(Kind::Messages, "GET"));
  EXPECT_TRUE(method_allowed(Kind::Messages, "POST"));
  EXPECT_FALSE(method_allowed(Kind::Messages, "PUT"));
  EXPECT_TRUE(method_allowed(Kind::Settings, "PUT"));
  EXPECT_FALSE(method_allowed(Kind::Settings, "POST"));
  EXPECT_FALSE(method_allowed(Kind::Completions, "GET"));
  EXPECT_FALSE(method_allowed(Kind::Health, "get"));  // methods are case-sensitive
  EXPECT_TRUE(method_allowed(Kind::Health, "HEAD"));
  EXPECT_FALSE(method_allowed(Kind::WebSocket, "HEAD"));
  EXPECT_FALSE(method_allowed(Kind::Completions, "HEAD"));
  EXPECT_FALSE(method_allowed(Kind::Health, "GET, POST"));
  EXPECT_FALSE(method_allowed(Kind::Unknown, ""));
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
  EXPECT_TRUE(json_body_route(Kind::Messages, "POST"));
  EXPECT_FALSE(json_body_route(Kind::Messages, "GET"));
  EXPECT_TRUE(json_body_route(Kind::Settings, "PUT"));
  EXPECT_FALSE(json_body_route(Kind::Settings, "GET"));
  EXPECT_TRUE(json_body_route(Kind::Completions, "POST"));
  EXPECT_FALSE(json_body_route(Kind::WebSocket, "GET"));
}

}  // namespace
}  // namespace sigil::server
