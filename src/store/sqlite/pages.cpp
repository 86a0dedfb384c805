// SqliteStore: published pages (publishWebPage). Partition: (user, conversation), except get_page().
#include <string>

#include "sigil/store/sha256.h"
#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

constexpr std::string_view kPutPage = R"sql(
INSERT INTO pages(slug, user_id, conversation_id, title, html, csp_allows_scripts, created_at, updated_at)
VALUES (?3, ?1, ?2, ?4, ?5, ?6, ?7, ?7)
ON CONFLICT (slug) DO UPDATE SET
    title = excluded.title, html = excluded.html, csp_allows_scripts = excluded.csp_allows_scripts,
    updated_at = excluded.updated_at
WHERE pages.user_id = excluded.user_id AND pages.conversation_id = excluded.conversation_id)sql";
constexpr std::string_view kGetPage = R"sql(
SELECT slug, title, html, csp_allows_scripts, created_at, updated_at FROM pages WHERE slug = ?1)sql";
constexpr std::string_view kListPages = R"sql(
SELECT slug, title, html, csp_allows_scripts, created_at, updated_at FROM pages
WHERE user_id = ?1 AND conversation_id = ?2 ORDER BY created_at, slug)sql";

constexpr std::size_t kMaxSlugWords = 40;

// "<length>:<bytes>;" per field, as in once_key().
void hash_field(Sha256& h, std::string_view bytes) {
  h.update(std::to_string(bytes.size()));
  h.update(":");
  h.update(bytes);
  h.update(";");
}

std::string slug_words(std::string_view title) {
  std::string out;
  bool dash = false;
  for (const char c : title) {
    const char l = text::ascii::lower(c);
    if (text::ascii::is_alnum(l)) {
      if (dash && !out.empty()) out += '-';
      dash = false;
      if (out.size() >= kMaxSlugWords) break;
      out += l;
    } else {
      dash = true;
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

Page read_page(const Stmt& q) {
  return Page{q.text(0), q.text(1), q.text(2), q.integer(3) != 0, q.time(4), q.time(5)};
}

}  // namespace

Result<Page> SqliteStore::put_page(const Scope& scope, std::string_view title, std::string_view html,
                                   bool csp_allows_scripts, TimePoint now) {
  STORE_TRY(check_scope(scope));
  title = trim(title);
  if (trim(html).empty()) return Error{"sqlite store: empty page"};
  const Partition part = conversation_partition(scope);
  std::lock_guard lock(mutex_);
  Transaction tx(db_);
  STORE_TRY(tx.begin());
  Sha256 h;
  hash_field(h, "sigil-page-v1");
  hash_field(h, page_salt_);
  hash_field(h, part.user);
  hash_field(h, part.conversation);
  const std::string words = slug_words(title);
  if (!title.empty()) {
    hash_field(h, "title");
    hash_field(h, title);
  } else {
    auto n = next_counter("page_counter");
    if (!n) return Error{n.error()};
    hash_field(h, "counter");
    hash_field(h, std::to_string(*n));
  }
  const std::string slug =
      (words.empty() ? std::string("page") : words) + "-" + to_hex(h.finish()).substr(0, 20);
  if (options_.max_pages_per_user != 0) {
    // Republishing a page (same slug) replaces it and is always allowed.
    STORE_STMT(count, "SELECT COUNT(*) FROM pages WHERE user_id = ?1 AND slug <> ?2");
    count.bind_text(1, part.user).bind_text(2, slug);
    STORE_STEP(row, count);
    if (row && static_cast<std::size_t>(count.integer(0)) >= options_.max_pages_per_user)
      return Error{"page limit: at most " + std::to_string(options_.max_pages_per_user) +
                   " published pages per user; republish one under its title to replace it"};
  }
  {
    STORE_STMT(q, kPutPage);
    q.bind_partition(part).bind_text(3, slug).bind_text(4, title).bind_text(5, html);
    auto changed = q.bind_int(6, csp_allows_scripts ? 1 : 0).bind_time(7, now).run();
    if (!changed) return Error{changed.error()};
    if (*changed != 1) return Error{"sqlite store: page slug collision"};  // owned by another scope
  }
  STORE_STMT(q, kGetPage);
  q.bind_text(1, slug);
  STORE_STEP(row, q);
  if (!row) return Error{"sqlite store: the page vanished while publishing it"};
  Page page = read_page(q);
  STORE_TRY(q.run());
  STORE_TRY(tx.commit());
  return page;
}

Result<std::optional<Page>> SqliteStore::get_page(std::string_view slug) {
  Reader r = reader();
  STORE_READ_STMT(q, r, kGetPage);
  q.bind_text(1, slug);
  STORE_STEP(row, q);
  if (!row) return std::optional<Page>();
  return std::optional<Page>(read_page(q));
}

Result<std::vector<Page>> SqliteStore::list_pages(const Scope& scope) {
  STORE_TRY(check_scope(scope));
  Reader r = reader();
  STORE_READ_STMT(q, r, kListPages);
  q.bind_partition(conversation_partition(scope));
  return read_rows(q, read_page);
}

}  // namespace sigil::store::sqlite
