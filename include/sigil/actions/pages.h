// The `publishWebPage` action (spec 13, 15): stores the HTML through Store::put_page and tells the model
// where it is served.
//
// What the handler promises:
// - The page belongs to the turn's (user, conversation); its slug comes from the store (stable and
//   unguessable): the same title in the same conversation republishes (replaces) the page at the same URL,
//   another conversation or user gets another slug, a page without a title always gets a new one.
// - Title: the text of the HTML's first <title> element, entities decoded (&amp; &lt; &gt; &quot; &apos;
//   &#39; &nbsp; and numeric ones), whitespace runs collapsed, trimmed, at most 120 bytes. None: untitled.
// - URL = base_url (without a trailing '/') + "/pages/" + slug. Ok message
//   `published "Title" at http://…/pages/slug` (`published an untitled page at …`), with
//   "; scripts are blocked on this server" when the page has a <script> and scripts are not allowed;
//   result {"url":…,"slug":…,"title":…}.
// - The page is stored with csp_allows_scripts = allow_scripts: the server sends a Content-Security-Policy
//   that blocks scripts unless the operator allowed them.
// - Empty (whitespace-only) HTML, or HTML over max_bytes, is an error and nothing is stored.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "sigil/exec/handler.h"

namespace sigil::actions {

struct PagesConfig {
  std::string base_url = "http://127.0.0.1:8080";
  bool allow_scripts = false;
  std::size_t max_bytes = 256 * 1024;
};

// The page title as described above; empty when the HTML has none.
std::string page_title(std::string_view html);

void add_pages_handlers(exec::HandlerTable& table, PagesConfig config);

}  // namespace sigil::actions
