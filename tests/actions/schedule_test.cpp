// scheduleTask / getScheduledTasks / deleteScheduledTask: the time grammar, each handler called directly
// with hand-built arguments, and one run through the parser, the built-in registry, a real SQLite store
// and the executor per action.
#include "sigil/actions/schedule.h"

#include <gtest/gtest.h>

#include <any>
#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/exec/outbox.h"
#include "sigil/parse/parser.h"
#include "support/expect_each.h"
#include "support/handler_context.h"
#include "support/run_turn.h"

namespace sigil::actions {
namespace {

namespace json = boost::json;
using namespace std::chrono;
using namespace std::chrono_literals;

// 2026-11-21T09:00:00Z: tests never read the clock.
const store::TimePoint kNow{sys_days{2026y / 11 / 21} + 9h};
const exec::TurnIds kAlice{"alice", "conv-1", "turn-1"};

store::TimePoint utc(year_month_day d, hours h, minutes m = 0min, seconds s = 0s) {
  return store::TimePoint{sys_days{d} + h + m + s};
}

std::int64_t ms_of(store::TimePoint t) { return duration_cast<milliseconds>(t.time_since_epoch()).count(); }

// The handlers over one in-memory store, with a settable clock.
class Fixture {
 public:
  explicit Fixture(ScheduleConfig config = {}) { add_schedule_handlers(table_, std::move(config)); }

  exec::HandlerResult run(const std::string& action, json::object args, const exec::TurnIds& ids = kAlice,
                          std::stop_token stop = {}) {
    exec::ActionContext ctx(ids, *store_, std::move(stop), clock_, services_);
    exec::Directive d;
    d.action = action;
    d.args = std::move(args);
    auto handler = table_.find(action);
    if (!handler) throw std::runtime_error("no handler for " + action);
    return handler->run(d, ctx);
  }

  std::vector<store::ScheduledTask> tasks(const exec::TurnIds& ids = kAlice) {
    auto listed = store_->list_tasks({ids.user, ids.conversation, store::MemoryScope::per_user});
    EXPECT_TRUE(listed.ok()) << listed.error();
    return listed.ok() ? *listed : std::vector<store::ScheduledTask>{};
  }

  store::Store& store() { return *store_; }
  store::TimePoint now = kNow;

 private:
  std::unique_ptr<store::Store> store_ = test::memory_store();
  exec::HandlerTable table_;
  std::function<store::TimePoint()> clock_ = [this] { return now; };
  std::any services_;
};

std::string str(const json::value& v, const char* key) {
  const json::value* f = v.is_object() ? v.as_object().if_contains(key) : nullptr;
  return f && f->is_string() ? std::string(f->get_string()) : std::string();
}

// ------------------------------------------------------------------------------------------ grammar

TEST(ScheduleGrammar, Delays) {
  test::expect_each<std::string, std::chrono::milliseconds>(
      [](const std::string& text) { return *parse_delay(text); },
      {
          {"30m", 30min},
          {"1.5h", 90min},
          {"2d", 48h},
          {"0.25m", 15s},
          {"0m", 0ms},
          {"1.0000000001h", 1h},  // below a millisecond: dropped
          {"007m", 7min},
      });
  for (const char* bad : {"", "h", "2w", "1.h", ".5h", "1.5", "1e3m", "-1m", "1 m", "1M", "1.5.5h", "30m "}) {
    auto r = parse_delay(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("30m, 2h, 1.5d"), std::string::npos) << r.error().message;
    }
  }
  auto huge = parse_delay("99999999999999999999999d");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message.find("too long"), std::string::npos);
}

