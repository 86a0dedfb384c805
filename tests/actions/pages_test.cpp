// publishWebPage (spec 13, 15): pages stored through the Store, titles, slugs per scope, the scripts flag,
// and one reply through the real parser and executor.
#include "sigil/actions/pages.h"

#include <gtest/gtest.h>

#include <any>
#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <utility>

#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/parse/parser.h"
#include "support/expect_each.h"
#include "support/handler_context.h"

namespace sigil::actions {
namespace {

using Status = exec::HandlerResult::Status;

class PagesTest : public ::testing::Test {
 protected:
  exec::HandlerResult run(const PagesConfig& c, std::string_view html,
                          exec::TurnIds ids = {"alice", "conv-1", "t"}) {
    exec::HandlerTable table;
    add_pages_handlers(table, c);
    exec::Directive d;
    d.action = "publishWebPage";
    d.args["html"] = html;
    exec::ActionContext ctx(ids, *store_, std::stop_token{}, now_, services_);
    return table.find("publishWebPage")->run(d, ctx);
  }
  std::string slug(const exec::HandlerResult& r) {
    return r.result.is_object() ? std::string(r.result.at("slug").as_string()) : std::string();
  }

  std::unique_ptr<store::Store> store_ = test::memory_store();
  std::function<store::TimePoint()> now_ = [] {
    return store::TimePoint{std::chrono::seconds(1'700'000'000)};
  };
  std::any services_;
};

TEST_F(PagesTest, PublishesWithTitleAndUrl) {
  PagesConfig c;
  c.base_url = "https://bot.example/";
  auto r = run(c, "<html><head><title>Holiday Plan</title></head><body>Hi</body></html>");
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  const std::string s = slug(r);
  EXPECT_EQ(s.rfind("holiday-plan-", 0), 0u) << s;
  EXPECT_EQ(r.message, "published \"Holiday Plan\" at https://bot.example/pages/" + s);
  EXPECT_EQ(r.result.at("url").as_string(), "https://bot.example/pages/" + s);
  EXPECT_EQ(r.result.at("title").as_string(), "Holiday Plan");
  auto page = store_->get_page(s);
  ASSERT_TRUE(page.ok());
  ASSERT_TRUE(page->has_value());
  EXPECT_EQ((*page)->title, "Holiday Plan");
  EXPECT_EQ((*page)->html, "<html><head><title>Holiday Plan</title></head><body>Hi</body></html>");
}

TEST_F(PagesTest, SameTitleSameScopeIsTheSameSlug) {
  auto a = run({}, "<title>Report</title>v1");
  auto b = run({}, "<title>Report</title>v2");
  ASSERT_EQ(a.status, Status::Ok);
  ASSERT_EQ(b.status, Status::Ok);
  EXPECT_EQ(slug(a), slug(b));
  auto page = store_->get_page(slug(b));
  ASSERT_TRUE(page.ok() && page->has_value());
  EXPECT_EQ((*page)->html, "<title>Report</title>v2");  // republished
}

TEST_F(PagesTest, OtherUsersAndConversationsGetOtherSlugs) {
  const std::string html = "<title>Report</title>";
  const std::string mine = slug(run({}, html, {"alice", "conv-1", "t"}));
  const std::string bobs = slug(run({}, html, {"bob", "conv-1", "t"}));
  const std::string other_conv = slug(run({}, html, {"alice", "conv-2", "t"}));
  EXPECT_FALSE(mine.empty());
  EXPECT_NE(mine, bobs);
  EXPECT_NE(mine, other_conv);
}

TEST_F(PagesTest, UntitledPagesAlwaysGetNewSlugs) {
  auto a = run({}, "<p>one</p>");
  auto b = run({}, "<p>one</p>");
  ASSERT_EQ(a.status, Status::Ok);
  EXPECT_EQ(a.message.rfind("published an untitled page at http://127.0.0.1:8080/pages/page-", 0), 0u)
      << a.message;
  EXPECT_NE(slug(a), slug(b));
}

TEST_F(PagesTest, ScriptsFlagFollowsTheConfig) {
  const std::string html = "<title>App</title><script>alert(1)</script>";
  auto blocked = run({}, html);
  EXPECT_EQ(blocked.message, "published \"App\" at http://127.0.0.1:8080/pages/" + slug(blocked) +
                                 "; scripts are blocked on this server");
  auto page = store_->get_page(slug(blocked));
  ASSERT_TRUE(page.ok() && page->has_value());
  EXPECT_FALSE((*page)->csp_allows_scripts);

  PagesConfig allow;
  allow.allow_scripts = true;
  auto allowed = run(allow, html, {"carol", "conv-1", "t"});
  EXPECT_EQ(allowed.message.find("scripts are blocked"), std::string::npos);
  page = store_->get_page(slug(allowed));
  ASSERT_TRUE(page.ok() && page->has_value());
  EXPECT_TRUE((*page)->csp_allows_scripts);
}

TEST_F(PagesTest, EmptyAndOversizedAreErrors) {
  EXPECT_EQ(run({}, "  \n ").message, "publishWebPage: the page is empty");
  PagesConfig small;
  small.max_bytes = 10;
  EXPECT_EQ(run(small, "<p>eleven</p>").message,
            "publishWebPage: the page is 13 bytes; at most 10 are allowed");
  auto listed = store_->list_pages({"alice", "conv-1"});
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
}

TEST(PageTitle, Extraction) {
  test::expect_each(page_title,
                    {
                        {"<TITLE>Caps</TITLE>", "Caps"},
                        {"<title lang=\"en\">  Tom &amp; Jerry &lt;3 &#39;s &#x41; &quot;q&quot; </title>",
                         "Tom & Jerry <3 's A \"q\""},
                        {"<title>two\n  lines&nbsp;here</title>", "two lines here"},
                        {"<title>&bogus; &#xZZ; &</title>", "&bogus; &#xZZ; &"},
                        {"<titles>no</titles><title>yes</title>", "yes"},
                        {"<title></title>", ""},
                        {"<p>no title</p>", ""},
                        {"<title>never closed", ""},
                        {"<title>&#0;</title>", "\xEF\xBF\xBD"},
                    });
  const std::string long_title = page_title("<title>" + std::string(200, 'a') + "</title>");
  EXPECT_EQ(long_title, std::string(120, 'a'));
  // Cut at a character boundary: 61 two-byte characters are 122 bytes; 60 fit.
  std::string accents;
  for (int i = 0; i < 61; ++i) accents += "é";
  EXPECT_EQ(page_title("<title>" + accents + "</title>").size(), 120u);
}

TEST(PagesEndToEnd, ModelHearsTheUrl) {
  auto store = test::memory_store();
  exec::HandlerTable handlers;
  add_pages_handlers(handlers, PagesConfig{});
  static const catalog::Registry registry = catalog::Registry::builtin();
  exec::RecordingOutbox outbox;
  exec::Executor ex(registry, handlers, *store, outbox, {"alice", "conv-1", "turn-1"});
  parse::Parser parser(registry, ex.sink());
  parser.feed(
      "Here it is: <publishWebPage><html><title>Menu</title><body><h1>Soup</h1></body></html>"
      "</publishWebPage> Enjoy.");
  parser.finish();
  exec::TurnReport report = ex.finish();
  ASSERT_EQ(report.results.size(), 1u);
  ASSERT_EQ(report.results[0].status, exec::ResultStatus::Ok) << report.results[0].message;
  const std::string slug(report.results[0].result.at("slug").as_string());
  auto page = store->get_page(slug);
  ASSERT_TRUE(page.ok() && page->has_value());
  EXPECT_EQ((*page)->html, "<html><title>Menu</title><body><h1>Soup</h1></body></html>");
  EXPECT_TRUE(ex.needs_model_call());  // result_to model
  EXPECT_EQ(ex.model_message(),
            "[1] publishWebPage: ok: published \"Menu\" at http://127.0.0.1:8080/pages/" + slug + "\n");
}

}  // namespace
}  // namespace sigil::actions
