#include "sigil/actions/archive.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actions/memory_support.h"
#include "sigil/actions/memory.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
using namespace memory_detail;

constexpr std::size_t kListedIds = 10;

std::string score_text(double score) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", score);
  return buf;
}

std::string ids_listed(const std::vector<std::string>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i == kListedIds) {
      out += ", \u2026and " + std::to_string(ids.size() - i) + " more";
      break;
    }
    if (i > 0) out += ", ";
    out += quote_text(ids[i], 80);
  }
  return out;
}

// Joins numbered entries into `message` while it stays within `budget` bytes; says how many did not fit.
class Listing {
 public:
  Listing(std::string head, std::size_t budget) : message_(std::move(head)), budget_(budget) {}

  // False once an entry did not fit (later ones are only counted).
  bool add(const std::string& entry) {
    const std::string sep = shown_ == 0 ? ": " : " | ";
    if (left_out_ > 0 || message_.size() + sep.size() + entry.size() > budget_) {
      ++left_out_;
      return false;
    }
    message_ += sep + entry;
    ++shown_;
    return true;
  }

  std::string finish() && {
    if (left_out_ > 0)
      message_ += " | (+" + std::to_string(left_out_) + " more not shown: ask more narrowly)";
    return std::move(message_);
  }

 private:
  std::string message_;
  std::size_t budget_;
  std::size_t shown_ = 0;
  std::size_t left_out_ = 0;
};

// A search result: an archive entry, or a message of a past conversation (then `said` names where).
struct Said {
  std::string conversation;
  std::string role;
};
struct Hit {
  store::ArchiveHit hit;
  std::optional<Said> said;
};

// The turn a stored message belongs to: later model calls of a turn run as "<turn>#2", "#3", ….
std::string_view base_turn(std::string_view turn) { return turn.substr(0, turn.find('#')); }

class ArchiveHandlers {
 public:
  explicit ArchiveHandlers(ArchiveConfig config) : config_(config) {}

  HandlerResult archive_items(const Directive& d, ActionContext& ctx) const {
    const json::value* items = arg(d, "items");
    if (items == nullptr || !items->is_array() || items->get_array().empty())
      return HandlerResult::error("archiveItems: \"items\" must be a non-empty array of item ids");
    const json::array& array = items->get_array();
    if (array.size() > config_.max_archive_ids) {
      return HandlerResult::error("archiveItems: " + plural(array.size(), "id") + " given; at most " +
                                  std::to_string(config_.max_archive_ids) + " per call");
    }
    std::vector<std::string> ids;
    ids.reserve(array.size());
    for (std::size_t i = 0; i < array.size(); ++i) {
      const json::value& v = array[i];
      const std::string_view id = v.is_string() ? trim(v.get_string()) : std::string_view();
      if (id.empty()) {
        return HandlerResult::error("archiveItems: \"items\" must hold item ids as non-empty strings; item " +
                                    std::to_string(i + 1) + " is " + shown(v));
      }
      ids.emplace_back(id);
    }
    if (ctx.stop_requested()) return stopped("archiveItems");
    auto outcome = ctx.store().archive_items(memory_scope(ctx.ids(), config_.scope), ids, ctx.now());
    if (!outcome) return store_failed("archiveItems", "archive the items", outcome.error());
    if (outcome->archived == 0) {
      return HandlerResult::error("archiveItems: nothing archived: no item " + ids_listed(outcome->missing) +
                                  " (never stored, deleted or expired)");
    }
    json::array missing;
    for (const std::string& id : outcome->missing) missing.emplace_back(id);
    std::string message = "archived " + plural(outcome->archived, "item");
    if (!outcome->missing.empty()) message += "; not found: " + ids_listed(outcome->missing);
    const std::string vectors = embed_archived(outcome->entries, ctx);
    if (!vectors.empty()) message += "; " + vectors;
    return HandlerResult::ok(std::move(message),
                             json::object{{"archived", outcome->archived}, {"missing", std::move(missing)}});
  }

