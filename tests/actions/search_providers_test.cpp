// Each provider's request building and answer parsing, against the shapes their API docs give.
#include "sigil/actions/search_providers.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace sigil::actions {
namespace {

std::unique_ptr<SearchProvider> make(std::string provider, std::string key, std::string url = "",
                                     std::size_t max = 5) {
  auto p = make_search_provider({std::move(provider), std::move(key), std::move(url), max});
  EXPECT_TRUE(p) << p.error().message;
  return p ? std::move(*p) : nullptr;
}

const std::string* header(const net::HttpRequest& r, std::string_view name) {
  return net::find_header(r.headers, name);
}

TEST(SearchProviders, BraveRequest) {
  auto brave = make("brave", "BSA-key");
  const net::HttpRequest r = brave->request("weather in Lisbon & Porto?");
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(
      r.url,
      "https://api.search.brave.com/res/v1/web/search?q=weather%20in%20Lisbon%20%26%20Porto%3F&count=5");
  ASSERT_NE(header(r, "X-Subscription-Token"), nullptr);
  EXPECT_EQ(*header(r, "X-Subscription-Token"), "BSA-key");
  EXPECT_EQ(*header(r, "Accept"), "application/json");
  EXPECT_EQ(r.url.find("BSA-key"), std::string::npos);
}

TEST(SearchProviders, BraveAnswer) {
  auto brave = make("brave", "k", "http://127.0.0.1:9/", 2);
  EXPECT_EQ(brave->request("x").url, "http://127.0.0.1:9/res/v1/web/search?q=x&count=2");
  auto hits = brave->parse(R"({"type":"search","query":{"original":"x"},"web":{"type":"search","results":[
      {"title":"Lisbon &amp; weather","url":"https://a.example/1","description":"Sunny <strong>today</strong>,\n 22&#176;C","age":"1 day"},
      {"title":"Second","url":"https://a.example/2","description":"two"},
      {"title":"Third","url":"https://a.example/3","description":"three"}]}})");
  ASSERT_TRUE(hits) << hits.error().message;
  ASSERT_EQ(hits->size(), 2u);  // max_results
  EXPECT_EQ((*hits)[0].title, "Lisbon & weather");
  EXPECT_EQ((*hits)[0].url, "https://a.example/1");
  EXPECT_EQ((*hits)[0].snippet, "Sunny today, 22°C");
  auto none = brave->parse(R"({"type":"search","query":{"original":"zzz"}})");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(brave->parse("<html>Bad gateway</html>"));
}

TEST(SearchProviders, TavilyRequest) {
  auto tavily = make("tavily", "tvly-key");
  const net::HttpRequest r = tavily->request("rust \"async\"");
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.url, "https://api.tavily.com/search");
  EXPECT_EQ(*header(r, "Authorization"), "Bearer tvly-key");
  EXPECT_EQ(*header(r, "Content-Type"), "application/json");
  const auto body = boost::json::parse(r.body).as_object();
  EXPECT_EQ(body.at("query").as_string(), "rust \"async\"");
  EXPECT_EQ(body.at("max_results").as_int64(), 5);
  EXPECT_EQ(body.at("search_depth").as_string(), "basic");
}

TEST(SearchProviders, TavilyAnswer) {
  auto tavily = make("tavily", "k");
  auto hits = tavily->parse(R"({"query":"q","answer":null,"images":[],"results":[
      {"title":"T1","url":"https://t.example/1","content":"first content","score":0.9,"raw_content":null},
      {"title":"no url","content":"skipped"}],"response_time":0.5})");
  ASSERT_TRUE(hits);
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].snippet, "first content");
  EXPECT_FALSE(tavily->parse(R"({"detail":{"error":"Unauthorized"}})"));
}

TEST(SearchProviders, SearxngRequestAndAnswer) {
  auto searx = make("searxng", "", "http://searx.local:8888/");
  const net::HttpRequest r = searx->request("ümlaut");
  EXPECT_EQ(r.url, "http://searx.local:8888/search?q=%C3%BCmlaut&format=json");
  EXPECT_EQ(r.method, "GET");
  auto hits = searx->parse(R"({"query":"q","number_of_results":0,"results":[
      {"url":"https://s.example/","title":"S","content":"searx says","engine":"duckduckgo","engines":["duckduckgo"]}],
      "answers":[],"suggestions":[],"unresponsive_engines":[]})");
  ASSERT_TRUE(hits);
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].title, "S");
  EXPECT_EQ((*hits)[0].snippet, "searx says");
}

TEST(SearchProviders, LongSnippetsAreCutAtACharacter) {
  auto searx = make("searxng", "", "http://s");
  const std::string content(400, 'e');
  auto hits = searx->parse(R"({"results":[{"url":"u","title":"t","content":")" + content + "\"}]}");
  ASSERT_TRUE(hits);
  EXPECT_LE((*hits)[0].snippet.size(), kMaxSnippetBytes);
  EXPECT_EQ((*hits)[0].snippet.substr((*hits)[0].snippet.size() - 3), "…");
}

TEST(SearchProviders, ConfigurationMistakesAreRefused) {
  EXPECT_EQ(make_search_provider({"brave", "", "", 5}).error().message,
            "[search] provider \"brave\" needs api_key (or SIGIL_SEARCH_KEY)");
  EXPECT_FALSE(make_search_provider({"tavily", "", "", 5}));
  EXPECT_FALSE(make_search_provider({"searxng", "", "", 5}));
  EXPECT_FALSE(make_search_provider({"google", "k", "", 5}));
  EXPECT_FALSE(make_search_provider({"brave", "k", "ftp://x", 5}));
}

TEST(SearchProviders, ErrorDetails) {
  EXPECT_EQ(
      error_detail(
          R"({"type":"ErrorResponse","error":{"code":"RATE_LIMITED","detail":"Request rate limit exceeded for plan.","status":429}})"),
      "Request rate limit exceeded for plan.");
  EXPECT_EQ(error_detail(R"({"detail":{"error":"Invalid API key"}})"), "Invalid API key");
  EXPECT_EQ(error_detail(R"({"error":"search failed"})"), "search failed");
  EXPECT_EQ(error_detail("<html>oops</html>"), "");
}

}  // namespace
}  // namespace sigil::actions
