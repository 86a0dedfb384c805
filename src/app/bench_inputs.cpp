#include "bench_inputs.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "sigil/catalog/registry.h"
#include "sigil/text/utf8.h"

namespace sigil::app::bench {

namespace {

class XorShift {
 public:
  explicit XorShift(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL) {}
  std::uint64_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

// Common words; a few carry UTF-8 so the sanitizer sees multi-byte sequences. All lower case, so no
// sentinel word (NO_REPLY, NO_MESSAGE) can appear.
constexpr std::array<std::string_view, 72> kWords = {
    "the",     "a",    "of",    "to",      "and",    "in",       "that",   "it",      "is",
    "was",     "for",  "on",    "you",     "with",   "as",       "this",   "be",      "at",
    "have",    "from", "or",    "one",     "had",    "by",       "word",   "but",     "not",
    "what",    "all",  "were",  "we",      "when",   "your",     "can",    "said",    "there",
    "use",     "each", "which", "she",     "how",    "their",    "will",   "other",   "about",
    "out",     "many", "then",  "them",    "these",  "so",       "some",   "her",     "would",
    "make",    "like", "time",  "morning", "garden", "question", "answer", "library", "weather",
    "journey", "café", "naïve", "résumé",  "—",      "über",     "façade", "piñata",  "coöperate",
};

void append_sentence(std::string& out, XorShift& rng) {
  const std::size_t n = 6 + rng.below(13);
  for (std::size_t i = 0; i < n; ++i) {
    std::string_view w = kWords[rng.below(i == 0 ? 64 : kWords.size())];  // ASCII first word
    if (i > 0) out += ' ';
    const std::size_t at = out.size();
    out += w;
    if (i == 0) out[at] = static_cast<char>(out[at] - 'a' + 'A');
    if (i + 1 < n && rng.below(9) == 0) out += ',';
  }
  static constexpr std::string_view kEnds = "....?!";
  out += kEnds[rng.below(kEnds.size())];
}

// Pads or cuts `s` to exactly `bytes`, never inside a UTF-8 sequence.
void fit(std::string& s, std::size_t bytes) {
  if (s.size() > bytes) s.resize(text::safe_cut(s, bytes));
  s.append(bytes - s.size(), '.');
}

}  // namespace

std::string prose(std::size_t bytes, std::uint64_t seed) {
  XorShift rng(seed);
  std::string out;
  out.reserve(bytes + 256);
  while (out.size() < bytes) {
    const std::size_t sentences = 3 + rng.below(5);
    for (std::size_t i = 0; i < sentences && out.size() < bytes; ++i) {
      if (i > 0) out += ' ';
      append_sentence(out, rng);
    }
    out += "\n\n";
  }
  fit(out, bytes);
  return out;
}

std::string reacts_in_actions(std::size_t bytes, std::size_t reacts) {
  static constexpr std::array<std::string_view, 8> kEmoji = {"👍", "🎉", "❤️", "😂", "🙏", "👀", "✅", "🔥"};
  const std::size_t blocks = (reacts + kReactsPerBlock - 1) / kReactsPerBlock;
  std::vector<std::string> markup;
  markup.reserve(blocks);
  std::size_t markup_bytes = 0, made = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    std::string m = "<actions>\n";
    for (std::size_t k = 0; k < kReactsPerBlock && made < reacts; ++k, ++made) {
      m += "  <react emoji=\"";
      m += kEmoji[made % kEmoji.size()];
      m += "\"/>\n";
    }
    m += "</actions>\n\n";
    markup_bytes += m.size();
    markup.push_back(std::move(m));
  }
  if (markup_bytes + 2 * blocks > bytes) throw std::invalid_argument("reacts_in_actions: too many reacts");
  const std::size_t prose_bytes = bytes - markup_bytes;
  std::string out;
  out.reserve(bytes);
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t len = prose_bytes / blocks + (b < prose_bytes % blocks ? 1 : 0);
    std::string paragraph = prose(len - 1, 1000 + b);
    out += paragraph;
    out += '\n';
    out += markup[b];
  }
  return out;
}

