// A ModelClient for OpenAI-compatible chat completions (api.openai.com, OpenRouter, vLLM, llama.cpp, ...).
//
// POST {base_url}/chat/completions with "stream": true; the Server-Sent Events reply is parsed as it
// arrives: delta.content goes to on_text at once, delta.tool_calls fragments are assembled by index and
// go to on_tool_call when the choice finishes, finish_reason maps to FinishReason.
//
// Promises, beyond those of ModelClient:
// - All network work runs on the client's own io thread(s) (OpenAiConfig::io_threads), asynchronously:
//   open calls cost a socket and a little memory, never a thread.
// - https:// verifies the server certificate (system trust store, or ca_file) and the host name, and
//   sends SNI. There is no switch to turn verification off.
// - Retries (up to max_retries, exponential backoff with jitter, Retry-After seconds honoured) happen
//   only on failures to connect, HTTP 429, HTTP 5xx and connections lost before any response, and only
//   while nothing has reached the sink. A stream that breaks after text was delivered ends with
//   FinishReason::error "model stream broke after N bytes: ..." and is not retried (no duplicate text).
//   TLS certificate failures, other 4xx and time-outs waiting for the first byte are not retried.
// - Outcome::error is one line and says what failed, e.g. "model: HTTP 401 from api.openai.com:
//   Incorrect API key provided" (the API's error.message), "model: no response within 60s (first-byte
//   time-out)", "model: TLS handshake with localhost:8443 failed: certificate verify failed (self-signed
//   certificate)". Outcome::attempts counts HTTP requests made.
// - The API key is sent only as "Authorization: Bearer ..." and never appears in messages or describe().
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "sigil/model/client.h"

namespace sigil::model {

struct OpenAiConfig {
  std::string base_url = "https://api.openai.com/v1";    // http:// or https://, with or without a path
  std::string api_key;                                   // empty: no Authorization header (local servers)
  std::string model;                                     // used when ChatRequest::model is empty
  std::chrono::milliseconds connect_timeout{10'000};     // DNS + TCP + TLS handshake, per attempt
  std::chrono::milliseconds first_byte_timeout{60'000};  // request sent → response headers
  std::chrono::milliseconds idle_timeout{60'000};        // longest silence inside the stream
  std::chrono::milliseconds total_timeout{600'000};      // the whole call, retries and waits included
  int max_retries = 3;
  std::chrono::milliseconds backoff_base{500};  // first retry waits about this long, then doubling
  std::chrono::milliseconds backoff_cap{20'000};
  std::string ca_file;  // PEM file of trusted CAs instead of the system's (tests, private CAs)
  int io_threads = 1;
};

// Throws std::invalid_argument for a base_url that is not http(s)://host[:port][/path], an unreadable
// ca_file, or io_threads < 1.
std::unique_ptr<ModelClient> make_openai_client(OpenAiConfig config);

}  // namespace sigil::model