  HandlerResult search_archive(const Directive& d, ActionContext& ctx) const {
    const std::string_view query = trimmed_arg(d, "query");
    if (query.empty())
      return HandlerResult::error("searchArchive: \"query\" is missing: write what to look for");
    int top_k = 10;
    if (const json::value* v = arg(d, "topK")) {
      const auto k = integer_of(*v);
      if (!k || *k < 1 || *k > config_.max_top_k) {
        return HandlerResult::error("searchArchive: topK must be a whole number from 1 to " +
                                    std::to_string(config_.max_top_k) + " (got " + shown(*v) + ")");
      }
      top_k = static_cast<int>(*k);
    }
    double min_score = 0;
    if (const json::value* v = arg(d, "minScore")) {
      const auto s = number_of(*v);
      if (!s || !std::isfinite(*s) || *s < 0 || *s > 1) {
        return HandlerResult::error("searchArchive: minScore must be a number from 0 to 1 (got " + shown(*v) +
                                    ")");
      }
      min_score = *s;
    }
    if (ctx.stop_requested()) return stopped("searchArchive");
    const store::Scope memory = memory_scope(ctx.ids(), config_.scope);
    auto archived = semantic_search(memory, query, top_k, min_score, ctx);
    if (!archived) return store_failed("searchArchive", "search the archive", archived.error());
    const char* mode = archived->second ? "hybrid" : "keyword";
    // Past conversations too (SEARCH_EPISODIC): the user's messages in every conversation, but not this
    // turn's own, which would find the question itself.
    const store::Scope user{ctx.ids().user, ctx.ids().conversation, store::MemoryScope::per_user};
    auto said = ctx.store().search_user_messages(user, query, top_k + 2);
    if (!said) return store_failed("searchArchive", "search past conversations", said.error());
    const std::string_view turn = base_turn(ctx.ids().turn);
    std::vector<Hit> hits;
    for (store::ArchiveHit& h : archived->first) hits.push_back(Hit{std::move(h), {}});
    for (store::MessageHit& m : *said) {
      if (m.score < min_score || (m.conversation_id == ctx.ids().conversation && m.message.turn_id == turn))
        continue;
      hits.push_back(Hit{{m.message.id, {}, std::move(m.message.text), "conversation", m.message.at, m.score},
                         Said{std::move(m.conversation_id), std::move(m.message.role)}});
    }
    std::stable_sort(hits.begin(), hits.end(),
                     [](const Hit& a, const Hit& b) { return a.hit.score > b.hit.score; });
    if (hits.size() > static_cast<std::size_t>(top_k)) hits.resize(static_cast<std::size_t>(top_k));
    if (hits.empty()) {
      return HandlerResult::ok("no results for " + quote_text(query),
                               json::object{{"query", query}, {"mode", mode}, {"hits", json::array()}});
    }

    Listing listing(plural(hits.size(), "result") + " for " + quote_text(query), config_.message_bytes);
    json::array out;
    for (std::size_t i = 0; i < hits.size(); ++i) {
      if (ctx.stop_requested()) return stopped("searchArchive");
      const store::ArchiveHit& h = hits[i].hit;
      std::string entry = "[" + std::to_string(i + 1) + "] (" + score_text(h.score) + ") ";
      if (hits[i].said) {
        entry += hits[i].said->role == "assistant" ? "you said" : "the user said";
        if (hits[i].said->conversation != ctx.ids().conversation)
          entry += " in conversation " + one_line(hits[i].said->conversation, 80);
        entry += ", ";
      } else if (!trim(h.title).empty()) {
        entry += one_line(h.title, 120) + ", ";
      }
      entry += utc_format(h.created_at, "%Y-%m-%d") + ": " + one_line(h.text, config_.hit_text_bytes);
      listing.add(entry);
      json::object o{
          {"id", h.id},       {"title", h.title},   {"text", capped(h.text, config_.result_text_bytes)},
          {"score", h.score}, {"source", h.source}, {"createdAt", iso_utc(h.created_at)}};
      if (hits[i].said) {
        o["conversationId"] = hits[i].said->conversation;
        o["role"] = hits[i].said->role;
      }
      out.push_back(std::move(o));
    }
    return HandlerResult::ok(std::move(listing).finish(),
                             json::object{{"query", query}, {"mode", mode}, {"hits", std::move(out)}});
  }

