// The only translation unit that includes toml++ (it is heavy): everything else sees config.h.
#include "config_toml.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <utility>

#include "sigil/actions/mcp_oauth.h"
#include "sigil/actions/schedule.h"
#include "sigil/channels/signal/inbound.h"
#include "sigil/log/log.h"
#include "sigil/net/ssrf_guard.h"
#include "sigil/net/url.h"
#include "sigil/text/ascii.h"

namespace sigil::app {
namespace {

namespace fs = std::filesystem;

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Reads one TOML document into a Config, strictly: every key is known and has the right type.
class Reader {
 public:
  Reader(std::string name, fs::path base) : name_(std::move(name)), base_(std::move(base)) {}

  void read(const toml::table& root, Config& config) {
    for (auto&& [key, node] : root) {
      const std::string section(key.str());
      const toml::table* table = node.as_table();
      if (section == "server" || section == "store" || section == "model" || section == "agent" ||
          section == "actions" || section == "search" || section == "fetch" || section == "images") {
        if (table == nullptr)
          fail_at(node.source(),
                  std::string(section).append(" must be a table ([").append(section).append("])"));
        section_ = section;
        if (section == "server") server(*table, config.server);
        if (section == "store") store(*table, config.store);
        if (section == "model") model(*table, config.model, config.images);
        if (section == "images") images(*table, config.images);
        if (section == "agent") agent(*table, config.agent);
        if (section == "actions") actions(*table, config.actions);
        if (section == "search") search(*table, config.search);
        if (section == "fetch") fetch(*table, config.fetch);
      } else if (section == "channels") {
        if (table == nullptr)
          fail_at(node.source(), "channels must be a table ([channels.telegram], [channels.discord])");
        channels(*table, config.channels);
      } else if (section == "mcp") {
        mcp(node, config.mcp_servers);
      } else {
        fail_at(
            key.source(),
            "unknown section " + in_quotes(section) +
                " (known: server, store, model, agent, actions, search, fetch, images, channels.telegram, "
                "channels.discord, mcp.servers)");
      }
    }
  }

 private:
  using Setter = std::function<void(const toml::node&, const std::string& key)>;

  [[noreturn]] void fail_at(const toml::source_region& where, const std::string& why) const {
    throw ConfigError(name_ + ":" + std::to_string(where.begin.line) + ":" +
                      std::to_string(where.begin.column) + ": " + why);
  }
  [[noreturn]] void fail(const toml::node& node, const std::string& key, const std::string& why) const {
    fail_at(node.source(), "[" + section_ + "] " + (key.empty() ? why : key + " " + why));
  }

  void each(const toml::table& table, const std::map<std::string, Setter>& setters) {
    for (auto&& [key, node] : table) {
      const std::string name(key.str());
      const auto it = setters.find(name);
      if (it == setters.end()) {
        std::string known;
        for (const auto& [k, unused] : setters) known += (known.empty() ? "" : ", ") + k;
        fail_at(key.source(),
                "[" + section_ + "] unknown key " + in_quotes(name) + " (known: " + known + ")");
      }
      it->second(node, name);
    }
  }

  // each()'s entry for a key whose value is only read: `field` = (this->*read)(node, key) (string, boolean,
  // path).
  template <class T, class Read>
  Setter into(T& field, Read read) {
    return [this, &field, read](const toml::node& n, const std::string& k) { field = (this->*read)(n, k); };
  }
  // each()'s entry for a whole number of `lo` to `hi` (integer()) kept as an int (or an optional one):
  // seconds, milliseconds, tokens.
  template <class Int>
  Setter int_in(Int& field, std::int64_t lo, std::int64_t hi) {
    return [this, &field, lo, hi](const toml::node& n, const std::string& k) {
      field = static_cast<int>(integer(n, k, lo, hi));
    };
  }
  // each()'s entry for a size given in MB, 0 to `max_mb`, kept in bytes (max_download_mb).
  Setter megabytes(std::uint64_t& bytes, std::int64_t max_mb) {
    return [this, &bytes, max_mb](const toml::node& n, const std::string& k) {
      bytes = static_cast<std::uint64_t>(integer(n, k, 0, max_mb)) << 20;
    };
  }
  // each()'s entry for a chat platform's API address (api_url()).
  Setter api_url_into(std::string& field) {
    return [this, &field](const toml::node& n, const std::string& k) { field = api_url(n, k); };
  }
  // each()'s entry for a key that must be one of `allowed` (choice()).
  Setter one_of(std::string& field, std::vector<std::string_view> allowed) {
    return [this, &field, allowed = std::move(allowed)](const toml::node& n, const std::string& k) {
      field = choice(n, k, allowed);
    };
  }

