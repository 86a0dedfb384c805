// The executor (spec 12) with the real parser, the built-in registry, a real SQLite store and fake handlers.
#include "sigil/exec/executor.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "../support/temp_dir.h"
#include "sigil/catalog/registry.h"
#include "sigil/exec/canonical_json.h"
#include "sigil/parse/parser.h"
#include "store/sqlite/sqlite_store.h"

namespace sigil::exec {
namespace {

using namespace std::chrono_literals;
using Op = Delivery::Op;

const TurnIds kIds{"alice", "conv-1", "turn-1"};
const store::TimePoint kT0{std::chrono::seconds(1'700'000'000)};

std::unique_ptr<store::Store> open_store(const std::string& path = ":memory:") {
  auto opened = store::sqlite::SqliteStore::open(path);
  if (!opened.ok()) throw std::runtime_error(opened.error());
  return std::move(opened).value();
}

using TempDir = sigil::test::TempDir;

// Waits (bounded) for `pred`, or for a stop request.
template <class Pred>
bool wait_for(Pred pred, const std::stop_token& stop, std::chrono::milliseconds limit = 10s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (stop.stop_requested() || std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

std::string arg(const Directive& d, const char* name) {
  const auto* v = d.args.if_contains(name);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// A registry with two test actions besides the built-ins: `shout` (result_to user) and `quiet` (none).
catalog::Registry test_registry() {
  catalog::Registry registry = catalog::Registry::builtin();
  for (auto [name, to] :
       {std::pair{"shout", catalog::ResultTo::User}, std::pair{"quiet", catalog::ResultTo::None}}) {
    catalog::ActionSpec a;
    a.name = name;
    a.summary = "test";
    catalog::ParamSpec text;
    text.name = "text";
    text.required = true;
    a.params = {text};
    a.body_param = "text";
    catalog::Spelling s;
    s.dialect = catalog::Dialect::Tag;
    s.name = name;
    s.body = parse::BodyKind::Text;
    a.spellings = {s};
    a.result_to = to;
    registry.add(std::move(a));
  }
  return registry;
}

const catalog::Registry& registry() {
  static const catalog::Registry r = test_registry();
  return r;
}

struct Turn {
  TurnReport report;
  std::string model_message;
  bool needs_model = false;
};

Turn run_turn(std::string_view reply, const HandlerTable& handlers, store::Store& store,
              RecordingOutbox& outbox, ExecOptions options = {}, TurnIds ids = kIds,
              std::function<void()> before_finish = {}) {
  options.now = [] { return kT0; };
  Executor ex(registry(), handlers, store, outbox, ids, std::move(options));
  parse::ParserOptions po;
  po.inline_resolver = ex.inline_resolver();
  parse::Parser parser(registry(), ex.sink(), po);
  parser.feed(reply);
  parser.finish();
  if (before_finish) before_finish();
  Turn t;
  t.report = ex.finish();
  t.model_message = ex.model_message();
  t.needs_model = ex.needs_model_call();
  return t;
}

// A reply run on a fresh store with no handlers at all: what the executor does by itself.
Turn run_without_handlers(std::string_view reply, RecordingOutbox& outbox) {
  const HandlerTable none;
  return run_turn(reply, none, *open_store(), outbox);
}

HandlerResult echo(const Directive& d, ActionContext&) {
  return HandlerResult::ok("echo " + canonical_json(d.args), boost::json::value(d.args));
}

// `name` answers with echo() and counts its calls.
void add_counted_echo(HandlerTable& handlers, const std::string& name, std::atomic<int>& calls) {
  handlers.add(name, [&calls](const Directive& d, ActionContext& c) {
    ++calls;
    return echo(d, c);
  });
}

HandlerResult react(const Directive& d, ActionContext&) {
  HandlerResult r = HandlerResult::ok("reacted");
  Delivery del;
  del.op = Op::Reaction;
  del.emoji = arg(d, "emoji");
  r.deliveries.push_back(del);
  return r;
}

HandlerResult send_file(const Directive& d, ActionContext&) {
  HandlerResult r = HandlerResult::ok("sent");
  Delivery del;
  del.op = Op::File;
  del.path = arg(d, "path");
  del.kind = "image";
  del.caption = arg(d, "caption");
  del.sha256 = "same-bytes";  // every file has the same content here
  r.deliveries.push_back(del);
  return r;
}

std::string all_text(const RecordingOutbox& outbox) {
  std::string s;
  for (const Delivery& d : outbox.ops())
    if (d.op == Op::Text) s += d.text;
  return s;
}

// `action` that waits until `release` is set (or the turn stops), then answers as `then` does: a slow
// handler the test lets go when it has looked at what went out before.
HandlerTable when_released(const std::atomic<bool>& release, const std::string& action,
                           FunctionHandler::Fn then) {
  HandlerTable handlers;
  handlers.add(action, [&release, then](const Directive& d, ActionContext& c) {
    wait_for([&] { return release.load(); }, c.stop_token());
    return then(d, c);
  });
  return handlers;
}

TEST(ExecOrder, TextReactionTextEvenWhenTheHandlerIsSlow) {
  auto store = open_store();
  std::atomic<bool> release{false};
  const HandlerTable handlers = when_released(release, "react", react);
  RecordingOutbox outbox;
  std::size_t ops_before_release = 0;
  Turn t = run_turn("A <react emoji=\"x\"/> B", handlers, *store, outbox, {}, kIds, [&] {
    // The parser is done; the reaction has not happened: only "A" may have gone out.
    ops_before_release = outbox.ops().size();
    release = true;
  });
  EXPECT_EQ(ops_before_release, 1u);
  ASSERT_EQ(outbox.ops().size(), 3u);
  EXPECT_EQ(outbox.ops()[0].op, Op::Text);
  EXPECT_EQ(outbox.ops()[0].text, "A");
  EXPECT_EQ(outbox.ops()[1].op, Op::Reaction);
  EXPECT_EQ(outbox.ops()[1].emoji, "x");
  EXPECT_EQ(outbox.ops()[2].op, Op::Text);
  EXPECT_NE(outbox.ops()[2].text.find('B'), std::string::npos);
  EXPECT_TRUE(outbox.ended());
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, ResultStatus::Ok);
  EXPECT_EQ(t.report.deliveries.size(), 3u);
}

TEST(ExecOrder, MemoryActionsNeverHoldText) {
  auto store = open_store();
  std::atomic<bool> release{false};
  const HandlerTable handlers = when_released(
      release, "remember", [](const Directive&, ActionContext&) { return HandlerResult::ok("remembered"); });
  RecordingOutbox outbox;
  std::string text_before_release;
  run_turn("I will remember [REMEMBER:tea] and more.", handlers, *store, outbox, {}, kIds, [&] {
    text_before_release = all_text(outbox);
    release = true;
  });
  EXPECT_NE(text_before_release.find("and more."), std::string::npos) << text_before_release;
}

TEST(ExecConcurrency, ParallelHandlersRunAtTheSameTime) {
  auto store = open_store();
  // Each handler waits until the other one has started: run one after the other, the first would never
  // see the second start and would give up (and be timed out by its stop_token).
  std::atomic<int> started{0};
  std::atomic<int> saw_both{0};
  HandlerTable handlers;
  handlers.add("searchArchive", [&](const Directive& d, ActionContext& c) {
    ++started;
    if (wait_for([&] { return started.load() >= 2; }, c.stop_token())) ++saw_both;
    return echo(d, c);
  });
  RecordingOutbox outbox;
  Turn t = run_turn(
      "<searchArchive>{\"query\":\"a\"}</searchArchive> <searchArchive>{\"query\":\"b\"}</searchArchive>",
      handlers, *store, outbox);
  EXPECT_EQ(saw_both.load(), 2);
  ASSERT_EQ(t.report.results.size(), 2u);
  EXPECT_EQ(t.report.results[0].ordinal, 0);
  EXPECT_EQ(t.report.results[1].ordinal, 1);
  EXPECT_EQ(t.report.results[0].message, "echo {\"query\":\"a\"}");
  EXPECT_EQ(t.report.results[1].message, "echo {\"query\":\"b\"}");
}

TEST(ExecConcurrency, SerialActionsNeverOverlapAndRunInReplyOrder) {
  auto store = open_store();
  std::atomic<int> active{0};
  std::atomic<int> max_active{0};
  std::mutex mu;
  std::vector<std::string> order;
  HandlerTable handlers;
  handlers.add("remember", [&](const Directive& d, ActionContext&) {
    int now = ++active;
    int seen = max_active.load();
    while (now > seen && !max_active.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(5ms);
    {
      std::lock_guard lock(mu);
      order.push_back(arg(d, "fact"));
    }
    --active;
    return HandlerResult::ok("ok");
  });
  RecordingOutbox outbox;
  Turn t =
      run_turn("[REMEMBER:one] [REMEMBER:two] [REMEMBER:three] [REMEMBER:four]", handlers, *store, outbox);
  EXPECT_EQ(max_active.load(), 1);
  EXPECT_EQ(order, (std::vector<std::string>{"one", "two", "three", "four"}));
  ASSERT_EQ(t.report.results.size(), 4u);
  for (const ResultEntry& r : t.report.results) EXPECT_EQ(r.status, ResultStatus::Ok);
}

TEST(ExecTimeout, TimedOutHandlerIsAnErrorAndItsLateResultIsDiscarded) {
  auto store = open_store();
  std::atomic<bool> stop_seen{false};
  HandlerTable handlers;
  handlers.add("react", [&](const Directive& d, ActionContext& c) {
    wait_for([] { return false; }, c.stop_token());  // until stopped
    stop_seen = c.stop_requested();
    return react(d, c);  // too late: must never be delivered
  });
  ExecOptions options;
  options.timeouts["react"] = 30ms;
  RecordingOutbox outbox;
  Turn t = run_turn("A <react emoji=\"x\"/> B", handlers, *store, outbox, std::move(options));
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, ResultStatus::Error);
  EXPECT_EQ(t.report.results[0].message, "timed out after 30 ms");
  for (const Delivery& d : outbox.ops()) EXPECT_EQ(d.op, Op::Text);
  EXPECT_NE(all_text(outbox).find('B'), std::string::npos);
  // react is model_on_error: the time-out goes to the model.
  EXPECT_TRUE(t.needs_model);
  EXPECT_EQ(t.model_message, "[1] react: error: timed out after 30 ms\n");
}

TEST(ExecTimeout, ExecutorEndsAfterTheStoppedHandlerReturns) {
  auto store = open_store();
  std::atomic<bool> stop_seen{false};
  HandlerTable handlers;
  handlers.add("searchArchive", [&](const Directive&, ActionContext& c) {
    wait_for([] { return false; }, c.stop_token());
    stop_seen = c.stop_requested();
    return HandlerResult::ok("late");
  });
  ExecOptions options;
  options.timeouts["searchArchive"] = 20ms;
  RecordingOutbox outbox;
  {
    options.now = [] { return kT0; };
    Executor ex(registry(), handlers, *store, outbox, kIds, std::move(options));
    parse::Parser parser(registry(), ex.sink());
    parser.feed("<searchArchive>{\"query\":\"x\"}</searchArchive>");
    parser.finish();
    TurnReport report = ex.finish();
    ASSERT_EQ(report.results.size(), 1u);
    EXPECT_EQ(report.results[0].status, ResultStatus::Error);
  }  // joins the worker
  EXPECT_TRUE(stop_seen.load());
}

TEST(ExecCancel, TheTurnsCancellationStopsARunningHandler) {
  auto store = open_store();
  std::atomic<bool> started{false};
  HandlerTable handlers;
  handlers.add("react", [&](const Directive&, ActionContext& c) {
    started = true;
    wait_for([] { return false; }, c.stop_token());  // until stopped
    return c.stop_requested() ? HandlerResult::error("cancelled") : HandlerResult::ok("not stopped");
  });
  std::stop_source turn;
  ExecOptions options;
  options.timeouts["react"] = 60s;  // far away: only the cancellation can stop it in time
  options.cancel = turn.get_token();
  RecordingOutbox outbox;
  const auto start = std::chrono::steady_clock::now();
  Turn t = run_turn("A <react emoji=\"x\"/> B", handlers, *store, outbox, std::move(options), kIds, [&] {
    wait_for([&] { return started.load(); }, {});
    turn.request_stop();
  });
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].message, "cancelled");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

// Runs a reply whose searchArchive directive must be answered without its handler: the handler counts its
// calls, and none may come.
Turn run_search_never_run(std::string_view reply, store::Store& store) {
  std::atomic<int> calls{0};
  HandlerTable handlers;
  add_counted_echo(handlers, "searchArchive", calls);
  RecordingOutbox outbox;
  Turn t = run_turn(reply, handlers, store, outbox);
  EXPECT_EQ(calls.load(), 0) << "the handler ran";
  return t;
}

TEST(ExecRefusal, InvalidDirectiveIsRefusedWithTheParsersError) {
  auto store = open_store();
  Turn t = run_search_never_run("Look <searchArchive>{\"topK\":3}</searchArchive> done", *store);
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, ResultStatus::Refused);
  EXPECT_FALSE(t.report.results[0].message.empty());
  EXPECT_TRUE(t.needs_model);
}

TEST(ExecRefusal, MissingHandlerIsAnError) {
  RecordingOutbox outbox;
  Turn t = run_without_handlers("A <react emoji=\"x\"/> B", outbox);
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, ResultStatus::Error);
  EXPECT_EQ(t.report.results[0].message, "no handler for react");
  EXPECT_NE(all_text(outbox).find('B'), std::string::npos);
}

TEST(ExecRefusal, FailingAndThrowingHandlersAreErrorsThatNeverBlockText) {
  auto store = open_store();
  HandlerTable handlers;
  handlers.add("command",
               [](const Directive&, ActionContext&) { return HandlerResult::error("no such command"); });
  handlers.add("react",
               [](const Directive&, ActionContext&) -> HandlerResult { throw std::runtime_error("boom"); });
  RecordingOutbox outbox;
  Turn t = run_turn("A [COMMAND:deploy] B <react emoji=\"x\"/> C", handlers, *store, outbox);
  ASSERT_EQ(t.report.results.size(), 2u);
  EXPECT_EQ(t.report.results[0].status, ResultStatus::Error);
  EXPECT_EQ(t.report.results[0].message, "no such command");
  EXPECT_EQ(t.report.results[1].status, ResultStatus::Error);
  EXPECT_EQ(t.report.results[1].message, "handler failed: boom");
  EXPECT_EQ(all_text(outbox), "A B C");
}

TEST(ExecOnce, SecondRunOfTheSameTurnIsDuplicateWithoutDeliveries) {
  auto store = open_store();
  std::atomic<int> calls{0};
  HandlerTable handlers;
  add_counted_echo(handlers, "searchArchive", calls);
  handlers.add("react", [&](const Directive& d, ActionContext& c) {
    ++calls;
    return react(d, c);
  });
  handlers.add("send-file", [&](const Directive& d, ActionContext& c) {
    ++calls;
    return send_file(d, c);
  });
  const std::string reply =
      "Hi <react emoji=\"x\"/> <searchArchive>{\"query\":\"tea\"}</searchArchive> <send-file "
      "path=\"/a.png\"/> bye";
  RecordingOutbox first;
  Turn t1 = run_turn(reply, handlers, *store, first);
  EXPECT_EQ(calls.load(), 3);
  RecordingOutbox second;
  Turn t2 = run_turn(reply, handlers, *store, second);
  EXPECT_EQ(calls.load(), 3);
  ASSERT_EQ(t2.report.results.size(), 3u);
  for (const ResultEntry& r : t2.report.results) EXPECT_EQ(r.status, ResultStatus::Duplicate) << r.action;
  EXPECT_EQ(t2.report.results[1].message, t1.report.results[1].message);
  EXPECT_EQ(t2.report.results[1].result, t1.report.results[1].result);
  for (const Delivery& d : second.ops()) EXPECT_EQ(d.op, Op::Text);
  EXPECT_EQ(all_text(second), all_text(first));
  // searchArchive is result_to model: its reused result still goes to the model.
  EXPECT_EQ(t2.model_message, "[2] searchArchive: duplicate: echo {\"query\":\"tea\"}\n");

  // Another turn id is another key: it runs.
  RecordingOutbox third;
  run_turn(reply, handlers, *store, third, {}, TurnIds{"alice", "conv-1", "turn-2"});
  EXPECT_EQ(calls.load(), 6);
}

TEST(ExecOnce, KeyBegunByACrashedProcessIsRefusedInDoubt) {
  TempDir dir;
  const std::string path = dir.file("sigil.db");
  const store::Scope scope{kIds.user, kIds.conversation, store::MemoryScope::per_user};
  const std::string key = store::once_key(kIds.conversation, kIds.turn, 0, "searchArchive",
                                          canonical_json(boost::json::object{{"query", "tea"}}));
  {
    auto crashed = open_store(path);
    auto begun = crashed->once_begin(scope, key, kT0);
    ASSERT_TRUE(begun.ok()) << begun.error();
    ASSERT_EQ(begun->state, store::OnceState::fresh);
  }  // the process "dies" before once_complete
  auto store = open_store(path);
  Turn t = run_search_never_run("<searchArchive>{\"query\":\"tea\"}</searchArchive>", *store);
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, ResultStatus::Refused);
  EXPECT_EQ(t.report.results[0].message, "in doubt after a crash: not run again");
}

TEST(ExecOnce, KeyRunningInThisProcessIsRefused) {
  auto store = open_store();
  const store::Scope scope{kIds.user, kIds.conversation, store::MemoryScope::per_user};
  const std::string key = store::once_key(kIds.conversation, kIds.turn, 0, "searchArchive",
                                          canonical_json(boost::json::object{{"query", "tea"}}));
  ASSERT_TRUE(store->once_begin(scope, key, kT0).ok());
  HandlerTable handlers;
  handlers.add("searchArchive", echo);
  RecordingOutbox outbox;
  Turn t = run_turn("<searchArchive>{\"query\":\"tea\"}</searchArchive>", handlers, *store, outbox);
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, ResultStatus::Refused);
}

TEST(ExecOnce, IdenticalAttachmentsAreDeliveredOnce) {
  auto store = open_store();
  HandlerTable handlers;
  handlers.add("send-file", send_file);
  RecordingOutbox outbox;
  Turn t =
      run_turn("<send-file path=\"/a.png\"/> and <send-file path=\"/b.png\"/>", handlers, *store, outbox);
  int files = 0;
  for (const Delivery& d : outbox.ops())
    if (d.op == Op::File) ++files;
  EXPECT_EQ(files, 1);
  ASSERT_EQ(t.report.results.size(), 2u);
  EXPECT_TRUE(t.report.results[0].notes.empty());
  EXPECT_EQ(t.report.results[1].notes, (std::vector<std::string>{"duplicate-attachment: /b.png"}));
  auto json = t.report.json();
  EXPECT_EQ(json.at("results").at(1).at("notes").at(0), "duplicate-attachment: /b.png");
}

TEST(ExecModel, ResultToDecidesWhatGoesToTheModel) {
  auto store = open_store();
  HandlerTable handlers;
  handlers.add("searchArchive", echo);  // model, ok
  handlers.add("remember",
               [](const Directive&, ActionContext&) { return HandlerResult::ok("stored"); });  // ok
  handlers.add("command", [](const Directive&, ActionContext&) { return HandlerResult::error("unknown"); });
  handlers.add("shout",
               [](const Directive& d, ActionContext&) { return HandlerResult::ok(arg(d, "text") + "!"); });
  handlers.add("quiet",
               [](const Directive&, ActionContext&) { return HandlerResult::error("hidden failure"); });
  RecordingOutbox outbox;
  Turn t = run_turn(
      "Start <searchArchive>{\"query\":\"q\"}</searchArchive> [REMEMBER:tea] [COMMAND:x] <shout>hey</shout> "
      "<quiet>psst</quiet> end",
      handlers, *store, outbox);
  ASSERT_EQ(t.report.results.size(), 5u);
  EXPECT_TRUE(t.needs_model);
  EXPECT_EQ(t.model_message,
            "[1] searchArchive: ok: echo {\"query\":\"q\"}\n"
            "[3] command: error: unknown\n");
  // user: delivered as a separate Text, where the directive stood.
  std::vector<std::string> texts;
  for (const Delivery& d : outbox.ops())
    if (d.op == Op::Text) texts.push_back(d.text);
  ASSERT_GE(texts.size(), 2u);
  EXPECT_NE(std::find(texts.begin(), texts.end(), "hey!"), texts.end());
  EXPECT_EQ(texts.back().find("end") != std::string::npos, true);
}

TEST(ExecModel, NoModelCallWhenNothingGoesBack) {
  auto store = open_store();
  HandlerTable handlers;
  handlers.add("remember", [](const Directive&, ActionContext&) { return HandlerResult::ok("stored"); });
  RecordingOutbox outbox;
  Turn t = run_turn("Noted [REMEMBER:tea].", handlers, *store, outbox);
  EXPECT_FALSE(t.needs_model);
  EXPECT_EQ(t.model_message, "");
}

TEST(ExecInline, CalculateResultStandsWhereTheDirectiveStood) {
  auto store = open_store();
  HandlerTable handlers;
  std::string seen;
  handlers.add("calculate", [&](const Directive& d, ActionContext&) {
    seen = arg(d, "expression");
    return HandlerResult::ok("5130");
  });
  RecordingOutbox outbox;
  Turn t = run_turn("Total: [CALCULATE:342*15] USD", handlers, *store, outbox);
  EXPECT_EQ(seen, "342*15");
  EXPECT_EQ(all_text(outbox), "Total: 5130 USD");
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, ResultStatus::Ok);
  EXPECT_FALSE(t.needs_model);
}

