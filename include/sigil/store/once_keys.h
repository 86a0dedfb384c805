// The exactly-once keys of one turn's directives (spec 12.4), with the fields they share hashed once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sigil/store/sha256.h"

namespace sigil::store {

// key(o, a, j) == once_key(conversation_id, turn_id, o, a, j) (store.h): the version, the conversation and
// the turn are hashed when it is made, so each key costs only its own fields.
class OnceKeys {
 public:
  OnceKeys(std::string_view conversation_id, std::string_view turn_id) noexcept;
  std::string key(std::uint32_t ordinal, std::string_view action,
                  std::string_view normalized_args_json) const;

 private:
  Sha256 prefix_;
};

}  // namespace sigil::store
