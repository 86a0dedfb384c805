// The archive and history actions (spec 13): archiveItems (memory items into the searchable archive),
// searchArchive (its ranked full-text search; `[SEARCH_EPISODIC:q]` is a spelling of it, so the same
// handler) and request-tier (the conversation's stored messages at a level of detail). Storage and ranking
// are the Store's; these handlers check arguments, call it and write the results for the model.
//
// What the handlers promise:
// - Isolation (15): the archive uses the memory scope (memory_scope(), ArchiveConfig::scope), the history
//   always the turn's (user, conversation): nothing of another user (or, for history, another
//   conversation) is ever found or moved.
// - archiveItems moves live items only (an expired item counts as missing); it reports how many moved and
//   which ids were not found. Nothing found is an error; some found is ok, with the missing ids named.
// - searchArchive: topK in 1..max_top_k (default 10), minScore in [0, 1] (default 0), else an error that
//   names the range. The message carries the hits themselves (rank, score, title, date, text), each text
//   one line of at most hit_text_bytes and the whole message at most message_bytes, so a model can use them
//   without another call; the result JSON holds {"query", "hits":[{"id","title","text","score","source",
//   "createdAt"}]} with texts up to result_text_bytes. No hit is ok: "no results for …".
// - request-tier: level 1 (first sentence), 2 (first paragraph) or 3 (full text), else an error; the
//   tier_hits best-matching stored messages, each with its role and time, capped like search hits
//   (tier_message_bytes in all). No match is ok: "no stored messages match …".
// - Every message is one line that starts with what happened. After a stop request nothing more is written.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sigil/base/result.h"
#include "sigil/exec/handler.h"
#include "sigil/store/store.h"

namespace sigil::actions {

struct ArchiveConfig {
  store::MemoryScope scope = store::MemoryScope::per_user;  // as MemoryConfig::scope: keep them equal
  std::size_t max_archive_ids = 1000;                       // ids per archiveItems call
  int max_top_k = 50;
  std::size_t hit_text_bytes = 500;          // each hit's text in the message
  std::size_t message_bytes = 8 * 1024;      // a searchArchive message in all
  std::size_t result_text_bytes = 4 * 1024;  // each hit's text in the result JSON
  int tier_hits = 5;
  std::size_t tier_text_bytes = 4 * 1024;      // each message's text at level 3
  std::size_t tier_message_bytes = 16 * 1024;  // a request-tier message in all
  // The semantic half (optional; the app wires an embeddings model): archived texts are embedded and kept
  // with their entry, and a search ranks by BM25 and cosine together (hybrid_score). Without it, or while it
  // is unavailable or failing, archive and search work by keywords alone.
  struct Embeddings {
    std::string model;  // the name vectors are kept under
    std::function<sigil::Result<std::vector<std::vector<float>>, std::string>(
        const std::vector<std::string>&)>
        embed;
    std::function<bool()> available;
  };
  std::optional<Embeddings> embeddings;
  int vector_candidates = 50;  // nearest entries by cosine that join the BM25 hits
};

// A hit's rank in a hybrid search: the keyword score (BM25 mapped into [0, 1]) and the meaning score (cosine,
// clamped into [0, 1]) weighted 35 / 65, so "advertising ideas" finds an archived "promotion plan" and an
// exact word still lifts a hit.
inline double hybrid_score(double bm25, double cosine) { return 0.35 * bm25 + 0.65 * cosine; }

// Adds handlers for archiveItems, searchArchive and request-tier.
void add_archive_handlers(exec::HandlerTable& table, ArchiveConfig config = {});

}  // namespace sigil::actions