TEST(ExecInline, FailedCalculationIsTidiedAndReported) {
  auto store = open_store();
  HandlerTable handlers;
  handlers.add("calculate",
               [](const Directive&, ActionContext&) { return HandlerResult::error("division by zero"); });
  RecordingOutbox outbox;
  Turn t = run_turn("Total: [CALCULATE:1/0] USD", handlers, *store, outbox);
  EXPECT_EQ(all_text(outbox), "Total: USD");
  EXPECT_EQ(t.model_message, "[1] calculate: error: division by zero\n");
}

TEST(ExecSay, SayBlocksAreNotRunAndTakeNoOrdinal) {
  auto store = open_store();
  HandlerTable handlers;
  handlers.add("react", react);
  RecordingOutbox outbox;
  Turn t = run_turn("<say>hello</say> <react emoji=\"x\"/>", handlers, *store, outbox);
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].ordinal, 0);
  EXPECT_EQ(t.report.results[0].action, "react");
}

TEST(ExecReport, JsonShape) {
  auto store = open_store();
  HandlerTable handlers;
  handlers.add("react", react);
  handlers.add("send-file", send_file);
  RecordingOutbox outbox;
  Turn t = run_turn("A <react emoji=\"x\"/> B <send-file path=\"/a.png\" caption=\"c\"/>", handlers, *store,
                    outbox);
  boost::json::value expected = boost::json::parse(R"({
    "deliveries":[{"op":"text","text":"A"},{"op":"reaction","emoji":"x","message":""},{"op":"text","text":" B"},
                  {"op":"file","path":"/a.png","kind":"image","caption":"c","sha256":"same-bytes"}],
    "results":[{"ordinal":0,"action":"react","status":"ok","message":"reacted","result":null},
               {"ordinal":1,"action":"send-file","status":"ok","message":"sent","result":null}]})");
  EXPECT_EQ(t.report.json(), expected) << boost::json::serialize(t.report.json());
}

