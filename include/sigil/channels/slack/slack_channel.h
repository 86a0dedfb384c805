// One Slack conversation (a channel, a thread in it, or a DM) as a deliver::Channel (architecture:
// channels/slack/): what the outbox's calls become as Web API calls.
//
// What it promises:
// - Capabilities: text up to 4,000 code points a message (Slack's advice; it truncates far later), rendered
//   to mrkdwn (slack_mrkdwn.h); reactions with the emoji Slack has names for (emoji_names.h); files as image,
//   document, audio and video uploads; voice notes as audio files (Slack has no voice-note type); edits
//   (chat.update) and deletes of its own messages (chat.delete); about one message a second (Slack's
//   chat.postMessage pace per channel).
// - send_text: the Markdown rendered to mrkdwn; when that is longer than 4,000 code points it goes as
//   several messages cut at safe points (split.h); the id returned is the last one's `ts`. Every message
//   goes in the target's thread when it has one (a channel message that mentioned the bot is answered in
//   its thread; a DM at the top level).
// - send_file / send_voice: the three-step upload (WebApi::upload_file) into the thread, with the rendered
//   caption as the message's text (a caption over the limit follows as text messages).
// - react: the emoji's Slack name (reactions.add); an emoji Slack has no name for is a clear error ("Slack
//   has no name for the emoji …"), and nothing is sent. The message id "" is the message being answered.
// - Slack has no idempotency key: a send whose outcome stayed unknown (a time-out after it went out) is
//   never repeated; it is listed by in_doubt(), text fails with "outcome unknown: …", and a file or
//   reaction reports success so the outbox does not send the same thing another way. A user may then see a
//   message missing (never one twice).
// - typing(): Slack has no typing indicator for bots (only assistant threads' status): false, no call.
#pragma once

#include <string>
#include <string_view>

#include "sigil/channels/platform_channel.h"
#include "sigil/channels/slack/web_api.h"

namespace sigil::channels::slack {

struct SlackTarget {
  std::string channel;    // C…, D… or G… id
  std::string thread_ts;  // the thread answers go in ("": top level)
  std::string answering;  // the ts of the message being answered ("": none)
};

class SlackChannel final : public PlatformChannel {
 public:
  SlackChannel(WebApi& api, SlackTarget target);

  deliver::ChannelCapabilities capabilities() const override;
  deliver::ChannelResult send_text(std::string_view text) override;
  deliver::ChannelResult edit_text(const std::string& id, std::string_view text) override;
  deliver::ChannelResult delete_message(const std::string& id) override;
  deliver::ChannelResult send_file(const deliver::OutgoingFile& file) override;
  deliver::ChannelResult send_voice(const deliver::OutgoingFile& voice) override;
  deliver::ChannelResult react(const std::string& message_id, std::string_view emoji) override;
  bool typing() override { return false; }

  static deliver::ChannelCapabilities slack_capabilities();

 private:
  deliver::ChannelResult finish(std::string_view what, const ApiOutcome& o, bool text);
  deliver::ChannelResult upload(const deliver::OutgoingFile& f, std::string default_name);

  WebApi& api_;
  SlackTarget target_;
};

}  // namespace sigil::channels::slack
