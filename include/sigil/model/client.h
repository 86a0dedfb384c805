// The model-client interface: start a streamed chat completion, receive text, tool calls and one outcome.
//
// Promises every implementation keeps (the agent loop and the gateway rely on them):
// - start() never blocks on the network or a timer and never calls the sink itself; it returns at once.
//   No thread per call: calls run on the client's own thread(s), so a thousand open calls cost memory only.
// - The sink is called from the client's thread, in order: on_text / on_tool_call any number of times,
//   then on_done exactly once. Text already delivered is never delivered again (retries happen only before
//   the first delivery).
// - Call::cancel() may be called from any thread, any number of times, also from inside a sink callback;
//   on_done(cancelled) follows soon unless the call had already finished.
// - Destroying a client cancels its open calls: every sink still gets its on_done before the destructor
//   returns. Do not destroy a client from inside one of its sink callbacks.
#pragma once

#include <boost/json/array.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sigil::model {

struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments_json;  // as the model wrote it: usually a JSON object, not guaranteed valid
};

struct ChatMessage {
  std::string role;  // "system", "user", "assistant", "tool"
  std::string content;
  std::string tool_call_id;          // role "tool": which call this answers
  std::vector<ToolCall> tool_calls;  // role "assistant": the calls it made
  // Pictures the message shows the model (data: or https: URLs). Not empty: the content is sent as
  // OpenAI vision content parts, the text first, then one {"type":"image_url"} part per picture.
  std::vector<std::string> image_urls;
};

struct ChatRequest {
  std::string model;  // empty: the client's configured default
  std::vector<ChatMessage> messages;
  // OpenAI tool schemas ({"type":"function","function":{...}}); null or empty: none. Shared, not copied:
  // the agent offers the same schemas to every call.
  std::shared_ptr<const boost::json::array> tools;
  std::optional<int> max_tokens;
  std::optional<double> temperature;
};

// Why a reply ended. `length` matters: the reply was cut by the token limit (spec 11.6).
enum class FinishReason { stop, length, tool_calls, content_filter, error, cancelled };

std::string_view to_string(FinishReason reason) noexcept;

struct Outcome {
  FinishReason finish = FinishReason::stop;
  std::string error;  // one line, set when finish == error
  int attempts = 0;   // HTTP requests made (1 + retries); 1 for the replay client
  // When the error was the server's answer: its HTTP status and its own message (OpenAI's error.message,
  // or the start of its body); 0 and "" otherwise.
  int http_status = 0;
  std::string server_message;
};

// Whether a failed call was the server refusing the request's `tools` (a server without tool support:
// llama.cpp without --jinja, Ollama models without tools, vLLM without --enable-auto-tool-choice all
// answer a 4xx or 5xx whose message speaks of tools).
bool refused_tools(const Outcome& outcome);

class StreamSink {
 public:
  virtual ~StreamSink() = default;
  virtual void on_text(std::string_view delta) = 0;
  virtual void on_tool_call(const ToolCall& call) = 0;
  virtual void on_done(const Outcome& outcome) = 0;
};

class Call {
 public:
  virtual ~Call() = default;
  virtual void cancel() = 0;
};

class ModelClient {
 public:
  virtual ~ModelClient() = default;
  // The returned handle may be dropped: the call still runs to its end.
  virtual std::shared_ptr<Call> start(ChatRequest request, std::shared_ptr<StreamSink> sink) = 0;
  // For logs and `sigil` output, e.g. "openai https://api.openai.com/v1 (gpt-4o-mini)". Never the key.
  virtual std::string describe() const = 0;
};

// The last message with role "user" ("" if none): what the replay client matches against.
std::string_view last_user_message(const ChatRequest& request) noexcept;

}  // namespace sigil::model
