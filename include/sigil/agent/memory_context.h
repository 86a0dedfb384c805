// The memory section of a model call: what the model was told to remember about this user ([REMEMBER]
// facts and live setMemory items), put into the system message of every call so a later turn sees it.
//
// Promises:
// - Only the scope's own memory: another user's facts and items never appear (the store's partition).
// - Never an expired item (the store filters by `now`).
// - The section's entries take at most the tier's budget (tier 1: half of budget_bytes, 2: budget_bytes,
//   3: twice) plus a fixed header and one closing line; what did not fit is counted in that line, so the
//   model knows there is more. It reads at most max_rows facts and max_rows items from the store, whatever is
//   stored (10,000 facts cost the same as 200).
// - Order: most important first (a fact's importance grows each time it is remembered again or corrected;
//   an item counts as importance 2), then most recently updated.
// - The tier also sets each entry's detail: level 1 its first sentence, 2 its first paragraph, 3 the full
//   text (store::tier_text), always on one line.
#pragma once

#include <cstddef>
#include <string>

#include "sigil/base/result.h"
#include "sigil/store/store.h"

namespace sigil::agent {

struct MemoryContextConfig {
  bool enabled = true;
  std::size_t budget_bytes = 4096;  // about 1,000 tokens, at tier 2
  std::size_t max_rows = 200;       // facts, and items, read per call
  int default_tier = 2;             // until the conversation asks for another ([REQUEST_TIER])
};

struct MemorySection {
  std::string text;  // empty when nothing is stored
  std::size_t facts_shown = 0;
  std::size_t items_shown = 0;
  std::size_t left_out = 0;  // facts and items stored but not shown
};

// The section for `memory` (the memory scope the memory actions use) at detail `tier` (clamped to 1..3).
Result<MemorySection> memory_section(store::Store& store, const store::Scope& memory, int tier,
                                     store::TimePoint now, const MemoryContextConfig& config);

// The conversation's memory tier: the last level a [REQUEST_TIER] chose (store::kMemoryTierSetting), else
// the configured default. A store error counts as the default: memory detail is not worth failing a turn.
int memory_tier(store::Store& store, const store::Scope& conversation, const MemoryContextConfig& config);

}  // namespace sigil::agent
