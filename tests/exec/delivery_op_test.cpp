// The one name per delivery op that every JSON shows (turn reports, SSE, WebSocket, the OpenAI extension).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "sigil/exec/handler.h"
#include "sigil/exec/turn_report.h"

namespace sigil::exec {
namespace {

using Op = Delivery::Op;
constexpr Op kAllOps[] = {Op::Text, Op::File, Op::Voice, Op::Reaction, Op::Message};

// Each op's wire name is pinned with every folded enum's in tests/text/enum_names_test.cpp.

TEST(DeliveryOpName, EveryOpHasADistinctName) {
  std::set<std::string_view> names;
  for (Op op : kAllOps) {
    std::string_view name = to_string(op);
    EXPECT_FALSE(name.empty());
    EXPECT_NE(name, "unknown");
    names.insert(name);
  }
  EXPECT_EQ(names.size(), std::size(kAllOps));
}

TEST(DeliveryOpName, TurnReportJsonUsesIt) {
  for (Op op : kAllOps) {
    Delivery d;
    d.op = op;
    const boost::json::value v = delivery_json(d);
    EXPECT_EQ(v.at("op").as_string(), to_string(op));
  }
}

}  // namespace
}  // namespace sigil::exec
