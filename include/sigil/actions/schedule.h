// The scheduled-task actions (spec 13): scheduleTask, getScheduledTasks, deleteScheduledTask, and the time
// grammar they share. The tasks live in the Store (partition: user + conversation); the Scheduler
// (scheduler.h) fires them as new turns.
//
// What the handlers promise:
// - Everything is checked before any side effect: the argument shapes (again: handlers may be called
//   without the validator), the calendar (2026-02-30, 24:00 and :60 are refused; leap years count), the
//   delay (> 0, at least min_delay), the due time (not in the past, at most max_ahead ahead), the message
//   (non-empty, at most max_message_bytes) and the conversation's pending-task limit. Only then add_task().
// - Time zones are explicit. A time with `Z` or `±HH:MM` means that offset; a time without one is in the
//   operator's zone, ScheduleConfig::default_utc_offset. GCC 12's libstdc++ has no tz database, so that
//   zone is a fixed UTC offset (no daylight-saving changes): configure it with parse_utc_offset().
// - Due times are whole seconds (rounded up), so the ISO time shown and the millisecond timestamp
//   (deleteScheduledTask's `timestamp`) always name the same instant.
// - A time up to past_tolerance in the past counts as "now"; a time earlier than now + min_delay (and not
//   too far in the past) is moved to now + min_delay, and the message says so. min_delay also bounds how
//   fast a task can schedule the next one (a task's turn may schedule a task: no tight loops).
// - Messages are one line: "scheduled task-3 for 2026-11-21T10:30:00Z (in 1h 30m)",
//   "2 scheduled tasks: …", "no scheduled tasks", "deleted task-3"; errors start with the action's name
//   ("scheduleTask: time 2026-02-30 10:00 is not a calendar date").
// - The handlers only touch the store (short calls); each checks its stop token before writing.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sigil/actions/result.h"
#include "sigil/exec/handler.h"
#include "sigil/store/store.h"

namespace sigil::actions {

struct ScheduleConfig {
  // The operator's zone for times written without an offset, as a fixed offset east of UTC
  // (+01:00 -> 60min). See parse_utc_offset().
  std::chrono::minutes default_utc_offset{0};
  // The shortest delay accepted; earlier times are moved to now + min_delay.
  std::chrono::milliseconds min_delay{std::chrono::minutes(1)};
  // How far in the past a `time` may be and still count as "now" (the model's clock reading lags).
  std::chrono::seconds past_tolerance{60};
  // How far ahead a task may be due.
  std::chrono::days max_ahead{366 * 5};
  // Pending tasks per (user, conversation); scheduleTask refuses more.
  std::size_t max_pending_per_conversation = 100;
  // The task's message (it becomes the text of the turn the task starts).
  std::size_t max_message_bytes = 4096;
  // How much of each task's message getScheduledTasks shows (the result carries it whole).
  std::size_t list_preview_bytes = 80;
  // Called after a task was added, with its due time: wire it to Scheduler::notify() so a task due before
  // the scheduler's next wake-up is not late. May be empty.
  std::function<void(store::TimePoint due_at)> on_scheduled;
};

// "UTC", "Z", "GMT", "±HH:MM", "±HHMM", "±HH", "UTC±HH:MM" (ASCII case ignored, surrounding spaces trimmed)
// -> minutes east of UTC, at most ±18:00. For ScheduleConfig::default_utc_offset from configuration.
Result<std::chrono::minutes> parse_utc_offset(std::string_view text);

// A duration `^\d+(\.\d+)?[mhd]$` ("30m", "1.5h", "2d") -> milliseconds (fractions below a millisecond are
// dropped). Errors: bad shape; too long (over 10^7 days).
Result<std::chrono::milliseconds> parse_delay(std::string_view text);

// A datetime `YYYY-MM-DD[ T]HH:MM(:SS)?(Z|[+-]HH:MM)?` -> the instant. Without an offset, `default_offset`
// applies. Errors: bad shape, not a calendar date, hour 24, minute or second out of range, bad offset.
Result<store::TimePoint> parse_time(std::string_view text, std::chrono::minutes default_offset);

// "2026-11-21T10:30:00Z" (whole seconds, truncated; UTC).
std::string format_utc(store::TimePoint t);

// A span for people: "1h 30m", "2d 3h", "45s", "1m 30s" (largest units; seconds only under an hour).
std::string format_span(std::chrono::milliseconds span);

// Adds "scheduleTask", "getScheduledTasks" and "deleteScheduledTask".
void add_schedule_handlers(exec::HandlerTable& table, ScheduleConfig config);

}  // namespace sigil::actions
