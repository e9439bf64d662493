// Implementation of tests/support/headless_chromium.h.
#include "tests/support/headless_chromium.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <regex>

#include "lib/text_file.h"
#include "tests/support/test_database.h"

namespace tharsis::testing {

bool chromium_available() { return ::access(kChromium, X_OK) == 0; }

BrowserPage load_in_chromium(const std::string& url, const std::string& screenshot_png, int width,
                             int height) {
  TempDir profile("tharsis-chromium");
  const std::string dom_file = profile.path() + "/dom.html";
  const std::string log_file = profile.path() + "/chromium.log";
  const std::string command = std::string(kChromium) +
                              " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                              " --disable-background-networking --disable-component-update --disable-sync"
                              " --hide-scrollbars --user-data-dir='" +
                              profile.path() + "/profile' --window-size=" + std::to_string(width) + "," +
                              std::to_string(height) + " --screenshot='" + screenshot_png + "' --dump-dom '" +
                              url + "' >'" + dom_file + "' 2>'" + log_file + "'";
  const int status = std::system(command.c_str());
  BrowserPage page;
  auto dom = read_text_file(dom_file);
  if (status != 0 || !dom.ok() || dom->empty()) {
    auto log = read_text_file(log_file);
    std::string tail = log.ok() ? *log : "";
    if (tail.size() > 2000) tail = tail.substr(tail.size() - 2000);
    page.error = "chromium exit status " + std::to_string(status) + " loading " + url + ": " + tail;
    return page;
  }
  page.dom = *dom;
  return page;
}

bool parse_dom(const std::string& html, pugi::xml_document& doc, std::string& error) {
  static const std::regex void_element(
      R"(<(area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr)(\s[^>]*?)?/?>)",
      std::regex::icase);
  const std::string xml = std::regex_replace(html, void_element, "<$1$2/>");
  const pugi::xml_parse_result parsed = doc.load_string(xml.c_str());
  if (!parsed) error = std::string(parsed.description()) + " at offset " + std::to_string(parsed.offset);
  return static_cast<bool>(parsed);
}

std::string node_text(const pugi::xml_node& node) {
  std::string out;
  for (const pugi::xml_node& child : node.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) out += child.value();
    out += node_text(child);
  }
  return out;
}

}  // namespace tharsis::testing