TEST(ScheduleGrammar, TimesAndOffsets) {
  EXPECT_EQ(*parse_time("2026-11-21 10:30", 0min), utc(2026y / 11 / 21, 10h, 30min));
  EXPECT_EQ(*parse_time("2026-11-21T10:30:15", 0min), utc(2026y / 11 / 21, 10h, 30min, 15s));
  EXPECT_EQ(*parse_time("2026-11-21T10:30:15Z", 0min), utc(2026y / 11 / 21, 10h, 30min, 15s));
  // An offset in the value wins over the default; without one the default applies.
  EXPECT_EQ(*parse_time("2026-11-21 12:30+02:00", 60min), utc(2026y / 11 / 21, 10h, 30min));
  EXPECT_EQ(*parse_time("2026-11-21 10:30Z", 60min), utc(2026y / 11 / 21, 10h, 30min));
  EXPECT_EQ(*parse_time("2026-11-21 11:30", 60min), utc(2026y / 11 / 21, 10h, 30min));
  EXPECT_EQ(*parse_time("2026-11-21 05:00-05:30", 0min), utc(2026y / 11 / 21, 10h, 30min));
  // Crossing midnight and the year.
  EXPECT_EQ(*parse_time("2027-01-01 00:30+01:00", 0min), utc(2026y / 12 / 31, 23h, 30min));
  // Leap years.
  EXPECT_TRUE(parse_time("2028-02-29 12:00", 0min).ok());
  EXPECT_TRUE(parse_time("2000-02-29 12:00", 0min).ok());
  EXPECT_TRUE(parse_time("2026-12-31 23:59:59", 0min).ok());
}

TEST(ScheduleGrammar, TimeErrorsSayWhatIsWrong) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {
           Case{"2026-02-29 12:00", "2026-02-29 is not a calendar date (2026-02 has 28 days)"},
           Case{"2026-02-30 10:00", "2026-02-30 is not a calendar date"},
           Case{"2100-02-29 10:00", "2100-02-29 is not a calendar date (2100-02 has 28 days)"},
           Case{"2026-04-31 10:00", "(2026-04 has 30 days)"},
           Case{"2026-00-10 10:00", "month 00 is out of range"},
           Case{"2026-13-01 10:00", "month 13 is out of range"},
           Case{"2026-11-00 10:00", "is not a calendar date"},
           Case{"2026-11-21 24:00", "hour 24 is out of range (00-23)"},
           Case{"2026-11-21 10:60", "minute 60 is out of range"},
           Case{"2026-11-21 10:30:60", "second 60 is out of range"},
           Case{"2026-11-21 10:30+19:00", "offset UTC+19:00 is out of range"},
           Case{"2026-11-21 10:30+02:60", "is not YYYY-MM-DD HH:MM"},
           Case{"2026-11-21 10:30+0200", "is not YYYY-MM-DD HH:MM"},
           Case{"2026-11-21t10:30", "is not YYYY-MM-DD HH:MM"},
           Case{"2026-11-21 10:30z", "is not YYYY-MM-DD HH:MM"},
           Case{"2026-11-21 10", "is not YYYY-MM-DD HH:MM"},
           Case{"21.11.2026 10:30", "is not YYYY-MM-DD HH:MM"},
           Case{"tomorrow", "is not YYYY-MM-DD HH:MM"},
           Case{"9999-01-01 10:00", "year 9999 is out of range"},
       }) {
    auto r = parse_time(c.text, 0min);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << c.text << " -> " << r.error().message;
    EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
  }
}

TEST(ScheduleGrammar, ConfiguredOffsets) {
  test::expect_each<std::string, std::chrono::minutes>(
      [](const std::string& text) { return *parse_utc_offset(text); }, {
                                                                           {"UTC", 0min},
                                                                           {" utc ", 0min},
                                                                           {"Z", 0min},
                                                                           {"GMT", 0min},
                                                                           {"+01:00", 60min},
                                                                           {"-05:30", -330min},
                                                                           {"+0530", 330min},
                                                                           {"+05", 300min},
                                                                           {"UTC+02:00", 120min},
                                                                           {"utc-03:00", -180min},
                                                                           {"+14:00", 840min},
                                                                       });
  for (const char* bad :
       {"", "CET", "Europe/Paris", "01:00", "+1:00", "+01:60", "+19:00", "UTC+", "+01:00:00"})
    EXPECT_FALSE(parse_utc_offset(bad).ok()) << bad;
}

