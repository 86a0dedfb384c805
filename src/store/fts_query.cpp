// Turning what a user or model wrote into a safe FTS5 query, and BM25 into a score.
#include <algorithm>
#include <string>

#include "sigil/store/store.h"

namespace sigil::store {
namespace {

constexpr std::size_t kMaxWords = 64;

// NUL is a separator too: FTS5 would read a bound query only up to it.
bool is_separator(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '\0';
}

}  // namespace

std::string fts_match_query(std::string_view query) {
  std::string out;
  std::size_t words = 0;
  std::size_t i = 0;
  while (i < query.size() && words < kMaxWords) {
    while (i < query.size() && is_separator(query[i])) ++i;
    if (i == query.size()) break;
    const std::size_t start = i;
    while (i < query.size() && !is_separator(query[i])) ++i;
    const std::string_view word = query.substr(start, i - start);
    if (words++ > 0) out += " OR ";
    out += '"';
    for (const char c : word) {
      if (c == '"') out += '"';  // a quote inside an FTS5 string is written twice
      out += c;
    }
    out += '"';
  }
  return out;
}

double score_from_bm25(double bm25) {
  const double s = bm25 < 0 ? -bm25 : 0.0;  // NaN too falls to 0
  return s / (1.0 + s);
}

}  // namespace sigil::store
