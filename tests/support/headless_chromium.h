// Loads a page in Debian's headless Chromium (/usr/bin/chromium) the way a visitor's
// browser would: one fresh profile per load, no network services of its own. Returns the
// DOM after rendering (--dump-dom) and saves a screenshot; and turns that HTML serialisation
// into XML (void elements closed) so tests can query it with XPath.
#pragma once

#include <pugixml.hpp>
#include <string>

namespace tharsis::testing {

inline constexpr const char* kChromium = "/usr/bin/chromium";

bool chromium_available();

struct BrowserPage {
  std::string dom;    // the rendered DOM as HTML; empty when the load failed
  std::string error;  // why, when it failed (exit status, Chromium's last messages)
};

// Loads `url`, writes a PNG of a width x height window to `screenshot_png`.
BrowserPage load_in_chromium(const std::string& url, const std::string& screenshot_png, int width = 1280,
                             int height = 1600);

// Parses Chromium's HTML serialisation as XML: closes void elements (<meta>, <link>,
// <br>, ...). Returns false with the parser's message in `error` on failure.
bool parse_dom(const std::string& html, pugi::xml_document& doc, std::string& error);

// All text under `node`, concatenated (what a reader sees, entities decoded).
std::string node_text(const pugi::xml_node& node);

}  // namespace tharsis::testing
