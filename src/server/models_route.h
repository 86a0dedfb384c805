// GET /v1/models and /v1/models/{id}: what OpenAI-compatible clients (the official SDKs' models.list(),
// Open WebUI, LibreChat) ask before their first request. Pure: no sockets.
//
// What it promises:
// - The list holds one model, the gateway's agent, under `id` (HttpServerOptions::model_id): any `model`
//   a client sends to /v1/chat/completions is accepted, this is the one to show in a model picker.
// - Shapes follow OpenAI's API reference: {"object":"list","data":[{"id","object":"model","created",
//   "owned_by"}]}; an unknown id is 404 with OpenAI's error object (code "model_not_found").
#pragma once

#include <cstdint>
#include <string>

#include "server/plain_response.h"

namespace sigil::server {

// `param` is the raw path part after "/v1/models/" ("" for the list). `created`: Unix seconds.
PlainResponse models_response(const std::string& id, const std::string& param, std::int64_t created);

}  // namespace sigil::server