TEST(ScheduleGrammar, Formatting) {
  EXPECT_EQ(format_utc(utc(2026y / 11 / 21, 10h, 30min)), "2026-11-21T10:30:00Z");
  EXPECT_EQ(format_utc(utc(2026y / 1 / 2, 3h, 4min, 5s) + 999ms), "2026-01-02T03:04:05Z");
  EXPECT_EQ(format_span(90min), "1h 30m");
  EXPECT_EQ(format_span(45s), "45s");
  EXPECT_EQ(format_span(90s), "1m 30s");
  EXPECT_EQ(format_span(1min), "1m");
  EXPECT_EQ(format_span(0ms), "0s");
  EXPECT_EQ(format_span(51h), "2d 3h");
  EXPECT_EQ(format_span(24h), "1d");
  EXPECT_EQ(format_span(90min + 29s), "1h 30m");  // minutes once over an hour
}

// ------------------------------------------------------------------------------------------ scheduleTask

TEST(ScheduleTask, DelaySchedulesAndSaysWhen) {
  std::vector<store::TimePoint> notified;
  ScheduleConfig cfg;
  cfg.on_scheduled = [&](store::TimePoint t) { notified.push_back(t); };
  Fixture f(cfg);
  auto r = f.run("scheduleTask", {{"message", "Call mom"}, {"delay", "1.5h"}});
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok) << r.message;
  EXPECT_EQ(r.message, "scheduled task-1 for 2026-11-21T10:30:00Z (in 1h 30m)");
  EXPECT_EQ(str(r.result, "id"), "task-1");
  EXPECT_EQ(str(r.result, "due_at"), "2026-11-21T10:30:00Z");
  EXPECT_EQ(r.result.as_object().at("due_at_ms").as_int64(), ms_of(utc(2026y / 11 / 21, 10h, 30min)));
  auto tasks = f.tasks();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].message, "Call mom");
  EXPECT_EQ(tasks[0].due_at, utc(2026y / 11 / 21, 10h, 30min));
  ASSERT_EQ(notified.size(), 1u);
  EXPECT_EQ(notified[0], tasks[0].due_at);
}

TEST(ScheduleTask, DueTimesAreWholeSecondsRoundedUp) {
  Fixture f;
  f.now = kNow + 250ms;
  auto r = f.run("scheduleTask", {{"message", "x"}, {"delay", "30m"}});
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok) << r.message;
  EXPECT_EQ(str(r.result, "due_at"), "2026-11-21T09:30:01Z");
  EXPECT_EQ(r.result.as_object().at("due_at_ms").as_int64() % 1000, 0);
  EXPECT_EQ(f.tasks().at(0).due_at, kNow + 30min + 1s);
}

TEST(ScheduleTask, TimeWithAnOffsetInTheValue) {
  ScheduleConfig cfg;
  cfg.default_utc_offset = 60min;  // ignored: the value says +02:00
  Fixture f(cfg);
  auto r = f.run("scheduleTask", {{"message", "m"}, {"time", "2026-11-21 12:30+02:00"}});
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok) << r.message;
  EXPECT_EQ(r.message, "scheduled task-1 for 2026-11-21T10:30:00Z (in 1h 30m)");
}

TEST(ScheduleTask, TimeWithoutOffsetUsesTheConfiguredZone) {
  ScheduleConfig cfg;
  cfg.default_utc_offset = *parse_utc_offset("+01:00");
  Fixture f(cfg);
  auto r = f.run("scheduleTask", {{"message", "m"}, {"time", "2026-11-21T11:30"}});
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok) << r.message;
  EXPECT_EQ(str(r.result, "due_at"), "2026-11-21T10:30:00Z");
  // Z is explicit too.
  r = f.run("scheduleTask", {{"message", "m"}, {"time", "2026-11-21 11:30Z"}});
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok) << r.message;
  EXPECT_EQ(str(r.result, "due_at"), "2026-11-21T11:30:00Z");
}

TEST(ScheduleTask, PastTimesAreRefusedAndSayTheZoneAndNow) {
  ScheduleConfig cfg;
  cfg.default_utc_offset = 60min;
  Fixture f(cfg);
  auto r = f.run("scheduleTask", {{"message", "m"}, {"time", "2026-11-21 09:30"}});  // 08:30Z
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(r.message,
            "scheduleTask: time 2026-11-21 09:30 (UTC+01:00, the default zone) is in the past "
            "(now 2026-11-21T09:00:00Z)");
  r = f.run("scheduleTask", {{"message", "m"}, {"time", "2026-01-01T10:00Z"}});
  EXPECT_EQ(r.message, "scheduleTask: time 2026-01-01T10:00Z is in the past (now 2026-11-21T09:00:00Z)");
  EXPECT_TRUE(f.tasks().empty());
}

