// The Host, Origin and Content-Type checks and the 401 (server/admission.h).
#include "server/admission.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <optional>

namespace sigil::server {
namespace {

using Kind = Route::Kind;
using Why = Refusal::Why;

OriginPolicy local_policy() { return OriginPolicy(OriginPolicyConfig{"127.0.0.1", 8080, "", {}, {}}); }

// The request is refused by the local policy, for `why` with `status`; the refusal (none: a failure).
std::optional<Refusal> refused(const AdmissionRequest& request, Why why, int status) {
  auto refusal = admission_refusal(local_policy(), request);
  EXPECT_TRUE(refusal);
  if (refusal) {
    EXPECT_EQ(refusal->why, why);
    EXPECT_EQ(refusal->response.status, status);
  }
  return refusal;
}

TEST(AdmissionTest, AGoodRequestPasses) {
  const OriginPolicy policy = local_policy();
  EXPECT_FALSE(admission_refusal(policy, {Kind::Messages, "POST", "127.0.0.1:8080", "http://127.0.0.1:8080",
                                          "application/json; charset=utf-8"}));
  EXPECT_FALSE(admission_refusal(policy, {Kind::Metrics, "GET", "localhost:8080", std::nullopt, ""}));
  EXPECT_FALSE(
      admission_refusal(policy, {Kind::Messages, "GET", "", std::nullopt, ""}));  // no Host: HTTP/1.0
}

TEST(AdmissionTest, AnotherHostIs421ExceptForHealth) {
  const OriginPolicy policy = local_policy();
  auto refusal = refused({Kind::Index, "GET", "evil.example", std::nullopt, ""}, Why::Host, 421);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->response.content_type, "application/json");
  EXPECT_FALSE(admission_refusal(policy, {Kind::Health, "GET", "evil.example", std::nullopt, ""}));
}

TEST(AdmissionTest, AForeignOriginIs403WhereItCouldReadAConversation) {
  const OriginPolicy policy = local_policy();
  for (Kind k : {Kind::Messages, Kind::Settings, Kind::WebSocket, Kind::Metrics, Kind::Completions}) {
    ASSERT_TRUE(
        refused({k, "GET", "127.0.0.1:8080", "https://evil.example", "application/json"}, Why::Origin, 403));
  }
  EXPECT_TRUE(admission_refusal(policy, {Kind::Messages, "GET", "127.0.0.1:8080", "null", ""}));
  for (Kind k : {Kind::Health, Kind::Media, Kind::Index, Kind::Asset, Kind::Page})
    EXPECT_FALSE(admission_refusal(policy, {k, "GET", "127.0.0.1:8080", "https://evil.example", ""}));
}

TEST(AdmissionTest, JsonRoutesTakeJsonOnly) {
  const OriginPolicy policy = local_policy();
  auto refusal =
      refused({Kind::Messages, "POST", "127.0.0.1", std::nullopt, "text/plain"}, Why::ContentType, 415);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->response.body, R"({"error":"Content-Type must be application/json"})");

  refusal = admission_refusal(policy, {Kind::Completions, "POST", "127.0.0.1", std::nullopt, ""});
  ASSERT_TRUE(refusal);
  const auto error = boost::json::parse(refusal->response.body).at("error").as_object();
  EXPECT_EQ(error.at("code").as_string(), "unsupported_media_type");
  EXPECT_EQ(error.at("type").as_string(), "invalid_request_error");

  EXPECT_TRUE(admission_refusal(policy, {Kind::Settings, "PUT", "127.0.0.1", std::nullopt, ""}));
  EXPECT_FALSE(admission_refusal(policy, {Kind::Settings, "GET", "127.0.0.1", std::nullopt, ""}));
}

TEST(AdmissionTest, UnauthorizedAsksForABearerToken) {
  const PlainResponse res = unauthorized();
  EXPECT_EQ(res.status, 401);
  EXPECT_EQ(res.header("WWW-Authenticate"), "Bearer");
  EXPECT_EQ(res.body, R"({"error":"missing or wrong bearer token"})");
}

}  // namespace
}  // namespace sigil::server