TEST(ExecSay, SayModeDeliversSayBlocksOrTheFallbackText) {
  auto store = open_store();
  HandlerTable handlers;
  auto say_turn = [&](std::string_view reply) {
    RecordingOutbox outbox;
    Executor ex(registry(), handlers, *store, outbox, kIds);
    parse::ParserOptions po;
    po.say_mode = true;
    parse::Parser parser(registry(), ex.sink(), po);
    parser.feed(reply);
    parser.finish();
    ex.finish();
    return all_text(outbox);
  };
  EXPECT_EQ(say_turn("thinking aloud <say>hi</say> more"), "hi");
  EXPECT_EQ(say_turn("Just text"), "Just text");  // 6.5: no say block, the hidden text is the reply
}

// Say mode (spec 6.1, 6.4): each block its own message, files after the last block, at any chunking.
std::vector<std::string> say_mode_ops(std::string_view reply, std::size_t chunk, const HandlerTable& handlers,
                                      store::Store& store, TurnReport* report = nullptr) {
  RecordingOutbox outbox;
  ExecOptions options;
  options.say_mode = true;
  options.now = [] { return kT0; };
  Executor ex(registry(), handlers, store, outbox, kIds, std::move(options));
  parse::ParserOptions po;
  po.say_mode = true;
  parse::Parser parser(registry(), ex.sink(), po);
  for (std::size_t i = 0; i < reply.size(); i += chunk) parser.feed(reply.substr(i, chunk));
  parser.finish();
  TurnReport r = ex.finish();
  if (report != nullptr) *report = r;
  std::vector<std::string> ops;
  for (const Delivery& d : outbox.ops()) {
    switch (d.op) {
      case Op::Text:
        ops.push_back("text:" + d.text);
        break;
      case Op::File:
        ops.push_back("file:" + d.path);
        break;
      case Op::Reaction:
        ops.push_back("react:" + d.emoji);
        break;
      default:
        ops.push_back("other");
    }
  }
  return ops;
}

