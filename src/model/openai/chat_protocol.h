// The JSON side of OpenAI chat completions: the request body, and decoding the streamed chunks.
// std + Boost.JSON only, so it is tested without a network.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/model/client.h"

namespace sigil::model::openai {

// The POST body for /chat/completions with "stream": true. `default_model` fills an empty request.model.
boost::json::object make_request_body(const ChatRequest& request, std::string_view default_model);

// "length" → length, ... Unknown reasons count as stop: the text so far is all there is.
FinishReason map_finish_reason(std::string_view reason) noexcept;

// The error message of an API error body ({"error":{"message":...}}), or a short excerpt of the body.
std::string api_error_message(std::string_view body);

// Decodes the `data:` payloads of one streamed completion.
class ChunkDecoder {
 public:
  struct Step {
    std::string text;                    // choices[0].delta.content
    std::optional<FinishReason> finish;  // choices[0].finish_reason, once
    std::string error;                   // an in-stream {"error":...} or an unreadable chunk
    bool done = false;                   // the [DONE] sentinel
  };

  Step decode(std::string_view data);

  // Tool calls assembled from their fragments (by index), in index order; emptied by the call.
  std::vector<ToolCall> take_tool_calls();
  bool has_tool_calls() const noexcept { return !calls_.empty(); }

 private:
  std::map<std::int64_t, ToolCall> calls_;
};

}  // namespace sigil::model::openai
