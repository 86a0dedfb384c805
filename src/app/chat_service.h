// What the gateway asks of every chat platform it carries ([channels.<name>]). The gateway holds the
// configured ones in one list, in the order of their sections in this file's users' constructor, so adding a
// platform is one entry there, not a branch in each of the gateway's methods.
//
// What an implementation promises:
// - start(): the turns of messages recorded before and never finished run again first, then the platform's
//   receiving side connects.
// - stop_receiving(): no new message is taken; turns under way keep their channel until they end.
// - running_turns(): the turn ids it started that have not ended (the gateway cancels them after its grace).
// - task_observer(): for a scheduled task set from one of its chats, an observer that delivers there;
//   nullptr for any other task (the gateway asks each service in turn).
// - send_message(): `text` to one of its chats, for send-message (allow-listed by the handler); "" when the
//   platform took every part, else the error.
// - metrics_text(): its Prometheus lines (without the shared HELP/TYPE header); health_json(): its /healthz
//   object.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "sigil/agent/agent.h"
#include "sigil/store/store.h"

namespace sigil::app {

class ChatService {
 public:
  virtual ~ChatService() = default;

  // The platform's name: its [channels.<name>] section, its /healthz key, a message target's channel.
  virtual std::string_view name() const = 0;
  virtual void start() = 0;
  virtual void stop_receiving() = 0;
  virtual std::set<std::string> running_turns() const = 0;
  virtual std::shared_ptr<agent::TurnObserver> task_observer(const store::ScheduledTask& task,
                                                             const std::string& turn_id) = 0;
  virtual std::string send_message(std::string_view chat, std::string_view text) = 0;
  virtual std::string metrics_text() const = 0;
  virtual std::string health_json() const = 0;
};

}  // namespace sigil::app
