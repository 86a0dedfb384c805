// The default batch forms of the exactly-once log: one call per key. A store that can write several keys
// in one transaction (SqliteStore) overrides them.
#include "sigil/store/store.h"

namespace sigil::store {

std::vector<Result<Begun>> Store::once_begin_many(const Scope& scope, std::span<const std::string> keys,
                                                  TimePoint now) {
  std::vector<Result<Begun>> out;
  out.reserve(keys.size());
  for (const std::string& key : keys) out.push_back(once_begin(scope, key, now));
  return out;
}

std::vector<Status> Store::once_complete_many(const Scope& scope, std::span<const OnceCompletion> done,
                                              TimePoint now) {
  std::vector<Status> out;
  out.reserve(done.size());
  for (const OnceCompletion& d : done) out.push_back(once_complete(scope, d.key, d.result_json, now));
  return out;
}

}  // namespace sigil::store
