// scheduleTask / getScheduledTasks / deleteScheduledTask and the time grammar (see schedule.h).
#include "sigil/actions/schedule.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "sigil/text/ascii.h"
#include "sigil/text/utf8.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
using namespace std::chrono;

using Ms = milliseconds;

constexpr std::int64_t kMaxDelayDays = 10'000'000;
// Years outside this range cannot be a due time (system_clock counts nanoseconds in 64 bits: ~2262 is
// its end), so they are refused before any arithmetic that could overflow.
constexpr int kMinYear = 1970;
constexpr int kMaxYear = 2200;

using text::ascii::iequals;
using text::ascii::is_digit;
using text::ascii::trim;

bool digits_at(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i)
    if (!is_digit(s[i])) return false;
  return true;
}

int number_at(std::string_view s, std::size_t at, std::size_t n) {
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

std::string two(int v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d", v);
  return buf;
}

std::string format_offset(minutes offset) {
  if (offset.count() == 0) return "UTC";
  const char sign = offset.count() < 0 ? '-' : '+';
  const int m = static_cast<int>(offset.count() < 0 ? -offset.count() : offset.count());
  return std::string("UTC") + sign + two(m / 60) + ":" + two(m % 60);
}

Error invalid(std::string message) { return make_error(ErrorCode::invalid_argument, std::move(message)); }

// "+HH:MM", "+HHMM", "+HH" (sign required) -> minutes; nullopt on a bad shape. Range checked by callers.
std::optional<minutes> signed_offset(std::string_view s) {
  if (s.empty() || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  const int sign = s[0] == '-' ? -1 : 1;
  s.remove_prefix(1);
  int h = 0, m = 0;
  if (s.size() == 2 && digits_at(s, 0, 2)) {
    h = number_at(s, 0, 2);
  } else if (s.size() == 4 && digits_at(s, 0, 4)) {
    h = number_at(s, 0, 2);
    m = number_at(s, 2, 2);
  } else if (s.size() == 5 && digits_at(s, 0, 2) && s[2] == ':' && digits_at(s, 3, 2)) {
    h = number_at(s, 0, 2);
    m = number_at(s, 3, 2);
  } else {
    return std::nullopt;
  }
  if (m > 59) return std::nullopt;
  return minutes(sign * (h * 60 + m));
}

constexpr minutes kMaxOffset{18 * 60};

// The datetime grammar, to whole seconds since the epoch (sys_seconds cannot overflow for 4-digit years).
struct ParsedTime {
  sys_seconds at;
  bool explicit_offset = false;
};

Result<ParsedTime> parse_time_seconds(std::string_view s, minutes default_offset) {
  const std::string quoted = "\"" + std::string(s) + "\"";
  auto shape = [&] {
    return invalid("time " + quoted + " is not YYYY-MM-DD HH:MM (optional :SS, then optional Z or +HH:MM)");
  };
  if (s.size() < 16 || !digits_at(s, 0, 4) || s[4] != '-' || !digits_at(s, 5, 2) || s[7] != '-' ||
      !digits_at(s, 8, 2) || (s[10] != ' ' && s[10] != 'T') || !digits_at(s, 11, 2) || s[13] != ':' ||
      !digits_at(s, 14, 2)) {
    return shape();
  }
  const int y = number_at(s, 0, 4), mo = number_at(s, 5, 2), d = number_at(s, 8, 2);
  const int h = number_at(s, 11, 2), mi = number_at(s, 14, 2);
  int sec = 0;
  std::size_t i = 16;
  if (i < s.size() && s[i] == ':') {
    if (!digits_at(s, i + 1, 2)) return shape();
    sec = number_at(s, i + 1, 2);
    i += 3;
  }
  minutes offset = default_offset;
  bool explicit_offset = false;
  if (i < s.size()) {
    std::string_view rest = s.substr(i);
    if (rest == "Z") {
      offset = minutes(0);
    } else if (rest.size() == 6 && rest[3] == ':') {
      auto o = signed_offset(rest);
      if (!o) return shape();
      offset = *o;
    } else {
      return shape();
    }
    explicit_offset = true;
  }
  if (mo < 1 || mo > 12) return invalid("time " + quoted + ": month " + two(mo) + " is out of range (01-12)");
  const year_month_day ymd{year(y), month(static_cast<unsigned>(mo)), day(static_cast<unsigned>(d))};
  if (!ymd.ok()) {
    const unsigned last = static_cast<unsigned>(
        year_month_day_last(year(y), month_day_last(month(static_cast<unsigned>(mo)))).day());
    return invalid("time " + quoted + ": " + std::string(s.substr(0, 10)) + " is not a calendar date (" +
                   std::string(s.substr(0, 7)) + " has " + std::to_string(last) + " days)");
  }
  if (h > 23) return invalid("time " + quoted + ": hour " + two(h) + " is out of range (00-23)");
  if (mi > 59) return invalid("time " + quoted + ": minute " + two(mi) + " is out of range (00-59)");
  if (sec > 59) return invalid("time " + quoted + ": second " + two(sec) + " is out of range (00-59)");
  if (offset > kMaxOffset || offset < -kMaxOffset)
    return invalid("time " + quoted + ": offset " + format_offset(offset) +
                   " is out of range (at most 18:00)");
  if (y < kMinYear || y > kMaxYear)
    return invalid("time " + quoted + ": year " + std::to_string(y) + " is out of range (" +
                   std::to_string(kMinYear) + "-" + std::to_string(kMaxYear) + ")");
  // Local wall time minus its offset east of UTC is UTC.
  const sys_seconds at = sys_days(ymd) + hours(h) + minutes(mi) + seconds(sec) - offset;
  return ParsedTime{at, explicit_offset};
}

// Rounds up to whole seconds: the due time the user sees is the one stored (see schedule.h).
store::TimePoint ceil_seconds(store::TimePoint t) { return ceil<seconds>(t); }

std::int64_t epoch_ms(store::TimePoint t) { return floor<Ms>(t.time_since_epoch()).count(); }

// The value of a string argument, or nullptr when absent/null. A non-string value is a type error.
struct StringArg {
  bool present = false;
  bool is_string = false;
  std::string value;
};

StringArg string_arg(const json::object& args, std::string_view name) {
  StringArg out;
  const json::value* v = args.if_contains(name);
  if (v == nullptr || v->is_null()) return out;
  out.present = true;
  if (v->is_string()) {
    out.is_string = true;
    out.value = std::string(v->get_string());
  }
  return out;
}

std::string quote_json(std::string_view s) { return json::serialize(json::string(s)); }

std::string preview(std::string_view message, std::size_t max_bytes) {
  if (message.size() <= max_bytes) return quote_json(message);
  return quote_json(std::string(message.substr(0, text::safe_cut(message, max_bytes))) + "…");
}

json::object task_json(const store::ScheduledTask& t) {
  return json::object{{"id", t.id},
                      {"due_at", format_utc(t.due_at)},
                      {"due_at_ms", epoch_ms(t.due_at)},
                      {"message", t.message}};
}

// ------------------------------------------------------------------------------------------ handlers

// State shared by one table's handlers. The mutex makes "count pending, then add" one step within the
// process (scheduleTask runs in parallel by default), so two directives in one reply cannot both take the
// last free place.
struct Shared {
  ScheduleConfig config;
  std::mutex add_mu;
};

exec::HandlerResult schedule_task(Shared& shared, const exec::Directive& d, exec::ActionContext& ctx) {
  const ScheduleConfig& cfg = shared.config;
  auto fail = [](std::string m) { return exec::HandlerResult::error("scheduleTask: " + std::move(m)); };

  // 1. Shapes (the validator checked them for parsed directives; direct callers get the same rules).
  StringArg message = string_arg(d.args, "message");
  if (!message.present) return fail("message is missing: say what the task should do when it is due");
  if (!message.is_string) return fail("message must be a string");
  const std::string text(trim(message.value));
  if (text.empty()) return fail("message is empty: say what the task should do when it is due");
  if (text.size() > cfg.max_message_bytes)
    return fail("message is " + std::to_string(text.size()) + " bytes, over the limit of " +
                std::to_string(cfg.max_message_bytes));
  if (!text::is_valid_utf8(text)) return fail("message is not valid UTF-8");

  const StringArg delay = string_arg(d.args, "delay");
  const StringArg time = string_arg(d.args, "time");
  if (delay.present == time.present)
    return fail("give exactly one of delay (30m, 2h, 1.5d) or time (YYYY-MM-DD HH:MM, optional offset)");
  if (delay.present && !delay.is_string) return fail("delay must be a string like 30m, 2h or 1.5d");
  if (time.present && !time.is_string) return fail("time must be a string like 2026-11-21 18:00");

  // 2. The due time.
  const store::TimePoint now = ctx.now();
  const std::string min_text = format_span(cfg.min_delay);
  store::TimePoint due;
  bool moved = false;
  if (delay.present) {
    const std::string value(trim(delay.value));
    auto span = parse_delay(value);
    if (!span) return fail(span.error().message);
    if (span->count() <= 0) return fail("delay " + value + " is not more than zero");
    if (*span < cfg.min_delay) return fail("delay " + value + " is shorter than the minimum " + min_text);
    if (*span > duration_cast<Ms>(cfg.max_ahead))
      return fail("delay " + value + " is more than " + std::to_string(cfg.max_ahead.count()) +
                  " days ahead (the limit)");
    due = now + *span;
  } else {
    const std::string value(trim(time.value));
    auto parsed = parse_time_seconds(value, cfg.default_utc_offset);
    if (!parsed) return fail(parsed.error().message);
    // Compare in seconds first: no overflow however far the year is from now.
    const sys_seconds now_s = floor<seconds>(now);
    const std::string zone = parsed->explicit_offset
                                 ? std::string()
                                 : " (" + format_offset(cfg.default_utc_offset) + ", the default zone)";
    if (parsed->at < now_s - cfg.past_tolerance)
      return fail("time " + value + zone + " is in the past (now " + format_utc(now) + ")");
    if (parsed->at - now_s > cfg.max_ahead)
      return fail("time " + value + zone + " is more than " + std::to_string(cfg.max_ahead.count()) +
                  " days ahead (the limit)");
    due = store::TimePoint(parsed->at);
    if (due < now + cfg.min_delay) {
      due = now + cfg.min_delay;
      moved = true;
    }
  }
  due = ceil_seconds(due);

  // 3. The conversation's limit, then the one side effect.
  const store::Scope scope = ctx.scope();
  std::string id;
  {
    std::lock_guard lock(shared.add_mu);
    auto pending = ctx.store().list_tasks(scope);
    if (!pending) return fail("could not read the scheduled tasks: " + pending.error());
    if (pending->size() >= cfg.max_pending_per_conversation)
      return fail("this conversation already has " + std::to_string(pending->size()) +
                  " scheduled tasks (the limit); delete one with deleteScheduledTask first");
    if (ctx.stop_requested()) return fail("stopped before the task was added");
    auto added = ctx.store().add_task(scope, "", text, due, now);
    if (!added) return fail("could not store the task: " + added.error());
    id = std::move(added).value();
  }
  if (cfg.on_scheduled) cfg.on_scheduled(due);

  std::string msg = "scheduled " + id + " for " + format_utc(due) + " (in " +
                    format_span(duration_cast<Ms>(due - now)) + ")";
  if (moved) msg += "; moved to the earliest allowed time, " + min_text + " from now";
  return exec::HandlerResult::ok(
      std::move(msg), json::object{{"id", id}, {"due_at", format_utc(due)}, {"due_at_ms", epoch_ms(due)}});
}

exec::HandlerResult get_tasks(Shared& shared, const exec::Directive&, exec::ActionContext& ctx) {
  auto tasks = ctx.store().list_tasks(ctx.scope());
  if (!tasks)
    return exec::HandlerResult::error("getScheduledTasks: could not read the tasks: " + tasks.error());
  json::array list;
  for (const store::ScheduledTask& t : *tasks) list.push_back(task_json(t));
  if (tasks->empty()) return exec::HandlerResult::ok("no scheduled tasks", json::object{{"tasks", list}});
  std::string msg =
      std::to_string(tasks->size()) + (tasks->size() == 1 ? " scheduled task: " : " scheduled tasks: ");
  for (std::size_t i = 0; i < tasks->size(); ++i) {
    const store::ScheduledTask& t = (*tasks)[i];
    if (i > 0) msg += "; ";
    msg += t.id + " at " + format_utc(t.due_at) + " " + preview(t.message, shared.config.list_preview_bytes);
  }
  return exec::HandlerResult::ok(std::move(msg), json::object{{"tasks", list}});
}

exec::HandlerResult delete_task(const exec::Directive& d, exec::ActionContext& ctx) {
  auto fail = [](std::string m) {
    return exec::HandlerResult::error("deleteScheduledTask: " + std::move(m));
  };
  const json::value* id_v = d.args.if_contains("id");
  const json::value* ts_v = d.args.if_contains("timestamp");
  if (id_v != nullptr && id_v->is_null()) id_v = nullptr;
  if (ts_v != nullptr && ts_v->is_null()) ts_v = nullptr;
  if ((id_v == nullptr) == (ts_v == nullptr))
    return fail("give exactly one of id (as getScheduledTasks lists it) or timestamp (ms since the epoch)");
  const store::Scope scope = ctx.scope();

  if (id_v != nullptr) {
    if (!id_v->is_string()) return fail("id must be a string like task-3");
    const std::string id(trim(id_v->get_string()));
    if (id.empty()) return fail("id is empty");
    if (ctx.stop_requested()) return fail("stopped before deleting");
    auto n = ctx.store().delete_task(scope, id);
    if (!n) return fail("could not delete " + id + ": " + n.error());
    if (*n == 0) return fail("no scheduled task " + id);
    return exec::HandlerResult::ok("deleted " + id, json::object{{"deleted", json::array{json::value(id)}}});
  }

  std::int64_t ms = 0;
  if (ts_v->is_int64()) {
    ms = ts_v->get_int64();
  } else if (ts_v->is_uint64() && ts_v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    ms = static_cast<std::int64_t>(ts_v->get_uint64());
  } else {
    return fail("timestamp must be an integer: milliseconds since the epoch");
  }
  // Refused beyond the store's range (system_clock nanoseconds) rather than overflowing.
  constexpr std::int64_t kMaxMs = 7'258'118'400'000;  // 2200-01-01
  if (ms < 0 || ms > kMaxMs) return fail("timestamp " + std::to_string(ms) + " is out of range");
  const store::TimePoint at{Ms(ms)};
  auto tasks = ctx.store().list_tasks(scope);
  if (!tasks) return fail("could not read the tasks: " + tasks.error());
  json::array ids;
  std::string names;
  for (const store::ScheduledTask& t : *tasks) {
    if (epoch_ms(t.due_at) != ms) continue;
    names += (ids.empty() ? "" : ", ") + t.id;
    ids.push_back(json::value(t.id));
  }
  const std::string when = format_utc(at) + " (" + std::to_string(ms) + ")";
  if (ids.empty()) return fail("no scheduled task due at " + when);
  if (ctx.stop_requested()) return fail("stopped before deleting");
  auto n = ctx.store().delete_tasks_due_at(scope, at);
  if (!n) return fail("could not delete the tasks due at " + when + ": " + n.error());
  // Another turn may have deleted some between the listing and here; report what the store did.
  if (*n == 0) return fail("no scheduled task due at " + when);
  if (*n != ids.size()) names = std::to_string(*n) + " tasks";
  return exec::HandlerResult::ok("deleted " + names + " due at " + format_utc(at),
                                 json::object{{"deleted", ids}});
}

}  // namespace

// ------------------------------------------------------------------------------------------ public

Result<std::chrono::minutes> parse_utc_offset(std::string_view text) {
  const std::string_view s = trim(text);
  auto bad = [&] {
    return invalid("offset \"" + std::string(text) +
                   "\" is not UTC, Z or +HH:MM (e.g. +01:00, -05:30, UTC+02:00)");
  };
  if (iequals(s, "UTC") || iequals(s, "Z") || iequals(s, "GMT")) return minutes(0);
  std::string_view rest = s;
  if (rest.size() > 3 && (iequals(rest.substr(0, 3), "UTC") || iequals(rest.substr(0, 3), "GMT")))
    rest.remove_prefix(3);
  auto o = signed_offset(rest);
  if (!o) return bad();
  if (*o > kMaxOffset || *o < -kMaxOffset)
    return invalid("offset \"" + std::string(text) + "\" is out of range (at most 18:00 either way)");
  return *o;
}

Result<std::chrono::milliseconds> parse_delay(std::string_view text) {
  auto bad = [&] {
    return invalid("delay \"" + std::string(text) + "\" is not a number then m, h or d (30m, 2h, 1.5d)");
  };
  std::size_t i = 0;
  std::int64_t whole = 0;
  bool too_long = false;
  while (i < text.size() && is_digit(text[i])) {
    if (whole > kMaxDelayDays * 1440) too_long = true;  // stop growing; any unit is then too long
    if (!too_long) whole = whole * 10 + (text[i] - '0');
    ++i;
  }
  if (i == 0) return bad();
  // Up to 9 fraction digits count; further ones are below a millisecond for every unit.
  std::int64_t frac = 0, scale = 1;
  if (i < text.size() && text[i] == '.') {
    const std::size_t start = ++i;
    while (i < text.size() && is_digit(text[i])) {
      if (i - start < 9) {
        frac = frac * 10 + (text[i] - '0');
        scale *= 10;
      }
      ++i;
    }
    if (i == start) return bad();
  }
  if (i + 1 != text.size()) return bad();
  std::int64_t unit = 0;
  switch (text[i]) {
    case 'm':
      unit = 60'000;
      break;
    case 'h':
      unit = 3'600'000;
      break;
    case 'd':
      unit = 86'400'000;
      break;
    default:
      return bad();
  }
  if (too_long || whole * unit > kMaxDelayDays * 86'400'000)
    return invalid("delay \"" + std::string(text) + "\" is too long");
  // frac < 10^9 and unit <= 8.64e7: the product fits in 64 bits.
  return Ms(whole * unit + frac * unit / scale);
}

Result<store::TimePoint> parse_time(std::string_view text, std::chrono::minutes default_offset) {
  auto parsed = parse_time_seconds(text, default_offset);
  if (!parsed) return std::move(parsed).error();
  return store::TimePoint(parsed->at);
}

std::string format_utc(store::TimePoint t) {
  const sys_seconds s = floor<seconds>(t);
  const sys_days d = floor<days>(s);
  const year_month_day ymd(d);
  const hh_mm_ss<seconds> hms(s - d);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buf;
}

std::string format_span(std::chrono::milliseconds span) {
  if (span.count() < 0) span = -span;
  const std::int64_t total_s = (span.count() + 500) / 1000;
  std::string out;
  auto part = [&out](std::int64_t n, const char* unit) {
    if (n == 0) return;
    if (!out.empty()) out += ' ';
    out += std::to_string(n) + unit;
  };
  if (total_s < 3600) {
    part(total_s / 60, "m");
    part(total_s % 60, "s");
    return out.empty() ? "0s" : out;
  }
  const std::int64_t total_m = (total_s + 30) / 60;
  part(total_m / 1440, "d");
  part(total_m % 1440 / 60, "h");
  part(total_m % 60, "m");
  return out;
}

void add_schedule_handlers(exec::HandlerTable& table, ScheduleConfig config) {
  auto shared = std::make_shared<Shared>();
  shared->config = std::move(config);
  table.add("scheduleTask", [shared](const exec::Directive& d, exec::ActionContext& ctx) {
    return schedule_task(*shared, d, ctx);
  });
  table.add("getScheduledTasks", [shared](const exec::Directive& d, exec::ActionContext& ctx) {
    return get_tasks(*shared, d, ctx);
  });
  table.add("deleteScheduledTask",
            [](const exec::Directive& d, exec::ActionContext& ctx) { return delete_task(d, ctx); });
}

}  // namespace sigil::actions
