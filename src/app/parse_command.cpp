#include "parse_command.h"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <iterator>
#include <string>

#include "action_names.h"
#include "sigil/catalog/registry.h"
#include "sigil/parse/json_text.h"
#include "sigil/parse/parser.h"
#include "sigil/parse/summary.h"

namespace sigil::app {

namespace {

// What --stats prints, counted as the events arrive: the summary's clean text is never built.
class StatsSink final : public parse::EventSink {
 public:
  void on_text(std::string_view text, bool hidden) override { (hidden ? hidden_ : visible_) += text.size(); }
  void on_directive(const parse::DirectiveEvent&) override { ++directives_; }
  void on_diagnostic(const parse::Diagnostic&) override { ++diagnostics_; }
  void on_silence(std::uint64_t) override {}
  void on_fallback() override { fallback_ = true; }
  void on_end(bool silent) override { silent_ = silent; }

  // As SummarySink::clean_text().size(): nothing when silent, the hidden text after a fallback.
  std::uint64_t text_bytes() const { return silent_ ? 0 : fallback_ ? hidden_ : visible_; }
  std::uint64_t directives() const { return directives_; }
  std::uint64_t diagnostics() const { return diagnostics_; }

 private:
  std::uint64_t visible_ = 0, hidden_ = 0, directives_ = 0, diagnostics_ = 0;
  bool fallback_ = false, silent_ = false;
};

// Fills buf from in as far as it goes; returns the bytes read (fewer only at the end of the input).
std::size_t read_full(std::istream& in, char* buf, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const std::streamsize n = in.rdbuf()->sgetn(buf + got, static_cast<std::streamsize>(size - got));
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got;
}

// Feeds the input to the parser as it is read, in pieces of `chunk` bytes (0: as read), through one buffer
// of about 1 MiB: the input never sits in memory whole, and nothing is copied but the read itself.
void feed_stream(std::istream& in, std::size_t chunk, parse::Parser& parser) {
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  // A whole number of chunks per block, so that every chunk but the last is exactly `chunk` bytes.
  const std::size_t block = chunk == 0 ? kBlock : std::max(chunk, kBlock - kBlock % chunk);
  std::string buf(block, '\0');
  for (;;) {
    const std::size_t n = read_full(in, buf.data(), block);
    const std::size_t step = chunk == 0 ? std::max<std::size_t>(n, 1) : chunk;
    for (std::size_t i = 0; i < n; i += step)
      parser.feed(std::string_view(buf.data() + i, std::min(step, n - i)));
    if (n < block) return;
  }
}

}  // namespace

int run_parse(const ParseCommandOptions& options, std::istream& in, std::ostream& out) {
  catalog::RegistryOptions registry_options;
  registry_options.mcp_servers = options.mcp_servers;
  const catalog::Registry registry = catalog::Registry::builtin(registry_options);

  if (!check_action_names(registry, options.deny, "sigil parse: --deny", std::cerr)) return 2;

  parse::ParserOptions parser_options;
  parser_options.say_mode = options.say;
  parser_options.think_open = options.think_open;
  parser_options.denied_actions = options.deny;

  const parse::FinishReason finish =
      options.cut_off ? parse::FinishReason::Length : parse::FinishReason::Stop;
  if (options.stats && !options.events) {
    // The throughput path: streamed and counted (a reply of any size, in constant memory).
    StatsSink stats;
    parse::Parser parser(registry, stats, parser_options);
    feed_stream(in, options.chunk, parser);
    parser.finish(finish);
    boost::json::object o;
    o["bytes_in"] = parser.stats().bytes_in;
    o["text_bytes"] = stats.text_bytes();
    o["directives"] = stats.directives();
    o["diagnostics"] = stats.diagnostics();
    out << parse::json_text(o) << '\n';
    return 0;
  }

  std::string reply;
  {
    // Read in large blocks: a character at a time is slower than the parser itself.
    std::string block(1 << 16, '\0');
    while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0)
      reply.append(block.data(), static_cast<std::size_t>(in.gcount()));
  }
  parse::SummarySink summary;
  parse::EventsWriter writer(out);
  parse::EventSink& sink = options.events ? static_cast<parse::EventSink&>(writer) : summary;
  parse::Parser parser(registry, sink, parser_options);
  const std::size_t step = options.chunk == 0 ? reply.size() : options.chunk;
  for (std::size_t i = 0; i < reply.size(); i += step) parser.feed(std::string_view(reply).substr(i, step));
  parser.finish(finish);

  if (options.events) return 0;
  out << parse::json_text(summary.summary()) << '\n';
  return 0;
}

}  // namespace sigil::app
