#include "sigil/actions/memory.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "actions/memory_support.h"
#include "sigil/text/ascii.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
using namespace memory_detail;
using text::ascii::icontains;

// Facts a message lists by name (forget, an ambiguous correct): enough to choose from, never a wall.
constexpr std::size_t kListedFacts = 5;
constexpr std::size_t kShownFactBytes = 120;

// The facts `text` names, by the store's rule (store.h, forget): the one equal to it, else every one
// containing it, ignoring ASCII case. Used to explain an ambiguous correction before the store refuses it.
std::vector<const store::Fact*> matching_facts(const std::vector<store::Fact>& facts, std::string_view text) {
  std::vector<const store::Fact*> out;
  for (const store::Fact& f : facts)
    if (f.text == text) return {&f};
  for (const store::Fact& f : facts)
    if (icontains(f.text, text)) out.push_back(&f);
  return out;
}

template <class Texts>
std::string listed(const Texts& texts) {
  std::string out;
  std::size_t shown = 0;
  for (const auto& t : texts) {
    if (shown == kListedFacts) {
      out += " | \u2026and " + std::to_string(texts.size() - shown) + " more";
      break;
    }
    if (shown++ > 0) out += " | ";
    out += quote_text(t, kShownFactBytes);
  }
  return out;
}

bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7F;
  });
}

class MemoryHandlers {
 public:
  explicit MemoryHandlers(MemoryConfig config) : config_(config) {}

  store::Scope scope(const ActionContext& ctx) const { return memory_scope(ctx.ids(), config_.scope); }

  // A fact to store, the argument `name` (`what` in messages; `hint` says what to write when it is missing):
  // trimmed, one line, not over the limit. Sets *error when it is none of these.
  std::optional<std::string_view> new_fact(std::string_view action, const Directive& d, std::string_view name,
                                           std::string_view what, std::string_view hint,
                                           HandlerResult* error) const {
    const auto raw = string_arg(d, name);
    const std::string_view fact = raw ? trim(*raw) : std::string_view();
    const std::string a(action);
    if (!raw) {
      *error = HandlerResult::error(a + ": \"" + std::string(name) + "\" is missing: " + std::string(hint));
    } else if (fact.empty()) {
      *error = HandlerResult::error(a + ": the " + std::string(what) + " is empty: write the fact to store");
    } else if (has_line_break(fact)) {
      *error = HandlerResult::error(a + ": a fact is one line: write it without line breaks");
    } else if (fact.size() > config_.max_fact_bytes) {
      *error = HandlerResult::error(a + ": the " + std::string(what) + " is " + std::to_string(fact.size()) +
                                    " bytes; a fact may have at most " +
                                    std::to_string(config_.max_fact_bytes) + ": shorten it");
    } else {
      return fact;
    }
    return std::nullopt;
  }

  // What storing a fact starts with (remember, correct): the fact (the argument `name`, checked as new_fact
  // checks it), the memory scope and the facts stored in it now. Sets *error when the fact is refused or the
  // store cannot read the facts.
  struct FactToStore {
    std::string_view fact;
    store::Scope scope;
    std::vector<store::Fact> stored;
  };
  std::optional<FactToStore> fact_to_store(std::string_view action, const Directive& d, std::string_view name,
                                           std::string_view what, std::string_view hint, ActionContext& ctx,
                                           HandlerResult* error) const {
    const auto fact = new_fact(action, d, name, what, hint, error);
    if (!fact) return std::nullopt;
    FactToStore out{*fact, scope(ctx), {}};
    auto facts = ctx.store().list_facts(out.scope);
    if (!facts) {
      *error = store_failed(action, "read the stored facts", facts.error());
      return std::nullopt;
    }
    out.stored = std::move(*facts);
    return out;
  }

  // Whether storing `fact` needs a place memory does not have (a fact stored already takes none).
  bool no_room_for(const std::vector<store::Fact>& facts, std::string_view fact) const {
    const bool known =
        std::any_of(facts.begin(), facts.end(), [&](const store::Fact& f) { return f.text == fact; });
    return !known && facts.size() >= config_.max_facts;
  }

  HandlerResult facts_full(std::string_view action) const {
    return HandlerResult::error(std::string(action) + ": memory is full (" +
                                plural(config_.max_facts, "fact") + "): forget or correct facts first");
  }

  HandlerResult remember(const Directive& d, ActionContext& ctx) const {
    HandlerResult bad;
    const auto f = fact_to_store("remember", d, "fact", "fact", "write the fact to store", ctx, &bad);
    if (!f) return bad;
    if (no_room_for(f->stored, f->fact)) return facts_full("remember");
    if (ctx.stop_requested()) return stopped("remember");
    auto added = ctx.store().remember(f->scope, f->fact, ctx.now());
    if (!added) return store_failed("remember", "store the fact", added.error());
    json::object result{{"fact", f->fact}, {"added", *added}};
    return HandlerResult::ok((*added ? "remembered: " : "already remembered: ") + one_line(f->fact, 300),
                             std::move(result));
  }

