// The emoji names Slack knows for reactions.add (a subset of Slack's standard set: the short names of
// iamcal/emoji-data, which Slack uses, for the emoji a chat model reacts with), with their aliases, and the
// skin-tone suffixes. A name outside this table is `invalid_name`, as an unknown name is on Slack, unless
// the test registered it as a workspace's custom emoji (admin POST /_fake/emoji).
export const STANDARD_EMOJI = {
  "+1": "👍", thumbsup: "👍", "-1": "👎", thumbsdown: "👎", heart: "❤️", fire: "🔥", eyes: "👀", tada: "🎉",
  white_check_mark: "✅", heavy_check_mark: "✔️", x: "❌", smile: "😄", smiley: "😃", grinning: "😀", grin: "😁",
  joy: "😂", rolling_on_the_floor_laughing: "🤣", laughing: "😆", satisfied: "😆", sweat_smile: "😅", wink: "😉",
  blush: "😊", slightly_smiling_face: "🙂", upside_down_face: "🙃", heart_eyes: "😍", "star-struck": "🤩",
  thinking_face: "🤔", neutral_face: "😐", expressionless: "😑", unamused: "😒", face_with_rolling_eyes: "🙄",
  grimacing: "😬", relieved: "😌", pensive: "😔", sleeping: "😴", mask: "😷", sunglasses: "😎", nerd_face: "🤓",
  confused: "😕", worried: "😟", open_mouth: "😮", astonished: "😲", flushed: "😳", pleading_face: "🥺",
  cry: "😢", sob: "😭", scream: "😱", rage: "😡", angry: "😠", skull: "💀", ghost: "👻", robot_face: "🤖",
  alien: "👽", clap: "👏", wave: "👋", ok_hand: "👌", raised_hands: "🙌", pray: "🙏", muscle: "💪",
  point_up: "☝️", point_right: "👉", v: "✌️", crossed_fingers: "🤞", handshake: "🤝", shrug: "🤷",
  face_palm: "🤦", see_no_evil: "🙈", hugging_face: "🤗", partying_face: "🥳", 100: "💯", rocket: "🚀",
  sparkles: "✨", star: "⭐", zap: "⚡", boom: "💥", bulb: "💡", warning: "⚠️", question: "❓", exclamation: "❗",
  memo: "📝", pencil: "📝", pushpin: "📌", hourglass: "⌛", hourglass_flowing_sand: "⏳", coffee: "☕", beer: "🍺",
  pizza: "🍕", cake: "🍰", gift: "🎁", trophy: "🏆", bell: "🔔", lock: "🔒", key: "🔑", link: "🔗",
  books: "📚", speech_balloon: "💬", thought_balloon: "💭", zzz: "💤", broken_heart: "💔", sparkling_heart: "💖",
  yellow_heart: "💛", green_heart: "💚", blue_heart: "💙", purple_heart: "💜", black_heart: "🖤",
  orange_heart: "🧡", brain: "🧠", hankey: "💩", poop: "💩", sunny: "☀️", rainbow: "🌈", snowflake: "❄️",
  heavy_plus_sign: "➕", heavy_minus_sign: "➖", arrow_right: "➡️", arrow_left: "⬅️", arrow_up: "⬆️",
  arrow_down: "⬇️", repeat: "🔁", no_entry_sign: "🚫", no_entry: "⛔", octagonal_sign: "🛑", construction: "🚧",
  checkered_flag: "🏁", dart: "🎯", moneybag: "💰", chart_with_upwards_trend: "📈", chart_with_downwards_trend: "📉",
  mag: "🔍", wrench: "🔧", hammer: "🔨", gear: "⚙️", package: "📦", computer: "💻", musical_note: "🎵",
  headphones: "🎧", microphone: "🎤", cat: "🐱", dog: "🐶", unicorn_face: "🦄", penguin: "🐧", turtle: "🐢",
  bug: "🐛", bee: "🐝", honeybee: "🐝", seedling: "🌱", four_leaf_clover: "🍀", rose: "🌹", sunflower: "🌻",
  apple: "🍎", tea: "🍵", champagne: "🍾", clinking_glasses: "🥂", balloon: "🎈", confetti_ball: "🎊",
  crown: "👑", gem: "💎", first_place_medal: "🥇", saluting_face: "🫡", melting_face: "🫠", heart_on_fire: "❤️‍🔥",
};

// Emoji that take a skin tone: `name::skin-tone-2` … `name::skin-tone-6`.
const SKIN_TONE_BASES = new Set(["+1", "thumbsup", "-1", "thumbsdown", "clap", "wave", "ok_hand", "raised_hands",
  "pray", "muscle", "point_up", "point_right", "v", "crossed_fingers", "handshake", "shrug", "face_palm"]);

// Whether reactions.add takes `name` (given without colons) in a workspace with `custom` emoji names.
export function knownReactionName(name, custom) {
  const m = /^([^:]+)::skin-tone-([2-6])$/.exec(name);
  if (m) return SKIN_TONE_BASES.has(m[1]);
  return Object.hasOwn(STANDARD_EMOJI, name) || custom.has(name);
}
