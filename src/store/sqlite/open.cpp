#include "sigil/store/sqlite.h"
#include "store/sqlite/sqlite_store.h"

namespace sigil::store::sqlite {

Result<std::unique_ptr<Store>> open(const std::string& path, const OpenOptions& options) {
  return SqliteStore::open(path, options);
}

int latest_schema_version() noexcept { return SqliteStore::latest_schema_version(); }

}  // namespace sigil::store::sqlite