  HandlerResult request_tier(const Directive& d, ActionContext& ctx) const {
    const json::value* lv = arg(d, "level");
    const auto level = lv ? integer_of(*lv) : std::nullopt;
    if (!level || *level < 1 || *level > 3) {
      return HandlerResult::error(
          "request-tier: level must be 1 (first sentence), 2 (first paragraph) or 3 (full text) (got " +
          (lv ? shown(*lv) : std::string("nothing")) + ")");
    }
    const std::string_view content = trimmed_arg(d, "content");
    if (content.empty())
      return HandlerResult::error(
          "request-tier: \"content\" is missing: write what to look up in this conversation");
    if (ctx.stop_requested()) return stopped("request-tier");
    // History always belongs to the conversation, whatever the memory policy (store.h).
    const store::Scope scope{ctx.ids().user, ctx.ids().conversation, store::MemoryScope::per_user};
    // The level is also the detail of the memory shown with every later model call of this conversation.
    if (auto set = ctx.store().set_setting(scope, store::Store::kMemoryTierSetting, std::to_string(*level),
                                           ctx.now());
        !set)
      return store_failed("request-tier", "keep the memory level", set.error());
    auto hits = ctx.store().search_messages(scope, content, config_.tier_hits);
    if (!hits) return store_failed("request-tier", "search the stored messages", hits.error());
    if (hits->empty()) {
      return HandlerResult::ok(
          "no stored messages match " + quote_text(content),
          json::object{{"level", *level}, {"content", content}, {"messages", json::array()}});
    }

    static constexpr const char* kLevelNames[] = {"", "first sentences", "first paragraphs", "full texts"};
    Listing listing(plural(hits->size(), "stored message") + (hits->size() == 1 ? " matches " : " match ") +
                        quote_text(content) + " (level " + std::to_string(*level) + ", " +
                        kLevelNames[*level] + ")",
                    config_.tier_message_bytes);
    json::array out;
    for (std::size_t i = 0; i < hits->size(); ++i) {
      if (ctx.stop_requested()) return stopped("request-tier");
      const store::Message& m = (*hits)[i].message;
      const std::string text = store::tier_text(m.text, static_cast<int>(*level));
      listing.add("[" + std::to_string(i + 1) + "] " + one_line(m.role, 20) + ", " + utc_minute(m.at) + ": " +
                  one_line(text, config_.tier_text_bytes));
      out.push_back(json::object{{"id", m.id},
                                 {"role", m.role},
                                 {"text", capped(text, config_.tier_text_bytes)},
                                 {"at", iso_utc(m.at)},
                                 {"turnId", m.turn_id},
                                 {"score", (*hits)[i].score}});
    }
    return HandlerResult::ok(
        std::move(listing).finish(),
        json::object{{"level", *level}, {"content", content}, {"messages", std::move(out)}});
  }

 private:
  // Vectors for newly archived texts, when an embeddings model is there. Returns "" when all were kept (or
  // there is no model), else a note for the message: the items are archived either way, and found by
  // their words.
  std::string embed_archived(const std::vector<store::ArchivedText>& entries, ActionContext& ctx) const {
    if (!config_.embeddings || entries.empty() || !config_.embeddings->available()) return {};
    std::vector<std::string> texts;
    texts.reserve(entries.size());
    for (const store::ArchivedText& e : entries) texts.push_back(e.text);
    auto vectors = config_.embeddings->embed(texts);
    if (!vectors) return "found by keywords only (" + vectors.error() + ")";
    const store::Scope memory = memory_scope(ctx.ids(), config_.scope);
    for (std::size_t i = 0; i < entries.size() && i < vectors->size(); ++i) {
      auto kept =
          ctx.store().set_archive_vector(memory, entries[i].id, config_.embeddings->model, (*vectors)[i]);
      if (!kept) return "found by keywords only (" + kept.error() + ")";
    }
    return {};
  }

