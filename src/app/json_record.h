// A platform's inbound message kept as JSON until its turn has run (ChannelInbound's pending records): one
// table of its fields serves both ways, so what payload_of writes and message_of reads back cannot drift.
//
// What it promises: write_fields() puts each field of the table into the object under its key; read_fields()
// reads each back leniently (json_fields.h): a key that is missing or of another type leaves "", 0 or false,
// so a record written before a field was added still reads. write_list() puts a list of records (a message's
// files) under its key as an array of objects; read_list() appends each object of that array, read as
// read_fields() reads (a key that is missing or not an array adds none, an element not an object is skipped).
// record_json() is a record's fields, then what `more` writes (its lists), as JSON text; read_record() reads
// them back, then what `more` reads, or is nullopt when the text is not a JSON object.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

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

template <class Item, std::size_t N>
void write_list(boost::json::object& o, std::string_view key, const std::vector<Item>& items,
                const JsonField<Item> (&fields)[N]) {
  boost::json::array& list = o[key].emplace_array();
  for (const Item& item : items)
    write_fields(list.emplace_back(boost::json::object()).as_object(), item, fields);
}

template <class Item, std::size_t N>
void read_list(const boost::json::object& o, std::string_view key, std::vector<Item>& items,
               const JsonField<Item> (&fields)[N]) {
  if (const auto* list = o.if_contains(key); list != nullptr && list->is_array())
    for (const auto& item : list->as_array())
      if (item.is_object()) read_fields(item.as_object(), items.emplace_back(), fields);
}

// A record without lists: nothing more to write or read.
struct NoMore {
  void operator()(auto&&...) const {}
};

template <class Record, std::size_t N, class More = NoMore>
std::string record_json(const Record& r, const JsonField<Record> (&fields)[N], More more = {}) {
  boost::json::object o;
  write_fields(o, r, fields);
  more(o);
  return boost::json::serialize(o);
}

template <class Record, std::size_t N, class More = NoMore>
std::optional<Record> read_record(const std::string& json, const JsonField<Record> (&fields)[N],
                                  More more = {}) {
  const auto parsed = channels::parse_object(json);
  if (!parsed) return std::nullopt;
  Record r;
  read_fields(*parsed, r, fields);
  more(*parsed, r);
  return r;
}

}  // namespace sigil::app
