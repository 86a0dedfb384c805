// The recognizer's side for the sentinel judge's tests: a reply in runs as the recognizer passes them on,
// each in memory of its own (as a window) with stage 1's masks, fed to a shadow code tracker that lists its
// breaks (CodeTracker::start_listing). `\x01` in the input is removed markup: the shadow tracker marks the
// line (CodeTracker::mark_line_content), the judge never sees it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/text/code_tracker.h"
#include "sigil/text/stage1.h"

namespace sigil::test {

// Calls each(run, masks, fence_free) for every run of `input`: runs of next_size() bytes, cut at removed
// markup; fence_free when the shadow tracker was outside a fence before the run and opened none in it (what
// the recognizer tells the judge, SentinelLines::fence_free_run). The run's memory lasts for the call only.
template <class Size, class Each>
void shadow_runs(std::string_view input, text::CodeTracker& shadow, Size next_size, Each each) {
  std::vector<text::stage1::BlockMasks> masks;
  std::size_t i = 0;
  while (i < input.size()) {
    if (input[i] == '\x01') {
      shadow.mark_line_content();
      ++i;
      continue;
    }
    const std::size_t n =
        std::min({static_cast<std::size_t>(next_size()), input.size() - i, input.find('\x01', i) - i});
    const std::string run(input.substr(i, n));
    masks.assign(text::stage1::blocks_for(run.size()), {});
    text::stage1::scan(run, masks.data());
    const text::stage1::MaskView view(masks.data(), 0, run.size());
    const bool outside = !shadow.in_fence();
    const std::uint64_t opened = shadow.fences_opened();
    shadow.start_listing();
    shadow.feed(run, view);
    each(std::string_view(run), view, outside && shadow.fences_opened() == opened);
    i += n;
  }
}

}  // namespace sigil::test
