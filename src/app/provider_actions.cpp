#include "app/provider_actions.h"

namespace sigil::app {

void apply_provider_settings(const Config& config, actions::BuiltinConfig& builtin) {
  const ModelConfig& model = config.model;
  if (!model.url.empty() && !model.image_model.empty()) {
    builtin.images.base_url = model.url;
    builtin.images.api_key = model.key;
    builtin.images.model = model.image_model;
    builtin.images.size = model.image_size;
  }
  builtin.view_image.enabled = model.vision && !model.url.empty();
  builtin.search.provider = {config.search.provider, config.search.api_key, config.search.url};
  builtin.fetch.enabled = config.fetch.enabled;
  builtin.fetch.allow_private = config.fetch.allow_private;
  builtin.fetch.max_bytes = config.fetch.max_bytes;
}

}  // namespace sigil::app