  // The archive's hits for `query`: BM25 alone, or BM25 and cosine together (hybrid_score) when the
  // embeddings model answers; second = whether it did. Hits come best first, at most top_k, >= min_score.
  using Ranked = std::pair<std::vector<store::ArchiveHit>, bool>;
  sigil::Result<Ranked, std::string> semantic_search(const store::Scope& memory, std::string_view query,
                                                     int top_k, double min_score, ActionContext& ctx) const {
    const bool semantic = config_.embeddings && config_.embeddings->available();
    const int wide = std::max(top_k, config_.vector_candidates);
    auto keyword =
        ctx.store().search_archive(memory, query, semantic ? wide : top_k, semantic ? 0.0 : min_score);
    if (!keyword) return Failure{keyword.error()};
    if (!semantic) return Ranked{std::move(*keyword), false};
    auto vectors = config_.embeddings->embed({std::string(query)});
    if (!vectors || vectors->size() != 1) {
      // Keywords alone, as if there were no model: the search still answers.
      std::vector<store::ArchiveHit> hits;
      for (store::ArchiveHit& h : *keyword)
        if (h.score >= min_score && hits.size() < static_cast<std::size_t>(top_k))
          hits.push_back(std::move(h));
      return Ranked{std::move(hits), false};
    }
    auto near = ctx.store().nearest_archive(memory, config_.embeddings->model, vectors->front(), wide);
    if (!near) return Failure{near.error()};
    std::map<std::int64_t, std::pair<store::ArchiveHit, double>>
        joined;  // id -> (hit, its bm25 score), cosine
    std::map<std::int64_t, double> cosine;
    for (store::ArchiveHit& h : *keyword) joined.emplace(h.id, std::pair{std::move(h), 0.0});
    for (auto& [id, entry] : joined) entry.second = entry.first.score;
    for (store::ArchiveHit& h : *near) {
      cosine[h.id] = h.score;
      joined.emplace(h.id, std::pair{std::move(h), 0.0});  // not found by its words: bm25 0
    }
    std::vector<store::ArchiveHit> hits;
    for (auto& [id, entry] : joined) {
      const auto c = cosine.find(id);
      entry.first.score = hybrid_score(entry.second, c == cosine.end() ? 0.0 : c->second);
      if (entry.first.score >= min_score) hits.push_back(std::move(entry.first));
    }
    std::stable_sort(hits.begin(), hits.end(), [](const store::ArchiveHit& a, const store::ArchiveHit& b) {
      return a.score > b.score || (a.score == b.score && a.id > b.id);
    });
    if (hits.size() > static_cast<std::size_t>(top_k)) hits.resize(static_cast<std::size_t>(top_k));
    return Ranked{std::move(hits), true};
  }

  // A text for result JSON: kept as written (line breaks too), cut at a UTF-8 boundary when over `max`.
  static std::string capped(std::string_view s, std::size_t max) {
    if (s.size() <= max) return std::string(s);
    return std::string(s.substr(0, text::safe_cut(s, max))) + "\u2026";
  }

  ArchiveConfig config_;
};

}  // namespace

void add_archive_handlers(exec::HandlerTable& table, ArchiveConfig config) {
  auto h = std::make_shared<const ArchiveHandlers>(config);
  table.add("archiveItems", h, &ArchiveHandlers::archive_items);
  // Also `[SEARCH_EPISODIC:q]`: the catalogue makes it a spelling of searchArchive.
  table.add("searchArchive", h, &ArchiveHandlers::search_archive);
  table.add("request-tier", h, &ArchiveHandlers::request_tier);
}

}  // namespace sigil::actions
