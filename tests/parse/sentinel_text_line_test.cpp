// SentinelLines on the recognizer's word (fence_free_run): when its own tracker stands where the piece's
// first line can open or close no fence (CodeTracker::line_is_text), that line is not stepped either, and the
// piece's code state is taken from its last line break on. Pinned here: the bytes it goes past, and that a
// first line that may open a fence in the judge's view (a line start before a backtick run) is still stepped.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "sigil/parse/sentinel_lines.h"
#include "sigil/text/stage1.h"
#include "support/text_recorder.h"

namespace sigil::parse {
namespace {

struct Judged {
  std::string text;
  bool silent = false;
  std::uint64_t shared = 0;
};

// `before` fed plainly, then `run` as one piece told fence-free (or not), then finish().
Judged judge(std::string_view before, std::string_view run, bool tell) {
  std::vector<text::stage1::BlockMasks> masks(text::stage1::blocks_for(run.size()) + 1);
  text::stage1::scan(run, masks.data());
  test::TextRecorder out;
  SentinelLines j(out);
  if (!before.empty()) j.clean_text(before);
  if (tell) j.fence_free_run(run);
  j.clean_run(run, text::stage1::MaskView(masks.data(), 0, run.size()));
  j.fence_free_run({});
  j.finish();
  return {out.text, j.silent(), j.shared_code_bytes()};
}

TEST(SentinelTextLine, AFirstLineInTextIsNotStepped) {
  // Mid-line in text: everything up to the last line break is taken on the word.
  const std::string run = "more words\nline two\n- item\n**bold** three\nthe last line";
  const Judged told = judge("Intro ", run, true);
  const Judged plain = judge("Intro ", run, false);
  EXPECT_EQ(told.text, plain.text);
  EXPECT_EQ(told.silent, plain.silent);
  EXPECT_EQ(told.shared, run.rfind('\n') + 1);
  EXPECT_EQ(plain.shared, 0u);
  // At a line's start before a byte that opens no lead: the same.
  EXPECT_EQ(judge("Intro\n", run, true).shared, run.rfind('\n') + 1);
  // At a line's start before a list marker (a lead byte): the first line is stepped, the lines between are
  // not.
  const std::string listed = "- first\nline two\nthe last line";
  EXPECT_EQ(judge("Intro\n", listed, true).shared, listed.rfind('\n') - listed.find('\n'));
}

TEST(SentinelTextLine, AFirstLineThatMayOpenAFenceIsStepped) {
  // In the judge's view the piece's first line opens a fence (markup removed before it may have hidden that
  // from the recognizer): the sentinel line after it is code, and the text is not silent.
  const std::string run = "```js\nNO_REPLY\n";
  for (const bool tell : {true, false}) {
    const Judged j = judge("Intro\n", run, tell);
    EXPECT_FALSE(j.silent) << tell;
    EXPECT_EQ(j.text, "Intro\n" + run) << tell;
  }
  // Without the fence the same sentinel line makes the text silent, told or not.
  EXPECT_TRUE(judge("Intro\n", "text\nNO_REPLY\n", true).silent);
  EXPECT_TRUE(judge("Intro ", "text\nNO_REPLY\n", true).silent);
}

}  // namespace
}  // namespace sigil::parse
