// Runs every vector of ../shared/conformance/*.jsonl, whole and in chunks of 1, 2, 3, 7 and 64 bytes,
// exactly as the suite's README says: text, silent and directives must match the expectation, and the six
// outputs of one vector must be identical in full (diagnostics and errors included, spec 11.2), and so
// must the outputs under every stage-1 kernel this CPU runs (whole and in chunks of 7 and 64).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../support/conformance_vectors.h"
#include "../support/run_parse.h"

// In the support's namespace: the vectors' reader and the parser's runner are named without a prelude.
namespace sigil::testing {
namespace {

namespace json = boost::json;

// Vectors the project's issues override, with what is expected instead (docs/directives.md says so).
struct Superseded {
  const char* id;
  const char* why;
  const char* action;  // the one directive the input yields now
};
constexpr Superseded kSuperseded[] = {
    {"tags-116",
     "issue 13: createAIImage is registered; without an image model it is an error to the model, not text",
     "createAIImage"},
};

const Superseded* superseded(const std::string& id) {
  for (const Superseded& s : kSuperseded)
    if (id == s.id) return &s;
  return nullptr;
}

bool matches(const json::object& out, const json::object& expect, std::string* why) {
  if (out.at("text") != expect.at("text")) {
    *why = "text " + json::serialize(out.at("text")) + " != expected " + json::serialize(expect.at("text"));
    return false;
  }
  if (out.at("silent") != expect.at("silent")) {
    *why = "silent " + json::serialize(out.at("silent"));
    return false;
  }
  const json::array& od = out.at("directives").as_array();
  const json::array& ed = expect.at("directives").as_array();
  bool ok = od.size() == ed.size();
  for (std::size_t i = 0; ok && i < od.size(); ++i) {
    const json::object& o = od[i].as_object();
    const json::object& e = ed[i].as_object();
    ok = o.at("action") == e.at("action") && o.at("valid") == e.at("valid") &&
         same_json(o.at("args"), e.at("args"));
  }
  if (!ok) *why = "directives " + json::serialize(od) + " != expected " + json::serialize(ed);
  return ok;
}

void run_file(const std::string& stem) {
  const std::filesystem::path path = std::filesystem::path(SIGIL_CONFORMANCE_DIR) / (stem + ".jsonl");
  ASSERT_TRUE(std::ifstream(path)) << "cannot open " << path;
  int vectors = 0, failures = 0;
  for (const ConformanceVector& cv : read_vector_file(path)) {
    ++vectors;
    const json::object& v = cv.json;
    const std::string& id = cv.id;
    const std::string& reply = cv.reply;
    RunOptions o = cv.options;
    const json::object& expect = v.at("expect").as_object();
    if (const Superseded* s = superseded(id)) {
      const json::object out = sigil::testing::run_parse(reply, o, 0).summary;
      const json::array& directives = out.at("directives").as_array();
      if (directives.size() != 1 || directives[0].at("action") != s->action || out.at("text") != "")
        ADD_FAILURE() << id << " (superseded: " << s->why << "): " << json::serialize(out);
      std::cout << id << ": superseded (" << s->why << ")\n";
      continue;
    }
    std::string first;
    for (std::size_t chunk : {0, 1, 2, 3, 7, 64}) {
      const json::object out = sigil::testing::run_parse(reply, o, chunk).summary;
      std::string why;
      if (!matches(out, expect, &why)) {
        ADD_FAILURE() << id << " (chunk " << chunk << "): " << why
                      << "\n  note: " << v.at("note").as_string();
        ++failures;
        break;
      }
      const std::string printed = json::serialize(out);
      if (chunk == 0) {
        first = printed;
      } else if (printed != first) {
        ADD_FAILURE() << id << ": chunk " << chunk
                      << " differs from the whole reply (11.2)\n  whole: " << first
                      << "\n  chunk: " << printed;
        ++failures;
        break;
      }
    }
    // Every stage-1 kernel this CPU runs gives the same output, whole and across block and chunk boundaries.
    for (sigil::text::stage1::Kernel k : sigil::text::stage1::kAllKernels) {
      if (!sigil::text::stage1::kernel_supported(k) || first.empty()) continue;
      o.stage1_kernel = k;
      for (std::size_t chunk : {0, 7, 64}) {
        const std::string printed = json::serialize(sigil::testing::run_parse(reply, o, chunk).summary);
        if (printed != first) {
          ADD_FAILURE() << id << ": stage-1 kernel " << sigil::text::stage1::kernel_name(k) << ", chunk "
                        << chunk << " differs\n  best kernel: " << first << "\n  this kernel: " << printed;
          ++failures;
        }
      }
    }
  }
  EXPECT_GT(vectors, 0);
  std::cout << stem << ": " << (vectors - failures) << "/" << vectors << " vectors pass\n";
}

// One test a file of the suite.
class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, File) { run_file(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Suite, Conformance,
                         ::testing::Values("tags", "abandon", "brackets", "json", "say", "sentinels",
                                           "hidden", "code", "cleantext", "eos", "utf8", "policy"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace sigil::testing