  HandlerResult forget(const Directive& d, ActionContext& ctx) const {
    const std::string_view fact = trimmed_arg(d, "fact");
    if (fact.empty()) return HandlerResult::error("forget: \"fact\" is missing: write the fact to remove");
    const store::Scope s = scope(ctx);
    // The facts before and after tell the model exactly what went (forget may match several).
    auto before = ctx.store().list_facts(s);
    if (!before) return store_failed("forget", "read the stored facts", before.error());
    if (ctx.stop_requested()) return stopped("forget");
    auto removed = ctx.store().forget(s, fact);
    if (!removed) return store_failed("forget", "remove the fact", removed.error());
    if (*removed == 0) return HandlerResult::error("forget: no stored fact matches " + quote_text(fact));
    std::vector<std::string> gone;
    if (auto after = ctx.store().list_facts(s)) {
      std::unordered_set<std::int64_t> kept;
      for (const store::Fact& f : *after) kept.insert(f.id);
      for (const store::Fact& f : *before)
        if (!kept.contains(f.id)) gone.push_back(f.text);
    }
    json::array texts;
    for (const std::string& t : gone) texts.emplace_back(t);
    std::string message = "forgot " + plural(*removed, "fact") + " matching " + quote_text(fact);
    if (!gone.empty()) message += ": " + listed(gone);
    return HandlerResult::ok(std::move(message),
                             json::object{{"removed", *removed}, {"facts", std::move(texts)}});
  }

  HandlerResult correct(const Directive& d, ActionContext& ctx) const {
    const std::string_view old_fact = trimmed_arg(d, "old");
    if (old_fact.empty())
      return HandlerResult::error("correct: \"old\" is missing: write the stored fact to replace");
    HandlerResult bad;
    const auto f = fact_to_store("correct", d, "new", "new fact", "write what the fact becomes", ctx, &bad);
    if (!f) return bad;
    const std::string_view new_text = f->fact;
    const store::Scope& s = f->scope;
    const auto matches = matching_facts(f->stored, old_fact);
    if (matches.size() > 1) {
      std::vector<std::string_view> texts;
      for (const store::Fact* match : matches) texts.push_back(match->text);
      return HandlerResult::error("correct: " + plural(matches.size(), "fact") + " contain " +
                                  quote_text(old_fact) + "; quote one of them exactly: " + listed(texts));
    }
    if (ctx.stop_requested()) return stopped("correct");
    if (!matches.empty()) {
      auto c = ctx.store().correct(s, old_fact, new_text, ctx.now());
      if (!c) return store_failed("correct", "replace the fact", c.error());
      if (c->replaced == 1) {
        return HandlerResult::ok(
            "corrected: " + quote_text(c->old_text, 150) + " \u2192 " + quote_text(new_text, 150),
            json::object{{"corrected", true}, {"old", c->old_text}, {"new", new_text}});
      }
      // The fact went between our read and the store's (another conversation forgot it): as no match.
    }
    // DECIDED: correcting a fact that is not stored still records what the model now knows to be true.
    if (no_room_for(f->stored, new_text)) {
      return HandlerResult::error("correct: no stored fact matches " + quote_text(old_fact) +
                                  ", and memory is full (" + plural(config_.max_facts, "fact") +
                                  ") so the new fact was not remembered");
    }
    auto added = ctx.store().remember(s, new_text, ctx.now());
    if (!added) return store_failed("correct", "store the new fact", added.error());
    return HandlerResult::ok("no stored fact matched " + quote_text(old_fact) + "; " +
                                 (*added ? "remembered: " : "already remembered: ") + one_line(new_text, 300),
                             json::object{{"corrected", false}, {"new", new_text}, {"added", *added}});
  }

  // An item id: trimmed, non-empty, one line, not over the limit.
  std::optional<std::string_view> item_id(std::string_view action, const Directive& d,
                                          HandlerResult* error) const {
    const std::string_view id = trimmed_arg(d, "itemId");
    const std::string a(action);
    if (id.empty()) {
      *error = HandlerResult::error(a + ": \"itemId\" is missing: name the item");
    } else if (id.size() > config_.max_item_id_bytes) {
      *error = HandlerResult::error(a + ": the item id is " + std::to_string(id.size()) + " bytes; at most " +
                                    std::to_string(config_.max_item_id_bytes));
    } else if (has_control(id)) {
      *error = HandlerResult::error(a + ": the item id " + quote_text(id) +
                                    " has line breaks or control characters: use a short key like memory_tz");
    } else {
      return id;
    }
    return std::nullopt;
  }

