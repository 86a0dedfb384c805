// A platform's inbound message kept as JSON until its turn has run (ChannelInbound's pending records): one
// table of its fields serves both ways, so what payload_of writes and message_of reads back cannot drift.
//
// What it promises: write_fields() puts each field of the table into the object under its key; read_fields()
// reads each back leniently (json_fields.h): a key that is missing or of another type leaves "", 0 or false,
// so a record written before a field was added still reads.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "sigil/channels/json_fields.h"

namespace sigil::app {

template <class Record>
struct JsonField {
  std::string_view key;
  std::variant<std::string Record::*, std::int64_t Record::*, bool Record::*> member;
};

template <class Record, std::size_t N>
void write_fields(boost::json::object& o, const Record& r, const JsonField<Record> (&fields)[N]) {
  for (const JsonField<Record>& f : fields) std::visit([&](auto member) { o[f.key] = r.*member; }, f.member);
}

template <class Record, std::size_t N>
void read_fields(const boost::json::object& o, Record& r, const JsonField<Record> (&fields)[N]) {
  for (const JsonField<Record>& f : fields) {
    std::visit(
        [&](auto member) {
          using Value = std::remove_cvref_t<decltype(r.*member)>;
          if constexpr (std::is_same_v<Value, std::string>)
            r.*member = channels::string_at(o, f.key);
          else if constexpr (std::is_same_v<Value, bool>)
            r.*member = channels::bool_at(o, f.key);
          else
            r.*member = channels::int_at(o, f.key);
        },
        f.member);
  }
}

}  // namespace sigil::app
