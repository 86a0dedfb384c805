// A fake OpenAI chat-completions server for tests: real HTTP/1.1 on 127.0.0.1 (ephemeral port), the real
// SSE wire format, scripted per request, optionally over TLS with a certificate made at run time.
//
// Each request (any method and path) takes the next scripted FakeResponse from the queue; an empty queue
// answers 500 with an OpenAI-style error. A connection serves one request unless the response says
// keep_alive. Request bodies are recorded for assertions. The server runs on
// its own thread; all methods are thread-safe. Beast stays in the .cpp.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sigil/model/openai.h"

namespace sigil::testing {

struct FakeResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, e.g. {"Retry-After", "1"}
  // The body. For SSE use sse()/text_stream(): then it is the exact stream bytes.
  std::string body;
  std::string content_type = "application/json";
  bool chunked = false;  // Transfer-Encoding: chunked; else Content-Length (or none, with close_after_bytes)
  // Write the body in pieces of this many bytes, each flushed separately (0: one piece).
  std::size_t piece_size = 0;
  std::chrono::milliseconds delay_before_headers{0};
  std::chrono::milliseconds delay_between_pieces{0};
  // Close the connection after this many body bytes (a stream that breaks mid-way).
  std::optional<std::size_t> close_after_bytes;
  // After writing the whole body, keep the connection open without a word for this long (idle time-outs).
  std::chrono::milliseconds hang_after_body{0};
  // Keep the connection for the next request (no "Connection: close"); with close_quietly the server
  // still closes it after this response, as a server whose keep-alive time ran out does.
  bool keep_alive = false;
  bool close_quietly = false;
  // Read the request, then close the connection without a response (a keep-alive race, a crash).
  bool drop_connection = false;
  // Send the body again and again (chunked) until the client goes away: a response that never ends.
  bool endless = false;

  // This response written in pieces of `bytes`, each `delay` after the one before: a slow stream.
  FakeResponse& in_pieces(std::size_t bytes, std::chrono::milliseconds delay) {
    piece_size = bytes;
    delay_between_pieces = delay;
    return *this;
  }

  // An SSE response whose body is `data: <event>\n\n` for each event, then `data: [DONE]\n\n` if `done`.
  static FakeResponse sse(const std::vector<std::string>& events, bool done = true);
  // A streamed completion in OpenAI's exact chunk format: one chunk per text piece, then the finish.
  static FakeResponse text_stream(const std::vector<std::string>& pieces, const std::string& finish = "stop");
  // An error response with an OpenAI-style body {"error":{"message":...}}.
  static FakeResponse error(int status, const std::string& message);
};

// One OpenAI streaming chunk: {"id":..,"object":"chat.completion.chunk","choices":[{"index":0,"delta":..}]}.
std::string openai_chunk(const boost::json::value& delta, const std::optional<std::string>& finish = {});

struct RecordedRequest {
  std::string method;
  std::string target;
  std::string authorization;
  std::vector<std::pair<std::string, std::string>> headers;  // every header, names lower case
  std::string body;
  boost::json::value json;  // null if the body is not JSON
};

struct TlsIdentity {
  std::string cert_pem;
  std::string key_pem;
};

// A self-signed certificate for "localhost" and 127.0.0.1 (EC P-256, valid for a day), made with OpenSSL.
TlsIdentity make_self_signed_identity(const std::string& common_name = "localhost");

class FakeOpenAiServer {
 public:
  // Without an identity: plain HTTP.
  explicit FakeOpenAiServer(std::optional<TlsIdentity> tls = std::nullopt);
  ~FakeOpenAiServer();
  FakeOpenAiServer(const FakeOpenAiServer&) = delete;
  FakeOpenAiServer& operator=(const FakeOpenAiServer&) = delete;

  void enqueue(FakeResponse response);
  // Answers every request with what `respond` returns (instead of the queue): a fake of an API's behaviour.
  void set_responder(std::function<FakeResponse(const RecordedRequest&)> respond);
  unsigned short port() const;
  // "http://127.0.0.1:PORT/v1" (https://localhost:PORT/v1 with TLS, so the name matches the certificate).
  std::string base_url() const;
  std::vector<RecordedRequest> requests() const;
  std::size_t request_count() const;
  // Connections accepted so far (a TLS handshake that failed still counts).
  std::size_t connection_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// An OpenAI client's configuration for this server: its URL, a test key and model name, and time-outs and
// back-offs short enough that a failing case ends in seconds.
inline model::OpenAiConfig openai_config_for(const FakeOpenAiServer& server) {
  using namespace std::chrono_literals;
  model::OpenAiConfig config;
  config.base_url = server.base_url();
  config.api_key = "sk-test";
  config.model = "fake-model";
  config.connect_timeout = 5s;
  config.first_byte_timeout = 5s;
  config.idle_timeout = 5s;
  config.total_timeout = 30s;
  config.backoff_base = 10ms;
  config.backoff_cap = 50ms;
  return config;
}

}  // namespace sigil::testing