TEST(ScheduleTask, AlmostNowIsMovedToTheMinimumDelay) {
  Fixture f;
  // 30 s ago: within the 60 s tolerance.
  auto r = f.run("scheduleTask", {{"message", "m"}, {"time", "2026-11-21 08:59:30Z"}});
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok) << r.message;
  EXPECT_EQ(
      r.message,
      "scheduled task-1 for 2026-11-21T09:01:00Z (in 1m); moved to the earliest allowed time, 1m from now");
  // 61 s ago: past.
  r = f.run("scheduleTask", {{"message", "m"}, {"time", "2026-11-21 08:58:59Z"}});
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_NE(r.message.find("is in the past"), std::string::npos) << r.message;
}

TEST(ScheduleTask, EveryValidationErrorComesBeforeAnySideEffect) {
  ScheduleConfig cfg;
  cfg.max_message_bytes = 10;
  Fixture f(cfg);
  struct Case {
    json::object args;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{{"message", "m"}}, "scheduleTask: give exactly one of delay (30m, 2h, 1.5d) or time"},
      {{{"message", "m"}, {"delay", "30m"}, {"time", "2026-11-22 10:00"}},
       "scheduleTask: give exactly one of delay"},
      {{{"delay", "30m"}}, "scheduleTask: message is missing"},
      {{{"message", "   "}, {"delay", "30m"}}, "scheduleTask: message is empty"},
      {{{"message", 12}, {"delay", "30m"}}, "scheduleTask: message must be a string"},
      {{{"message", "12345678901"}, {"delay", "30m"}},
       "scheduleTask: message is 11 bytes, over the limit of 10"},
      {{{"message", "m"}, {"delay", 30}}, "scheduleTask: delay must be a string"},
      {{{"message", "m"}, {"delay", "2w"}}, "scheduleTask: delay \"2w\" is not a number then m, h or d"},
      {{{"message", "m"}, {"delay", "0m"}}, "scheduleTask: delay 0m is not more than zero"},
      {{{"message", "m"}, {"delay", "0.0h"}}, "scheduleTask: delay 0.0h is not more than zero"},
      {{{"message", "m"}, {"delay", "0.5m"}}, "scheduleTask: delay 0.5m is shorter than the minimum 1m"},
      {{{"message", "m"}, {"delay", "1831d"}}, "scheduleTask: delay 1831d is more than 1830 days ahead"},
      {{{"message", "m"}, {"time", "2026-02-30 10:00"}},
       "scheduleTask: time \"2026-02-30 10:00\": 2026-02-30 is not a calendar date (2026-02 has 28 days)"},
      {{{"message", "m"}, {"time", "2026-11-21 24:00"}}, "scheduleTask: time \"2026-11-21 24:00\": hour 24"},
      {{{"message", "m"}, {"time", "2026-11-21 10:00:60"}},
       "scheduleTask: time \"2026-11-21 10:00:60\": second 60"},
      {{{"message", "m"}, {"time", "2035-01-01 10:00"}},
       "scheduleTask: time 2035-01-01 10:00 (UTC, the default zone) is more than 1830 days ahead"},
      {{{"message", "m"}, {"time", "soon"}}, "scheduleTask: time \"soon\" is not YYYY-MM-DD HH:MM"},
      {{{"message", "m"}, {"time", 5}}, "scheduleTask: time must be a string"},
  };
  for (const Case& c : cases) {
    auto r = f.run("scheduleTask", c.args);
    EXPECT_EQ(r.status, exec::HandlerResult::Status::Error) << json::serialize(c.args);
    EXPECT_EQ(r.message.rfind(c.message, 0), 0u) << json::serialize(c.args) << " -> " << r.message;
    EXPECT_EQ(r.message.find('\n'), std::string::npos);
  }
  EXPECT_TRUE(f.tasks().empty());
  // The limit is exact: 1830 days is allowed.
  EXPECT_EQ(f.run("scheduleTask", {{"message", "m"}, {"delay", "1830d"}}).status,
            exec::HandlerResult::Status::Ok);
}

