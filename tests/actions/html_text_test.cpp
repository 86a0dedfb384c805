// HTML to readable text on saved pages shaped like real ones (tests/data/pages/*.html, each with the text
// expected of it in a .txt: the title, a blank line, then the text), and the rules of html_text.h.
#include "sigil/actions/html_text.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace sigil::actions {
namespace {

std::string read(const std::string& name) {
  std::ifstream in(std::string(SIGIL_SOURCE_DIR) + "/tests/data/pages/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string shown(const PageText& page) { return page.title + "\n\n" + page.text + "\n"; }

class SavedPage : public ::testing::TestWithParam<std::string> {};

TEST_P(SavedPage, ReadsAsExpected) {
  const PageText page = html_to_text(read(GetParam() + ".html"));
  EXPECT_FALSE(page.cut);
  EXPECT_EQ(shown(page), read(GetParam() + ".txt"));
}

INSTANTIATE_TEST_SUITE_P(Pages, SavedPage,
                         ::testing::Values("news_article", "blog_post", "docs_page", "latin1_page"));

TEST(HtmlText, BoilerplateNeverShows) {
  const PageText page = html_to_text(read("news_article.html"));
  for (const char* noise : {"Advertisement", "cookies", "Related stories", "Share on", "morning briefing",
                            "All rights reserved", "Sport", "dataLayer", "min-height", "Skip to content"}) {
    EXPECT_EQ(page.text.find(noise), std::string::npos) << noise;
  }
}

TEST(HtmlText, TheHeaderCharsetWinsOverTheMeta) {
  // Bytes of "café" in UTF-8, mislabelled by the page, correctly labelled by the server.
  const std::string html = "<meta charset=\"iso-8859-1\"><p>caf\xC3\xA9</p>";
  EXPECT_EQ(html_to_text(html, "utf-8").text, "caf\xC3\xA9");
  EXPECT_EQ(html_to_text(html).text, "caf\xC3\x83\xC2\xA9");  // as the page said: two Latin-1 characters
}

TEST(HtmlText, InvalidUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(html_to_text("<p>a\xFF"
                         "b</p>")
                .text,
            "a\xEF\xBF\xBD"
            "b");
}

TEST(HtmlText, HiddenAndAriaHiddenAreDropped) {
  const PageText page = html_to_text(
      "<main><p>shown</p><p hidden>secret one</p><div aria-hidden=\"true\">secret two</div></main>");
  EXPECT_EQ(page.text, "shown");
}

TEST(HtmlText, AFurnitureClassNeverHidesTheContent) {
  // Layout wrappers named after what sits beside them: the h1 inside keeps the block.
  const PageText page = html_to_text(
      "<body><div class=\"with-sidebar\"><h1>Title</h1><p>The body text of the page.</p></div>"
      "<div class=\"sidebar\"><p>Other posts</p></div></body>");
  EXPECT_EQ(page.text, "# Title\n\nThe body text of the page.");
}

TEST(HtmlText, OnlyAnArticlesOwnHeaderIsContent) {
  const PageText page = html_to_text(
      "<body><header><p>Site name and slogan</p></header><article><header><h1>Headline</h1></header>"
      "<p>Story.</p></article></body>");
  EXPECT_EQ(page.text, "# Headline\n\nStory.");
}

TEST(HtmlText, ALongPageIsCutAfterAWholeBlock) {
  std::string html = "<article>";
  for (int i = 0; i < 100; ++i) html += "<p>paragraph number " + std::to_string(i) + " of the page</p>";
  html += "</article>";
  const PageText page = html_to_text(html, "", 100);
  EXPECT_TRUE(page.cut);
  EXPECT_LE(page.text.size(), 100u);
  EXPECT_EQ(page.text.substr(page.text.size() - 11), "of the page");  // ends with a whole paragraph
}

TEST(HtmlText, AOneBlockPageIsCutAtACharacterBoundary) {
  const PageText page = html_to_text("<p>" + std::string(50, 'x') + "\xC3\xA9\xC3\xA9</p>", "", 51);
  EXPECT_TRUE(page.cut);
  EXPECT_EQ(page.text, std::string(50, 'x'));
}

TEST(HtmlText, DeepNestingDoesNotExhaustTheStack) {
  std::string html;
  for (int i = 0; i < 20000; ++i) html += "<div>";
  html += "deep";
  const PageText page = html_to_text(html);  // no crash: whatever is kept is bounded
  EXPECT_LE(page.text.size(), 64u * 1024);
}

TEST(HtmlText, NotHtmlAtAllStillGivesText) {
  EXPECT_EQ(html_to_text("just words, no markup").text, "just words, no markup");
  EXPECT_EQ(html_to_text("").text, "");
}

TEST(ToUtf8, ReadsTheWebsLatin1AsWindows1252) {
  EXPECT_EQ(to_utf8("\x93quoted\x94 \x80 caf\xE9", "ISO-8859-1"),
            "\xE2\x80\x9Cquoted\xE2\x80\x9D \xE2\x82\xAC caf\xC3\xA9");
  EXPECT_EQ(to_utf8("caf\xE9", "no-such-charset"), "caf\xEF\xBF\xBD");
  EXPECT_EQ(to_utf8("\x81", "windows-1252"), "\xEF\xBF\xBD");  // undefined in windows-1252
}

}  // namespace
}  // namespace sigil::actions
