#include "sigil/channels/slack/slack_channel.h"

#include <utility>
#include <vector>

#include "sigil/channels/json_fields.h"
#include "sigil/channels/slack/emoji_names.h"
#include "sigil/channels/slack/slack_mrkdwn.h"
#include "sigil/deliver/split.h"

namespace sigil::channels::slack {
namespace {

constexpr std::size_t kTextLimit = 4000;
constexpr deliver::TextUnit kUnit = deliver::TextUnit::CodePoints;

// The rendered text as messages of at most 4,000 code points.
std::vector<std::string> rendered_parts(std::string_view markdown) {
  std::string rendered = render_slack_mrkdwn(markdown);
  if (deliver::text_units(rendered, kUnit) <= kTextLimit) return {std::move(rendered)};
  return deliver::split_text(rendered, kTextLimit, kUnit);
}

bool is_ts(std::string_view s) {
  const auto dot = s.find('.');
  return dot != std::string_view::npos && dot > 0 && dot + 1 < s.size() &&
         s.find_first_not_of("0123456789.") == std::string_view::npos;
}

}  // namespace

SlackChannel::SlackChannel(WebApi& api, SlackTarget target) : api_(api), target_(std::move(target)) {}

deliver::ChannelCapabilities SlackChannel::slack_capabilities() {
  deliver::ChannelCapabilities c;
  c.reactions = true;
  c.allowed_reactions = reaction_emoji();
  c.file_kinds = {"image", "document", "audio", "video"};
  c.voice_notes = true;  // sent as an audio file
  c.edits = true;
  c.deletes = true;
  c.text_limit = kTextLimit;
  c.text_unit = kUnit;
  c.markdown = deliver::MarkdownFlavour::CommonMark;  // rendered here, to mrkdwn
  c.rate = {1.0, 3};
  return c;
}

deliver::ChannelCapabilities SlackChannel::capabilities() const { return slack_capabilities(); }

deliver::ChannelResult SlackChannel::finish(std::string_view what, const ApiOutcome& o, bool text) {
  // A message's id is its ts; an upload's answer names only the files (no id: nothing to edit or delete).
  if (o.ok()) return shown(string_at(o.body, "ts"));
  return failed({"slack-send-failed", "channel", target_.channel, "call"}, what, o.summary(),
                o.kind == ApiOutcome::Kind::Unknown, text);
}

deliver::ChannelResult SlackChannel::send_text(std::string_view text) {
  deliver::ChannelResult last = deliver::channel_error("nothing to send");
  for (std::string& part : rendered_parts(text)) {
    if (part.empty()) continue;
    last = finish("chat.postMessage", api_.post_message(target_.channel, part, target_.thread_ts), true);
    if (!last.ok()) return last;
  }
  return last;
}

deliver::ChannelResult SlackChannel::edit_text(const std::string& id, std::string_view text) {
  if (!is_ts(id)) return deliver::channel_error("not a Slack message ts");
  std::string rendered = render_slack_mrkdwn(text);
  if (deliver::text_units(rendered, kUnit) > kTextLimit) {
    // One message cannot become two by an edit: the longest safe head of it.
    if (auto cut = deliver::split_once(rendered, kTextLimit, kUnit)) rendered = cut->head;
  }
  // chat.update replaces the text: making it again after an unknown outcome shows the same thing.
  const ApiOutcome o =
      api_.call("chat.update", {{"channel", target_.channel}, {"ts", id}, {"text", rendered}}, true);
  deliver::ChannelResult res = finish("chat.update", o, true);
  if (res.ok()) return deliver::ChannelResult(id);
  return res;
}

deliver::ChannelResult SlackChannel::delete_message(const std::string& id) {
  if (!is_ts(id)) return deliver::channel_error("not a Slack message ts");
  // Made again after an unknown outcome, the first call may have deleted it: gone is what was asked.
  const ApiOutcome o = api_.call("chat.delete", {{"channel", target_.channel}, {"ts", id}}, true);
  if (o.kind == ApiOutcome::Kind::Refused && o.error == "message_not_found")
    return deliver::ChannelResult(id);
  deliver::ChannelResult res = finish("chat.delete", o, true);
  if (res.ok()) return deliver::ChannelResult(id);
  return res;
}

deliver::ChannelResult SlackChannel::upload(const deliver::OutgoingFile& f, std::string default_name) {
  if (!f.payload) return deliver::channel_error("the delivery has no bytes");
  UploadFile file;
  std::string error;
  if (!deliver::read_payload(*f.payload, file.data, error)) return deliver::channel_error(error);
  if (file.data.empty()) return deliver::channel_error("an empty file");  // Slack refuses length 0
  file.filename = !f.name.empty()              ? f.name
                  : !f.payload->name().empty() ? f.payload->name()
                                               : std::move(default_name);
  std::vector<std::string> caption;
  if (!f.caption.empty()) caption = rendered_parts(f.caption);
  const std::string comment = caption.size() == 1 ? caption.front() : std::string();
  deliver::ChannelResult r =
      finish("file upload", api_.upload_file(target_.channel, target_.thread_ts, file, comment), false);
  if (r.ok() && caption.size() > 1)
    for (const std::string& part : caption) (void)api_.post_message(target_.channel, part, target_.thread_ts);
  return r;
}

deliver::ChannelResult SlackChannel::send_file(const deliver::OutgoingFile& file) {
  return upload(file, "file");
}

deliver::ChannelResult SlackChannel::send_voice(const deliver::OutgoingFile& voice) {
  // Slack has no voice notes: the Ogg Opus goes as an audio file, which Slack plays inline.
  return upload(voice, "voice-note.ogg");
}

deliver::ChannelResult SlackChannel::react(const std::string& message_id, std::string_view emoji) {
  const std::string target = message_id.empty() ? target_.answering : message_id;
  if (target.empty()) return deliver::channel_error("no message to react to");
  if (!is_ts(target)) return deliver::channel_error("not a Slack message ts");
  const auto name = slack_reaction_name(emoji);
  if (!name) return deliver::channel_error("Slack has no name for the emoji " + std::string(emoji));
  deliver::ChannelResult res =
      finish("reactions.add", api_.add_reaction(target_.channel, target, *name), false);
  if (res.ok()) return deliver::ChannelResult(target);
  return res;
}

}  // namespace sigil::channels::slack
