// Text embeddings from an OpenAI-compatible server: POST {base_url}/embeddings {"model","input":[...]} →
// {"data":[{"index","embedding":[...]}]} (OpenAI, vLLM, llama.cpp --embeddings, Ollama's /v1, LocalAI).
//
// Promises:
// - embed() blocks its caller until the answer (or the time-out) and is safe from several threads at once;
//   it never throws. Vectors come back in the order of the texts, all of one length.
// - A server that does not offer the endpoint (HTTP 404, 405 or 501, or a 400 that names no such model or
//   route) makes the client unavailable for the rest of its life: available() turns false and every later
//   embed() fails at once without a request, so a missing feature costs one request, not one per search.
//   Any other failure (time-out, 5xx, 429, a malformed answer) is that call's error only.
// - Errors are one line naming the server, never the key.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "sigil/base/result.h"

namespace sigil::model {

struct EmbeddingsConfig {
  std::string base_url;  // as OpenAiConfig::base_url ("…/v1")
  std::string api_key;   // empty: no Authorization header
  std::string model = "text-embedding-3-small";
  std::chrono::milliseconds timeout{30'000};
  std::string ca_file;
  std::size_t max_response_bytes = 64u << 20;
};

class Embeddings {
 public:
  virtual ~Embeddings() = default;
  virtual Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) = 0;
  virtual bool available() const = 0;
  virtual const std::string& model() const = 0;
};

// Throws std::invalid_argument for a base_url that is not http(s)://host[:port][/path] or an unreadable
// ca_file.
std::unique_ptr<Embeddings> make_openai_embeddings(EmbeddingsConfig config);

}  // namespace sigil::model
