// A burst of a hundred `[REMEMBER:…]` directives fed to an executor in one piece, the way the agent feeds a
// burst of tokens: what the group-commit tests count fsyncs over and the cost tests count store calls and
// allocations over, so both measure the same turn.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "sigil/catalog/registry.h"
#include "sigil/exec/executor.h"
#include "sigil/parse/parser.h"
#include "sigil/store/store.h"

namespace sigil::test {

constexpr int kBurst = 100;

inline std::string burst_reply() {
  std::string r;
  for (int i = 0; i < kBurst; ++i) r += "Noted. [REMEMBER:fact number " + std::to_string(i) + "] ";
  return r;
}

inline const catalog::Registry& registry() {
  static const catalog::Registry r = catalog::Registry::builtin();
  return r;
}

// Compiled once, so a measured turn does not pay for compiling the grammar.
inline const parse::CompiledGrammar& grammar() {
  static const parse::CompiledGrammar g(registry());
  return g;
}

// The reply is passed in, so a caller that counts allocations can build it outside the count.
inline exec::TurnReport run_burst(store::Store& store, const exec::HandlerTable& handlers,
                                  const exec::TurnIds& ids, std::string_view reply,
                                  exec::ExecOptions options = {}) {
  exec::RecordingOutbox outbox;
  options.bursts = true;
  exec::Executor ex(registry(), handlers, store, outbox, ids, std::move(options));
  parse::ParserOptions po;
  po.max_directives = kBurst;
  po.inline_resolver = ex.inline_resolver();
  parse::Parser parser(grammar(), ex.sink(), po);
  parser.feed(reply);
  ex.end_burst();
  parser.finish();
  return ex.finish();
}

}  // namespace sigil::test
