#include "run_parse.h"

#include <cstdint>
#include <map>
#include <memory>

namespace sigil::testing {

const catalog::Registry& conformance_registry() {
  static const catalog::Registry registry = [] {
    catalog::RegistryOptions o;
    o.mcp_servers = RunOptions{}.mcp_servers;
    return catalog::Registry::builtin(o);
  }();
  return registry;
}

parse::ParserOptions parser_options(const RunOptions& options) {
  parse::ParserOptions po;
  po.say_mode = options.say;
  po.think_open = options.think_open;
  po.denied_actions = options.deny;
  po.stage1_kernel = options.stage1_kernel;
  po.whole_markup = options.whole_markup;
  po.blank_gaps = options.blank_gaps;
  po.whole_names = options.whole_names;
  po.repeated_tags = options.repeated_tags;
  return po;
}

namespace {
class RecordingSink : public parse::SummarySink {
 public:
  void on_text(std::string_view text, bool hidden) override {
    parse::SummarySink::on_text(text, hidden);
    if (!hidden) texts.emplace_back(text);
  }
  std::vector<std::string> texts;
};
}  // namespace

RunResult run_parse(std::string_view reply, const RunOptions& options, std::size_t chunk) {
  struct Compiled {
    catalog::Registry registry;
    parse::CompiledGrammar grammar{registry};
    explicit Compiled(catalog::Registry r) : registry(std::move(r)) {}
  };
  static std::map<std::vector<std::string>, std::unique_ptr<Compiled>> registries;
  auto& slot = registries[options.mcp_servers];
  if (!slot) {
    catalog::RegistryOptions ro;
    ro.mcp_servers = options.mcp_servers;
    slot = std::make_unique<Compiled>(catalog::Registry::builtin(ro));
  }
  RecordingSink sink;
  parse::Parser parser(slot->grammar, sink, parser_options(options));
  const std::size_t step = chunk == 0 ? std::max<std::size_t>(reply.size(), 1) : chunk;
  for (std::size_t i = 0; i < reply.size(); i += step) parser.feed(reply.substr(i, step));
  parser.finish(options.cut_off ? parse::FinishReason::Length : parse::FinishReason::Stop);
  RunResult r;
  r.summary = sink.summary();
  r.stats = parser.stats();
  r.text_events = std::move(sink.texts);
  return r;
}

std::string base64_decode(std::string_view in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int buffer = 0, bits = 0;
  for (char c : in) {
    int v = val(c);
    if (v < 0) continue;
    buffer = (buffer << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

bool same_json(const boost::json::value& a, const boost::json::value& b) {
  if (a.is_number() && b.is_number()) {
    // Integers exactly (a double would round two large ones to the same value), a double by value.
    if (a.is_double() || b.is_double()) return a.to_number<double>() == b.to_number<double>();
    if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
    if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
    const boost::json::value& s = a.is_int64() ? a : b;
    const boost::json::value& u = a.is_int64() ? b : a;
    return s.get_int64() >= 0 && static_cast<std::uint64_t>(s.get_int64()) == u.get_uint64();
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_object()) {
    const auto& x = a.get_object();
    const auto& y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& kv : x) {
      auto it = y.find(kv.key());
      if (it == y.end() || !same_json(kv.value(), it->value())) return false;
    }
    return true;
  }
  if (a.is_array()) {
    const auto& x = a.get_array();
    const auto& y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!same_json(x[i], y[i])) return false;
    return true;
  }
  return a == b;
}

}  // namespace sigil::testing
