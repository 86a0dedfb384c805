#include "run_turn.h"

#include <gtest/gtest.h>

#include "sigil/parse/parser.h"

namespace sigil::test {

std::string TurnRun::text() const {
  std::string s;
  for (const exec::Delivery& d : outbox.ops())
    if (d.op == exec::Delivery::Op::Text) s += d.text;
  return s;
}

const exec::Delivery* TurnRun::sole_delivery() const {
  EXPECT_EQ(report.results.size(), 1u);
  if (report.results.size() != 1) return nullptr;
  EXPECT_EQ(report.results[0].status, exec::ResultStatus::Ok) << report.results[0].message;
  if (report.results[0].status != exec::ResultStatus::Ok) return nullptr;
  EXPECT_EQ(outbox.ops().size(), 3u);
  if (outbox.ops().size() != 3) return nullptr;
  return &outbox.ops()[1];
}

TurnRun run_turn(std::string_view reply, const exec::HandlerTable& handlers, store::Store& store,
                 exec::TurnIds ids, exec::ExecOptions options, bool say_mode) {
  static const catalog::Registry registry = catalog::Registry::builtin();
  TurnRun run;
  exec::Executor ex(registry, handlers, store, run.outbox, std::move(ids), std::move(options));
  parse::ParserOptions po;
  po.say_mode = say_mode;
  po.inline_resolver = ex.inline_resolver();
  parse::Parser parser(registry, ex.sink(), po);
  parser.feed(reply);
  parser.finish();
  run.report = ex.finish();
  run.model_message = ex.model_message();
  return run;
}

}  // namespace sigil::test
