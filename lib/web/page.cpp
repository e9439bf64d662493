// The shared page skeleton (see page.h).
#include "lib/web/page.h"

#include <ctime>

#include "lib/web/html_escape.h"

namespace tharsis {

namespace {
constexpr PageId kNavOrder[] = {PageId::ServerStatus, PageId::Graphs, PageId::Reclustering,
                                PageId::Volunteers};
}

std::string_view page_program(PageId page) {
  switch (page) {
    case PageId::ServerStatus:
      return "server_status";
    case PageId::Graphs:
      return "graphs";
    case PageId::Reclustering:
      return "reclustering";
    case PageId::Volunteers:
      return "volunteers";
  }
  return "";
}

std::string_view page_nav_title(PageId page) {
  switch (page) {
    case PageId::ServerStatus:
      return "Server status";
    case PageId::Graphs:
      return "Graphs";
    case PageId::Reclustering:
      return "Reclustering";
    case PageId::Volunteers:
      return "Volunteers";
  }
  return "";
}

std::string format_utc_time(int64_t unix_seconds) {
  if (unix_seconds == 0) return "never";
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[40];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buffer;
}

std::string format_duration(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds < 60) return std::to_string(seconds) + " s";
  if (seconds < 3600) return std::to_string(seconds / 60) + " min";
  if (seconds < 86400) {
    return std::to_string(seconds / 3600) + " h " + std::to_string(seconds % 3600 / 60) + " min";
  }
  return std::to_string(seconds / 86400) + " d " + std::to_string(seconds % 86400 / 3600) + " h";
}

std::string render_page(const PageContext& context, PageId current, std::string_view title,
                        std::string_view body_html) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
  out += "<title>" + html_escape(title) + " \xC2\xB7 " + html_escape(context.project_name) + "</title>\n";
  out += "<link rel=\"stylesheet\" href=\"" + html_attr(context.stylesheet) + "\"/>\n</head>\n<body>\n";
  out += "<header class=\"site\"><span class=\"project\">" + html_escape(context.project_name) +
         "</span>\n<nav>";
  for (PageId page : kNavOrder) {
    const std::string href = context.base_url + std::string(page_program(page));
    out += "<a href=\"" + html_attr(href) + "\"";
    if (page == current) out += " class=\"current\" aria-current=\"page\"";
    out += ">" + html_escape(page_nav_title(page)) + "</a>";
  }
  out += "</nav></header>\n<main>\n<h1>" + html_escape(title) + "</h1>\n";
  out += body_html;
  out += "</main>\n<footer>Generated " + html_escape(format_utc_time(context.now)) +
         " by Tharsis</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace tharsis
