// An action as data (spec sections 9, 12.2, 13).
//
// One ActionSpec says everything sigil knows about an action apart from its handler: its canonical name,
// typed parameters, the spellings a model may use in each dialect, cross-parameter rules and execution
// properties. From it come the recognizer's name tables (Registry), argument validation (validate.h), the
// prompt docs (prompt_doc.h) and the tool schemas (tool_schema.h). Adding an action means adding one of
// these and its handler (docs/contributing.md); the parser is never touched.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sigil/parse/grammar.h"

namespace sigil::catalog {

// Parameter types (9.1).
enum class ParamType : unsigned char {
  String,    // from strings as written, or from JSON numbers (42 -> "42")
  Integer,   // from JSON integers, integral JSON numbers, or strings ("10" -> 10)
  Number,    // from JSON numbers or strings ("0.25" -> 0.25)
  Boolean,   // true false yes no on off 1 0, any case; a key written without a value is true
  Enum,      // matched in any case through `enum_values`, printed canonical
  Duration,  // `^\d+(\.\d+)?[mhd]$`, printed as written (trimmed)
  Datetime,  // `YYYY-MM-DD[ T]HH:MM(:SS)?(Z|[+-]HH:MM)?`, printed as written (trimmed)
  Array,     // a JSON array (an attribute may hold one as JSON text)
  Json,      // any JSON value; attributes give strings
};

// Where an action's result goes once its handler has run (12.2).
enum class ResultTo : unsigned char {
  Model,         // back to the model, which is called again after the reply
  ModelOnError,  // only failures go back to the model
  User,          // the result is shown to the user
  Inline,        // the result replaces the directive in the clean text (10.2)
  None,          // nothing is reported
};

// Whether handlers of this action may run at the same time within one conversation (12.2).
enum class Concurrency : unsigned char {
  Parallel,
  SerialPerConversation,
};

// One accepted spelling of an enum value, and the canonical value it means.
struct EnumValue {
  std::string written;    // lower case; matched case-insensitively
  std::string canonical;  // what `args` holds
};

struct ParamSpec {
  std::string name;                  // canonical; `args` keys use it
  std::vector<std::string> aliases;  // other keys a model may write (`file` for `path`)
  ParamType type = ParamType::String;
  bool required = false;  // a missing required parameter makes the directive invalid (9.3)

  // Enum: the accepted spellings. An unknown value becomes `enum_fallback` with a note `unknown-<name>` and
  // the directive stays valid; with no fallback an unknown value fails conversion.
  std::vector<EnumValue> enum_values;
  std::string enum_fallback;

  // Array: an empty array fails validation.
  bool non_empty = false;
  // Array: each element converts to this type (Json: kept as written). Only scalar types are meaningful.
  ParamType element = ParamType::Json;

  // Documentation only, for prompt docs and tool schemas: what the handler uses when the parameter is not
  // given. Validation never puts it into `args` (9.6: `args` lists only what was written).
  boost::json::value default_value;
  std::string description;
};

// A rule over several parameters. A parameter counts as given when its value is not missing (9.3).
struct ParamRule {
  enum class Kind : unsigned char {
    AllOrNone,   // send-file: `channel` and `chat` both or neither
    ExactlyOne,  // scheduleTask: `delay` or `time`; deleteScheduledTask: `id` or `timestamp`
  } kind = Kind::AllOrNone;
  std::vector<std::string> params;  // canonical names
};

// A parameter a spelling fixes or defaults (9.6). A preset satisfies the parameter's required-ness; it is
// never added to `args`.
struct PresetParam {
  std::string name;  // canonical parameter name
  // Fixed: the only value allowed (compared case-insensitively as a string). Default: the value the handler
  // uses when none is written; null means it comes from configuration at run time (sendTelegram's `chat`).
  boost::json::value value;
  bool fixed = false;  // true: a different written value makes the directive invalid
};

enum class Dialect : unsigned char {
  Tag,      // <name …>
  Bracket,  // [NAME:args]
  Mcp,      // the dynamic `mcp_<server>_<tool>` tags (5.6): no fixed name
};

struct Spelling {
  Dialect dialect = Dialect::Tag;
  // As written in prompts: `googleSearch`, `REQUEST_TIER`. Tag names match case-insensitively; bracket names
  // must be upper case. Empty for Dialect::Mcp.
  std::string name;
  parse::BodyKind body = parse::BodyKind::None;  // tags only
  // Bytes of body allowed (2.8, 5.5). 0: the action's `body_limit`, else 16 KiB (64 KiB for json bodies).
  std::size_t body_limit = 0;
  // Brackets: the parameters ARGS fills, in order (3.3). Empty: the action's body parameter, else its only
  // parameter.
  std::vector<std::string> positional;
  std::vector<PresetParam> presets;
  // Text bodies that a line break fails (2.8): remember, calculate.
  bool single_line = false;
};

struct ActionSpec {
  std::string name;  // canonical (section 13)
  std::string summary;
  std::vector<ParamSpec> params;
  std::string body_param;  // the parameter a text body fills (◆ in section 13); empty: none
  std::vector<ParamRule> rules;
  std::vector<Spelling> spellings;

  ResultTo result_to = ResultTo::ModelOnError;
  bool interrupts = false;  // 12.2
  // Its handler delivers into the chat (a reaction, a file, a voice note, a relayed message): its directive
  // holds the text after it until it has run, so what the user sees keeps reply order (12.1).
  bool delivers = false;
  // Bytes of body for spellings that do not set their own. 0: 16 KiB, json bodies 64 KiB.
  std::size_t body_limit = 0;
  // Execution hints for exec/ (12.2).
  std::chrono::milliseconds timeout{30'000};
  Concurrency concurrency = Concurrency::Parallel;
};

inline constexpr std::size_t kDefaultBodyLimit = 16 * 1024;
inline constexpr std::size_t kDefaultJsonBodyLimit = 64 * 1024;
inline constexpr std::size_t kUnlimitedBody = static_cast<std::size_t>(-1);  // content bodies (say)

// The body limit that applies to `spelling` of `action`.
std::size_t effective_body_limit(const ActionSpec& action, const Spelling& spelling);

// The parameter whose name or alias is `key` (ASCII case-insensitive), or nullptr.
const ParamSpec* find_param(const ActionSpec& action, std::string_view key);

// The parameters a bracket spelling's ARGS fill, in order (3.3).
std::vector<std::string> positional_params(const ActionSpec& action, const Spelling& spelling);

// Whether some parameter must be written for a directive in this spelling to be valid: a required parameter
// the spelling does not preset, or an ExactlyOne rule. Used for `none` tags (2.4) and `[NAME]` (3.4).
bool needs_written_params(const ActionSpec& action, const Spelling& spelling);

std::string_view to_string(ParamType type);
std::string_view to_string(ResultTo result_to);

}  // namespace sigil::catalog
