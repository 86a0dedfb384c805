// The configured providers of the provider-backed actions ([search], [fetch], [images] and [model]
// vision) as the built-in actions' configuration. The gateway runs with it and `sigil prompt` teaches from
// it, so what the prompt command prints is what a served model is taught (actions::untaught_actions).
#pragma once

#include "app/config.h"
#include "sigil/actions/builtin_handlers.h"

namespace sigil::app {

// Sets builtin.search, .fetch, .images and .view_image from `config`; leaves everything else alone.
// Images need a server ([images] url or [model] url) and vision the model's: the replay model has neither.
void apply_provider_settings(const Config& config, actions::BuiltinConfig& builtin);

}  // namespace sigil::app
