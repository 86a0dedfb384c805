// Test-only helpers for tests/spec: a toy reader for single, simple directives, so validation cases can be
// written as markup. It is NOT the parser: one tag with quoted, unquoted or valueless attributes and a plain
// body, or one bracket; basic character references; strict JSON only (no repairs, no triggers, no limits).
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/catalog/registry.h"
#include "sigil/text/ascii.h"
#include "sigil/text/char_refs.h"
#include "support/run_parse.h"

namespace sigil::catalog::test_support {

using text::ascii::iequals;

inline std::string_view trim_ws(std::string_view s) {
  return text::ascii::trim(s, text::ascii::is_markup_space);
}

inline void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
  sigil::text::append_utf8(out, static_cast<char32_t>(cp));
}

// Character references of spec 2.3.
inline std::string decode_refs(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '&') {
      std::size_t semi = s.find(';', i);
      if (semi != std::string_view::npos && semi - i <= 12) {
        std::string_view name = s.substr(i + 1, semi - i - 1);
        std::optional<std::string> rep;
        if (name == "amp") rep = "&";
        if (name == "lt") rep = "<";
        if (name == "gt") rep = ">";
        if (name == "quot") rep = "\"";
        if (name == "apos") rep = "'";
        if (name.size() > 1 && name[0] == '#') {
          bool hex = name[1] == 'x' || name[1] == 'X';
          std::string_view digits = name.substr(hex ? 2 : 1);
          std::uint64_t cp = 0;
          bool ok = !digits.empty();
          for (char c : digits) {
            int d = c >= '0' && c <= '9'          ? c - '0'
                    : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                  : -1;
            if (d < 0) ok = false;
            cp = std::min<std::uint64_t>(cp * (hex ? 16 : 10) + static_cast<unsigned>(d < 0 ? 0 : d),
                                         0x110000);
          }
          if (ok) {
            rep = std::string();
            append_utf8(*rep, static_cast<std::uint32_t>(cp));
          }
        }
        if (rep) {
          out += *rep;
          i = semi + 1;
          continue;
        }
      }
    }
    out += s[i++];
  }
  return out;
}

// What the toy reader found.
struct Toy {
  enum class Kind { Tag, Bracket, Mcp } kind = Kind::Tag;
  int spelling = -1;
  std::string server, tool;
  std::vector<parse::Attribute> attributes;
  parse::Body body;
  std::string args;
  bool has_args = false;
};

inline bool key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == ':';
}

