// The replay model: plays recorded replies from a JSONL file as if a model streamed them.
//
// For tests, demos and benchmarks of everything above the model (agent loop, parser, gateway) without a
// network or a bill. All calls of one client share ONE timer thread with a timer queue, so a thousand
// concurrent calls cost a queue entry each, not a thread.
//
// File format: one JSON object per line; blank lines and lines starting with '#' are skipped.
//   {"match": "weather", "reply": "It is <react emoji=\"☀️\"/> sunny.", "finish": "stop"}
//   {"reply": "Fallback answer one."}
//   {"reply": "", "tool_calls": [{"id": "c1", "name": "calc", "arguments": {"expr": "1+1"}}]}
//   {"reply": "Half a sen", "finish": "length"}
//   {"reply": "Text, then the stream breaks", "error": "connection reset"}
// - "reply" (string, required): the assistant text, streamed token by token.
// - "match" (string, optional): the line answers a request whose last user message contains this text
//   (ASCII letters compared ignoring case).
//   The first matching line wins. A request no "match" line fits gets the lines WITHOUT "match" in
//   round-robin (all lines in round-robin if every line has a "match").
// - "finish" (optional): "stop" (default), "length", "content_filter" or "tool_calls".
// - "tool_calls" (optional): delivered after the text; "arguments" is a string or any JSON value (then
//   serialised). With tool calls the default finish is "tool_calls".
// - "error" (optional): after the text, the call ends with FinishReason::error and this message.
// - In "reply", the first "{{url}}" becomes the first http:// or https:// URL of the last user message
//   (e.g. the result line of a publishWebPage that went back to the model), else its first word that
//   starts with '/', else nothing.
// - In "reply", the first "{{result}}" becomes the rest of the first line of the last user message after
//   ": ok: " (what an action reported back, e.g. the pending tasks), else nothing.
//
// Promises: the tokens of a reply concatenate to exactly the reply; no token splits a UTF-8 sequence;
// tokens come no faster than tokens_per_second (with jitter); a cancelled call gets on_done(cancelled)
// promptly; every call gets on_done exactly once, also when the client is destroyed first.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/model/client.h"

namespace sigil::model {

enum class TokenSplit {
  words,    // a token is a word or one punctuation character, with the whitespace before it
  awkward,  // words further cut into 1-3 byte pieces, markup characters alone: parsers see bad chunks
};

struct ReplayConfig {
  std::string path;               // the JSONL file
  double tokens_per_second = 50;  // <= 0: as fast as possible (still one token per timer event)
  double jitter = 0.0;            // 0..1: each gap varies by up to this fraction, either way
  TokenSplit split = TokenSplit::awkward;
  std::uint64_t seed = 1;  // makes awkward cuts and jitter reproducible
  // The JSONL itself (an embedded script); when set, `path` only names it in messages and describe().
  std::string text{};
};

// A recorded reply, as read from one line of the file.
struct ReplayEntry {
  std::string match;  // empty: no "match"
  bool has_match = false;
  std::string reply;
  FinishReason finish = FinishReason::stop;
  std::vector<ToolCall> tool_calls;
  std::string error;
};

// Throws std::runtime_error naming the file and line for unreadable files and malformed lines.
std::vector<ReplayEntry> load_replay_file(const std::string& path);

// How a reply is cut into tokens (exposed for tests and for the bench).
std::vector<std::string> split_tokens(std::string_view reply, TokenSplit split, std::uint64_t seed);

// The same from JSONL text; `name` stands for the file in messages.
std::vector<ReplayEntry> load_replay_text(std::string_view text, const std::string& name);

// Throws like load_replay_file; also when the file (or `text`) holds no lines.
std::unique_ptr<ModelClient> make_replay_client(ReplayConfig config);

}  // namespace sigil::model