TEST(ScheduleTask, PendingLimitIsPerConversation) {
  ScheduleConfig cfg;
  cfg.max_pending_per_conversation = 2;
  Fixture f(cfg);
  EXPECT_EQ(f.run("scheduleTask", {{"message", "a"}, {"delay", "1h"}}).status,
            exec::HandlerResult::Status::Ok);
  EXPECT_EQ(f.run("scheduleTask", {{"message", "b"}, {"delay", "2h"}}).status,
            exec::HandlerResult::Status::Ok);
  auto r = f.run("scheduleTask", {{"message", "c"}, {"delay", "3h"}});
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(r.message,
            "scheduleTask: this conversation already has 2 scheduled tasks (the limit); delete one with "
            "deleteScheduledTask first");
  // Another conversation of the same user has its own allowance.
  const exec::TurnIds other{"alice", "conv-2", "turn-1"};
  EXPECT_EQ(f.run("scheduleTask", {{"message", "c"}, {"delay", "3h"}}, other).status,
            exec::HandlerResult::Status::Ok);
  // Deleting one frees a place.
  EXPECT_EQ(f.run("deleteScheduledTask", {{"id", "task-1"}}).status, exec::HandlerResult::Status::Ok);
  EXPECT_EQ(f.run("scheduleTask", {{"message", "c"}, {"delay", "3h"}}).status,
            exec::HandlerResult::Status::Ok);
}

TEST(ScheduleTask, StopRequestedMeansNoTask) {
  Fixture f;
  std::stop_source stop;
  stop.request_stop();
  auto r = f.run("scheduleTask", {{"message", "m"}, {"delay", "1h"}}, kAlice, stop.get_token());
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(r.message, "scheduleTask: stopped before the task was added");
  EXPECT_TRUE(f.tasks().empty());
}

// ------------------------------------------------------------------------------------------ listing,
// deleting

TEST(GetScheduledTasks, EmptyThenACompactOneLineList) {
  ScheduleConfig cfg;
  cfg.list_preview_bytes = 12;
  Fixture f(cfg);
  auto r = f.run("getScheduledTasks", {});
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok);
  EXPECT_EQ(r.message, "no scheduled tasks");
  EXPECT_TRUE(r.result.as_object().at("tasks").as_array().empty());

  ASSERT_EQ(f.run("scheduleTask", {{"message", "Stand up and stretch\nnow"}, {"delay", "2h"}}).status,
            exec::HandlerResult::Status::Ok);
  ASSERT_EQ(f.run("scheduleTask", {{"message", "Call \"mom\""}, {"delay", "30m"}}).status,
            exec::HandlerResult::Status::Ok);
  r = f.run("getScheduledTasks", {});
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok);
  // Soonest first, messages quoted and capped, one line.
  EXPECT_EQ(r.message,
            "2 scheduled tasks: task-2 at 2026-11-21T09:30:00Z \"Call \\\"mom\\\"\"; "
            "task-1 at 2026-11-21T11:00:00Z \"Stand up and…\"");
  const json::array& list = r.result.as_object().at("tasks").as_array();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(str(list[1], "message"), "Stand up and stretch\nnow");  // whole in the result
  EXPECT_EQ(str(list[1], "due_at"), "2026-11-21T11:00:00Z");
  EXPECT_EQ(list[1].as_object().at("due_at_ms").as_int64(), ms_of(kNow + 2h));
}

TEST(GetScheduledTasks, ConversationsAndUsersAreIsolated) {
  Fixture f;
  ASSERT_EQ(f.run("scheduleTask", {{"message", "alice's"}, {"delay", "1h"}}).status,
            exec::HandlerResult::Status::Ok);
  EXPECT_EQ(f.run("getScheduledTasks", {}, {"alice", "conv-2", "t"}).message, "no scheduled tasks");
  EXPECT_EQ(f.run("getScheduledTasks", {}, {"bob", "conv-1", "t"}).message, "no scheduled tasks");
  // Nor can they delete it, by id or by time.
  EXPECT_EQ(f.run("deleteScheduledTask", {{"id", "task-1"}}, {"bob", "conv-1", "t"}).message,
            "deleteScheduledTask: no scheduled task task-1");
  EXPECT_EQ(f.run("deleteScheduledTask", {{"timestamp", ms_of(kNow + 1h)}}, {"alice", "conv-2", "t"}).status,
            exec::HandlerResult::Status::Error);
  EXPECT_EQ(f.tasks().size(), 1u);
  EXPECT_NE(f.run("getScheduledTasks", {}).message.find("alice's"), std::string::npos);
}