TEST(ExecSay, EachSayBlockIsItsOwnMessageAndFilesGoAfterTheLast) {
  HandlerTable handlers;
  handlers.add("react", react);
  handlers.add("send-file", [](const Directive& d, ActionContext&) {
    HandlerResult r = HandlerResult::ok("sent");
    Delivery del;
    del.op = Op::File;
    del.path = arg(d, "path");
    del.sha256 = del.path;  // distinct bytes per file
    r.deliveries.push_back(del);
    return r;
  });
  const std::string reply =
      "planning <say>First part.</say> <file mode=\"doc\">/a.pdf</file> hidden <react emoji=\"x\"/>"
      "<say>Second\n\npart.</say><file mode=\"photo\">/b.png</file> tail";
  const std::vector<std::string> expected = {"text:First part.", "react:x", "text:Second\n\npart.",
                                             "file:/a.pdf", "file:/b.png"};
  for (std::size_t chunk : {reply.size(), std::size_t{1}, std::size_t{2}, std::size_t{7}}) {
    auto store = open_store();
    TurnReport report;
    EXPECT_EQ(say_mode_ops(reply, chunk, handlers, *store, &report), expected) << "chunk " << chunk;
    // The report lists the deliveries as they went: two text messages, then the files.
    ASSERT_EQ(report.deliveries.size(), 5u);
    EXPECT_EQ(report.deliveries[0].text, "First part.");
    EXPECT_EQ(report.deliveries[2].text, "Second\n\npart.");
  }
}

