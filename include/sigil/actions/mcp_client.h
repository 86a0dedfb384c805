// A client session with one MCP server (Model Context Protocol, revision 2025-11-25): JSON-RPC 2.0 over a
// transport (stdio child or Streamable HTTP).
//
// What it promises:
// - connect() runs the handshake (initialize -> notifications/initialized) and lists every tool (all pages
//   of tools/list); the tools are kept for the prompt and for argument checks.
// - call_tool() and request() are thread-safe and may run concurrently (ids tell the answers apart).
// - A call that outlives its time-out, or whose stop token is requested (the turn was cancelled), sends
//   notifications/cancelled for its request id and fails with ErrorCode::timeout; a late answer is dropped.
// - notifications/progress for a call's progressToken is logged and restarts that call's time-out.
// - notifications/tools/list_changed makes the next tools() or find_tool() list the tools again (a
//   server may register tools only once it knows the client's capabilities).
// - A transport that closes (the server crashed or exited) fails every call in flight with
//   ErrorCode::tool_failed ("the server exited"), and the next call reconnects first.
// - Requests from the server: `ping` is answered; `elicitation/create` (form mode, declared in the
//   initialize capabilities) is answered by the server's policy (mcp_elicitation.h), and its note is added
//   to every tools/call in flight then (the server's question belongs to one of them); any other method
//   gets "method not found" (we offer no sampling or roots).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "sigil/actions/mcp_elicitation.h"
#include "sigil/actions/result.h"

namespace sigil::actions {

inline constexpr std::string_view kMcpProtocolVersion = "2025-11-25";

// Moves whole JSON-RPC messages. Events come from the transport's own thread(s).
class McpTransport {
 public:
  struct Events {
    std::function<void(std::string_view message)> on_message;
    std::function<void(std::string reason)> on_closed;  // once per open(); not after close() returned
  };
  virtual ~McpTransport();
  // Starts (spawns the child, or prepares the HTTP session). May be called again after close().
  virtual Result<void> open(Events events) = 0;
  // One JSON-RPC message (no newline). Fails when the transport is not open.
  virtual Result<void> send(std::string_view message) = 0;
  // Stops the server (or forgets the session); no event arrives after it returns.
  virtual void close() = 0;
};

struct McpTool {
  std::string name;
  std::string description;
  boost::json::object input_schema;
};

struct McpToolResult {
  std::string text;  // the text items of content[], one per line; other items are named, not inlined
  bool is_error = false;
  // What the server asked while the call ran and what sigil answered (elicitations), one line each.
  std::vector<std::string> notes;
};

struct McpClientOptions {
  std::chrono::milliseconds timeout{30'000};  // per request; restarted by progress notifications
  McpElicitationPolicy elicitation = McpElicitationPolicy::decline;
};

class McpClient {
 public:
  McpClient(std::string name, std::unique_ptr<McpTransport> transport, McpClientOptions options = {});
  ~McpClient();
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  const std::string& name() const { return name_; }
  // (Re)opens the transport, runs the handshake and lists the tools.
  Result<void> connect(std::stop_token stop = {});
  // The transport is up and the handshake done.
  bool connected() const;
  // The server's tools; listed again first when it announced a change (notifications/tools/list_changed).
  std::vector<McpTool> tools();
  // The tool of that exact name, if the server listed it.
  std::optional<McpTool> find_tool(std::string_view tool);
  // Counts the tool lists read (the handshake's, a reconnect's, one after an announced change), listing
  // them again first when the server announced a change: whoever taught tools() compares it to know when
  // to teach them again. Cheap when nothing was announced.
  std::uint64_t tools_version();

  // tools/call; reconnects first when the server is gone. A failed call's message ends with its notes.
  Result<McpToolResult> call_tool(const std::string& tool, const boost::json::object& arguments,
                                  std::stop_token stop = {});
  // One request and its `result` (a JSON-RPC error becomes tool_failed with its message).
  Result<boost::json::value> request(std::string_view method, boost::json::object params,
                                     std::stop_token stop = {});

 private:
  struct Pending;
  Result<boost::json::value> request(std::string_view method, boost::json::object params,
                                     std::stop_token stop, std::vector<std::string>* notes);
  void on_message(std::string_view message);
  void on_request(const boost::json::value& id, const std::string& method,
                  const boost::json::object& message);
  void on_closed(std::string reason);
  Result<void> notify(std::string_view method, boost::json::object params);
  Result<void> handshake(std::stop_token stop);
  Result<std::vector<McpTool>> list_tools(std::stop_token stop);  // every page
  void refresh_tools_if_changed();
  Result<void> connect_locked(std::stop_token stop);  // connect_mu_ held
  Result<void> reconnect_if_gone(std::stop_token stop);

  std::string name_;
  std::unique_ptr<McpTransport> transport_;
  McpClientOptions options_;

  std::mutex connect_mu_;  // one (re)connect at a time
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;   // the transport is up (requests may be sent)
  bool ready_ = false;  // and the handshake is done (tool calls may be sent)
  std::int64_t next_id_ = 1;
  std::map<std::int64_t, std::shared_ptr<Pending>> pending_;
  std::vector<McpTool> tools_;
  bool tools_changed_ = false;       // the server announced a new list we have not fetched
  std::uint64_t tools_version_ = 0;  // tool lists read so far
};

// The text of a tools/call result (content[] and isError), as McpToolResult describes.
McpToolResult mcp_tool_result(const boost::json::value& result);

}  // namespace sigil::actions
