#include "sigil/channels/slack/emoji_names.h"

#include <algorithm>
#include <utility>

namespace sigil::channels::slack {
namespace {

// Emoji (without U+FE0F) -> the name Slack gives it. The same emoji as tests/fakes/slack-emoji.mjs, each
// with one of its names (the fake knows the aliases too).
const std::vector<std::pair<std::string, std::string>>& table() {
  static const std::vector<std::pair<std::string, std::string>> t = [] {
    std::vector<std::pair<std::string, std::string>> v{
        {"👍", "+1"},
        {"👎", "-1"},
        {"❤️", "heart"},
        {"🔥", "fire"},
        {"👀", "eyes"},
        {"🎉", "tada"},
        {"✅", "white_check_mark"},
        {"✔️", "heavy_check_mark"},
        {"❌", "x"},
        {"😄", "smile"},
        {"😃", "smiley"},
        {"😀", "grinning"},
        {"😁", "grin"},
        {"😂", "joy"},
        {"🤣", "rolling_on_the_floor_laughing"},
        {"😆", "laughing"},
        {"😅", "sweat_smile"},
        {"😉", "wink"},
        {"😊", "blush"},
        {"🙂", "slightly_smiling_face"},
        {"🙃", "upside_down_face"},
        {"😍", "heart_eyes"},
        {"🤩", "star-struck"},
        {"🤔", "thinking_face"},
        {"😐", "neutral_face"},
        {"😑", "expressionless"},
        {"😒", "unamused"},
        {"🙄", "face_with_rolling_eyes"},
        {"😬", "grimacing"},
        {"😌", "relieved"},
        {"😔", "pensive"},
        {"😴", "sleeping"},
        {"😷", "mask"},
        {"😎", "sunglasses"},
        {"🤓", "nerd_face"},
        {"😕", "confused"},
        {"😟", "worried"},
        {"😮", "open_mouth"},
        {"😲", "astonished"},
        {"😳", "flushed"},
        {"🥺", "pleading_face"},
        {"😢", "cry"},
        {"😭", "sob"},
        {"😱", "scream"},
        {"😡", "rage"},
        {"😠", "angry"},
        {"💀", "skull"},
        {"👻", "ghost"},
        {"🤖", "robot_face"},
        {"👽", "alien"},
        {"👏", "clap"},
        {"👋", "wave"},
        {"👌", "ok_hand"},
        {"🙌", "raised_hands"},
        {"🙏", "pray"},
        {"💪", "muscle"},
        {"☝️", "point_up"},
        {"👉", "point_right"},
        {"✌️", "v"},
        {"🤞", "crossed_fingers"},
        {"🤝", "handshake"},
        {"🤷", "shrug"},
        {"🤦", "face_palm"},
        {"🙈", "see_no_evil"},
        {"🤗", "hugging_face"},
        {"🥳", "partying_face"},
        {"💯", "100"},
        {"🚀", "rocket"},
        {"✨", "sparkles"},
        {"⭐", "star"},
        {"⚡", "zap"},
        {"💥", "boom"},
        {"💡", "bulb"},
        {"⚠️", "warning"},
        {"❓", "question"},
        {"❗", "exclamation"},
        {"📝", "memo"},
        {"📌", "pushpin"},
        {"⌛", "hourglass"},
        {"⏳", "hourglass_flowing_sand"},
        {"☕", "coffee"},
        {"🍺", "beer"},
        {"🍕", "pizza"},
        {"🍰", "cake"},
        {"🎁", "gift"},
        {"🏆", "trophy"},
        {"🔔", "bell"},
        {"🔒", "lock"},
        {"🔑", "key"},
        {"🔗", "link"},
        {"📚", "books"},
        {"💬", "speech_balloon"},
        {"💭", "thought_balloon"},
        {"💤", "zzz"},
        {"💔", "broken_heart"},
        {"💖", "sparkling_heart"},
        {"💛", "yellow_heart"},
        {"💚", "green_heart"},
        {"💙", "blue_heart"},
        {"💜", "purple_heart"},
        {"🖤", "black_heart"},
        {"🧡", "orange_heart"},
        {"🧠", "brain"},
        {"💩", "hankey"},
        {"☀️", "sunny"},
        {"🌈", "rainbow"},
        {"❄️", "snowflake"},
        {"➕", "heavy_plus_sign"},
        {"➖", "heavy_minus_sign"},
        {"➡️", "arrow_right"},
        {"⬅️", "arrow_left"},
        {"⬆️", "arrow_up"},
        {"⬇️", "arrow_down"},
        {"🔁", "repeat"},
        {"🚫", "no_entry_sign"},
        {"⛔", "no_entry"},
        {"🛑", "octagonal_sign"},
        {"🚧", "construction"},
        {"🏁", "checkered_flag"},
        {"🎯", "dart"},
        {"💰", "moneybag"},
        {"📈", "chart_with_upwards_trend"},
        {"📉", "chart_with_downwards_trend"},
        {"🔍", "mag"},
        {"🔧", "wrench"},
        {"🔨", "hammer"},
        {"⚙️", "gear"},
        {"📦", "package"},
        {"💻", "computer"},
        {"🎵", "musical_note"},
        {"🎧", "headphones"},
        {"🎤", "microphone"},
        {"🐱", "cat"},
        {"🐶", "dog"},
        {"🦄", "unicorn_face"},
        {"🐧", "penguin"},
        {"🐢", "turtle"},
        {"🐛", "bug"},
        {"🐝", "bee"},
        {"🌱", "seedling"},
        {"🍀", "four_leaf_clover"},
        {"🌹", "rose"},
        {"🌻", "sunflower"},
        {"🍎", "apple"},
        {"🍵", "tea"},
        {"🍾", "champagne"},
        {"🥂", "clinking_glasses"},
        {"🎈", "balloon"},
        {"🎊", "confetti_ball"},
        {"👑", "crown"},
        {"💎", "gem"},
        {"🥇", "first_place_medal"},
        {"🫡", "saluting_face"},
        {"🫠", "melting_face"},
        {"❤️‍🔥", "heart_on_fire"},
    };
    for (auto& [emoji, name] : v) {
      for (std::size_t at; (at = emoji.find("\xEF\xB8\x8F")) != std::string::npos;) emoji.erase(at, 3);
    }
    return v;
  }();
  return t;
}

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+';
}

}  // namespace

std::optional<std::string> slack_reaction_name(std::string_view emoji) {
  std::string_view name = emoji;
  if (name.size() > 2 && name.front() == ':' && name.back() == ':') name = name.substr(1, name.size() - 2);
  if (!name.empty() && name.size() <= 100 && std::all_of(name.begin(), name.end(), name_char))
    return std::string(name);
  std::string bare(emoji);
  for (std::size_t at; (at = bare.find("\xEF\xB8\x8F")) != std::string::npos;) bare.erase(at, 3);
  for (const auto& [e, n] : table())
    if (e == bare) return n;
  return std::nullopt;
}

const std::vector<std::string>& reaction_emoji() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (const auto& [e, n] : table()) v.push_back(e);
    return v;
  }();
  return all;
}

}  // namespace sigil::channels::slack