TEST(DeleteScheduledTask, ByIdThenNoSuchTask) {
  Fixture f;
  ASSERT_EQ(f.run("scheduleTask", {{"message", "m"}, {"delay", "1h"}}).status,
            exec::HandlerResult::Status::Ok);
  auto r = f.run("deleteScheduledTask", {{"id", " task-1 "}});
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok) << r.message;
  EXPECT_EQ(r.message, "deleted task-1");
  EXPECT_TRUE(f.tasks().empty());
  r = f.run("deleteScheduledTask", {{"id", "task-1"}});
  EXPECT_EQ(r.status, exec::HandlerResult::Status::Error);
  EXPECT_EQ(r.message, "deleteScheduledTask: no scheduled task task-1");
  EXPECT_EQ(f.run("deleteScheduledTask", {{"id", "task-9"}}).message,
            "deleteScheduledTask: no scheduled task task-9");
}

TEST(DeleteScheduledTask, ByTimestamp) {
  Fixture f;
  auto a = f.run("scheduleTask", {{"message", "a"}, {"delay", "1h"}});
  ASSERT_EQ(f.run("scheduleTask", {{"message", "b"}, {"time", "2026-11-21 10:00Z"}}).status,
            exec::HandlerResult::Status::Ok);
  ASSERT_EQ(f.run("scheduleTask", {{"message", "c"}, {"delay", "2h"}}).status,
            exec::HandlerResult::Status::Ok);
  const std::int64_t ms = a.result.as_object().at("due_at_ms").as_int64();
  auto r = f.run("deleteScheduledTask", {{"timestamp", ms}});
  ASSERT_EQ(r.status, exec::HandlerResult::Status::Ok) << r.message;
  EXPECT_EQ(r.message, "deleted task-1, task-2 due at 2026-11-21T10:00:00Z");
  EXPECT_EQ(r.result.as_object().at("deleted").as_array().size(), 2u);
  ASSERT_EQ(f.tasks().size(), 1u);
  EXPECT_EQ(f.tasks()[0].id, "task-3");
  r = f.run("deleteScheduledTask", {{"timestamp", ms}});
  EXPECT_EQ(r.message, "deleteScheduledTask: no scheduled task due at 2026-11-21T10:00:00Z (" +
                           std::to_string(ms) + ")");
  // A millisecond off is another time.
  EXPECT_EQ(f.run("deleteScheduledTask", {{"timestamp", ms_of(kNow + 2h) + 1}}).status,
            exec::HandlerResult::Status::Error);
  EXPECT_EQ(f.tasks().size(), 1u);
}

