#include <string>

#include "sigil/store/sha256.h"
#include "sigil/store/store.h"

namespace sigil::store {
namespace {

// "<length>:<bytes>;" so that field boundaries cannot be forged by the fields' contents.
void field(Sha256& h, std::string_view bytes) {
  const std::string length = std::to_string(bytes.size());
  h.update(length);
  h.update(":");
  h.update(bytes);
  h.update(";");
}

}  // namespace

std::string once_key(std::string_view conversation_id, std::string_view turn_id, std::uint32_t ordinal,
                     std::string_view action, std::string_view normalized_args_json) {
  Sha256 h;
  field(h, "sigil-once-v1");  // a version, should the encoding ever change
  field(h, conversation_id);
  field(h, turn_id);
  field(h, std::to_string(ordinal));
  field(h, action);
  field(h, normalized_args_json);
  return to_hex(h.finish());
}

}  // namespace sigil::store
