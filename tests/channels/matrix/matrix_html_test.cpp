// Markdown rendered for Matrix (channels/matrix/matrix_html.h): the HTML subset in formatted_body, the plain
// body, escaping that keeps the model's text from opening a tag.
#include "sigil/channels/matrix/matrix_html.h"

#include <gtest/gtest.h>

namespace sigil::channels::matrix {
namespace {

TEST(MatrixHtmlTest, SpansBecomeTheSubsetsTags) {
  const MatrixText t = render_matrix_text("**bold** *it* ~~gone~~ `code` [site](https://example.org)");
  EXPECT_EQ(t.html,
            "<strong>bold</strong> <em>it</em> <del>gone</del> <code>code</code> "
            "<a href=\"https://example.org\">site</a>");
  EXPECT_EQ(t.body, "bold it gone code site (https://example.org)");
}

TEST(MatrixHtmlTest, TheModelsHtmlIsShownAsText) {
  const MatrixText t = render_matrix_text("a <b>x</b> & <script>alert(1)</script> \"q\"");
  EXPECT_EQ(t.html.find("<b>"), std::string::npos);
  EXPECT_EQ(t.html.find("<script>"), std::string::npos);
  EXPECT_NE(t.html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(t.html.find("&amp;"), std::string::npos);
  EXPECT_NE(t.html.find("&quot;q&quot;"), std::string::npos);
  // The plain body is text: nothing escaped.
  EXPECT_EQ(t.body, "a <b>x</b> & <script>alert(1)</script> \"q\"");
}

TEST(MatrixHtmlTest, CodeBlocksKeepTheirLinesAndLanguage) {
  const MatrixText t = render_matrix_text("```cpp\nint a = 1 < 2;\nreturn a;\n```");
  EXPECT_EQ(t.html, "<pre><code class=\"language-cpp\">int a = 1 &lt; 2;\nreturn a;</code></pre>");
  EXPECT_EQ(t.body, "```cpp\nint a = 1 < 2;\nreturn a;\n```");
}

TEST(MatrixHtmlTest, LinesAndParagraphsAreBreaksAndListsAreText) {
  const MatrixText t = render_matrix_text("# Title\n\nfirst\nsecond\n\n- one\n- two\n\n1. a\n2. b");
  EXPECT_EQ(
      t.html,
      "<strong>Title</strong><br><br>first<br>second<br><br>\xE2\x80\xA2 one<br>\xE2\x80\xA2 two<br><br>"
      "1. a<br>2. b");
  EXPECT_EQ(t.body, "Title\n\nfirst\nsecond\n\n\xE2\x80\xA2 one\n\xE2\x80\xA2 two\n\n1. a\n2. b");
}

TEST(MatrixHtmlTest, QuotesAreBlockquotesAndQuotedLinesInTheBody) {
  const MatrixText t = render_matrix_text("> said\n> this\n\nafter");
  EXPECT_EQ(t.html, "<blockquote>said<br>this</blockquote><br><br>after");
  EXPECT_EQ(t.body, "> said\n> this\n\nafter");
}

TEST(MatrixHtmlTest, LinksOutsideTheAllowedSchemesAreText) {
  const MatrixText t = render_matrix_text("[x](javascript:alert(1)) and <https://a.example/?q=1&r=\"2\">");
  EXPECT_EQ(t.html.find("javascript:alert(1)\">"), std::string::npos);
  EXPECT_NE(t.html.find("x (javascript:alert(1))"), std::string::npos);
  // The quote cannot end the attribute: it is &quot; there.
  EXPECT_NE(t.html.find("<a href=\"https://a.example/?q=1&amp;r=&quot;2&quot;\">"), std::string::npos)
      << t.html;
}

TEST(MatrixHtmlTest, TagsStayNested) {
  const MatrixText t = render_matrix_text("***both*** and **a *b** c*");
  int depth = 0;
  for (std::size_t i = 0; i < t.html.size(); ++i) {
    if (t.html.compare(i, 2, "</") == 0)
      --depth;
    else if (t.html[i] == '<' && t.html.compare(i, 4, "<br>") != 0)
      ++depth;
    EXPECT_GE(depth, 0);
  }
  EXPECT_EQ(depth, 0) << t.html;
}

}  // namespace
}  // namespace sigil::channels::matrix