TEST(DeleteScheduledTask, ArgumentErrors) {
  Fixture f;
  struct Case {
    json::object args;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{}, "deleteScheduledTask: give exactly one of id (as getScheduledTasks lists it) or timestamp"},
      {{{"id", "task-1"}, {"timestamp", 5}}, "deleteScheduledTask: give exactly one of id"},
      {{{"id", 3}}, "deleteScheduledTask: id must be a string"},
      {{{"id", "  "}}, "deleteScheduledTask: id is empty"},
      {{{"timestamp", "1704067200000"}}, "deleteScheduledTask: timestamp must be an integer"},
      {{{"timestamp", 1.5}}, "deleteScheduledTask: timestamp must be an integer"},
      {{{"timestamp", -1}}, "deleteScheduledTask: timestamp -1 is out of range"},
      {{{"timestamp", 9'000'000'000'000'000}},
       "deleteScheduledTask: timestamp 9000000000000000 is out of range"},
  };
  for (const Case& c : cases) {
    auto r = f.run("deleteScheduledTask", c.args);
    EXPECT_EQ(r.status, exec::HandlerResult::Status::Error) << json::serialize(c.args);
    EXPECT_EQ(r.message.rfind(c.message, 0), 0u) << json::serialize(c.args) << " -> " << r.message;
  }
}

// ------------------------------------------------------------------------------------------ end to end

test::TurnRun run_turn(std::string_view reply, store::Store& store, const exec::TurnIds& ids = kAlice,
                       ScheduleConfig cfg = {}) {
  exec::HandlerTable handlers;
  add_schedule_handlers(handlers, std::move(cfg));
  exec::ExecOptions options;
  options.now = [] { return kNow; };
  return test::run_turn(reply, handlers, store, ids, std::move(options));
}

TEST(ScheduleEndToEnd, ScheduleTaskThroughTheParser) {
  auto store = test::memory_store();
  test::TurnRun t = run_turn(
      R"(Sure. <scheduleTask>{"message": "Call mom", "time": "2026-11-21 18:00+01:00"}</scheduleTask>)",
      *store);
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, exec::ResultStatus::Ok) << t.report.results[0].message;
  EXPECT_EQ(t.report.results[0].message, "scheduled task-1 for 2026-11-21T17:00:00Z (in 8h)");
  EXPECT_TRUE(t.model_message.empty());  // model_on_error: a success does not call the model again
  // A bad calendar date passes the validator's shape check and is refused by the handler, to the model.
  t = run_turn(R"(<scheduleTask>{"message": "x", "time": "2026-02-30 10:00"}</scheduleTask>)", *store,
               {"alice", "conv-1", "turn-2"});
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, exec::ResultStatus::Error);
  EXPECT_NE(t.model_message.find("2026-02-30 is not a calendar date"), std::string::npos) << t.model_message;
  // Both delay and time: the validator refuses it; nothing runs.
  t = run_turn(R"(<scheduleTask>{"message": "x", "delay": "1h", "time": "2026-11-22 10:00"}</scheduleTask>)",
               *store, {"alice", "conv-1", "turn-3"});
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, exec::ResultStatus::Refused);
  auto listed = store->list_tasks({"alice", "conv-1", store::MemoryScope::per_user});
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 1u);
}

TEST(ScheduleEndToEnd, GetScheduledTasksGoesToTheModel) {
  auto store = test::memory_store();
  run_turn(R"(<scheduleTask>{"message": "Stretch", "delay": "30m"}</scheduleTask>)", *store);
  test::TurnRun t = run_turn("<getScheduledTasks/>", *store, {"alice", "conv-1", "turn-2"});
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, exec::ResultStatus::Ok);
  EXPECT_EQ(t.model_message,
            "[1] getScheduledTasks: ok: 1 scheduled task: task-1 at 2026-11-21T09:30:00Z \"Stretch\"\n");
}

TEST(ScheduleEndToEnd, DeleteScheduledTaskByIdAndByTimestamp) {
  auto store = test::memory_store();
  // Two turns, so the ids are task-1 then task-2 (directives of one reply run in parallel).
  run_turn(R"(<scheduleTask>{"message": "a", "delay": "30m"}</scheduleTask>)", *store);
  run_turn(R"(<scheduleTask>{"message": "b", "delay": "1h"}</scheduleTask>)", *store,
           {"alice", "conv-1", "turn-1b"});
  const std::string ts = std::to_string(ms_of(kNow + 1h));
  test::TurnRun t = run_turn(R"(<deleteScheduledTask>{"id": "task-1"}</deleteScheduledTask>
<deleteScheduledTask>{"timestamp": ")" +
                                 ts + R"("}</deleteScheduledTask>
<deleteScheduledTask>{"id": "task-9"}</deleteScheduledTask>)",
                             *store, {"alice", "conv-1", "turn-2"});
  // The three run in parallel: each names a different task.
  ASSERT_EQ(t.report.results.size(), 3u);
  EXPECT_EQ(t.report.results[0].message, "deleted task-1");
  EXPECT_EQ(t.report.results[1].message, "deleted task-2 due at 2026-11-21T10:00:00Z");
  EXPECT_EQ(t.report.results[2].status, exec::ResultStatus::Error);
  EXPECT_EQ(t.model_message.rfind("[3] deleteScheduledTask: error: ", 0), 0u) << t.model_message;
  EXPECT_NE(t.model_message.find("no scheduled task task-9"), std::string::npos) << t.model_message;
  auto listed = store->list_tasks({"alice", "conv-1", store::MemoryScope::per_user});
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
}

}  // namespace
}  // namespace sigil::actions
