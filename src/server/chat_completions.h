// The OpenAI-compatible endpoint POST /v1/chat/completions without the HTTP plumbing: parsing and
// checking a request, the agent turn it starts, and the response or SSE chunks built from that turn.
// Plain C++ (Boost.JSON only), so it is tested without sockets; http_session.cpp wires it to a connection.
// User documentation, with every decision: docs/openai-compatible.md.
//
// What it promises:
// - parse_request() accepts what OpenAI's API accepts for a text chat (model, messages with string or
//   text-part content, stream, stream_options, max_tokens / max_completion_tokens, temperature, user,
//   n == 1) and refuses with an OpenAI-shaped 400 what sigil cannot honour (tools, functions, n > 1,
//   non-text parts, stop sequences, logprobs, non-text response formats...), naming the parameter.
// - resolve_target() picks user, conversation and turn id from the body and the X-Sigil-User,
//   X-Sigil-Conversation and Idempotency-Key headers. The same key from the same user in the same
//   conversation always gives the same turn id, so a retried request runs no directive twice.
// - CompletionObserver turns one agent turn into either one chat.completion response or a stream of
//   chat.completion.chunk events ending in `data: [DONE]`. The content is only the clean text; markup
//   never reaches it. Deliveries and the turn report travel in a "sigil" extension field.
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/media_store.h"
#include "sigil/agent/agent.h"
#include "sigil/exec/handler.h"
#include "sigil/model/client.h"

namespace sigil::server::completions {

// An error in OpenAI's shape: {"error": {"message", "type", "param", "code"}}.
struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;  // empty: null
  std::string code;   // empty: null
};
boost::json::object error_object(const ApiError& error);  // {"error": {...}}
std::string error_body(const ApiError& error);            // serialised error_object()

struct ChatRequest {
  std::string model;
  std::vector<model::ChatMessage> messages;  // roles system / user / assistant, text only
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  std::optional<int> max_tokens;
  std::optional<double> temperature;
  std::string user;  // the body's "user" (empty: not given)
};

// Exactly one of request / error is set.
struct ParseResult {
  std::optional<ChatRequest> request;
  std::optional<ApiError> error;
};
ParseResult parse_request(std::string_view body);

// Header values as received (empty: the header was absent).
struct RequestHeaders {
  std::string user;             // X-Sigil-User
  std::string conversation;     // X-Sigil-Conversation
  std::string idempotency_key;  // Idempotency-Key
};

struct TurnTarget {
  std::string user;          // body "user", else X-Sigil-User, else "openai"
  std::string conversation;  // X-Sigil-Conversation, else "completions"
  std::string turn_id;       // derived from the Idempotency-Key, else random
  bool idempotent = false;   // the turn id came from an Idempotency-Key
};

// Exactly one of target / error is set.
struct TargetResult {
  std::optional<TurnTarget> target;
  std::optional<ApiError> error;
};
TargetResult resolve_target(const ChatRequest& request, const RequestHeaders& headers);

// The stateless agent turn for the request: its messages instead of a stored history, its overrides.
agent::TurnInput turn_input(const ChatRequest& request, const TurnTarget& target);

// "chatcmpl-<turn id>".
std::string completion_id(std::string_view turn_id);

// {"turn_id", "status", "diagnostics", "calls": [{"call", "finish", "deliveries", "results", ...}]}; each
// delivery is delivery_json() (server/delivery_json.h): with a media store, files and voice notes get a URL.
boost::json::object report_json(const agent::TurnSummary& summary, MediaStore* media = nullptr);

// The head of a streamed answer, written as raw bytes before the first event (the body is open-ended and
// ends with the connection).
extern const std::string_view kStreamHead;

// Turns one agent turn into the endpoint's answer. Callbacks come from the agent's (client's) thread, one
// at a time; they must not block. The observer drops its callbacks after `ended`, so whatever they hold
// (a connection) is released even if the agent keeps the observer longer.
class CompletionObserver final : public agent::TurnObserver {
 public:
  struct Callbacks {
    // Stream: bytes to send, in order (the first call carries kStreamHead); `last`: close after them.
    std::function<void(std::string bytes, bool last)> write;
    // A whole JSON response (non-stream answers, and stream requests that fail before any event);
    // the connection closes after it.
    std::function<void(int status, std::string body)> respond;
    // Called once, after everything else, from on_turn_end, once `write` and `respond` are destroyed.
    std::function<void()> ended;
  };

  // media: where delivered files and voice notes are kept for download (null: not kept; url null).
  CompletionObserver(const ChatRequest& request, std::string turn_id, std::int64_t created,
                     Callbacks callbacks, std::shared_ptr<MediaStore> media = nullptr);

  void on_text(std::string_view text) override;
  void on_delivery(const exec::Delivery& delivery) override;
  void on_model_call(int n) override;
  void on_silence(bool late) override;
  void on_turn_end(const agent::TurnSummary& summary) override;

  // For tests: the response a non-stream request gets for this summary and content.
  static boost::json::object completion_json(const std::string& id, std::int64_t created,
                                             const std::string& model, const std::string& content,
                                             const agent::TurnSummary& summary, MediaStore* media = nullptr);

 private:
  boost::json::object chunk(boost::json::value choices) const;
  void write_raw(std::string bytes, bool last);
  void write_event(const boost::json::value& data, bool last = false);
  void start_stream();

  const std::string model_;
  const bool stream_;
  const bool include_usage_;
  const std::string id_;
  const std::int64_t created_;
  const std::shared_ptr<MediaStore> media_;

  std::mutex mu_;  // guards callbacks_ against a late call after ended (defensive: calls are serial)
  Callbacks callbacks_;
  bool started_ = false;        // stream: the head and the role chunk went out
  std::string content_;         // all clean text so far
  std::size_t call_start_ = 0;  // where the current model call's text starts in content_
};

}  // namespace sigil::server::completions
