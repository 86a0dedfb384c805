// The search action end to end: a model's reply with [SEARCH:q] through the real parser, registry and
// executor, its request to a local fake of each provider's API (real HTTP on loopback, request and answer
// shapes as the providers document them), and the line that goes back to the model.
#include "sigil/actions/web_search.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "sigil/actions/builtin_handlers.h"
#include "store/sqlite/sqlite_store.h"
#include "support/builtin_turn.h"
#include "support/fake_openai_server.h"
#include "support/run_turn.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
using sigil::testing::FakeOpenAiServer;
using sigil::testing::FakeResponse;
using sigil::testing::RecordedRequest;

constexpr const char* kKey = "good-key";

std::string header(const RecordedRequest& r, const std::string& name) {
  for (const auto& [n, v] : r.headers)
    if (n == name) return v;
  return "";
}

// The value of `name` in the request target's query, percent-decoded.
std::optional<std::string> query_param(const std::string& target, const std::string& name) {
  const auto q = target.find('?');
  if (q == std::string::npos) return std::nullopt;
  std::string_view rest = std::string_view(target).substr(q + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == name) {
      std::string out;
      const std::string_view raw = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '%' && i + 2 < raw.size()) {
          out += static_cast<char>(std::stoi(std::string(raw.substr(i + 1, 2)), nullptr, 16));
          i += 2;
        } else {
          out += raw[i] == '+' ? ' ' : raw[i];
        }
      }
      return out;
    }
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

FakeResponse json_answer(int status, const json::value& body) {
  FakeResponse r;
  r.status = status;
  r.body = json::serialize(body);
  return r;
}

// What the fakes answer a query with. "rate limit" and "server error" make them fail as the real ones do.
FakeResponse special(const std::string& query) {
  if (query == "rate limit") {
    FakeResponse r = json_answer(429, {{"error", {{"detail", "Request rate limit exceeded"}}}});
    r.headers = {{"Retry-After", "7"}};
    return r;
  }
  if (query == "server error") return json_answer(500, {{"error", "upstream engines timed out"}});
  return {};
}

json::array two_results(const std::string& query, const char* snippet_key) {
  return {
      json::object{{"title", "Forecast for " + query},
                   {"url", "https://weather.example/lisbon"},
                   {snippet_key, "Sunny, <strong>24°C</strong> and a light breeze."}},
      json::object{{"title", "Lisbon on a map"}, {"url", "https://maps.example/lisbon"}, {snippet_key, ""}}};
}

// Brave Search: GET /res/v1/web/search?q=&count=, X-Subscription-Token.
FakeResponse brave(const RecordedRequest& r) {
  if (r.method != "GET" || r.target.rfind("/res/v1/web/search?", 0) != 0)
    return json_answer(404, {{"error", {{"detail", "not found"}}}});
  if (header(r, "x-subscription-token") != kKey)
    return json_answer(401, {{"type", "ErrorResponse"},
                             {"error",
                              {{"code", "SUBSCRIPTION_TOKEN_INVALID"},
                               {"detail", "The provided subscription token is invalid."},
                               {"status", 401}}}});
  const std::string q = query_param(r.target, "q").value_or("");
  if (FakeResponse s = special(q); s.status != 200) return s;
  if (q == "nothing at all") return json_answer(200, {{"type", "search"}, {"query", {{"original", q}}}});
  return json_answer(200, {{"type", "search"},
                           {"query", {{"original", q}}},
                           {"web", {{"type", "search"}, {"results", two_results(q, "description")}}}});
}

// Tavily: POST /search, JSON {query, ...}, the key as Bearer (or api_key in the body, as older clients do).
FakeResponse tavily(const RecordedRequest& r) {
  if (r.method != "POST" || r.target != "/search")
    return json_answer(404, {{"detail", {{"error", "Not Found"}}}});
  if (!r.json.is_object()) return json_answer(400, {{"detail", {{"error", "Invalid JSON"}}}});
  const json::object& body = r.json.as_object();
  const bool key_in_body = body.contains("api_key") && body.at("api_key") == kKey;
  if (header(r, "authorization") != std::string("Bearer ") + kKey && !key_in_body)
    return json_answer(401, {{"detail", {{"error", "Unauthorized: missing or invalid API key."}}}});
  const std::string q = body.contains("query") ? std::string(body.at("query").as_string()) : "";
  if (FakeResponse s = special(q); s.status != 200) return s;
  return json_answer(200, {{"query", q},
                           {"answer", nullptr},
                           {"images", json::array()},
                           {"results", two_results(q, "content")},
                           {"response_time", 0.42}});
}

