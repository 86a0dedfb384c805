// What the Telegram fake (telegram.mjs) knows about files: image sizes from PNG/GIF/WebP/JPEG headers, the
// length of an Ogg Opus voice note, the PhotoSize list, and the file id prefixes, folders and type names
// Telegram uses per kind of file.

export function imageSize(b) {
  if (b.length > 24 && b.readUInt32BE(0) === 0x89504e47) return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length > 10 && b.toString("latin1", 0, 3) === "GIF") return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length > 30 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") {
    const kind = b.toString("latin1", 12, 16);
    if (kind === "VP8X") return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
    if (kind === "VP8L") {
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (kind === "VP8 ") return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  if (b.length > 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return null;
      const marker = b[i + 1];
      const len = b.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
      }
      i += 2 + len;
    }
  }
  return null;
}

// Seconds of an Ogg Opus stream: the last page's granule position less the pre-skip, at 48 kHz.
export function oggOpusSeconds(b) {
  if (b.length < 28 || b.toString("latin1", 0, 4) !== "OggS") return null;
  const head = b.indexOf("OpusHead");
  const preSkip = head >= 0 && head + 12 <= b.length ? b.readUInt16LE(head + 10) : 0;
  const last = b.lastIndexOf("OggS");
  if (last < 0 || last + 14 > b.length) return null;
  const granule = Number(b.readBigInt64LE(last + 6));
  if (granule <= 0) return 0;
  return Math.max(0, Math.round((granule - preSkip) / 48000));
}


export const KIND_PREFIX = { voice: "AwACAgIAAxkBAAI", audio: "CQACAgIAAxkBAAI", document: "BQACAgIAAxkBAAI",
  photo: "AgACAgIAAxkBAAI", video: "BAACAgIAAxkBAAI" };
export const KIND_FOLDER = { voice: "voice", audio: "music", document: "documents", photo: "photos", video: "videos" };
export const DEFAULT_EXT = { voice: "oga", audio: "mp3", document: "bin", photo: "jpg", video: "mp4" };
export const TYPE_NAME = { voice: "VoiceNote", audio: "Audio", document: "Document", photo: "Photo", video: "Video" };

// Telegram's PhotoSize list: smaller copies first (the fake keeps one set of bytes for all), the original last.
export function photoSizes(fake, file, { width, height }) {
  const sizes = [];
  const longest = Math.max(width, height);
  for (const side of [90, 320, 800]) {
    if (longest <= side) break;
    const scale = side / longest;
    const copy = fake.storeFile("photo", file.data, file.name, file.mime);
    sizes.push({ file_id: copy.file_id, file_unique_id: copy.file_unique_id, file_size: file.data.length,
      width: Math.round(width * scale), height: Math.round(height * scale) });
  }
  sizes.push({ file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.data.length, width, height });
  return sizes;
}