  std::string string(const toml::node& node, const std::string& key) const {
    const auto* s = node.as_string();
    if (s == nullptr) fail(node, key, "must be a string");
    return s->get();
  }
  // A string that must be one of `allowed`, written exactly.
  std::string choice(const toml::node& node, const std::string& key,
                     const std::vector<std::string_view>& allowed) const {
    std::string s = string(node, key);
    if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return s;
    std::string listed;
    for (auto it = allowed.begin(); it != allowed.end(); ++it)
      listed += (it == allowed.begin() ? "" : it + 1 == allowed.end() ? " or " : ", ") + in_quotes(*it);
    fail(node, key, "must be " + listed + ", not " + in_quotes(s));
  }
  // An http:// or https:// address; "" too where `optional`.
  std::string http_url(const toml::node& node, const std::string& key, bool optional) const {
    std::string url = string(node, key);
    if ((!optional || !url.empty()) && url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
      fail(node, key, "must start with http:// or https://, not " + in_quotes(url));
    return url;
  }
  std::string path(const toml::node& node, const std::string& key) const {
    std::string p = string(node, key);
    if (p.empty()) return p;
    fs::path written(p);
    return written.is_absolute() ? p : (base_ / written).lexically_normal().string();
  }
  bool boolean(const toml::node& node, const std::string& key) const {
    const auto* b = node.as_boolean();
    if (b == nullptr) fail(node, key, "must be true or false");
    return b->get();
  }
  std::int64_t integer(const toml::node& node, const std::string& key, std::int64_t min,
                       std::int64_t max) const {
    const auto* i = node.as_integer();
    if (i == nullptr) fail(node, key, "must be an integer");
    const std::int64_t v = i->get();
    if (v < min || v > max)
      fail(node, key, "must be between " + std::to_string(min) + " and " + std::to_string(max));
    return v;
  }
  double number(const toml::node& node, const std::string& key, double min, double max) const {
    double v = 0;
    if (const auto* i = node.as_integer())
      v = static_cast<double>(i->get());
    else if (const auto* f = node.as_floating_point())
      v = f->get();
    else
      fail(node, key, "must be a number");
    if (!std::isfinite(v) || v < min || v > max) {
      std::ostringstream range;
      range << "must be between " << min << " and " << max;
      fail(node, key, range.str());
    }
    return v;
  }
  std::vector<std::string> strings(const toml::node& node, const std::string& key, bool paths) const {
    const auto* a = node.as_array();
    if (a == nullptr) fail(node, key, "must be an array of strings");
    std::vector<std::string> out;
    for (const toml::node& element : *a) {
      if (!element.is_string()) fail(element, key, "must be an array of strings");
      out.push_back(paths ? path(element, key) : string(element, key));
    }
    return out;
  }
  // Private hosts, addresses or CIDR ranges that URLs may reach (net::allow_private_entry_error checks each).
  std::vector<std::string> private_hosts(const toml::node& node, const std::string& key) const {
    std::vector<std::string> out = strings(node, key, false);
    for (const std::string& entry : out)
      if (std::string why = net::allow_private_entry_error(entry); !why.empty()) fail(node, key, why);
    return out;
  }
  // [[section.key]]: each table of the array read by read(table, element) into a new element of `into`
  // (cleared first), with section_ naming the array while it is read.
  template <class T, class Read>
  void tables(const toml::node& node, const std::string& key, std::vector<T>& into, Read read) {
    const auto* a = node.as_array();
    if (a == nullptr || !a->is_array_of_tables())
      fail(node, key, "must be an array of tables ([[" + section_ + "." + key + "]])");
    into.clear();
    for (const toml::node& e : *a) {
      T element;
      const std::string outer = section_;
      section_ = outer + "." + key;
      read(e, element);
      section_ = outer;
      into.push_back(std::move(element));
    }
  }

  void server(const toml::table& t, ServerConfig& c) {
    each(t, {
                {"listen",
                 [&](const toml::node& n, const std::string& k) {
                   const std::string text = string(n, k);
                   try {
                     parse_listen(text, c.host, c.port, "");
                   } catch (const ConfigError& e) {
                     fail(n, k, e.what());
                   }
                 }},
                {"api_token", into(c.api_token, &Reader::string)},
                {"max_body",
                 [&](const toml::node& n, const std::string& k) {
                   c.max_body = static_cast<std::size_t>(integer(n, k, 1024, std::int64_t{1} << 30));
                 }},
                {"threads",
                 [&](const toml::node& n, const std::string& k) {
                   c.threads = static_cast<unsigned>(integer(n, k, 1, 64));
                 }},
                {"max_connections",
                 [&](const toml::node& n, const std::string& k) {
                   c.max_connections = static_cast<std::size_t>(integer(n, k, 0, 1'000'000));
                 }},
                {"messages_per_minute",
                 [&](const toml::node& n, const std::string& k) {
                   c.messages_per_minute = number(n, k, 0, 1e6);
                 }},
                {"message_burst",
                 [&](const toml::node& n, const std::string& k) {
                   c.message_burst = static_cast<unsigned>(integer(n, k, 1, 100000));
                 }},
                {"log_level",
                 [&](const toml::node& n, const std::string& k) {
                   c.log_level = string(n, k);
                   if (!log::level_from_string(c.log_level))
                     fail(n, k,
                          "must be \"debug\", \"info\", \"warn\", \"error\" or \"off\", not " +
                              in_quotes(c.log_level));
                 }},
                {"log_format", one_of(c.log_format, {"text", "json"})},
                {"public_url",
                 [&](const toml::node& n, const std::string& k) {
                   c.public_url = string(n, k);
                   if (!c.public_url.empty() && c.public_url.rfind("http://", 0) != 0 &&
                       c.public_url.rfind("https://", 0) != 0)
                     fail(n, k, "must start with http:// or https://");
                 }},
                {"allowed_origins",
                 [&](const toml::node& n, const std::string& k) {
                   c.allowed_origins = strings(n, k, false);
                   for (const std::string& o : c.allowed_origins)
                     if (o.rfind("http://", 0) != 0 && o.rfind("https://", 0) != 0)
                       fail(n, k, "entries must be origins like \"https://tools.example.com\"");
                 }},
                {"allowed_hosts",
                 [&](const toml::node& n, const std::string& k) { c.allowed_hosts = strings(n, k, false); }},
            });
  }

  void store(const toml::table& t, StoreConfig& c) {
    each(t, {{"data",
              [&](const toml::node& n, const std::string& k) {
                c.data = path(n, k);
                if (c.data.empty()) fail(n, k, "must not be empty");
              }},
             {"max_messages_per_conversation", [&](const toml::node& n, const std::string& k) {
                c.max_messages_per_conversation = static_cast<std::size_t>(integer(n, k, 0, 1'000'000'000));
              }}});
  }

  // A picture size: WIDTHxHEIGHT or "auto".
  std::string image_size(const toml::node& n, const std::string& k) {
    std::string size = string(n, k);
    const std::size_t x = size.find('x');
    const bool dims = x != std::string::npos && x > 0 && x + 1 < size.size() &&
                      size.find_first_not_of("0123456789x") == std::string::npos &&
                      size.find('x', x + 1) == std::string::npos;
    if (size != "auto" && !dims)
      fail(n, k, "must be WIDTHxHEIGHT (e.g. \"1024x1024\") or \"auto\", not " + in_quotes(size));
    return size;
  }

  // [model] image_model / image_size are short for [images] model / size: a value set in both places would
  // leave a reader guessing which one counts, so the second is refused. `where` remembers the first.
  void once_for_images(const toml::node& n, const std::string& k, std::string& where) {
    const std::string here = "[" + section_ + "] " + k;
    if (!where.empty() && where != here) fail(n, k, "is set already as " + where + "; keep one of the two");
    where = here;
  }

  void images(const toml::table& t, ImagesSettings& c) {
    each(t, {{"url", [&](const toml::node& n, const std::string& k) { c.url = http_url(n, k, true); }},
             {"key", into(c.key, &Reader::string)},
             {"model",
              [&](const toml::node& n, const std::string& k) {
                once_for_images(n, k, images_model_);
                c.model = string(n, k);
              }},
             {"size", [&](const toml::node& n, const std::string& k) {
                once_for_images(n, k, images_size_);
                c.size = image_size(n, k);
              }}});
  }

  void model(const toml::table& t, ModelConfig& c, ImagesSettings& images) {
    each(t,
         {
             {"url", into(c.url, &Reader::string)},
             {"key", into(c.key, &Reader::string)},
             {"name", into(c.name, &Reader::string)},
             {"replay", into(c.replay, &Reader::path)},
             {"tokens_per_second",
              [&](const toml::node& n, const std::string& k) { c.tokens_per_second = number(n, k, 0, 1e6); }},
             {"timeout_seconds", int_in(c.timeout_seconds, 1, 3600)},
             {"max_tokens", int_in(c.max_tokens, 1, 10'000'000)},
             {"temperature",
              [&](const toml::node& n, const std::string& k) { c.temperature = number(n, k, 0, 2); }},
             {"tools", one_of(c.tools, {"auto", "on", "off"})},
             {"embeddings_model", into(c.embeddings_model, &Reader::string)},
             {"image_model",
              [&](const toml::node& n, const std::string& k) {
                once_for_images(n, k, images_model_);
                images.model = string(n, k);
              }},
             {"image_size",
              [&](const toml::node& n, const std::string& k) {
                once_for_images(n, k, images_size_);
                images.size = image_size(n, k);
              }},
             {"vision", into(c.vision, &Reader::boolean)},
         });
  }

  void agent(const toml::table& t, AgentSettings& c) {
    each(t, {
                {"say_mode", into(c.say_mode, &Reader::boolean)},
                {"max_model_calls", int_in(c.max_model_calls, 1, 100)},
                {"history_messages",
                 [&](const toml::node& n, const std::string& k) {
                   c.history_messages = static_cast<std::size_t>(integer(n, k, 1, 10000));
                 }},
                {"denied_actions",
                 [&](const toml::node& n, const std::string& k) { c.denied_actions = strings(n, k, false); }},
                {"system_prompt", into(c.system_prompt, &Reader::string)},
                {"results_message_bytes",
                 [&](const toml::node& n, const std::string& k) {
                   c.results_message_bytes = static_cast<std::size_t>(integer(n, k, 256, 16 << 20));
                 }},
                {"memory", into(c.memory, &Reader::boolean)},
                {"memory_bytes",
                 [&](const toml::node& n, const std::string& k) {
                   c.memory_bytes = static_cast<std::size_t>(integer(n, k, 256, 1 << 20));
                 }},
            });
  }

  void actions(const toml::table& t, ActionsConfig& c) {
    each(t, {
                {"file_roots",
                 [&](const toml::node& n, const std::string& k) { c.file_roots = strings(n, k, true); }},
                {"allow_cleanup", into(c.allow_cleanup, &Reader::boolean)},
                {"voice", into(c.voice, &Reader::boolean)},
                {"voice_language", into(c.voice_language, &Reader::string)},
                {"voice_chars_per_turn",
                 [&](const toml::node& n, const std::string& k) {
                   c.voice_chars_per_turn = static_cast<std::size_t>(integer(n, k, 0, 1'000'000'000));
                 }},
                {"voice_chars_per_minute",
                 [&](const toml::node& n, const std::string& k) {
                   c.voice_chars_per_minute = static_cast<std::size_t>(integer(n, k, 0, 1'000'000'000));
                 }},
                {"react_allow",
                 [&](const toml::node& n, const std::string& k) { c.react_allow = strings(n, k, false); }},
                {"default_telegram_chat", into(c.default_telegram_chat, &Reader::string)},
                {"schedule_utc_offset",
                 [&](const toml::node& n, const std::string& k) {
                   c.schedule_utc_offset = string(n, k);
                   auto offset = actions::parse_utc_offset(c.schedule_utc_offset);
                   if (!offset) fail(n, k, "is not a UTC offset (e.g. \"UTC\", \"+01:00\", \"-0530\")");
                   c.schedule_offset = *offset;
                 }},
                {"page_scripts", into(c.page_scripts, &Reader::boolean)},
                {"message_targets",
                 [&](const toml::node& n, const std::string& k) {
                   tables(n, k, c.message_targets, [&](const toml::node& e, MessageTargetConfig& target) {
                     each(*e.as_table(), {
                                             {"channel", into(target.channel, &Reader::string)},
                                             {"chat", into(target.chat, &Reader::string)},
                                         });
                     if (target.channel.empty() || target.chat.empty())
                       fail(e, "", "needs both channel and chat");
                   });
                 }},
                {"commands",
                 [&](const toml::node& n, const std::string& k) {
                   tables(n, k, c.commands, [&](const toml::node& e, CommandConfigEntry& command) {
                     each(
                         *e.as_table(),
                         {
                             {"name", into(command.name, &Reader::string)},
                             {"program", into(command.program, &Reader::string)},
                             {"args", [&](const toml::node& v,
                                          const std::string& key) { command.args = strings(v, key, false); }},
                             {"description", into(command.description, &Reader::string)},
                             {"timeout_seconds",
                              [&](const toml::node& v, const std::string& key) {
                                command.timeout_seconds = static_cast<int>(integer(v, key, 1, 3600));
                              }},
                         });
                     if (command.name.empty() || command.program.empty())
                       fail(e, "", "needs a name and a program");
                   });
                 }},
            });
  }

  void search(const toml::table& t, SearchSettings& c) {
    each(t, {{"provider", one_of(c.provider, {"brave", "tavily", "searxng", ""})},
             {"api_key", into(c.api_key, &Reader::string)},
             {"url", [&](const toml::node& n, const std::string& k) { c.url = http_url(n, k, true); }}});
  }

  void fetch(const toml::table& t, FetchSettings& c) {
    each(t, {{"enabled", into(c.enabled, &Reader::boolean)},
             {"allow_private", into(c.allow_private, &Reader::private_hosts)},
             {"max_bytes", [&](const toml::node& n, const std::string& k) {
                c.max_bytes = static_cast<std::size_t>(integer(n, k, 1024, std::int64_t{64} << 20));
              }}});
  }

  void channels(const toml::table& t, ChannelsConfig& c) {
    for (auto&& [key, node] : t) {
      const std::string name(key.str());
      const toml::table* table = node.as_table();
      constexpr std::string_view kKnown[] = {"telegram", "discord", "slack", "matrix", "signal", "whatsapp"};
      if (std::find(std::begin(kKnown), std::end(kKnown), name) == std::end(kKnown))
        fail_at(key.source(), "unknown channel [channels." + name +
                                  "] (known: telegram, discord, slack, matrix, signal, whatsapp)");
      if (table == nullptr)
        fail_at(node.source(), "channels." + name + " must be a table ([channels." + name + "])");
      section_ = "channels." + name;
      if (name == "telegram") telegram(*table, c.telegram);
      if (name == "discord") discord(*table, c.discord);
      if (name == "slack") slack(*table, c.slack);
      if (name == "matrix") matrix(*table, c.matrix);
      if (name == "signal") signal(*table, c.signal);
      if (name == "whatsapp") whatsapp(*table, c.whatsapp);
    }
  }

  // [mcp.servers.NAME]: NAME is the tag's server part, so it must be a name a tag can carry.
  void mcp(const toml::node& node, std::vector<McpServerConfig>& out) {
    const toml::table* t = node.as_table();
    const toml::table* servers = t != nullptr && t->size() == 1 ? (*t)["servers"].as_table() : nullptr;
    if (servers == nullptr) fail_at(node.source(), "mcp must hold only tables [mcp.servers.NAME]");
    for (auto&& [key, server] : *servers) {
      McpServerConfig c;
      c.name = std::string(key.str());
      section_ = "mcp.servers." + c.name;
      const bool valid = !c.name.empty() && std::all_of(c.name.begin(), c.name.end(), [](char ch) {
        return text::ascii::is_alnum(ch) || ch == '-' || ch == '.' || ch == '_';
      });
      if (!valid)
        fail_at(key.source(), "[" + section_ + "] the name may hold only letters, digits, '-', '.', '_'");
      if (!server.is_table()) fail_at(server.source(), "[" + section_ + "] must be a table");
      auto pairs = [&](const toml::node& n, const std::string& k) {
        const auto* m = n.as_table();
        if (m == nullptr) fail(n, k, "must be a table of strings ({ NAME = \"value\" })");
        std::vector<std::pair<std::string, std::string>> kv;
        for (auto&& [name, value] : *m) kv.emplace_back(std::string(name.str()), string(value, k));
        return kv;
      };
      each(*server.as_table(),
           {{"command", [&](const toml::node& n, const std::string& k) { c.command = strings(n, k, false); }},
            {"url", into(c.url, &Reader::string)},
            {"env", [&](const toml::node& n, const std::string& k) { c.env = pairs(n, k); }},
            {"headers", [&](const toml::node& n, const std::string& k) { c.headers = pairs(n, k); }},
            {"timeout_seconds", int_in(c.timeout_seconds, 1, 3600)},
            {"elicitation", one_of(c.elicitation, {"decline", "cancel", "defaults"})},
            {"oauth", [&](const toml::node& n, const std::string& k) { mcp_oauth(n, k, c.oauth); }}});
      if (c.command.empty() == c.url.empty())
        fail_at(server.source(), "[" + section_ + "] needs exactly one of command = [...] or url = \"...\"");
      if (c.oauth.enabled && c.url.empty())
        fail_at(server.source(),
                "[" + section_ + "] oauth is for a url server (a command server has no HTTP)");
      out.push_back(std::move(c));
    }
  }

  // oauth = { client_id, client_secret, client_secret_env, private_key_file, signing_algorithm, scope, grant,
  // allow_private }; every key optional ({} registers dynamically).
  void mcp_oauth(const toml::node& node, const std::string& key, McpServerConfig::OAuth& o) {
    const toml::table* t = node.as_table();
    if (t == nullptr) fail(node, key, "must be a table ({ client_id = \"…\", client_secret_env = \"…\" })");
    o.enabled = true;
    each(*t, {{"client_id", into(o.client_id, &Reader::string)},
              {"client_secret", into(o.client_secret, &Reader::string)},
              {"client_secret_env", into(o.client_secret_env, &Reader::string)},
              {"private_key_file", into(o.private_key_file, &Reader::path)},
              {"signing_algorithm", one_of(o.signing_algorithm, {"ES256", "RS256"})},
              {"scope", into(o.scope, &Reader::string)},
              {"allow_private", into(o.allow_private, &Reader::private_hosts)},
              {"grant", [&](const toml::node& n, const std::string& k) {
                 o.grant = string(n, k);
                 if (!actions::valid_mcp_oauth_grant(o.grant))
                   fail(n, k,
                        "must be \"auto\", \"client_credentials\" or \"authorization_code\", not " +
                            in_quotes(o.grant));
               }}});
    if (!o.client_secret_env.empty() && !o.client_secret.empty())
      fail(node, key, "has both client_secret and client_secret_env: keep one");
    const bool secret =
        !o.client_secret.empty() || !o.client_secret_env.empty() || !o.private_key_file.empty();
    if (secret && o.client_id.empty()) fail(node, key, "has a client secret but no client_id");
    if (o.grant == "client_credentials" && !secret)
      fail(node, key,
           "grant = \"client_credentials\" needs client_secret, client_secret_env or private_key_file");
  }

  void telegram(const toml::table& t, TelegramConfig& c) {
    c.enabled = true;
    each(t,
         {
             {"token",
              [&](const toml::node& n, const std::string& k) {
                c.token = string(n, k);
                // Never quoted back: it is a secret.
                if (!c.token.empty() && !valid_telegram_token(c.token))
                  fail(n, k, "is not a bot token (digits, ':', then letters, digits, '_' or '-')");
              }},
             {"api_url", api_url_into(c.api_url)},
             {"mode", one_of(c.mode, {"polling", "webhook"})},
             {"webhook_url",
              [&](const toml::node& n, const std::string& k) {
                c.webhook_url = string(n, k);
                const std::size_t scheme = c.webhook_url.find("://");
                const std::size_t path =
                    scheme == std::string::npos ? std::string::npos : c.webhook_url.find('/', scheme + 3);
                if ((c.webhook_url.rfind("https://", 0) != 0 && c.webhook_url.rfind("http://", 0) != 0) ||
                    path == std::string::npos || path + 1 >= c.webhook_url.size())
                  fail(n, k,
                       "must be the public URL Telegram posts to, with a path (e.g. "
                       "\"https://bot.example.com/telegram/webhook\"), not " +
                           in_quotes(c.webhook_url));
                c.webhook_path = c.webhook_url.substr(path, c.webhook_url.find_first_of("?#", path) - path);
                // The gateway serves the path beside its own routes: it must not hide one of them.
                for (const std::string_view own :
                     {"/healthz", "/metrics", "/index.html", "/v1/", "/media/", "/assets/", "/pages/"})
                  if (c.webhook_path == own || (own.back() == '/' && c.webhook_path.starts_with(own)))
                    fail(n, k,
                         "must not use a path of the gateway's own (" + std::string(own) +
                             "): pick one such as /telegram/webhook");
              }},
             {"webhook_secret",
              [&](const toml::node& n, const std::string& k) {
                c.webhook_secret = string(n, k);
                // Never quoted back: it is a secret.
                if (!valid_telegram_webhook_secret(c.webhook_secret))
                  fail(n, k, "must be 1-256 of A-Z, a-z, 0-9, '_' and '-' (Telegram's secret_token)");
              }},
             {"stream", into(c.stream, &Reader::boolean)},
             {"edit_interval_ms", int_in(c.edit_interval_ms, 200, 60'000)},
             {"max_download_mb", megabytes(c.max_download_bytes, 2000)},
             {"allowed_users",
              [&](const toml::node& n, const std::string& k) {
                const auto* a = n.as_array();
                if (a == nullptr) fail(n, k, "must be an array of Telegram user ids (integers)");
                c.allowed_users.clear();
                for (const toml::node& e : *a) {
                  const auto* i = e.as_integer();
                  if (i == nullptr || i->get() <= 0)
                    fail(e, k, "must be an array of Telegram user ids (positive integers, e.g. [123456789])");
                  c.allowed_users.push_back(i->get());
                }
              }},
             {"poll_timeout", int_in(c.poll_timeout_seconds, 0, 50)},
         });
  }

  // A chat platform's API address: http(s)://, without a trailing slash.
  std::string api_url(const toml::node& n, const std::string& k) {
    return net::without_trailing_slashes(http_url(n, k, false));
  }

  // A channel's allowed_users: an array of the platform's ids as strings, each checked by `valid`; `why`
  // names the form in the error, at the array or at the first element that is not one.
  template <class Valid>
  std::vector<std::string> id_list(const toml::node& n, const std::string& k, const std::string& why,
                                   Valid valid) const {
    const auto* a = n.as_array();
    if (a == nullptr) fail(n, k, why);
    std::vector<std::string> ids;
    for (const toml::node& e : *a) {
      const auto* v = e.as_string();
      if (v == nullptr || !valid(v->get())) fail(e, k, why);
      ids.push_back(v->get());
    }
    return ids;
  }

  void discord(const toml::table& t, DiscordConfig& c) {
    c.enabled = true;
    each(t, {
                {"token", into(c.token, &Reader::string)},
                {"api_url", api_url_into(c.api_url)},
                {"allowed_users",
                 [&](const toml::node& n, const std::string& k) {
                   c.allowed_users = id_list(n, k,
                                             "must be an array of Discord user ids (snowflakes as strings, "
                                             "e.g. [\"80351110224678912\"])",
                                             [](const std::string& v) {
                                               return !v.empty() && v.size() <= 20 &&
                                                      v.find_first_not_of("0123456789") == std::string::npos;
                                             });
                 }},
                {"request_timeout", int_in(c.request_timeout_seconds, 1, 300)},
                {"max_download_mb", megabytes(c.max_download_bytes, 500)},
            });
  }

  void slack(const toml::table& t, SlackConfig& c) {
    c.enabled = true;
    const auto token = [&](std::string& into_token, std::string_view prefix) {
      return [&into_token, prefix, this](const toml::node& n, const std::string& k) {
        into_token = string(n, k);
        if (!into_token.empty() && !std::string_view(into_token).starts_with(prefix))
          fail(n, k, "must be a Slack token starting " + std::string(prefix));
      };
    };
    each(t, {
                {"bot_token", token(c.bot_token, "xoxb-")},
                {"app_token", token(c.app_token, "xapp-")},
                {"api_url", api_url_into(c.api_url)},
                {"allowed_users",
                 [&](const toml::node& n, const std::string& k) {
                   c.allowed_users = id_list(
                       n, k, "must be an array of Slack member ids (e.g. [\"U012AB3CD\"])",
                       [](const std::string& v) {
                         return v.size() >= 2 && v.size() <= 24 && (v.front() == 'U' || v.front() == 'W') &&
                                v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ==
                                    std::string::npos;
                       });
                 }},
                {"request_timeout", int_in(c.request_timeout_seconds, 1, 300)},
                {"max_download_mb", megabytes(c.max_download_bytes, 1000)},
            });
  }

  void matrix(const toml::table& t, MatrixConfig& c) {
    c.enabled = true;
    // "@localpart:server": what a Matrix user id looks like (the spec's grammar, loosely).
    const auto user_id = [](const std::string& v) {
      const auto colon = v.find(':');
      return v.size() >= 4 && v.size() <= 255 && v.front() == '@' && colon != std::string::npos &&
             colon > 1 && colon + 1 < v.size() && v.find_first_of(" \t\n/") == std::string::npos;
    };
    const std::string why = "must be a Matrix user id (e.g. \"@alice:example.org\")";
    each(t, {
                {"homeserver_url", api_url_into(c.homeserver_url)},
                {"access_token", into(c.access_token, &Reader::string)},
                {"user_id",
                 [&](const toml::node& n, const std::string& k) {
                   c.user_id = string(n, k);
                   if (!user_id(c.user_id)) fail(n, k, why);
                 }},
                {"allowed_users",
                 [&](const toml::node& n, const std::string& k) {
                   c.allowed_users = id_list(
                       n, k, "must be an array of Matrix user ids (e.g. [\"@alice:example.org\"])", user_id);
                 }},
                {"request_timeout", int_in(c.request_timeout_seconds, 1, 300)},
                {"max_download_mb", megabytes(c.max_download_bytes, 1000)},
            });
  }

  void signal(const toml::table& t, SignalConfig& c) {
    c.enabled = true;
    const auto list = [&](std::vector<std::string>& into_list, const char* why,
                          bool (*valid)(std::string_view)) {
      return [&into_list, why, valid, this](const toml::node& n, const std::string& k) {
        into_list = id_list(n, k, why, [valid](const std::string& v) { return valid(v); });
      };
    };
    each(t,
         {
             {"rpc_url", api_url_into(c.rpc_url)},
             {"account",
              [&](const toml::node& n, const std::string& k) {
                c.account = string(n, k);
                if (c.account.empty() || c.account.front() != '+' ||
                    !channels::signal::is_signal_user(c.account))
                  fail(n, k, "must be the bot's number in E.164 (e.g. \"+15551234567\")");
              }},
             {"allowed_users", list(c.allowed_users, "must be an array of numbers in E.164 or ACIs (UUIDs)",
                                    &channels::signal::is_signal_user)},
             {"allowed_groups",
              list(c.allowed_groups, "must be an array of Signal group ids (base64, 44 characters)",
                   &channels::signal::is_signal_group)},
             {"request_timeout", int_in(c.request_timeout_seconds, 1, 600)},
             {"silence_seconds", int_in(c.silence_seconds, 20, 3600)},
             {"max_download_mb", megabytes(c.max_download_bytes, 1000)},
         });
  }

  void whatsapp(const toml::table& t, WhatsAppConfig& c) {
    c.enabled = true;
    const auto digits = [](const std::string& v) {
      return !v.empty() && v.size() <= 20 && v.find_first_not_of("0123456789") == std::string::npos;
    };
    each(t, {{"api_url", api_url_into(c.api_url)},
             {"phone_number_id",
              [&](const toml::node& n, const std::string& k) {
                c.phone_number_id = string(n, k);
                if (!digits(c.phone_number_id))
                  fail(n, k, "must be the number's id (digits, from API Setup)");
              }},
             {"access_token", into(c.access_token, &Reader::string)},
             {"app_secret", into(c.app_secret, &Reader::string)},
             {"verify_token", into(c.verify_token, &Reader::string)},
             {"webhook_path",
              [&](const toml::node& n, const std::string& k) {
                c.webhook_path = string(n, k);
                if (!c.webhook_path.starts_with("/") || c.webhook_path.find('?') != std::string::npos)
                  fail(n, k, "must be a path starting with / (e.g. \"/whatsapp/webhook\")");
              }},
             {"allowed_users",
              [&](const toml::node& n, const std::string& k) {
                c.allowed_users =
                    id_list(n, k, "must be an array of phone numbers (e.g. [\"+16505551234\"])",
                            [](const std::string& v) {
                              return v.find_first_of("0123456789") != std::string::npos &&
                                     v.find_first_not_of("+0123456789 -()") == std::string::npos;
                            });
              }},
             {"request_timeout", int_in(c.request_timeout_seconds, 1, 300)},
             {"max_download_mb", megabytes(c.max_download_bytes, 100)}});
  }

  std::string name_;
  fs::path base_;
  std::string section_;
  std::string images_model_, images_size_;  // where the images model and size were set (once_for_images)
};

}  // namespace

void read_config_toml(std::string_view text, const std::string& name, Config& config) {
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source();
    throw ConfigError(name + ":" + std::to_string(where.begin.line) + ":" +
                      std::to_string(where.begin.column) + ": " + std::string(e.description()));
  }
  Reader(name, std::filesystem::path(name).parent_path()).read(root, config);
}

}  // namespace sigil::app
