// One WhatsApp chat (a user's wa_id, from the business's number) as a deliver::Channel (architecture:
// channels/whatsapp/): what the outbox's calls become as Cloud API calls.
//
// What it promises:
// - Capabilities: text up to 4,096 characters (code points) a message, rendered to WhatsApp's formatting
//   (whatsapp_markup.h); reactions with any single emoji; files as image (JPEG, PNG), document, audio and
//   video (MP4, 3GPP) after a media upload; voice notes as OGG/Opus audio sent with `voice: true`. No edits
//   and no deletes: the Cloud API has neither, so capabilities say so and the outbox never asks.
// - send_text: the rendered text; longer than 4,096 characters it goes as several messages cut at safe
//   points (split.h); the id returned is the last one's wamid.
// - send_file / send_voice: POST /media, then the message by the media id, with the rendered caption
//   (a caption over 1,024 characters follows as text messages instead). A file of a type WhatsApp does not
//   take (an image that is not JPEG/PNG, a video not MP4/3GPP) goes as a document; a document's type must be
//   one WhatsApp takes (text, PDF, Office): text of any kind goes as text/plain, anything else is a clear
//   error and nothing is sent. Audio must be AAC, AMR, MP3, MP4 audio or OGG.
// - react: a reaction on the message (the message being answered when the id is ""); an emoji must be one
//   emoji (WhatsApp refuses anything else with 131009, reported as the error).
// - Outside the user's 24-hour customer-service window WhatsApp refuses free-form messages (131047): the
//   error says so plainly (the turn's log gets it); nothing is silently dropped.
// - WhatsApp has no idempotency key: a send whose outcome stayed unknown (a time-out after it went out) is
//   never repeated; it is listed by in_doubt(), text fails with "outcome unknown: …", and a file or reaction
//   reports success so the outbox does not send the same thing another way. A user may then see a message
//   missing, never one twice.
// - typing(): the read receipt of the message being answered with WhatsApp's typing indicator (shown until
//   the answer or for 25 s); false when there is no such message or the call failed.
#pragma once

#include <string>
#include <string_view>

#include "sigil/channels/platform_channel.h"
#include "sigil/channels/whatsapp/graph_api.h"

namespace sigil::channels::whatsapp {

struct WhatsAppTarget {
  std::string to;         // the user's wa_id
  std::string answering;  // the wamid of the message being answered ("": none)
};

class WhatsAppChannel final : public PlatformChannel {
 public:
  WhatsAppChannel(GraphApi& api, WhatsAppTarget target);

  deliver::ChannelCapabilities capabilities() const override;
  deliver::ChannelResult send_text(std::string_view text) override;
  deliver::ChannelResult send_file(const deliver::OutgoingFile& file) override;
  deliver::ChannelResult send_voice(const deliver::OutgoingFile& voice) override;
  deliver::ChannelResult react(const std::string& message_id, std::string_view emoji) override;
  bool typing() override;

  static deliver::ChannelCapabilities whatsapp_capabilities();

 private:
  deliver::ChannelResult finish(std::string_view what, const GraphOutcome& o, bool text);
  deliver::ChannelResult send_media(const deliver::OutgoingFile& f, std::string kind, bool voice);
  deliver::ChannelResult send_one_text(const std::string& rendered);

  GraphApi& api_;
  WhatsAppTarget target_;
};

// The media type a file goes to WhatsApp with, and as what ("image", "audio", "video", "document"); an empty
// type when WhatsApp takes no such file.
struct MediaChoice {
  std::string kind;
  std::string mime_type;
};
MediaChoice media_choice(std::string_view kind, std::string_view mime_type, std::string_view name);

}  // namespace sigil::channels::whatsapp