  HandlerResult set_memory(const Directive& d, ActionContext& ctx) const {
    HandlerResult bad;
    const auto id = item_id("setMemory", d, &bad);
    if (!id) return bad;
    const json::value* value = arg(d, "value");
    if (value == nullptr) return HandlerResult::error("setMemory: \"value\" is missing: give any JSON value");
    const std::string value_json = json::serialize(*value);
    if (value_json.size() > config_.max_value_bytes) {
      return HandlerResult::error("setMemory: the value of " + quote_text(*id) + " is " +
                                  std::to_string(value_json.size()) + " bytes as JSON; at most " +
                                  std::to_string(config_.max_value_bytes) + ": store less or split it");
    }

    std::optional<store::TimePoint> expires_at;
    std::optional<double> minutes;
    const store::TimePoint now = ctx.now();
    if (const json::value* exp = arg(d, "expirationInMinutes")) {
      minutes = number_of(*exp);
      if (!minutes) {
        return HandlerResult::error("setMemory: expirationInMinutes must be a number of minutes (got " +
                                    shown(*exp) + ")");
      }
      if (!std::isfinite(*minutes) || *minutes <= 0) {
        return HandlerResult::error("setMemory: expirationInMinutes must be more than 0 (got " +
                                    number_text(*minutes) + "); leave it out for an item that never expires");
      }
      if (*minutes > config_.max_expiration_minutes) {
        return HandlerResult::error("setMemory: expirationInMinutes may be at most " +
                                    number_text(std::floor(config_.max_expiration_minutes)) + " (got " +
                                    number_text(*minutes) + "); leave it out for an item that never expires");
      }
      // Rounded up to a millisecond, so a tiny positive expiry never means "already expired".
      expires_at = now + std::chrono::ceil<std::chrono::milliseconds>(
                             std::chrono::duration<double, std::milli>(*minutes * 60'000.0));
    }

    const store::Scope s = scope(ctx);
    auto existing = ctx.store().get_item(s, *id, now);
    if (!existing) return store_failed("setMemory", "read the item", existing.error());
    const bool replacing = existing->has_value();
    if (!replacing) {
      auto items = ctx.store().list_items(s, now);
      if (!items) return store_failed("setMemory", "count the items", items.error());
      if (items->size() >= config_.max_items) {
        return HandlerResult::error("setMemory: memory is full (" + plural(config_.max_items, "item") +
                                    "): delete or archive items first");
      }
    }
    if (ctx.stop_requested()) return stopped("setMemory");
    if (auto set = ctx.store().set_item(s, *id, value_json, expires_at, now); !set)
      return store_failed("setMemory", "store the item", set.error());

    std::string message = (replacing ? "updated item " : "stored item ") + quote_text(*id);
    if (expires_at)
      message += " (expires in " + number_text(*minutes) + " minutes, at " + utc_minute(*expires_at) + ")";
    json::object result{{"itemId", *id}, {"replaced", replacing}};
    result["expiresAt"] = expires_at ? json::value(iso_utc(*expires_at)) : json::value(nullptr);
    return HandlerResult::ok(std::move(message), std::move(result));
  }

  HandlerResult delete_item(const Directive& d, ActionContext& ctx) const {
    HandlerResult bad;
    const auto id = item_id("deleteItem", d, &bad);
    if (!id) return bad;
    if (ctx.stop_requested()) return stopped("deleteItem");
    auto deleted = ctx.store().delete_item(scope(ctx), *id, ctx.now());
    if (!deleted) return store_failed("deleteItem", "delete the item", deleted.error());
    if (!*deleted)
      return HandlerResult::error("deleteItem: no item " + quote_text(*id) +
                                  " (never stored, deleted or expired)");
    return HandlerResult::ok("deleted item " + quote_text(*id),
                             json::object{{"itemId", *id}, {"deleted", true}});
  }

  HandlerResult cleanup(const Directive&, ActionContext& ctx) const {
    if (ctx.stop_requested()) return stopped("cleanupMemory");
    auto removed = ctx.store().cleanup_expired(scope(ctx), ctx.now());
    if (!removed) return store_failed("cleanupMemory", "remove expired items", removed.error());
    return HandlerResult::ok("removed " + plural(*removed, "expired item"),
                             json::object{{"removed", *removed}});
  }

 private:
  MemoryConfig config_;
};

}  // namespace

void add_memory_handlers(exec::HandlerTable& table, MemoryConfig config) {
  auto h = std::make_shared<const MemoryHandlers>(config);
  using Method = HandlerResult (MemoryHandlers::*)(const Directive&, ActionContext&) const;
  const std::pair<const char*, Method> actions[] = {
      {"remember", &MemoryHandlers::remember},      {"forget", &MemoryHandlers::forget},
      {"correct", &MemoryHandlers::correct},        {"setMemory", &MemoryHandlers::set_memory},
      {"deleteItem", &MemoryHandlers::delete_item}, {"cleanupMemory", &MemoryHandlers::cleanup}};
  for (const auto& [action, method] : actions) {
    table.add(action, h, method);
    // Each only reads and writes the store: quick, so the executor runs it without a thread hand-off.
    table.set_quick(action);
  }
}

}  // namespace sigil::actions
