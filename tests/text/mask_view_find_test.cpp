// MaskView::find, rfind and none, and MaskWalk::next, against their definitions, byte by byte. The searches
// pass the blocks that select nothing in loops of their own (find: a compare and a load a block, bounded by
// the view's last block; rfind: by its first; none and the walk: two blocks a test while both lie in the
// view): sparse text over many blocks, views at every alignment and size, every place to search from, so a
// search that runs one block too far (into bits past the view) or stops one short fails here.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/text/stage1.h"

namespace sigil::text::stage1 {
namespace {

// Text whose selected bytes (line breaks, backticks, `<`, `[`) are rare or absent, so that most blocks hold
// none of them and a search crosses several.
std::string sparse_text(std::mt19937& rng) {
  static constexpr char kMarked[] = {'\n', '`', '<', '['};
  std::string buf(1 + rng() % 700, 'w');
  const unsigned odds = 1 + rng() % 300;  // one marked byte in `odds`, about
  const bool none = rng() % 8 == 0;       // or none at all
  for (char& c : buf)
    if (!none && rng() % odds == 0) c = kMarked[rng() % 4];
  return buf;
}

// A view of `size` bytes `offset` bytes into a scanned buffer of sparse text, both drawn at random.
struct SparseView {
  std::string buf;
  std::vector<BlockMasks> masks;
  std::size_t offset = 0;
  std::size_t size = 0;
  explicit SparseView(std::mt19937& rng) : buf(sparse_text(rng)), masks(blocks_for(buf.size())) {
    scan(buf, masks.data());
    offset = rng() % buf.size();
    size = rng() % (buf.size() - offset + 1);
  }
  MaskView view() const { return MaskView(masks.data(), offset, size); }
  std::string_view text() const { return std::string_view(buf).substr(offset, size); }
};

TEST(MaskViewFind, FindAndRfindAreTheFirstAndLastSelectedByte) {
  std::mt19937 rng(2301);
  std::uint64_t crossed = 0;  // searches that went past the block they began in
  for (int round = 0; round < 400; ++round) {
    const SparseView sv(rng);
    const std::size_t offset = sv.offset, size = sv.size;
    const std::string_view s = sv.text();
    const MaskView view = sv.view();
    for (std::size_t at = 0; at <= size + 1; ++at) {
      std::size_t first_nl = size, first_markup = size;
      for (std::size_t p = at; p < size; ++p) {
        if (first_nl == size && s[p] == '\n') first_nl = p;
        if (first_markup == size && (s[p] == '<' || s[p] == '[')) first_markup = p;
      }
      ASSERT_EQ(view.find(kNewlines, at), first_nl) << offset << " " << size << " " << at;
      ASSERT_EQ(view.find(kMarkupStarts, at), first_markup) << offset << " " << size << " " << at;
      if (at < size && (offset + first_nl) / kBlock != (offset + at) / kBlock) ++crossed;
      if (at <= size) {  // none() of the rest of the view: whole blocks between its ends two at a time
        ASSERT_EQ(view.sub(at, size - at).none(kNewlines), first_nl == size)
            << offset << " " << size << " " << at;
        ASSERT_EQ(view.sub(at, size - at).none(kMarkupStarts), first_markup == size) << offset << " " << size;
      }

      std::size_t last_nl = MaskView::npos, last_tick = MaskView::npos;
      for (std::size_t p = 0; p < std::min(at, size); ++p) {
        if (s[p] == '\n') last_nl = p;
        if (s[p] == '`') last_tick = p;
      }
      ASSERT_EQ(view.rfind(kNewlines, at), last_nl) << offset << " " << size << " " << at;
      ASSERT_EQ(view.rfind(kBackticks, at), last_tick) << offset << " " << size << " " << at;
    }
  }
  EXPECT_GT(crossed, 10000u);
}

// The walk over the same sparse views: from every place, next() is find()'s answer, and it stays so as the
// walk moves on stop by stop across the blocks between.
TEST(MaskViewFind, AWalkStopsWhereFindDoes) {
  std::mt19937 rng(2302);
  std::uint64_t stops = 0;
  for (int round = 0; round < 400; ++round) {
    const SparseView sv(rng);
    const std::size_t offset = sv.offset, size = sv.size;
    const MaskView view = sv.view();
    for (std::size_t from = 0; from <= size; from += 1 + rng() % 5) {
      MaskWalk walk(view, kBackticksOrNewlines, from);
      for (std::size_t place = from;;) {
        const std::size_t next = walk.next();
        ASSERT_EQ(next, view.find(kBackticksOrNewlines, place)) << offset << " " << size << " " << place;
        if (next == size) break;
        ++stops;
        place = next + 1;
        walk.seek(place);
      }
    }
  }
  EXPECT_GT(stops, 3000u);
}

}  // namespace
}  // namespace sigil::text::stage1
