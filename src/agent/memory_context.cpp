#include "sigil/agent/memory_context.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <string_view>
#include <vector>

#include "sigil/text/diagnostic_text.h"
#include "sigil/text/utc_time.h"
#include "sigil/text/utf8.h"

namespace sigil::agent {
namespace {

// setMemory items have no importance of their own: they rank with a fact remembered twice, so a fresh item
// (the model's working state) comes before old facts said once.
constexpr int kItemImportance = 2;

struct Entry {
  bool fact = true;
  int importance = 1;
  store::TimePoint updated;
  std::string line;  // "- ..." with its newline
};

// An item's value as the model wrote it: a JSON string's contents, any other JSON as its text.
std::string item_text(const std::string& value_json) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(value_json, ec);
  if (ec) return value_json;
  if (v.is_string()) return std::string(v.get_string());
  return boost::json::serialize(v);
}

// One line at the tier's detail, never more than `cap` bytes (cut at a UTF-8 boundary, marked "…").
std::string entry_text(std::string_view text, int tier, std::size_t cap) {
  std::string t = text::one_line(store::tier_text(text, tier));
  if (t.size() > cap) {
    t.resize(text::safe_cut(t, cap > 3 ? cap - 3 : 0));
    t += "…";
  }
  return t;
}

}  // namespace

Result<MemorySection> memory_section(store::Store& store, const store::Scope& memory, int tier,
                                     store::TimePoint now, const MemoryContextConfig& config) {
  MemorySection out;
  if (!config.enabled) return out;
  tier = std::clamp(tier, 1, 3);
  const std::size_t budget = tier == 1 ? config.budget_bytes / 2 : config.budget_bytes * (tier == 3 ? 2 : 1);
  // No single entry may take more than half the budget: one long item never hides every fact.
  const std::size_t entry_cap = std::max<std::size_t>(budget / 2, 16);

  auto facts = store.top_facts(memory, config.max_rows);
  if (!facts) return Failure{"memory: cannot read the facts: " + facts.error()};
  auto items = store.recent_items(memory, now, config.max_rows);
  if (!items) return Failure{"memory: cannot read the memory items: " + items.error()};

  std::vector<Entry> entries;
  entries.reserve(facts->facts.size() + items->size());
  for (const store::Fact& f : facts->facts)
    entries.push_back({true, f.importance, f.updated_at, "- " + entry_text(f.text, tier, entry_cap) + "\n"});
  for (const store::MemoryItem& item : *items) {
    std::string line =
        "- " + text::one_line(item.item_id) + ": " + entry_text(item_text(item.value_json), tier, entry_cap);
    if (item.expires_at) line += " (until " + text::utc_minute(*item.expires_at) + ")";
    entries.push_back({false, kItemImportance, item.updated_at, std::move(line) + "\n"});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.importance != b.importance) return a.importance > b.importance;
    return a.updated > b.updated;
  });

  // Greedy in rank order; a line that does not fit is left out and smaller later ones may still fit.
  std::string fact_lines;
  std::string item_lines;
  std::size_t used = 0;
  for (const Entry& e : entries) {
    if (used + e.line.size() > budget) continue;
    used += e.line.size();
    (e.fact ? fact_lines : item_lines) += e.line;
    ++(e.fact ? out.facts_shown : out.items_shown);
  }
  // Items beyond max_rows are not counted: the store reads no more than that. Facts are counted in all.
  out.left_out = (facts->total - out.facts_shown) + (items->size() - out.items_shown);
  if (out.facts_shown + out.items_shown == 0 && out.left_out == 0) return out;

  std::string& s = out.text;
  s = "## Memory\n";
  s += "What you remember about this user from earlier turns and conversations (kept with the memory actions "
       "above). Use it where it helps; do not recite it. It may be out of date: the user's latest word "
       "wins.\n";
  if (!fact_lines.empty()) s += "\nFacts, most important first:\n" + fact_lines;
  if (!item_lines.empty()) s += "\nMemory items (itemId: value):\n" + item_lines;
  if (out.left_out > 0)
    s += "\n(" + std::to_string(out.left_out) +
         (out.left_out == 1 ? " more stored entry" : " more stored entries") +
         " not shown here, less important or older.)\n";
  return out;
}

int memory_tier(store::Store& store, const store::Scope& conversation, const MemoryContextConfig& config) {
  auto v = store.get_setting(conversation, store::Store::kMemoryTierSetting);
  if (!v || !*v || (*v)->size() != 1) return config.default_tier;
  const char c = (**v)[0];
  return c >= '1' && c <= '3' ? c - '0' : config.default_tier;
}

}  // namespace sigil::agent
