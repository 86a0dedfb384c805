// SqliteStore::recent_rows: the one reading of a conversation's latest rows (recent_messages,
// recent_deliveries), so each says only which statement (newest first) and what a row becomes; the rows
// come back oldest first. Private to src/store/sqlite/.
#pragma once

#include <algorithm>
#include <string_view>
#include <utility>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {

template <class Read>
auto SqliteStore::recent_rows(const Scope& scope, std::string_view sql, std::size_t n, Read&& read)
    -> Result<std::vector<std::invoke_result_t<Read&, const Stmt&>>> {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, sql);
  q.bind_partition(conversation_partition(scope)).bind_size(3, n);
  // `sql` reads newest first (ORDER BY id DESC LIMIT n: straight down the scope index, no temporary table
  // and no sort); the caller gets them oldest first.
  auto rows = read_rows(q, std::forward<Read>(read));
  if (rows) std::reverse(rows->begin(), rows->end());
  return rows;
}

}  // namespace sigil::store::sqlite
