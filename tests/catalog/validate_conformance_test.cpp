// The `args` and `valid` of directives in shared/conformance/{tags,json,brackets,say,policy}.jsonl, one
// markup at a time, through the built-in registry. Each case names its vector; markup is the directive as the
// parser hands it over (a few JSON repairs of 5.3 are written already repaired). Directives whose `valid:
// false` comes from the parser or executor (interrupts 12.2, the cap 12.5, policy 12.6) are checked as valid
// here.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "spec_test_support.h"

namespace sigil::catalog {
namespace {

using test_support::conformance_registry;
using test_support::same_json;
using test_support::validate_markup;

struct Case {
  const char* id;
  const char* markup;
  const char* args;  // expected `args`, JSON
  bool valid;
};

// clang-format off
const Case kCases[] = {
    // ---------------------------------------------------------------- tags.jsonl
    {"tags-001", R"(<react emoji="👍"/>)", R"({"emoji": "👍"})", true},
    {"tags-002", R"(<react emoji='🎉'/>)", R"({"emoji": "🎉"})", true},
    {"tags-004", R"(<send-file path='/tmp/report.pdf' mode='doc'/>)", R"({"path": "/tmp/report.pdf", "kind": "document"})", true},
    {"tags-005", R"(<send-file path="/tmp/a.png" caption="She said \"hi\""/>)", R"({"path": "/tmp/a.png", "caption": "She said \"hi\""})", true},
    {"tags-006", R"(<send-file path='/tmp/a.png' caption='it\'s done'/>)", R"({"path": "/tmp/a.png", "caption": "it's done"})", true},
    {"tags-007", R"(<send-file path="/tmp/a.png" caption="a > b, x/>y and <c>"/>)", R"({"path": "/tmp/a.png", "caption": "a > b, x/>y and <c>"})", true},
    {"tags-009", R"(<send-file path="/tmp/a&amp;b.png" caption="Tom &amp; Jerry &lt;3 &quot;hi&quot; &apos;yo&apos; &gt;"/>)", R"({"path": "/tmp/a&b.png", "caption": "Tom & Jerry <3 \"hi\" 'yo' >"})", true},
    {"tags-010a", R"(<react emoji="&#x1F44D;"/>)", R"({"emoji": "👍"})", true},
    {"tags-010b", R"(<react emoji="&#127881;"/>)", R"({"emoji": "🎉"})", true},
    {"tags-011", R"(<send-file path="/tmp/a.png" caption="a&nbsp;b &foo; &copy;"/>)", R"({"path": "/tmp/a.png", "caption": "a&nbsp;b &foo; &copy;"})", true},
    {"tags-012", R"(<send-file path=/tmp/a.png mode=photo/>)", R"({"path": "/tmp/a.png", "kind": "image"})", true},
    {"tags-013", R"(<react emoji=👍></react>)", R"({"emoji": "👍"})", true},
    {"tags-014", R"(<send-file path="/tmp/build.log" cleanup/>)", R"({"path": "/tmp/build.log", "cleanup": true})", true},
    {"tags-015", R"(<send-file cleanup path="/tmp/build.log"/>)", R"({"path": "/tmp/build.log", "cleanup": true})", true},
    {"tags-016a", R"(<send-file path="/tmp/a.zip" cleanup="false"/>)", R"({"path": "/tmp/a.zip", "cleanup": false})", true},
    {"tags-016b", R"(<send-file path="/tmp/b.zip" cleanup="true"/>)", R"({"path": "/tmp/b.zip", "cleanup": true})", true},
    {"tags-017", R"(<react emoji="👍" emoji="🎉"/>)", R"({"emoji": "🎉"})", true},
    {"tags-018a", R"(<REACT emoji="👍"/>)", R"({"emoji": "👍"})", true},
    {"tags-018b", R"(<React emoji="🎉"/>)", R"({"emoji": "🎉"})", true},
    {"tags-019", R"(<send-file PATH="/tmp/a.png" Mode="photo" CAPTION="Hi"/>)", R"({"path": "/tmp/a.png", "kind": "image", "caption": "Hi"})", true},
    {"tags-020", R"(<send-file file="/tmp/a.png" text="Look at this" mode="image"/>)", R"({"path": "/tmp/a.png", "caption": "Look at this", "kind": "image"})", true},
    {"tags-021a", R"(<send-file path="/tmp/a.png" kind="photo"/>)", R"({"path": "/tmp/a.png", "kind": "image"})", true},
    {"tags-021b", R"(<send-file path="/tmp/b.pdf" kind="document"/>)", R"({"path": "/tmp/b.pdf", "kind": "document"})", true},
    {"tags-024", R"(<react emoji="👍" />)", R"({"emoji": "👍"})", true},
    {"tags-025", R"(<react emoji="👍" / >)", R"({"emoji": "👍"})", true},
    {"tags-026", "<send-file\n  path = \"/tmp/a.png\"\n\tmode=\t\"doc\"\n/>", R"({"path": "/tmp/a.png", "kind": "document"})", true},
    {"tags-027", "<react emoji=\"🎉\">\n  </react>", R"({"emoji": "🎉"})", true},
    {"tags-028", "<voice>\n  Tom &amp; Jerry &#9733;  \n</voice>", R"({"text": "Tom & Jerry ★"})", true},
    {"tags-030", R"(<voice>Type</voice>)", R"({"text": "Type"})", true},
    {"tags-032a", R"(<VOICE>Hello</voice >)", R"({"text": "Hello"})", true},
    {"tags-032b", "<voice>Bye</VOICE\n>", R"({"text": "Bye"})", true},
    {"tags-033", "<publishWebPage>\n<h1>Tom &amp; Jerry</h1>\n</publishWebPage>", R"({"html": "\n<h1>Tom &amp; Jerry</h1>\n"})", true},
    {"tags-034", R"(<send-message channel="telegram" chat="family">Dinner at 7 &amp; bring cake</send-message>)", R"({"channel": "telegram", "chat": "family", "text": "Dinner at 7 & bring cake"})", true},
    {"tags-035", R"(<remember>Prefers tea over coffee</remember>)", R"({"fact": "Prefers tea over coffee"})", true},
    {"tags-036", R"(<calculate>6*7</calculate>)", R"({"expression": "6*7"})", true},
    {"tags-037", R"(<search query="weather in Oslo"/>)", R"({"query": "weather in Oslo"})", true},
    {"tags-056", R"(<setMemory>{"itemId": "a", "value": 1}</setMemory>)", R"({"itemId": "a", "value": 1})", true},
    {"tags-067", R"(<react emoji="👍">)", R"({"emoji": "👍"})", true},
    {"tags-069", R"(<react emoji="👍">yay</react>)", R"({"emoji": "👍"})", true},
    {"tags-070a", R"(<send-file path="/tmp/a.zip" cleanup="yes"/>)", R"({"path": "/tmp/a.zip", "cleanup": true})", true},
    {"tags-070b", R"(<send-file path="/tmp/b.zip" cleanup="1"/>)", R"({"path": "/tmp/b.zip", "cleanup": true})", true},
    {"tags-070c", R"(<send-file path="/tmp/c.zip" cleanup="FALSE"/>)", R"({"path": "/tmp/c.zip", "cleanup": false})", true},
    {"tags-070d", R"(<send-file path="/tmp/d.zip" cleanup="Off"/>)", R"({"path": "/tmp/d.zip", "cleanup": false})", true},
    {"tags-071", R"(<send-file path="/tmp/a.zip" cleanup="maybe"/>)", R"({"path": "/tmp/a.zip", "cleanup": "maybe"})", false},
    {"tags-072a", R"(<send-file path="/tmp/b.pdf" kind="Document"/>)", R"({"path": "/tmp/b.pdf", "kind": "document"})", true},
    {"tags-072b", R"(<send-file path="/tmp/c.png" KIND="IMAGE"/>)", R"({"path": "/tmp/c.png", "kind": "image"})", true},
    {"tags-073", R"(<send-file path="/tmp/a.gif" kind="gif"/>)", R"({"path": "/tmp/a.gif", "kind": "auto"})", true},
    {"tags-074", R"(<react emoji=""/>)", R"({"emoji": ""})", false},
    {"tags-075", R"(<search query=""/>)", R"({"query": ""})", false},
    {"tags-076a", R"(<voice>  </voice>)", R"({"text": ""})", false},
    {"tags-076b", R"(<voice/>)", R"({})", false},
    {"tags-077", R"(<remember></remember>)", R"({"fact": ""})", false},
    {"tags-078a", R"(<send-file path="/tmp/a.pdf" channel="whatsapp"/>)", R"({"path": "/tmp/a.pdf", "channel": "whatsapp"})", false},
    {"tags-078b", R"(<send-file path="/tmp/b.pdf" chat="123"/>)", R"({"path": "/tmp/b.pdf", "chat": "123"})", false},
    {"tags-078c", R"(<send-file path="/tmp/c.pdf" channel="whatsapp" chat="123"/>)", R"({"path": "/tmp/c.pdf", "channel": "whatsapp", "chat": "123"})", true},
    {"tags-079a", R"(<send-message chat="123">Hello</send-message>)", R"({"chat": "123", "text": "Hello"})", false},
    {"tags-079b", R"(<send-message channel="telegram" chat="123">  </send-message>)", R"({"channel": "telegram", "chat": "123", "text": ""})", false},
    {"tags-080", R"(<publishWebPage></publishWebPage>)", R"({"html": ""})", false},
    {"tags-081", R"(<react emoji="👍" size="big"/>)", R"({"emoji": "👍"})", true},
    {"tags-082", R"(<send-file path="/tmp/a.png" file="/tmp/b.png"/>)", R"({"path": "/tmp/b.png"})", true},
    {"tags-083", R"(<react emoji="👍"message="m1"/>)", R"({"emoji": "👍", "message": "m1"})", true},
    {"tags-084", R"(<react emoji=&#x1F44D;/>)", R"({"emoji": "👍"})", true},
    {"tags-085", R"(<voice>a&#0;b &#xD800; &#x110000;</voice>)", R"({"text": "a\ufffdb \ufffd \ufffd"})", true},
    {"tags-086", R"(<send-file path="/tmp/a.png" caption="x&#0;y"/>)", R"({"path": "/tmp/a.png", "caption": "x\ufffdy"})", true},
    {"tags-087a", R"(<react emoji=":thumbsup:"/>)", R"({"emoji": ":thumbsup:"})", true},
    {"tags-087b", R"(<react emoji="thumbsup"/>)", R"({"emoji": "thumbsup"})", true},
    {"tags-088", R"(<send-message channel="telegram" chat=5511999999999>Hi</send-message>)", R"({"channel": "telegram", "chat": "5511999999999", "text": "Hi"})", true},
    {"tags-090", R"(<search query/>)", R"({"query": ""})", false},
    {"tags-091", R"(<react emoji/>)", R"({"emoji": ""})", false},
    {"tags-092", R"(<search query="  cute cats "/>)", R"({"query": "  cute cats "})", true},
    {"tags-093", R"(<search query="   "/>)", R"({"query": "   "})", false},
    {"tags-094", R"(<send-file path="/tmp/a.png" caption=" Hi there "/>)", R"({"path": "/tmp/a.png", "caption": " Hi there "})", true},
    {"tags-099", R"(<send-message channel="slack" chat="2">Hi</send-message>)", R"({"channel": "slack", "chat": "2", "text": "Hi"})", true},
    {"tags-100", R"(<send-message chat="2">Hi</send-message>)", R"({"chat": "2", "text": "Hi"})", false},
    {"tags-110", R"(<send-file path="/tmp/a.png" caption/>)", R"({"path": "/tmp/a.png"})", true},
    {"tags-111", R"(<send-file path="/tmp/a.png" caption=""/>)", R"({"path": "/tmp/a.png"})", true},
    {"tags-112", R"(<send-file path="" caption="Hi"/>)", R"({"path": "", "caption": "Hi"})", false},
    {"tags-113", R"(<send-file path="/tmp/a.png">)", R"({"path": "/tmp/a.png"})", true},
    {"tags-114", R"(<search query="cats"></search>)", R"({"query": "cats"})", true},
    {"tags-121", R"(<react emoji="👍" data-x.y:z="1"/>)", R"({"emoji": "👍"})", true},
    {"tags-122", R"(<voice>Hello there</voice>)", R"({"text": "Hello there"})", true},
    {"tags-123", R"(<file>/tmp/a.png</file>)", R"({"path": "/tmp/a.png"})", true},
    {"tags-124", R"(<remember>likes tea</remember>)", R"({"fact": "likes tea"})", true},
    {"tags-125", R"(<voice>Say </b> please</voice>)", R"({"text": "Say </b> please"})", true},
    {"tags-128", R"(<cleanupMemory>)", R"({})", true},
    {"tags-129", R"(<react/>)", R"({})", false},
    {"tags-130", R"(<react emoji="">)", R"({"emoji": ""})", false},
    {"tags-131", R"(<react message="m1">)", R"({"message": "m1"})", false},

    // ---------------------------------------------------------------- brackets.jsonl
    {"brackets-001", "[REMEMBER:User likes green tea]", R"({"fact": "User likes green tea"})", true},
    {"brackets-003", "[SEARCH:a [b] c]", R"({"query": "a [b] c"})", true},
    {"brackets-004", "[REMEMBER:uses [square [brackets]] often]", R"({"fact": "uses [square [brackets]] often"})", true},
    {"brackets-005", "[CALCULATE:[1+2]*3]", R"({"expression": "[1+2]*3"})", true},
    {"brackets-006", "[REMEMBER:Likes tea\nand biscuits]", R"({"fact": "Likes tea\nand biscuits"})", true},
    {"brackets-007", "[CORRECT:likes tea:likes coffee]", R"({"old": "likes tea", "new": "likes coffee"})", true},
    {"brackets-008", "[CORRECT:lives in: Paris:lives in: Rome]", R"({"old": "lives in", "new": "Paris:lives in: Rome"})", true},
    {"brackets-009", "[CORRECT:old\nline:new\nline]", R"({"old": "old\nline", "new": "new\nline"})", true},
    {"brackets-010", "[REQUEST_TIER:2:User: prefs]", R"({"level": 2, "content": "User: prefs"})", true},
    {"brackets-011", "[REQUEST_TIER: 3 :  full details  ]", R"({"level": 3, "content": "full details"})", true},
    {"brackets-012", "[REQUEST_TIER:high:summary]", R"({"level": "high", "content": "summary"})", false},
    {"brackets-013", "[REMEMBER:Meeting at 10:30: bring notes]", R"({"fact": "Meeting at 10:30: bring notes"})", true},
    {"brackets-014", "[FETCH:https://example.com/a?b=c:d]", R"({"url": "https://example.com/a?b=c:d"})", true},
    {"brackets-015", "[SEARCH:]", R"({"query": ""})", false},
    {"brackets-016", "[SEARCH:   ]", R"({"query": ""})", false},
    {"brackets-024", "[SEARCH_EPISODIC:trip to Rome]", R"({"query": "trip to Rome"})", true},
    {"brackets-025", "[FORGET_THIS:old address]", R"({"fact": "old address"})", true},
    {"brackets-026a", "[COMMAND:backup]", R"({"name": "backup"})", true},
    {"brackets-026b", "[EXECUTE:deploy:prod]", R"({"name": "deploy:prod"})", true},
    {"brackets-027", "[WEB_SEARCH:best pizza in Naples]", R"({"query": "best pizza in Naples"})", true},
    {"brackets-031", "[CALCULATE:342*15]", R"({"expression": "342*15"})", true},
    {"brackets-034", "[SEARCH_EPISODIC:meeting: notes]", R"({"query": "meeting: notes"})", true},
    {"brackets-035", "[REMEMBER:]", R"({"fact": ""})", false},
    {"brackets-036", "[CORRECT:only old]", R"({"old": "only old"})", false},
    {"brackets-037", "[REQUEST_TIER:2]", R"({"level": 2})", false},
    {"brackets-045", "[REMEMBER:likes pages]", R"({"fact": "likes pages"})", true},  // invalid only after an interrupt
    {"brackets-049", "[FETCH:]", R"({"url": ""})", false},
    {"brackets-057", "[CORRECT:likes tea:]", R"({"old": "likes tea", "new": ""})", false},

    // ---------------------------------------------------------------- json.jsonl
    {"json-001", R"(<setMemory>{"itemId":"theme","value":"dark"}</setMemory>)", R"({"itemId": "theme", "value": "dark"})", true},
    {"json-002", R"(<setMemory>{"itemId": "diet", "value": {"vegetarian": true, "allergies": ["nuts"]}, "expirationInMinutes": 1440}</setMemory>)", R"({"itemId": "diet", "value": {"vegetarian": true, "allergies": ["nuts"]}, "expirationInMinutes": 1440})", true},
    {"json-003", "<deleteItem>\n  {\"itemId\": \"old-note\"}\n</deleteItem>", R"({"itemId": "old-note"})", true},
    {"json-004", R"(<searchArchive>{"query": "trip", "topK": "5", "minScore": "0.25"}</searchArchive>)", R"({"query": "trip", "topK": 5, "minScore": 0.25})", true},
    {"json-005", R"(<searchArchive>{"query": "flights", "topK": 3, "minScore": 0}</searchArchive>)", R"({"query": "flights", "topK": 3, "minScore": 0})", true},
    {"json-006", R"(<setMemory>{"itemId": "a", "value": 1, "expirationInMinutes": "90"}</setMemory>)", R"({"itemId": "a", "value": 1, "expirationInMinutes": 90})", true},
    {"json-007", R"(<searchArchive>{"query": "trip", "topK": "many"}</searchArchive>)", R"({"query": "trip", "topK": "many"})", false},
    {"json-009", R"(<setMemory>{"itemId": "a", "value": [1, 2]}</setMemory>)", R"({"itemId": "a", "value": [1, 2]})", true},
    {"json-014", R"(<setMemory>{"itemId": "flags", "value": [true, false, null]}</setMemory>)", R"({"itemId": "flags", "value": [true, false, null]})", true},
    {"json-016", R"(<setMemory>{"itemId": "poem", "value": "line one\nline two"}</setMemory>)", R"({"itemId": "poem", "value": "line one\nline two"})", true},
    {"json-019", R"(<setMemory>{"itemId": "word", "value": "\u00e9t\u00e9"}</setMemory>)", R"({"itemId": "word", "value": "été"})", true},
    {"json-020", R"(<archiveItems>["k1", "k2"]</archiveItems>)", R"({"items": ["k1", "k2"]})", true},
    {"json-021", R"(<archiveItems>{"items": ["k3"]}</archiveItems>)", R"({"items": ["k3"]})", true},
    {"json-022", R"(<getScheduledTasks/>)", R"({})", true},
    {"json-023a", R"(<cleanupMemory></cleanupMemory>)", R"({})", true},
    {"json-023b", R"(<getScheduledTasks></getScheduledTasks>)", R"({})", true},
    {"json-024", R"(<deleteItem/>)", R"({})", false},
    {"json-025", R"(<setMemory>{"itemId": "a"}</setMemory>)", R"({"itemId": "a"})", false},
    {"json-026", R"(<setMemory>{"itemId": "snippet", "value": "</setMemory> is the close tag"}</setMemory>)", R"({"itemId": "snippet", "value": "</setMemory> is the close tag"})", true},
    {"json-028", R"(<setMemory>{"itemId": "q", "value": "a } \" b ]"}</setMemory>)", R"({"itemId": "q", "value": "a } \" b ]"})", true},
    {"json-029", R"(<setMemory>{"itemId" "a", "value": 1}</setMemory>)", R"({})", false},
    {"json-030", R"(<deleteItem>{"itemId": }</deleteItem>)", R"({})", false},
    {"json-031", R"(<scheduleTask>{"message": "Stand up and stretch", "delay": "30m"}</scheduleTask>)", R"({"message": "Stand up and stretch", "delay": "30m"})", true},
    {"json-032", R"(<scheduleTask>{"message": "Call mom", "time": "2025-06-01 18:00"}</scheduleTask>)", R"({"message": "Call mom", "time": "2025-06-01 18:00"})", true},
    {"json-033", R"(<deleteScheduledTask>{"id": "task-42"}</deleteScheduledTask>)", R"({"id": "task-42"})", true},
    {"json-034", R"(<sendTelegram>{"text": "Running 5 min late"}</sendTelegram>)", R"({"text": "Running 5 min late"})", true},
    {"json-035", R"(<googleSearch>{"query": "population of Oslo"}</googleSearch>)", R"({"query": "population of Oslo"})", true},
    {"json-036", R"(<webpageToText>{"url": "https://example.com/news"}</webpageToText>)", R"({"url": "https://example.com/news"})", true},
    {"json-037", R"(<SETMEMORY>{"itemId": "a", "value": 2}</setmemory>)", R"({"itemId": "a", "value": 2})", true},
    {"json-038", R"(<mcp_github_create_issue>{"repo": "octo/hello", "title": "Crash on start"}</mcp_github_create_issue>)", R"({"server": "github", "tool": "create_issue", "arguments": {"repo": "octo/hello", "title": "Crash on start"}})", true},
    {"json-039", R"(<mcp_brave-search_brave_web_search>{"query": "sigil parser", "count": 5}</mcp_brave-search_brave_web_search>)", R"({"server": "brave-search", "tool": "brave_web_search", "arguments": {"query": "sigil parser", "count": 5}})", true},
    {"json-040", R"(<mcp_my_server_files.read/>)", R"({"server": "my_server", "tool": "files.read", "arguments": {}})", true},
    {"json-041", R"(<mcp_my_server_get-status>{"verbose": true}</mcp_my_server_get-status>)", R"({"server": "my_server", "tool": "get-status", "arguments": {"verbose": true}})", true},
    {"json-042", R"(<mcp_my_server_db.query>{"sql": "select 1", "params": [1, "a", null], "opts": {"timeout": 5}}</mcp_my_server_db.query>)", R"({"server": "my_server", "tool": "db.query", "arguments": {"sql": "select 1", "params": [1, "a", null], "opts": {"timeout": 5}}})", true},
    {"json-044", R"(<mcp_github_search_code>{"q": "foo" "bar"}</mcp_github_search_code>)", R"({"server": "github", "tool": "search_code", "arguments": {}})", false},
    {"json-045", R"(<MCP_GitHub_Create_Issue>{"title": "Bug"}</MCP_GitHub_Create_Issue>)", R"({"server": "github", "tool": "Create_Issue", "arguments": {"title": "Bug"}})", true},
    {"json-048", R"(<mcp_github_x>{"server": "s", "tool": "t"}</mcp_github_x>)", R"({"server": "github", "tool": "x", "arguments": {"server": "s", "tool": "t"}})", true},
    {"json-049", R"(<mcp_context7_get-library-docs>{"context7CompatibleLibraryID": "/vercel/next.js", "tokens": "5000"}</mcp_context7_get-library-docs>)", R"({"server": "context7", "tool": "get-library-docs", "arguments": {"context7CompatibleLibraryID": "/vercel/next.js", "tokens": "5000"}})", true},
    {"json-050", R"(<deleteItem>{"itemId": "a", "reason": "old"}</deleteItem>)", R"({"itemId": "a"})", true},
    {"json-051", R"(<setMemory>{"ITEMID": "b", "Value": 2}</setMemory>)", R"({"itemId": "b", "value": 2})", true},
    {"json-052", R"(<setMemory>{"itemId": "a", "ItemId": "b", "value": 1}</setMemory>)", R"({"itemId": "b", "value": 1})", true},
    {"json-053", R"(<deleteItem>{"itemId": 42}</deleteItem>)", R"({"itemId": "42"})", true},
    {"json-054", R"(<setMemory>{"itemId": "a", "value": 1, "expirationInMinutes": "soon"}</setMemory>)", R"({"itemId": "a", "value": 1, "expirationInMinutes": "soon"})", false},
    {"json-055", R"(<archiveItems>[]</archiveItems>)", R"({"items": []})", false},
    {"json-056", R"(<scheduleTask>{"message": "Stretch", "delay": "30m", "time": "2025-06-01 18:00"}</scheduleTask>)", R"({"message": "Stretch", "delay": "30m", "time": "2025-06-01 18:00"})", false},
    {"json-057", R"(<scheduleTask>{"message": "Stretch"}</scheduleTask>)", R"({"message": "Stretch"})", false},
    {"json-058", R"(<deleteScheduledTask>{}</deleteScheduledTask>)", R"({})", false},
    {"json-059a", R"(<scheduleTask>{"message": "a", "delay": "2w"}</scheduleTask>)", R"({"message": "a", "delay": "2w"})", false},
    {"json-059b", R"(<scheduleTask>{"message": "b", "time": "soon"}</scheduleTask>)", R"({"message": "b", "time": "soon"})", false},
    {"json-060a", R"(<scheduleTask>{"message": "a", "delay": "2h"}</scheduleTask>)", R"({"message": "a", "delay": "2h"})", true},
    {"json-060b", R"(<scheduleTask>{"message": "b", "delay": "1d"}</scheduleTask>)", R"({"message": "b", "delay": "1d"})", true},
    {"json-060c", R"(<scheduleTask>{"message": "c", "time": "2025-06-01T18:00:30Z"}</scheduleTask>)", R"({"message": "c", "time": "2025-06-01T18:00:30Z"})", true},
    {"json-060d", R"(<scheduleTask>{"message": "d", "time": "2025-06-01 18:00+02:00"}</scheduleTask>)", R"({"message": "d", "time": "2025-06-01 18:00+02:00"})", true},
    {"json-061", R"(<googleSearch> cute cats </googleSearch>)", R"({"query": "cute cats"})", true},
    {"json-062a", R"(<deleteItem>old-note</deleteItem>)", R"({"itemId": "old-note"})", true},
    {"json-062b", R"(<searchArchive> trip to Rome </searchArchive>)", R"({"query": "trip to Rome"})", true},
    {"json-062c", R"(<webpageToText>https://example.com/a</webpageToText>)", R"({"url": "https://example.com/a"})", true},
    {"json-063", R"(<voice>{"text": "hi"}</voice>)", R"({"text": "{\"text\": \"hi\"}"})", true},
    {"json-064", R"(<setMemory>remember this</setMemory>)", R"({})", false},
    {"json-065", R"(<googleSearch query="cats"/>)", R"({"query": "cats"})", true},
    {"json-066", R"(<googleSearch query="cats">{"query": "dogs"}</googleSearch>)", R"({"query": "dogs"})", true},
    {"json-069", "<getScheduledTasks> \n </getScheduledTasks>", R"({})", true},
    {"json-070", R"(<setMemory>{"itemId": "a", "value": "Tom &amp; Jerry"}</setMemory>)", R"({"itemId": "a", "value": "Tom &amp; Jerry"})", true},
    {"json-071", R"(<sendTelegram>{"channel": "telegram", "chat": "family", "text": "Running 5 min late"}</sendTelegram>)", R"({"channel": "telegram", "chat": "family", "text": "Running 5 min late"})", true},
    {"json-072", R"(<sendTelegram channel="telegram" chat="family">Running late</sendTelegram>)", R"({"channel": "telegram", "chat": "family", "text": "Running late"})", true},
    {"json-073", R"(<deleteScheduledTask>{"timestamp": 1704067200000}</deleteScheduledTask>)", R"({"timestamp": 1704067200000})", true},
    {"json-074", R"(<deleteScheduledTask>{"timestamp": "1704067200000"}</deleteScheduledTask>)", R"({"timestamp": 1704067200000})", true},
    {"json-075", R"(<deleteScheduledTask>{"timestamp": "2024-01-01 00:00"}</deleteScheduledTask>)", R"({"timestamp": "2024-01-01 00:00"})", false},
    {"json-076", R"(<deleteScheduledTask>{"id": 42}</deleteScheduledTask>)", R"({"id": "42"})", true},
    {"json-077", R"(<mcp_github_list_issues repo="octo/hello" per_page="5"/>)", R"({"server": "github", "tool": "list_issues", "arguments": {"repo": "octo/hello", "per_page": "5"}})", true},
    {"json-078", R"(<mcp_github_list_issues state="open">{"repo": "octo/hello"}</mcp_github_list_issues>)", R"({"server": "github", "tool": "list_issues", "arguments": {"state": "open", "repo": "octo/hello"}})", true},
    {"json-079", R"(<mcp_github_search_code>sigil parser</mcp_github_search_code>)", R"({"server": "github", "tool": "search_code", "arguments": {}})", false},
    {"json-080", R"(<sendTelegram>Running late</sendTelegram>)", R"({"text": "Running late"})", true},
    {"json-081", R"(<sendTelegram chat="family">{"text": "Home soon"}</sendTelegram>)", R"({"chat": "family", "text": "Home soon"})", true},
    {"json-082", R"(<sendTelegram/>)", R"({})", false},
    {"json-088", R"(<googleSearch>Tom &amp; Jerry</googleSearch>)", R"({"query": "Tom & Jerry"})", true},
    {"json-091", R"(<scheduleTask delay="30m">Stand up and stretch</scheduleTask>)", R"({"delay": "30m", "message": "Stand up and stretch"})", true},
    {"json-093", R"(<sendTelegram channel="slack" chat="1">hi</sendTelegram>)", R"({"channel": "slack", "chat": "1", "text": "hi"})", false},
    {"json-095", R"(<archiveItems>k1, k2</archiveItems>)", R"({})", false},
    {"json-096", R"(<getScheduledTasks>all of them</getScheduledTasks>)", R"({})", false},
    {"json-097", R"(<deleteScheduledTask>task-42</deleteScheduledTask>)", R"({})", false},

    // ---------------------------------------------------------------- say.jsonl
    {"say-001", R"(<say>Hello!</say>)", R"({"text": "Hello!"})", true},
    {"say-006", "<say>  Spaced out \n</say>", R"({"text": "Spaced out"})", true},
    {"say-007", R"(<say>Tom &amp; Jerry</say>)", R"({"text": "Tom &amp; Jerry"})", true},
    {"say-009", "<say>Line one\nLine two</say>", R"({"text": "Line one\nLine two"})", true},
    {"say-010", R"(<SAY>Loud</Say>)", R"({"text": "Loud"})", true},
    {"say-019", R"(<file mode="doc">/tmp/report.pdf</file>)", R"({"path": "/tmp/report.pdf", "kind": "document"})", true},
    {"say-020", R"(<file mode="document">/tmp/report.pdf</file>)", R"({"path": "/tmp/report.pdf", "kind": "document"})", true},
    {"say-021", R"(<file mode="file">/tmp/data.csv</file>)", R"({"path": "/tmp/data.csv", "kind": "document"})", true},
    {"say-022", R"(<file mode="photo">/tmp/cat.jpg</file>)", R"({"path": "/tmp/cat.jpg", "kind": "image"})", true},
    {"say-023", R"(<file path="/tmp/a.png" mode="image"/>)", R"({"path": "/tmp/a.png", "kind": "image"})", true},
    {"say-024", R"(<file mode="video">/tmp/clip.mp4</file>)", R"({"path": "/tmp/clip.mp4", "kind": "video"})", true},
    {"say-025", R"(<file mode="audio">/tmp/song.mp3</file>)", R"({"path": "/tmp/song.mp3", "kind": "audio"})", true},
    {"say-026", R"(<file mode="voice">/tmp/note.ogg</file>)", R"({"path": "/tmp/note.ogg", "kind": "voice"})", true},
    {"say-027", R"(<file mode="gif">/tmp/dance.gif</file>)", R"({"path": "/tmp/dance.gif", "kind": "auto"})", true},
    {"say-028", R"(<file mode="auto">/tmp/x.bin</file>)", R"({"path": "/tmp/x.bin", "kind": "auto"})", true},
    {"say-029", "<file>  /tmp/my notes.txt \n</file>", R"({"path": "/tmp/my notes.txt"})", true},
    {"say-039", R"(<file>   </file>)", R"({"path": ""})", false},
    {"say-040", R"(<file path="/tmp/a.pdf">/tmp/b.pdf</file>)", R"({"path": "/tmp/b.pdf"})", true},
    {"say-041", R"(<file>/tmp/a&amp;b.txt</file>)", R"({"path": "/tmp/a&b.txt"})", true},
    {"say-042", R"(<file mode="PHOTO">/tmp/a.png</file>)", R"({"path": "/tmp/a.png", "kind": "image"})", true},
    {"say-043", R"(<file mode="auto">/tmp/cat.PNG</file>)", R"({"path": "/tmp/cat.PNG", "kind": "auto"})", true},
    {"say-053", R"(<say>outer inner</say>)", R"({"text": "outer inner"})", true},

    // ---------------------------------------------------------------- policy.jsonl (valid before policy)
    {"policy-007", R"(<mcp_github_list_issues>{"repo": "octo/hello"}</mcp_github_list_issues>)", R"({"server": "github", "tool": "list_issues", "arguments": {"repo": "octo/hello"}})", true},
    {"policy-003", R"(<voice>Hi</voice>)", R"({"text": "Hi"})", true},
};
// clang-format on

class ConformanceArgs : public ::testing::TestWithParam<Case> {};

TEST_P(ConformanceArgs, MatchesVector) {
  static const Registry reg = conformance_registry();
  const Case& c = GetParam();
  parse::Validated v = validate_markup(reg, c.markup);
  boost::json::value expected = boost::json::parse(c.args);
  EXPECT_TRUE(same_json(v.args, expected))
      << c.id << ": got " << boost::json::serialize(v.args) << ", want " << c.args;
  EXPECT_EQ(v.valid, c.valid) << c.id << ": error " << v.error;
  if (v.valid) {
    EXPECT_TRUE(v.error.empty()) << c.id;
  } else {
    EXPECT_FALSE(v.error.empty()) << c.id;
    EXPECT_EQ(v.error.find('\n'), std::string::npos) << c.id << ": error must be one line";
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name;
  for (const char* p = info.param.id; *p != '\0'; ++p) name += (*p == '-') ? '_' : *p;
  return name;
}

INSTANTIATE_TEST_SUITE_P(Vectors, ConformanceArgs, ::testing::ValuesIn(kCases), case_name);

}  // namespace
}  // namespace sigil::catalog