TEST(ExecSay, FilesWithoutASayBlockGoOutWithoutText) {
  HandlerTable handlers;
  handlers.add("send-file", send_file);
  auto store = open_store();
  // 6.4: no say block: the files go as one message without text; a directive means no fallback (6.5).
  EXPECT_EQ(say_mode_ops("Here is the chart. <file mode=\"photo\">/c.png</file>", 3, handlers, *store),
            (std::vector<std::string>{"file:/c.png"}));
}

TEST(ExecSay, SayBlocksOfASilentReplyShowNothing) {
  HandlerTable handlers;
  auto store = open_store();
  TurnReport report;
  say_mode_ops("<say>one</say><say>two</say><no-reply/>", 4, handlers, *store, &report);
  EXPECT_TRUE(report.silent);
  EXPECT_TRUE(report.late_silence);  // the outbox was told to take back what it showed
  say_mode_ops("<no-reply/><say>one</say><say>two</say>", 4, handlers, *store, &report);
  EXPECT_TRUE(report.silent);
  EXPECT_FALSE(report.late_silence);
  EXPECT_TRUE(report.deliveries.empty());
}

TEST(ExecInline, WithoutTheResolverTheActionStillRuns) {
  auto store = open_store();
  std::atomic<int> calls{0};
  HandlerTable handlers;
  handlers.add("calculate", [&](const Directive&, ActionContext&) {
    ++calls;
    return HandlerResult::ok("5130");
  });
  RecordingOutbox outbox;
  Executor ex(registry(), handlers, *store, outbox, kIds);
  parse::Parser parser(registry(), ex.sink());
  parser.feed("Total: [CALCULATE:342*15] USD");
  parser.finish();
  TurnReport report = ex.finish();
  EXPECT_EQ(calls.load(), 1);
  ASSERT_EQ(report.results.size(), 1u);
  EXPECT_EQ(report.results[0].status, ResultStatus::Ok);
  EXPECT_EQ(all_text(outbox), "Total: USD");
}

