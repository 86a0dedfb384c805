// File kinds and media types by file extension: the one table that send-file, the outbox and the gateway's
// downloads all read, so a file is never an image to one of them and a document to another.
//
// What it promises:
// - FileKind is the one vocabulary of file kinds (spec 6.3, 14); to_string gives the names every JSON frame
//   and channel uses: "auto", "image", "document", "audio", "voice", "video".
// - A name's extension is what follows the last '.' of its last '/'-separated component, matched ASCII
//   case-insensitively. A leading dot (".bashrc", ".png") starts a name, not an extension.
// - The table's kinds are spec 14's lists (images, audio, video); every other extension in it, and every
//   extension it lacks, is a document. voice is never chosen by extension, only asked for.
// - MIME types are bare ("text/plain", no charset): whoever serves the bytes adds what it knows. One type
//   carries its parameter because it is always true: ".opus" is Ogg Opus (RFC 7845, section 9), so
//   "audio/ogg; codecs=opus", the type voice notes carry too. Unknown: "application/octet-stream".
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace sigil::text {

enum class FileKind : unsigned char { automatic, image, document, audio, voice, video };

// The name above. Never empty.
std::string_view to_string(FileKind kind) noexcept;

// The spellings of file kinds that spec 6.3 accepts: the names above and "photo" (image), "doc" and
// "file" (document). Lower case; matched in any ASCII case.
struct FileKindSpelling {
  std::string_view written;
  FileKind kind;
};
std::span<const FileKindSpelling> file_kind_spellings() noexcept;
// The kind a spelling names; nullopt for an unknown one (spec 6.3 maps those to auto: value_or).
std::optional<FileKind> parse_file_kind(std::string_view name) noexcept;

struct MediaType {
  std::string_view extension;  // lower case, no dot
  std::string_view mime;
  FileKind kind;  // image, audio, video or document
};

// Every row of the table (tests and docs read it whole).
std::span<const MediaType> media_types() noexcept;

// The row for a name's extension; nullptr when the name has no extension or the table lacks it.
const MediaType* media_type_for_name(std::string_view name) noexcept;

// The kind spec 14 sends a name as: its row's kind, else document. Never automatic, never voice.
FileKind file_kind_for_name(std::string_view name) noexcept;

// Its row's MIME type, else "application/octet-stream".
std::string_view mime_type_for_name(std::string_view name) noexcept;

// The row of the raster image format the bytes are, by their signature (PNG, JPEG, GIF, WebP, BMP):
// nullptr for anything else. For bytes from outside (a model server, a web page) whose stated type is
// only a claim: an image is sent on as what it is, never as what it says it is.
const MediaType* sniff_image(std::string_view bytes) noexcept;

}  // namespace sigil::text