std::string typical_reply() {
  static constexpr std::string_view kHead =
      "<actions>\n<react emoji=\"👍\"/>\n</actions>\n"
      "Great question! Here's a quick plan for your three days in Lisbon.\n\n"
      "**Day 1 — Alfama and the castle.** Start early at the Castelo de São Jorge before the tour buses "
      "arrive, then walk down through Alfama's lanes. Stop for a pastel de nata at a small café near the Sé "
      "cathedral; most places open around 8:00.\n\n"
      "**Day 2 — Belém.** Take tram 15 from Praça da Figueira (about 30 minutes). The Jerónimos Monastery is "
      "free on the first Sunday of the month, and the queue for the Pastéis de Belém bakery moves faster "
      "than "
      "it looks.\n\n"
      "**Day 3 — a day trip to Sintra.** Trains leave Rossio station every 20 minutes; buy a `viva viagem` "
      "card and load it with zapping credit so you don't queue twice. Pena Palace is the famous one, but "
      "Quinta da Regaleira (with its initiation well) is the one people remember.\n\n"
      "A few practical tips:\n"
      "- Wear shoes with grip: the limestone pavements (*calçada*) get slippery, even when dry.\n"
      "- Dinner is late; many restaurants only fill up after 20:30, so book ahead on weekends.\n"
      "- The [Lisboa Card](https://www.visitlisboa.com/en/p/lisboa-card) covers most museums and public "
      "transport, and it pays off if you visit Belém and Sintra.\n"
      "- Tipping is modest: rounding up or leaving 5-10% is plenty.\n\n";
  static constexpr std::string_view kTail =
      "\n\nHave a wonderful trip, and tell me if you want restaurant ideas for any of the neighbourhoods!\n"
      "[REMEMBER:User is planning a three-day trip to Lisbon in May]";
  if (kHead.size() + kTail.size() + 16 > kTypicalBytes)
    throw std::logic_error("typical_reply: template too long");
  std::string out(kHead);
  out += prose(kTypicalBytes - kHead.size() - kTail.size(), 7);
  out += kTail;
  return out;
}

std::string long_reply(std::size_t bytes) {
  const std::string unit = typical_reply() + "\n\n";
  std::string out;
  out.reserve(bytes + unit.size());
  while (out.size() + unit.size() <= bytes) out += unit;
  // Cut the partial copy at a line end so no directive is split, then pad with prose.
  std::string_view part(unit.data(), bytes - out.size());
  const std::size_t cut = part.rfind('\n');
  if (cut != std::string_view::npos) out += part.substr(0, cut + 1);
  out += prose(bytes - out.size(), 11);
  return out;
}

std::string unclosed_openers(std::size_t bytes, std::size_t openers) {
  static constexpr std::string_view kFiller =
      "and the body goes on with words that never reach their close tag, line after line ";
  const std::size_t unit = bytes / openers;
  if (unit < 16 || unit - 9 > kFiller.size()) throw std::invalid_argument("unclosed_openers: bad unit size");
  std::string out;
  out.reserve(bytes);
  for (std::size_t i = 0; i < openers; ++i) {
    const std::string_view opener = i % 2 == 0 ? "<actions>" : "<voice>";
    out += opener;
    out += kFiller.substr(0, unit - opener.size());
  }
  out += kFiller.substr(0, bytes - out.size());
  return out;
}

const parse::CompiledGrammar& grammar() {
  static const catalog::Registry registry = [] {
    catalog::RegistryOptions o;
    o.mcp_servers = {"github"};
    return catalog::Registry::builtin(o);
  }();
  static const parse::CompiledGrammar compiled(registry);
  return compiled;
}

parse::ParserOptions options_for_many_directives() {
  parse::ParserOptions o;
  o.max_directives = std::numeric_limits<std::size_t>::max();
  return o;
}

void parse_reply(const parse::CompiledGrammar& grammar, const parse::ParserOptions& options,
                 std::string_view reply, std::size_t chunk, CountingSink& sink) {
  parse::Parser parser(grammar, sink, options);
  if (chunk == 0) {
    parser.feed(reply);
  } else {
    for (std::size_t i = 0; i < reply.size(); i += chunk) parser.feed(reply.substr(i, chunk));
  }
  parser.finish();
}

void ReusedParser::parse(std::string_view reply, std::size_t chunk) {
  if (used_) parser_.reset();
  used_ = true;
  if (chunk == 0) {
    parser_.feed(reply);
  } else {
    for (std::size_t i = 0; i < reply.size(); i += chunk) parser_.feed(reply.substr(i, chunk));
  }
  parser_.finish();
}

char absent_byte(std::string_view data) {
  std::array<bool, 256> seen{};
  for (char c : data) seen[static_cast<unsigned char>(c)] = true;
  for (int c = 1; c < 256; ++c)
    if (!seen[static_cast<std::size_t>(c)]) return static_cast<char>(c);
  throw std::invalid_argument("absent_byte: every byte value occurs");
}

const void* memchr_pass(std::string_view data, char absent) {
  return std::memchr(data.data(), static_cast<unsigned char>(absent), data.size());
}

text::stage1::Kernel limit_kernel() {
  using text::stage1::Kernel;
  return text::stage1::kernel_supported(Kernel::Avx2) ? Kernel::Avx2 : text::stage1::best_kernel();
}

std::uint64_t index_pass(std::string_view data, std::vector<text::stage1::BlockMasks>& scratch) {
  scratch.resize(text::stage1::blocks_for(data.size()));
  text::stage1::index(limit_kernel(), data, scratch.data());
  return scratch.empty() ? 0 : scratch.back().lt;
}

bool utf8_pass(std::string_view data) {
  return text::stage1::all_valid(text::stage1::validate(limit_kernel(), data), data.size());
}

}  // namespace sigil::app::bench