TEST(ExecOrder, DeliveriesOfANonHoldingActionGoOutWhenItFinishes) {
  auto store = open_store();
  std::atomic<bool> release{false};
  const HandlerTable handlers = when_released(release, "remember", [](const Directive&, ActionContext&) {
    HandlerResult r = HandlerResult::ok("remembered");
    Delivery d;
    d.op = Op::Reaction;
    d.emoji = "ok";
    r.deliveries.push_back(d);
    return r;
  });
  RecordingOutbox outbox;
  run_turn("A [REMEMBER:tea] B", handlers, *store, outbox, {}, kIds, [&] { release = true; });
  ASSERT_EQ(outbox.ops().size(), 2u);
  EXPECT_EQ(outbox.ops()[0].text, "A B");
  EXPECT_EQ(outbox.ops()[1].op, Op::Reaction);
}

TEST(ExecCanonicalJson, SortsKeysRecursively) {
  boost::json::value v = boost::json::parse(R"({"b":1,"a":{"d":[1,{"z":true,"y":null}],"c":"x"}})");
  EXPECT_EQ(canonical_json(v), R"({"a":{"c":"x","d":[1,{"y":null,"z":true}]},"b":1})");
}

// Silence (spec 7.4, 12.7): the outbox learns it, and whether text had already gone out.
TEST(ExecSilence, ASentinelAloneShowsNothingAndIsNotLate) {
  RecordingOutbox outbox;
  Turn t = run_without_handlers("<no-reply/>", outbox);
  EXPECT_EQ(outbox.silenced(), 1);
  EXPECT_EQ(all_text(outbox), "");
  EXPECT_TRUE(t.report.silent);
  EXPECT_FALSE(t.report.late_silence);
  EXPECT_EQ(t.report.json().at("silent"), true);
  EXPECT_EQ(t.report.json().as_object().if_contains("late_silence"), nullptr);
}

