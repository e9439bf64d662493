// The skeleton every status page shares: doctype, title, the one stylesheet tharsis.css,
// the navigation between the pages and a footer with the generation time. Renderers build
// the body (already escaped HTML) and wrap it here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tharsis {

// The pages, in navigation order. Each is a CGI program of html/ (the link target).
enum class PageId { ServerStatus, Graphs, Reclustering, Volunteers };

// Program name (link target) and navigation title of a page.
std::string_view page_program(PageId page);
std::string_view page_nav_title(PageId page);

struct PageContext {
  std::string project_name;                // shown in the header and the <title>
  int64_t now = 0;                         // generation time (Unix seconds) for the footer
  std::string base_url;                    // prefix of page links, e.g. "/tharsis_cgi/" ("" = relative)
  std::string stylesheet = "tharsis.css";  // href of the one stylesheet
};

// "2026-11-23 06:57:04 UTC"; "never" for 0.
std::string format_utc_time(int64_t unix_seconds);
// "3 s", "5 min", "2 h 10 min", "4 d 3 h"; negative as "0 s".
std::string format_duration(int64_t seconds);

// A whole HTML document: <title>`title` · project</title>, header with nav marking
// `current`, <main> holding `body_html` (trusted, already escaped), footer.
std::string render_page(const PageContext& context, PageId current, std::string_view title,
                        std::string_view body_html);

}  // namespace tharsis
