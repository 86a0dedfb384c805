// The chat platforms' JSON (Telegram updates, Discord dispatches) is read leniently: text/json_fields.h.
#pragma once

#include "sigil/text/json_fields.h"

namespace sigil::channels {

using text::bool_at;
using text::int_at;
using text::object_at;
using text::string_at;

}  // namespace sigil::channels