TEST(ExecSilence, ASentinelLineAfterTextIsLate) {
  RecordingOutbox outbox;
  Turn t = run_without_handlers("Sure, I will stay out of it.\nNO_REPLY", outbox);
  EXPECT_EQ(outbox.silenced(), 2);
  EXPECT_TRUE(t.report.silent);
  EXPECT_TRUE(t.report.late_silence);
  EXPECT_EQ(t.report.json().at("late_silence"), true);
}

TEST(ExecSilence, TextHeldBehindADirectiveIsDroppedButTheDirectiveStillDelivers) {
  auto store = open_store();
  std::atomic<bool> release{false};
  const HandlerTable handlers = when_released(release, "react", react);
  RecordingOutbox outbox;
  Turn t = run_turn("Hi <react emoji=\"x\"/> held back <no-reply/>", handlers, *store, outbox, {}, kIds,
                    [&] { release = true; });
  EXPECT_EQ(outbox.silenced(), 2);  // "Hi" had gone out
  EXPECT_EQ(all_text(outbox).find("held"), std::string::npos);
  bool reacted = false;
  for (const Delivery& d : outbox.ops()) reacted = reacted || (d.op == Op::Reaction && d.emoji == "x");
  EXPECT_TRUE(reacted);
  ASSERT_EQ(t.report.results.size(), 1u);
  EXPECT_EQ(t.report.results[0].status, ResultStatus::Ok);
}

TEST(ExecSilence, AnOrdinaryReplyIsNotSilent) {
  RecordingOutbox outbox;
  Turn t = run_without_handlers("NO_REPLY is what I send when I stay quiet.", outbox);
  EXPECT_EQ(outbox.silenced(), 0);
  EXPECT_FALSE(t.report.silent);
  EXPECT_EQ(t.report.json().as_object().if_contains("silent"), nullptr);
}

}  // namespace
}  // namespace sigil::exec
