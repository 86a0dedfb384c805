// SqliteStore: the archive's vectors (the semantic half of searchArchive). Partition: the memory scope,
// through the archive entry a vector belongs to.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

constexpr std::string_view kSetVector = R"sql(
INSERT INTO archive_vectors(archive_id, model, vector)
SELECT id, ?4, ?5 FROM archive WHERE user_id = ?1 AND conversation_id = ?2 AND id = ?3
ON CONFLICT (archive_id, model) DO UPDATE SET vector = excluded.vector)sql";
constexpr std::string_view kScopeVectors = R"sql(
SELECT a.id, v.vector FROM archive AS a JOIN archive_vectors AS v ON v.archive_id = a.id
WHERE a.user_id = ?1 AND a.conversation_id = ?2 AND v.model = ?3)sql";
constexpr std::string_view kArchiveEntry = R"sql(
SELECT id, title, body, source, created_at FROM archive WHERE user_id = ?1 AND conversation_id = ?2 AND id = ?3)sql";

// float32s as stored: the host's order (the database never moves between machines of another byte order in
// practice; a length that is not a whole number of floats reads as no vector).
std::string_view bytes_of(std::span<const float> v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)};
}

double norm(std::span<const float> v) {
  double s = 0;
  for (const float x : v) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}

}  // namespace

Status SqliteStore::set_archive_vector(const Scope& scope, std::int64_t archive_id, std::string_view model,
                                       std::span<const float> vector) {
  STORE_TRY(check_scope(scope));
  if (vector.empty()) return Error{"sqlite store: empty vector"};
  if (!std::all_of(vector.begin(), vector.end(), [](float x) { return std::isfinite(x); }))
    return Error{"sqlite store: a vector value is not finite"};
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kSetVector);
  q.bind_partition(memory_partition(scope))
      .bind_int(3, archive_id)
      .bind_text(4, model)
      .bind_blob(5, bytes_of(vector));
  auto changed = q.run();
  if (!changed) return Error{changed.error()};
  if (*changed == 0) return Error{"sqlite store: no archive entry " + std::to_string(archive_id) + " here"};
  return {};
}

Result<std::vector<ArchiveHit>> SqliteStore::nearest_archive(const Scope& scope, std::string_view model,
                                                             std::span<const float> query, int top_k) {
  STORE_TRY(check_scope(scope));
  const double qn = norm(query);
  if (top_k <= 0 || query.empty() || qn == 0) return std::vector<ArchiveHit>();
  const Partition part = memory_partition(scope);
  Reader r = reader();
  std::vector<std::pair<double, std::int64_t>> scored;
  {
    STORE_READ_STMT(q, r, kScopeVectors);
    q.bind_partition(part).bind_text(3, model);
    std::vector<float> v(query.size());
    for (;;) {
      STORE_STEP(row, q);
      if (!row) break;
      const std::string_view b = q.blob(1);
      if (b.size() != query.size() * sizeof(float)) continue;
      std::memcpy(v.data(), b.data(), b.size());
      const double vn = norm(v);
      if (vn == 0) continue;
      double dot = 0;
      for (std::size_t i = 0; i < v.size(); ++i) dot += static_cast<double>(v[i]) * query[i];
      scored.emplace_back(std::clamp(dot / (vn * qn), 0.0, 1.0), q.integer(0));
    }
  }
  const std::size_t k =
      std::min<std::size_t>(scored.size(), static_cast<std::size_t>(std::min(top_k, kMaxTopK)));
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(k), scored.end(),
                    [](const auto& a, const auto& b) {
                      return a.first > b.first || (a.first == b.first && a.second > b.second);
                    });
  std::vector<ArchiveHit> hits;
  for (std::size_t i = 0; i < k; ++i) {
    STORE_READ_STMT(q, r, kArchiveEntry);
    q.bind_partition(part).bind_int(3, scored[i].second);
    STORE_STEP(row, q);
    if (!row) continue;
    hits.push_back(ArchiveHit{q.integer(0), q.text(1), q.text(2), q.text(3), q.time(4), scored[i].first});
  }
  return hits;
}

}  // namespace sigil::store::sqlite