// Reads `markup`, which must be exactly one directive. Fails the current test on what it cannot read.
inline Toy read_toy(const Registry& reg, std::string_view markup) {
  Toy t;
  if (markup.empty()) {
    ADD_FAILURE() << "empty markup";
    return t;
  }
  if (markup.front() == '[') {
    t.kind = Toy::Kind::Bracket;
    std::size_t close = markup.rfind(']');
    std::size_t colon = markup.find(':');
    std::size_t name_end = colon != std::string_view::npos && colon < close ? colon : close;
    std::string_view name = markup.substr(1, name_end - 1);
    t.spelling = reg.bracket_spelling(name);
    if (t.spelling < 0) ADD_FAILURE() << "unknown bracket " << name;
    t.has_args = name_end == colon;
    if (t.has_args) t.args = std::string(markup.substr(colon + 1, close - colon - 1));
    return t;
  }
  std::size_t i = 1;
  while (i < markup.size() && key_char(markup[i])) ++i;
  std::string_view name = markup.substr(1, i - 1);
  parse::BodyKind body_kind = parse::BodyKind::None;
  if (name.size() > 4 && iequals(name.substr(0, 4), "mcp_")) {
    t.kind = Toy::Kind::Mcp;
    body_kind = parse::BodyKind::Json;
    std::string_view rest = name.substr(4);
    for (const std::string& server : reg.mcp_servers()) {
      if (rest.size() > server.size() + 1 && iequals(rest.substr(0, server.size()), server) &&
          rest[server.size()] == '_' && server.size() > t.server.size()) {
        t.server = server;
        t.tool = std::string(rest.substr(server.size() + 1));
      }
    }
    if (t.server.empty()) ADD_FAILURE() << "no configured server in " << name;
  } else {
    t.spelling = reg.tag_spelling(name);
    if (t.spelling < 0) {
      ADD_FAILURE() << "unknown tag " << name;
      return t;
    }
    body_kind = reg.spelling_spec(t.spelling).body;
  }
  // Attributes.
  auto ws = [&](std::size_t& j) {
    while (j < markup.size() &&
           (markup[j] == ' ' || markup[j] == '\t' || markup[j] == '\n' || markup[j] == '\r'))
      ++j;
  };
  bool self_closing = false;
  for (;;) {
    ws(i);
    if (i >= markup.size()) {
      ADD_FAILURE() << "unterminated tag: " << markup;
      return t;
    }
    if (markup[i] == '>') {
      ++i;
      break;
    }
    if (markup[i] == '/') {
      ++i;
      ws(i);
      if (i < markup.size() && markup[i] == '>') ++i;
      self_closing = true;
      break;
    }
    std::size_t k = i;
    while (i < markup.size() && key_char(markup[i])) ++i;
    if (k == i) {
      ADD_FAILURE() << "bad attribute at " << markup.substr(k);
      return t;
    }
    parse::Attribute a;
    a.key = std::string(markup.substr(k, i - k));
    std::size_t j = i;
    ws(j);
    if (j < markup.size() && markup[j] == '=') {
      ++j;
      ws(j);
      a.has_value = true;
      std::string raw;
      if (j < markup.size() && (markup[j] == '"' || markup[j] == '\'')) {
        char q = markup[j++];
        while (j < markup.size() && markup[j] != q) {
          if (markup[j] == '\\' && j + 1 < markup.size() && markup[j + 1] == q) ++j;
          raw += markup[j++];
        }
        ++j;
      } else {
        while (j < markup.size() && markup[j] != ' ' && markup[j] != '\t' && markup[j] != '\n' &&
               markup[j] != '>' && !(markup[j] == '/' && j + 1 < markup.size() && markup[j + 1] == '>')) {
          raw += markup[j++];
        }
      }
      a.value = decode_refs(raw);
      i = j;
    }
    t.attributes.push_back(std::move(a));
  }
  if (self_closing || body_kind == parse::BodyKind::None) return t;
  // Body: up to the last close tag of this name, or the end.
  std::string close = "</" + std::string(name);
  std::size_t end = markup.size();
  for (std::size_t p = markup.size(); p-- > i;) {
    if (p + close.size() <= markup.size() && iequals(markup.substr(p, close.size()), close)) {
      end = p;
      break;
    }
  }
  std::string_view raw = markup.substr(i, end - i);
  switch (body_kind) {
    case parse::BodyKind::Markup:
      t.body.kind = parse::Body::Kind::Text;
      t.body.text = std::string(raw);
      break;
    case parse::BodyKind::Content:
      t.body.kind = parse::Body::Kind::Text;
      t.body.text = std::string(trim_ws(raw));
      break;
    case parse::BodyKind::Json: {
      std::string_view s = trim_ws(raw);
      if (s.empty()) break;  // {} (5.1)
      if (s.front() == '{' || s.front() == '[') {
        boost::system::error_code ec;
        boost::json::value v = boost::json::parse(s, ec);
        if (ec) {
          t.body.kind = parse::Body::Kind::JsonError;
          t.body.error = ec.message();
        } else {
          t.body.kind = parse::Body::Kind::Json;
          t.body.json = std::move(v);
        }
      } else {
        t.body.kind = parse::Body::Kind::Text;
        t.body.text = decode_refs(s);
      }
      break;
    }
    default:
      t.body.kind = parse::Body::Kind::Text;
      t.body.text = decode_refs(trim_ws(raw));
      break;
  }
  return t;
}

inline parse::Validated validate_toy(const Registry& reg, const Toy& t) {
  switch (t.kind) {
    case Toy::Kind::Bracket:
      return reg.validate_bracket(t.spelling, t.args, t.has_args);
    case Toy::Kind::Mcp:
      return reg.validate_mcp(t.server, t.tool, t.attributes, t.body);
    case Toy::Kind::Tag:
      break;
  }
  return reg.validate_tag(t.spelling, t.attributes, t.body);
}

inline parse::Validated validate_markup(const Registry& reg, std::string_view markup) {
  return validate_toy(reg, read_toy(reg, markup));
}

// Deep equality as the conformance runner compares `args` (support/run_parse.h): numbers by value, everything
// else exactly.
using sigil::testing::same_json;

inline Registry conformance_registry() {
  RegistryOptions options;
  options.mcp_servers = {"brave-search", "github", "my_server", "context7"};
  return Registry::builtin(std::move(options));
}

inline bool has_note(const parse::Validated& v, std::string_view code) {
  for (const parse::Note& n : v.notes) {
    if (n.code == code) return true;
  }
  return false;
}

}  // namespace sigil::catalog::test_support
