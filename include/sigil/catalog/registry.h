// The action registry: the parser's grammar built from ActionSpecs (spec sections 2-9, 13).
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/catalog/action_spec.h"
#include "sigil/parse/grammar.h"

namespace sigil::catalog {

// One tool of a connected MCP server, as the prompt and the native tool schemas teach it.
struct McpToolDoc {
  std::string server, name, description;
  boost::json::object input_schema;
};

struct RegistryOptions {
  // Configured MCP server names (5.6), as configured.
  std::vector<std::string> mcp_servers;
  // The tools of the connected servers (listed at start; a registry made again when a server announces a
  // change, app::McpTeaching); the prompt teaches each one.
  std::vector<McpToolDoc> mcp_tools;
  // Bracket names match case-insensitively (3.1).
  bool brackets_case_insensitive = false;
  // Tag sentinels (7.1) and hidden-region names (8.1); matched case-insensitively.
  std::vector<std::string> sentinel_tags{"no-reply", "no_reply"};
  std::vector<std::string> hidden_tags{"think", "thinking", "reasoning", "thought"};
  // The wrapper tag (2.6).
  std::string wrapper_tag = "actions";
  // The action whose tag spellings are say blocks (6.1): TagRole::Say instead of TagRole::Action.
  std::string say_action = "say";
};

// Implements parse::Grammar over a list of ActionSpecs. Spelling indexes number every spelling of every
// action in registration order and stay stable when actions are added. Spans returned by tag_names(),
// bracket_names() and mcp_servers() are invalidated by add().
class Registry : public parse::Grammar {
 public:
  // Throws std::invalid_argument when a spec is malformed or a name is taken (see add()).
  explicit Registry(std::vector<ActionSpec> actions = {}, RegistryOptions options = {});

  // The built-in actions of section 13.
  static Registry builtin(RegistryOptions options = {});

  // Registers another action. Throws std::invalid_argument, leaving the registry unchanged, when:
  // the canonical name is empty or taken; a parameter name or alias is empty or repeated
  // (case-insensitively); body_param, a positional parameter, a preset or a rule names no parameter; an enum
  // has no values; a tag name is empty, uses characters other than `A-Z a-z 0-9 _ - . :` or is already
  // registered (as a spelling, the wrapper, a sentinel or a hidden-region name); a bracket name is not upper
  // case `A-Z 0-9 _` or is taken; a text, path, markup or content spelling has no body parameter; a bracket
  // spelling has no parameter to fill; a second Mcp spelling is added.
  void add(ActionSpec action);

  const RegistryOptions& options() const { return options_; }
  std::span<const ActionSpec> actions() const { return actions_; }
  const ActionSpec* find_action(std::string_view canonical_name) const;

  // The spelling behind an index, and its action. Throws std::out_of_range for a bad index.
  const Spelling& spelling_spec(int index) const;
  const ActionSpec& action_of(int index) const;
  std::size_t spelling_count() const { return refs_.size(); }

  // Lookups by name as written: a tag name (any case) or bracket name (case per options). -1 when unknown.
  int tag_spelling(std::string_view name) const;
  int bracket_spelling(std::string_view name) const;
  // The index of the Mcp spelling, or -1 when no `mcp` action is registered.
  int mcp_spelling() const { return mcp_spelling_; }
  // Body limit of MCP tags (5.5, 13).
  std::size_t mcp_body_limit() const override;

  // parse::Grammar
  std::span<const parse::TagName> tag_names() const override { return tag_names_; }
  std::span<const parse::BracketName> bracket_names() const override { return bracket_names_; }
  bool brackets_case_insensitive() const override { return options_.brackets_case_insensitive; }
  std::span<const std::string> mcp_servers() const override { return options_.mcp_servers; }
  const parse::SpellingInfo& spelling(int index) const override;
  std::vector<int> spellings_of(std::string_view action) const override;
  parse::Validated validate_tag(int spelling, std::span<const parse::Attribute> attributes,
                                const parse::Body& body) const override;
  void validate_tag_into(int spelling, std::span<const parse::Attribute> attributes, const parse::Body& body,
                         parse::Validated& out) const override;
  void validate_tag_refs_into(int spelling, std::span<const parse::AttributeRef> attributes,
                              parse::Validated& out) const override;
  // Resolves the parameter `key` names when the spelling takes the flat path (validate_tag_flat()) and one
  // attribute under it can be valid (a string or enum parameter that is all the required ones); the value
  // is then checked against it alone: no name lookup, no bounds check, no dispatch on the spelling.
  parse::OneValueTag one_value_tag(int spelling, std::string_view key) const override;
  void validate_one_value_into(const parse::OneValueTag& t, std::string_view key, std::string_view value,
                               parse::Validated& out) const override;
  parse::Validated validate_bracket(int spelling, std::string_view args, bool has_args) const override;
  void validate_bracket_into(int spelling, std::string_view args, bool has_args,
                             parse::Validated& out) const override;
  parse::Validated validate_mcp(std::string_view server, std::string_view tool,
                                std::span<const parse::Attribute> attributes,
                                const parse::Body& body) const override;

 private:
  struct SpellingRef {
    std::size_t action = 0;
    std::size_t spelling = 0;
    // validate_tag_flat()'s compiled form of the spelling (flat_required()): whether it may take the flat
    // path, and its required parameters as bits.
    bool flat = false;
    std::uint32_t required = 0;
  };

  void check(const ActionSpec& action) const;
  void index(std::size_t action_index);
  std::size_t checked(int index) const;
  // validate_tag_refs_into() for a spelling or attributes the flat path does not take.
  [[gnu::noinline]] void validate_tag_refs_general(const SpellingRef& r,
                                                   std::span<const parse::AttributeRef> attributes,
                                                   parse::Validated& out) const;

  RegistryOptions options_;
  std::vector<ActionSpec> actions_;
  std::vector<SpellingRef> refs_;
  std::vector<parse::SpellingInfo> infos_;
  std::vector<parse::TagName> tag_names_;
  std::vector<parse::BracketName> bracket_names_;
  int mcp_spelling_ = -1;
};

}  // namespace sigil::catalog
