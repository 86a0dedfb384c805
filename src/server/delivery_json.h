// The one JSON shape a delivery has for the gateway's API clients: the `delivery` events of
// POST /v1/conversations/{id}/messages and the `sigil` extension of /v1/chat/completions (streamed delivery
// chunks and the report's deliveries). Pure: no sockets.
//
// What it promises:
// - {"op", and by op: "text"; "emoji","message"; "text","channel","chat"; for "file" and "voice": "name",
//   "kind", "caption", "sha256", "mime", "size", "url" (and "duration_ms" for voice)}. Never the payload's
//   bytes, never a path on the server (a voice note's temporary file is gone by the time a client looks).
// - With a media store, a file's or voice note's bytes are kept there (under the data folder: media/) and
//   "url" is their stable /media/<sha256>/<name>; when they cannot be kept, "url" is null and "error" says
//   why. Putting the same bytes again is harmless (the store keeps one copy per hash).
#pragma once

#include <boost/json/object.hpp>

#include "server/media_store.h"
#include "sigil/exec/handler.h"

namespace sigil::server {

boost::json::object delivery_json(const exec::Delivery& delivery, MediaStore* media);

}  // namespace sigil::server