// SearXNG: GET /search?q=&format=json; JSON must be enabled on the instance, else 403.
FakeResponse searxng(const RecordedRequest& r, bool json_enabled) {
  if (r.method != "GET" || r.target.rfind("/search?", 0) != 0)
    return json_answer(404, {{"error", "not found"}});
  if (query_param(r.target, "format") != "json" || !json_enabled) {
    FakeResponse forbidden;
    forbidden.status = 403;
    forbidden.content_type = "text/html";
    forbidden.body = "<html><body>403 Forbidden</body></html>";
    return forbidden;
  }
  const std::string q = query_param(r.target, "q").value_or("");
  if (FakeResponse s = special(q); s.status != 200) return s;
  return json_answer(200, {{"query", q},
                           {"number_of_results", 0},
                           {"results", two_results(q, "content")},
                           {"answers", json::array()},
                           {"suggestions", json::array()}});
}

struct Harness {
  explicit Harness(const std::string& provider, std::string key = kKey, bool searx_json = true) {
    if (provider == "brave") server.set_responder(brave);
    if (provider == "tavily") server.set_responder(tavily);
    if (provider == "searxng")
      server.set_responder([searx_json](const RecordedRequest& r) { return searxng(r, searx_json); });
    BuiltinConfig config;
    config.search.provider = {provider, std::move(key), "http://127.0.0.1:" + std::to_string(server.port()),
                              5};
    config.search.timeout = std::chrono::seconds(5);
    auto built = builtin_handlers(config);
    EXPECT_TRUE(built) << built.error().message;
    table = std::move(*built);
    auto opened = store::sqlite::SqliteStore::open(":memory:");
    EXPECT_TRUE(opened);
    store = std::move(*opened);
  }

  test::TurnRun reply(const std::string& text) { return test::run_turn(text, table, *store); }

  FakeOpenAiServer server;
  exec::HandlerTable table;
  std::unique_ptr<store::Store> store;
};

class EachProvider : public ::testing::TestWithParam<std::string> {};

TEST_P(EachProvider, ASearchDirectiveGoesToTheProviderAndItsResultsToTheModel) {
  Harness h(GetParam());
  auto run = h.reply("Let me look that up. [SEARCH:weather in Lisbon] I think it is sunny.");
  ASSERT_EQ(run.report.results.size(), 1u);
  EXPECT_EQ(run.report.results[0].status, exec::ResultStatus::Ok) << run.report.results[0].message;
  EXPECT_EQ(run.model_message,
            "[1] search: ok: 2 results for \"weather in Lisbon\": [1] Forecast for weather in Lisbon "
            "<https://weather.example/lisbon> — Sunny, 24°C and a light breeze. [2] Lisbon on a map "
            "<https://maps.example/lisbon>\n");
  // Interrupting (spec 5): the guess after the directive is not shown to the user.
  EXPECT_EQ(run.text().find("I think it is sunny"), std::string::npos) << run.text();
  EXPECT_EQ(run.text().find("[SEARCH"), std::string::npos);
  ASSERT_EQ(h.server.request_count(), 1u);
  const json::value& result = run.report.results[0].result;
  EXPECT_EQ(result.at("results").as_array().size(), 2u);
  EXPECT_EQ(result.at("results").as_array()[0].at("url").as_string(), "https://weather.example/lisbon");
}

TEST_P(EachProvider, TheJsonTagSpellingSearchesToo) {
  Harness h(GetParam());
  auto run = h.reply(R"(<googleSearch>{"query": "weather in Lisbon"}</googleSearch>)");
  ASSERT_EQ(run.report.results.size(), 1u);
  EXPECT_EQ(run.report.results[0].status, exec::ResultStatus::Ok) << run.report.results[0].message;
}

