#include "server/server_state.h"

#include <chrono>
#include <cmath>
#include <utility>

#include "server/ws_frames.h"

namespace sigil::server {

ServerState::ServerState(agent::Agent& agent_ref, store::Store& store_ref, HttpServerOptions options_in)
    : agent(agent_ref),
      store(store_ref),
      options(std::move(options_in)),
      started_unix(std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count()),
      hub(std::make_shared<ConversationHub>()),
      media(std::make_shared<MediaStore>(options.media_dir)),
      limiter_(options.messages_per_minute, options.message_burst),
      address_limiter_(options.messages_per_minute * options.address_rate_factor,
                       static_cast<unsigned>(options.message_burst * options.address_rate_factor)) {}

double ServerState::rate_check(const std::string& user, const std::string& address) {
  double wait = address.empty() ? 0 : address_limiter_.take(address);
  if (wait <= 0) wait = limiter_.take(user);
  if (wait > 0) ++metrics.rate_limited;
  return wait;
}

std::string ServerState::rate_message(double wait) const {
  return "rate limited: at most " + std::to_string(static_cast<long long>(options.messages_per_minute)) +
         " messages a minute (burst " + std::to_string(options.message_burst) + "); retry in " +
         std::to_string(static_cast<long long>(std::ceil(wait))) + " s";
}

std::string ServerState::metrics_text() {
  MetricsSnapshot snapshot = metrics.snapshot();
  snapshot.turns_total = turns.opened_total();
  snapshot.turns_active = agent.active_turns();
  std::string text = server::metrics_text(snapshot);
  if (options.extra_metrics) text += options.extra_metrics();
  return text;
}

void ServerState::start_web_turn(const std::string& user, const std::string& conversation,
                                 const std::string& text, const std::string& turn_id,
                                 const std::optional<std::string>& client_id,
                                 std::shared_ptr<agent::TurnObserver> observer) {
  hub->broadcast(
      user, conversation,
      std::make_shared<const channels::web::WebFrame>(turn_frame(turn_id, client_id, false, text)));
  agent::TurnInput input;
  input.user = user;
  input.conversation = conversation;
  input.text = text;
  input.turn_id = turn_id;
  input.fresh_id = true;  // TurnRegistry::new_id(), made for this turn
  agent.start_turn(std::move(input), std::move(observer));
}

}  // namespace sigil::server
