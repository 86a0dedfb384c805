#include "server/published_page.h"

#include <gtest/gtest.h>

#include "sigil/text/utf8.h"

namespace sigil::server {
namespace {

TEST(PublishedPageTest, NoHttpEquivPragmaSurvives) {
  EXPECT_EQ(published_page_html(R"(<meta http-equiv="refresh" content="0;url=https://evil.example">)"),
            R"(<meta data-http-equiv="refresh" content="0;url=https://evil.example">)");
  for (const char* html : {"<META HTTP-EQUIV=Refresh content=0>", "<meta\nHttp-Equiv='refresh'>",
                           "<body><meta http-equivhttp-equiv=refresh></body>"}) {
    const std::string out = published_page_html(html);
    std::string lower;
    for (char c : out) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::size_t at = lower.find("http-equiv"); at != std::string::npos;
         at = lower.find("http-equiv", at + 1))
      EXPECT_TRUE(at >= 5 && lower.compare(at - 5, 5, "data-") == 0) << out;
  }
  EXPECT_EQ(published_page_html("<h1>Plan</h1>"), "<h1>Plan</h1>");
}

TEST(PublishedPageTest, TheHtmlIsAlwaysUtf8) {
  // A UTF-16 byte-order mark would make the browser decode the page as UTF-16, out of the check's sight.
  const std::string out = published_page_html("\xFF\xFEh\0t\0t\0p\0");
  EXPECT_TRUE(text::is_valid_utf8(out));
  EXPECT_EQ(out.rfind("\xEF\xBF\xBD", 0), 0u);
}

TEST(PublishedPageTest, PoliciesSandboxThePage) {
  for (const bool scripts : {false, true}) {
    const std::string csp(published_page_csp(scripts));
    EXPECT_EQ(csp.rfind(scripts ? "sandbox allow-scripts;" : "sandbox;", 0), 0u) << csp;
    EXPECT_EQ(csp.find("allow-same-origin"), std::string::npos) << csp;
    for (const char* d :
         {"form-action 'none'", "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"})
      EXPECT_NE(csp.find(d), std::string::npos) << d;
  }
}

}  // namespace
}  // namespace sigil::server