TEST_P(EachProvider, RateLimitingIsAClearResult) {
  Harness h(GetParam());
  auto run = h.reply("[SEARCH:rate limit]");
  ASSERT_EQ(run.report.results.size(), 1u);
  EXPECT_EQ(run.report.results[0].status, exec::ResultStatus::Error);
  EXPECT_NE(run.model_message.find("is rate-limiting requests (HTTP 429); try again in 7s"),
            std::string::npos)
      << run.model_message;
}

TEST_P(EachProvider, AServerErrorIsAClearResult) {
  Harness h(GetParam());
  auto run = h.reply("[SEARCH:server error]");
  ASSERT_EQ(run.report.results.size(), 1u);
  EXPECT_EQ(run.report.results[0].status, exec::ResultStatus::Error);
  EXPECT_NE(run.model_message.find("answered HTTP 500: upstream engines timed out"), std::string::npos)
      << run.model_message;
}

INSTANTIATE_TEST_SUITE_P(Providers, EachProvider, ::testing::Values("brave", "tavily", "searxng"));

TEST(WebSearch, AWrongKeyTellsTheOperatorWhatToCheck) {
  Harness brave_wrong("brave", "bad-key");
  auto run = brave_wrong.reply("[SEARCH:x]");
  EXPECT_EQ(run.model_message,
            "[1] search: error: Brave Search refused the request (HTTP 401): check [search] api_key (or "
            "SIGIL_SEARCH_KEY): Brave's subscription token\n");
  Harness tavily_wrong("tavily", "bad-key");
  EXPECT_NE(tavily_wrong.reply("[SEARCH:x]").model_message.find("Tavily refused the request (HTTP 401)"),
            std::string::npos);
}

TEST(WebSearch, SearxngWithoutJsonSaysHowToEnableIt) {
  Harness h("searxng", "", false);
  auto run = h.reply("[SEARCH:x]");
  EXPECT_NE(run.model_message.find("SearXNG refused the request (HTTP 403): enable JSON answers"),
            std::string::npos)
      << run.model_message;
}

TEST(WebSearch, NoResultsIsAnAnswerToo) {
  Harness h("brave");
  auto run = h.reply("[SEARCH:nothing at all]");
  EXPECT_EQ(run.model_message, "[1] search: ok: no results for \"nothing at all\"\n");
}

TEST(WebSearch, AnUnreachableProviderIsAClearResult) {
  unsigned short dead_port = 0;
  {
    FakeOpenAiServer gone;
    dead_port = gone.port();
  }
  BuiltinConfig config;
  config.search.provider = {"searxng", "", "http://127.0.0.1:" + std::to_string(dead_port), 5};
  auto run = test::run_builtin_turn("[SEARCH:x]", config);
  EXPECT_NE(run.model_message.find("[1] search: error: cannot reach SearXNG: cannot connect to 127.0.0.1:"),
            std::string::npos)
      << run.model_message;
}

TEST(WebSearch, ASlowProviderTimesOut) {
  FakeOpenAiServer server;
  FakeResponse slow;
  slow.delay_before_headers = std::chrono::seconds(3);
  slow.body = "{}";
  server.enqueue(slow);
  BuiltinConfig config;
  config.search.provider = {"searxng", "", "http://127.0.0.1:" + std::to_string(server.port()), 5};
  config.search.timeout = std::chrono::milliseconds(300);
  auto run = test::run_builtin_turn("[SEARCH:x]", config);
  EXPECT_EQ(run.model_message, "[1] search: error: SearXNG did not answer within 300ms\n");
}

TEST(WebSearch, AnUnusableProviderConfigurationFailsTheTable) {
  BuiltinConfig config;
  config.search.provider = {"brave", "", "", 5};
  auto table = builtin_handlers(config);
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().message, "[search] provider \"brave\" needs api_key (or SIGIL_SEARCH_KEY)");
}

}  // namespace
}  // namespace sigil::actions
