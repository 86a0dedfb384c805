// One of the server's three Beast translation units (with http_session.cpp and http_server.cpp).
#include "server/websocket_session.h"

#include <unistd.h>

#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "server/client_frames.h"
#include "server/client_history.h"
#include "server/frame_queue.h"
#include "server/frame_tick.h"
#include "server/handoff_memory.h"
#include "server/session_list.h"
#include "server/valid_utf8.h"
#include "server/ws_frames.h"
#include "sigil/text/utf8.h"

namespace sigil::server {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

// Incoming messages are read this much at a time, so an oversized one is noticed (and skipped) early.
constexpr std::size_t kReadPiece = std::size_t{16} << 10;
// An idle connection keeps at most this much read buffer, even after one large message.
constexpr std::size_t kIdleBufferBytes = std::size_t{16} << 10;

// The connection's strand and its socket, as concrete types. HttpServer gives every connection a strand of
// its io_context; through asio's type-erased any_io_executor (beast::tcp_stream's), every layer of Beast's
// write (the WebSocket frame, asio's write loop, the timed stream, the socket's operation) moved, preferred
// and destroyed an erased executor. The WebSocket keeps its own time-outs (handshake, idle), so it sits on
// the socket itself: Beast's timed stream would add a layer to every write and read for none of them.
using Strand = asio::strand<asio::io_context::executor_type>;
using Stream = asio::basic_stream_socket<tcp, Strand>;

// Frames go out through a queue, one write at a time; frames come in through read_some so that an
// oversized message is skipped (an error frame) without closing the connection or buffering it.
class WebSocketSession final : public Watcher,
                               public Closable,
                               public TickClient,
                               public std::enable_shared_from_this<WebSocketSession> {
 public:
  WebSocketSession(ServerState& state, Stream&& stream, ConnectionSlot slot, std::string user,
                   std::string conversation, std::string address)
      : state_(state),
        ws_(std::move(stream)),
        slot_(std::move(slot)),
        user_(std::move(user)),
        conversation_(std::move(conversation)),
        address_(std::move(address)) {
    ++state_.metrics.ws_open;
  }
  ~WebSocketSession() override { --state_.metrics.ws_open; }

  void run(http::request<http::string_body> req) {
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    // Message size is checked while reading (too large -> an error frame); this only bounds a frame.
    ws_.read_message_max(0);
    ws_.auto_fragment(false);
    // Kept until the handshake is done (Beast reads it while building the 101 answer).
    upgrade_.emplace(std::move(req));
    ws_.async_accept(*upgrade_, [self = shared_from_this()](beast::error_code ec) { self->on_accept(ec); });
  }

  // From the hub, with its lock held: only queues. Frames wait in the inbox and one handler moves all that
  // came meanwhile to the write queue: a busy connection costs one hand-off per burst, not per frame, and
  // the burst's text frames merge there. The hand-off waits for the server's next write tick
  // (frame_tick.h), where every connection with frames waiting is moved on by one timer, or, without a
  // tick, is posted to the connection at once.
  void send(channels::web::SharedFrame frame) override {
    {
      std::lock_guard lock(inbox_mu_);
      inbox_.push_back(std::move(frame));
      if (inbox_.size() > 1) return;  // a drain is scheduled and has not run yet
    }
    if (state_.frame_tick) return state_.frame_tick->schedule(shared_from_this());
    post_drain();
  }

  // On the tick's io thread: posted there, the drain costs no wake-up.
  void on_tick() override { post_drain(); }

  void close_from_server() override {
    asio::post(ws_.get_executor(), [self = shared_from_this()] { self->close(); });
  }

 private:
  void on_accept(beast::error_code ec) {
    upgrade_.reset();
    if (ec) return close();
    // Watch first, then read the history: a frame broadcast in between is posted behind this handler,
    // so hello still goes out first.
    state_.hub->watch(user_, conversation_, shared_from_this());
    // A bounded page of history, whatever the conversation holds (the rest: GET .../messages).
    const HistoryWindow window{50, state_.options.greeting_history_bytes,
                               state_.options.greeting_message_bytes};
    auto history = client_history(state_.store, user_, conversation_, window);
    if (!history.ok()) {
      enqueue(std::make_shared<const channels::web::WebFrame>(
          error_frame("store: cannot read the history: " + history.error(), std::nullopt)));
      history = ClientHistory{};
    }
    auto say_mode = state_.agent.say_mode(user_, conversation_);
    if (!say_mode.ok()) {
      enqueue(std::make_shared<const channels::web::WebFrame>(
          error_frame("store: cannot read the say mode: " + say_mode.error(), std::nullopt)));
    }
    enqueue(std::make_shared<const channels::web::WebFrame>(
        hello_frame(user_, conversation_, state_.options.model_label, state_.options.replay_model,
                    std::move(history->messages), history->more, say_mode.ok() && *say_mode,
                    std::move(history->deliveries))));
    do_read();
  }

  // At most one drain is posted at a time (the inbox's first frame posts it), so its operations fit the
  // connection's hand-off memory: a post from the model's thread allocates nothing.
  void post_drain() {
    asio::post(ws_.get_executor(), asio::bind_allocator(handoff_.allocator(), [self = shared_from_this()] {
                 self->drain_inbox();
               }));
  }

  void drain_inbox() {
    draining_.clear();
    {
      std::lock_guard lock(inbox_mu_);
      draining_.swap(inbox_);  // the two vectors trade places and keep their capacity
    }
    for (auto& frame : draining_) enqueue(std::move(frame));
    draining_.clear();
  }

  // Text frames of a turn that pile up behind a write in flight go out merged (FrameQueue).
  void enqueue(channels::web::SharedFrame frame) {
    if (closed_) return;
    queue_.push(std::move(frame));
    if (!queue_.writing()) write_next();
  }

  void write_next() {
    if (closed_ || queue_.empty()) return;
    ws_.text(true);
    ws_.async_write(asio::buffer(queue_.start_write()),
                    [self = shared_from_this()](beast::error_code ec, std::size_t) {
                      self->queue_.finish_write();
                      if (ec) return self->close();
                      self->write_next();
                    });
  }

  void do_read() {
    if (closed_) return;
    ws_.async_read_some(buffer_, kReadPiece, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  }

  void on_read(beast::error_code ec) {
    if (ec) return close();
    if (buffer_.size() > state_.options.max_body) {
      too_large_ = true;
      buffer_.clear();
    }
    if (!ws_.is_message_done()) return do_read();
    if (too_large_) {
      too_large_ = false;
      error("message too large: at most " + std::to_string(state_.options.max_body) + " bytes");
    } else {
      const auto data = buffer_.cdata();
      handle_message(std::string_view(static_cast<const char*>(data.data()), data.size()));
    }
    buffer_.clear();
    if (buffer_.capacity() > kIdleBufferBytes) buffer_.shrink_to_fit();
    do_read();
  }

  void error(const std::string& message, const std::optional<std::string>& client_id = std::nullopt) {
    enqueue(std::make_shared<const channels::web::WebFrame>(error_frame(message, client_id)));
  }

  void handle_message(std::string_view text) {
    const ClientFrame frame = parse_client_frame(text);
    switch (frame.type) {
      case ClientFrame::Type::Invalid:
        return error(frame.text, frame.client_id);
      case ClientFrame::Type::Message:
        return start_turn(frame.text, frame.client_id);
      case ClientFrame::Type::Settings:
        if (auto set = state_.agent.set_say_mode(user_, conversation_, frame.say_mode); !set)
          return error("store: cannot save the setting: " + set.error(), frame.client_id);
        // Every page of the conversation (this one too) shows the new setting; the next turn uses it.
        state_.hub->broadcast(
            user_, conversation_,
            std::make_shared<const channels::web::WebFrame>(settings_frame(frame.say_mode, frame.client_id)));
        return;
      case ClientFrame::Type::Cancel:
        if (!state_.turns.owns(frame.text, user_, conversation_) || !state_.agent.cancel(frame.text))
          return error("no running turn " + frame.text + " in this conversation", frame.client_id);
        return;
    }
  }

  void start_turn(const std::string& text, const std::optional<std::string>& client_id) {
    if (const double wait = state_.rate_check(user_, address_); wait > 0)
      return error(state_.rate_message(wait), client_id);
    const std::string turn_id = state_.turns.new_id();
    if (!state_.turns.open(turn_id, user_, conversation_)) return error("server is stopping", client_id);
    TurnRegistry* turns = &state_.turns;
    auto observer = std::make_shared<TurnBroadcaster>(
        state_.broadcast_target(), user_, conversation_, turn_id,
        [turns, turn_id](const agent::TurnSummary&) { turns->closed(turn_id); });
    state_.start_web_turn(user_, conversation_, text, turn_id, client_id, std::move(observer));
  }

  void close() {
    if (closed_) return;
    closed_ = true;  // the queue stays while a write is in flight: it points into the front frame
    state_.hub->unwatch(user_, conversation_, this);
    beast::error_code ec;
    auto& socket = ws_.next_layer();
    socket.shutdown(tcp::socket::shutdown_both, ec);
    socket.close(ec);
  }

  ServerState& state_;
  websocket::stream<Stream> ws_;
  ConnectionSlot slot_;
  std::optional<http::request<http::string_body>> upgrade_;
  const std::string user_;
  const std::string conversation_;
  const std::string address_;
  beast::flat_buffer buffer_;
  HandoffMemory handoff_;  // before the inbox: a posted drain keeps the session, so it outlives the post
  std::mutex inbox_mu_;
  std::vector<channels::web::SharedFrame> inbox_;     // from the hub, not yet on the strand
  std::vector<channels::web::SharedFrame> draining_;  // on the strand: the inbox being moved on
  FrameQueue queue_;
  bool closed_ = false;
  bool too_large_ = false;
};

}  // namespace

void run_websocket_session(ServerState& state, beast::tcp_stream&& stream, ConnectionSlot slot,
                           WebSocketQuery query, std::string address,
                           http::request<http::string_body> upgrade) {
  // The socket moves to a socket of the concrete strand type. Every HttpServer connection has one; a
  // connection without it (or whose socket cannot be moved) is dropped.
  const auto erased = stream.get_executor();  // target() points into it
  const Strand* strand = erased.target<Strand>();
  if (strand == nullptr) return;
  const Strand executor = *strand;
  tcp::socket socket = stream.release_socket();
  beast::error_code ec;
  const tcp::endpoint local = socket.local_endpoint(ec);
  if (ec) return;
  Stream own(executor);
  const auto handle = socket.release(ec);
  if (ec) return;
  own.assign(local.protocol(), handle, ec);
  if (ec) {
    ::close(handle);
    return;
  }
  auto session =
      std::make_shared<WebSocketSession>(state, std::move(own), std::move(slot), std::move(query.user),
                                         std::move(query.conversation), std::move(address));
  state.sessions.track(session);
  session->run(std::move(upgrade));
}

}  // namespace sigil::server
