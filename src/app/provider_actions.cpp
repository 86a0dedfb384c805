#include "app/provider_actions.h"

namespace sigil::app {

void apply_provider_settings(const Config& config, actions::BuiltinConfig& builtin) {
  const ModelConfig& model = config.model;
  // [images] url names its own server (with its own key); without it the pictures come from the model's.
  const ImagesSettings& images = config.images;
  const std::string& url = images.url.empty() ? model.url : images.url;
  if (!url.empty() && !images.model.empty()) {
    builtin.images.base_url = url;
    builtin.images.api_key = images.url.empty() && images.key.empty() ? model.key : images.key;
    builtin.images.model = images.model;
    builtin.images.size = images.size;
  }
  builtin.view_image.enabled = model.vision && !model.url.empty();
  builtin.search.provider = {config.search.provider, config.search.api_key, config.search.url};
  builtin.fetch.enabled = config.fetch.enabled;
  builtin.fetch.allow_private = config.fetch.allow_private;
  builtin.fetch.max_bytes = config.fetch.max_bytes;
}

}  // namespace sigil::app
