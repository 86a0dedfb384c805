// SqliteStore: the chat channels' inbound dedupe (schema v6). Partition: (channel, account).
#include <chrono>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/statement.h"

namespace sigil::store::sqlite {
namespace {

constexpr std::string_view kRecord = R"sql(
INSERT INTO channel_inbound(channel, account, update_key, payload, received_at) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (channel, account, update_key) DO NOTHING)sql";
constexpr std::string_view kFinish = R"sql(
UPDATE channel_inbound SET done_at = ?4
WHERE channel = ?1 AND account = ?2 AND update_key = ?3 AND done_at IS NULL)sql";
// Telegram keeps an unconfirmed update for 24 hours; a finished record a week old can never be delivered
// again, so it goes (the table would otherwise grow by one row per message forever).
constexpr std::string_view kPrune = R"sql(
DELETE FROM channel_inbound
WHERE channel = ?1 AND account = ?2 AND done_at IS NOT NULL AND received_at < ?3)sql";
constexpr std::chrono::hours kKeepFinished{24 * 7};
constexpr std::string_view kPending = R"sql(
SELECT update_key, payload, received_at FROM channel_inbound
WHERE channel = ?1 AND account = ?2 AND done_at IS NULL ORDER BY received_at, update_key LIMIT ?3)sql";

Status check_inbound(std::string_view channel, std::string_view account, std::string_view key) {
  if (channel.empty() || key.empty()) return Error{"inbound: channel and key must not be empty"};
  if (channel.size() > 64 || account.size() > 128 || key.size() > 256)
    return Error{"inbound: channel, account or key too long"};
  return {};
}

}  // namespace

Result<bool> SqliteStore::record_inbound(const InboundRecord& record) {
  STORE_TRY(check_inbound(record.channel, record.account, record.key));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kRecord);
  auto changed = q.bind_text(1, record.channel)
                     .bind_text(2, record.account)
                     .bind_text(3, record.key)
                     .bind_text(4, record.payload_json)
                     .bind_time(5, record.received_at)
                     .run();
  if (!changed) return Error{changed.error()};
  return *changed > 0;
}

Status SqliteStore::finish_inbound(std::string_view channel, std::string_view account, std::string_view key,
                                   TimePoint now) {
  STORE_TRY(check_inbound(channel, account, key));
  std::lock_guard lock(mutex_);
  STORE_STMT(q, kFinish);
  auto changed = q.bind_text(1, channel).bind_text(2, account).bind_text(3, key).bind_time(4, now).run();
  if (!changed) return Error{changed.error()};
  STORE_STMT(prune, kPrune);
  auto pruned = prune.bind_text(1, channel).bind_text(2, account).bind_time(3, now - kKeepFinished).run();
  if (!pruned) return Error{pruned.error()};
  return {};
}

Result<std::vector<InboundRecord>> SqliteStore::pending_inbound(std::string_view channel,
                                                                std::string_view account, std::size_t limit) {
  STORE_TRY(check_inbound(channel, account, "-"));
  Reader r = reader();
  STORE_READ_STMT(q, r, kPending);
  q.bind_text(1, channel).bind_text(2, account).bind_size(3, limit);
  return read_rows(q, [&](const Stmt& row) {
    InboundRecord rec;
    rec.channel = std::string(channel);
    rec.account = std::string(account);
    rec.key = row.text(0);
    rec.payload_json = row.text(1);
    rec.received_at = row.time(2);
    return rec;
  });
}

}  // namespace sigil::store::sqlite
