// Implementation of lib/work/output_check.h.
#include "lib/work/output_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <pugixml.hpp>
#include <sstream>
#include <string_view>

#include "lib/crypto/md5.h"
#include "lib/fd_closer.h"
#include "lib/protocol/xml_text.h"
#include "lib/work/fanout.h"
#include "lib/work/file_refs.h"

namespace tharsis {
namespace {

// `text` without white space, in lower case (ASCII: the daemons run in the C locale).
std::string trimmed_lower(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == ' ' || (c >= '\t' && c <= '\r')) continue;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

// A whole, non-negative number of bytes (BOINC clients write "95" or "95.000000"), or -1.
int64_t parse_nbytes(const char* text) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text, &end);
  if (end == text || errno != 0 || !std::isfinite(value) || value < 0 || value > 9.0e15 ||
      value != std::floor(value)) {
    return -1;
  }
  while (*end && std::isspace(static_cast<unsigned char>(*end))) ++end;
  return *end == '\0' ? static_cast<int64_t>(value) : -1;
}

std::string size_and_md5(int64_t size, const std::string& md5) {
  std::string text = size < 0 ? "no size" : std::to_string(size) + " bytes";
  return text + (md5.empty() ? "" : " md5 " + md5);
}

}  // namespace

Result<std::vector<ReportedOutput>> reported_outputs_in(const std::string& xml_doc_out) {
  std::vector<ReportedOutput> outputs;
  Status read = for_each_file_info(xml_doc_out, "reported outputs", [&](pugi::xml_node info) {
    ReportedOutput out;
    out.name = info.child_value("name");
    if (out.name.empty()) return;
    if (info.child("nbytes")) out.nbytes = parse_nbytes(info.child_value("nbytes"));
    out.md5 = trimmed_lower(info.child_value("md5_cksum"));
    outputs.push_back(std::move(out));
  });
  if (!read) return make_error(read.error());
  return outputs;
}

const ReportedOutput* find_reported(const std::vector<ReportedOutput>& reported, const std::string& name) {
  for (const auto& r : reported) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string reported_outputs_xml(const std::vector<ReportedOutput>& outputs) {
  std::ostringstream xml;
  for (const auto& f : outputs) {
    xml << "<file_info><name>" << xml_escape(f.name) << "</name><nbytes>" << f.nbytes
        << "</nbytes><md5_cksum>" << xml_escape(f.md5) << "</md5_cksum></file_info>\n";
  }
  return xml.str();
}

OutputMatch match_reported_output(const ReportedOutput* reported, const OutputOnDisk& on_disk) {
  if (reported == nullptr || reported->nbytes < 0 || reported->md5.empty()) return OutputMatch::NotReported;
  if (on_disk.size != reported->nbytes) return OutputMatch::SizeDiffers;
  return trimmed_lower(on_disk.md5) == reported->md5 ? OutputMatch::Match : OutputMatch::Md5Differs;
}

bool md5_needed(const ReportedOutput* reported, int64_t size) {
  return reported != nullptr && reported->nbytes >= 0 && !reported->md5.empty() && reported->nbytes == size;
}

std::string describe_output_match(OutputMatch match, const std::string& name, const ReportedOutput* reported,
                                  const OutputOnDisk& on_disk) {
  switch (match) {
    case OutputMatch::Match:
      return name + ": matches its report";
    case OutputMatch::NotReported:
      return name + ": the result reported no size and md5 for it" +
             (reported ? " (found " + size_and_md5(reported->nbytes, reported->md5) + ")" : "");
    case OutputMatch::SizeDiffers:
    case OutputMatch::Md5Differs:
      return name + ": reported " + size_and_md5(reported->nbytes, reported->md5) + ", found " +
             size_and_md5(on_disk.size, on_disk.md5) + " on the server";
  }
  return name;
}

namespace {

// The verdict once the file's status is known; `fd` open on it for the md5, or -1 (then
// it is opened by path).
OutputVerdict judge(const std::string& path, const std::string& name, const ReportedOutput* reported,
                    const struct stat& info, int fd) {
  OutputVerdict verdict;
  if (!S_ISREG(info.st_mode)) {
    verdict.error_number = EISDIR;
    verdict.message = path + " is not a regular file";
    return verdict;
  }
  verdict.on_disk.size = static_cast<int64_t>(info.st_size);
  if (md5_needed(reported, verdict.on_disk.size)) {
    auto md5 = fd >= 0 ? md5_fd_hex(fd, path, verdict.on_disk.size) : md5_file_hex(path);
    if (!md5.ok()) {
      verdict.error_number = errno != 0 ? errno : EIO;
      verdict.message = md5.error();
      return verdict;
    }
    verdict.on_disk.md5 = *md5;
  }
  verdict.match = match_reported_output(reported, verdict.on_disk);
  if (verdict.match != OutputMatch::Match) {
    verdict.message = describe_output_match(verdict.match, name, reported, verdict.on_disk);
  }
  return verdict;
}

}  // namespace

OutputVerdict verify_output_file(const std::string& path, const std::string& name,
                                 const ReportedOutput* reported) {
  OwnedFd closed_on_return;
  return verify_output_file(path, name, reported, closed_on_return);
}

OutputVerdict verify_output_file(const std::string& path, const std::string& name,
                                 const ReportedOutput* reported, OwnedFd& kept) {
  struct stat info {};
  // Opened once, then fstat and md5 on the descriptor: one path lookup. O_NONBLOCK: a FIFO
  // in its place must not block the open (it is refused as not a regular file).
  OwnedFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd && ::fstat(fd.get(), &info) == 0) {
    OutputVerdict verdict = judge(path, name, reported, info, fd.get());
    if (verdict.error_number == 0 && verdict.match == OutputMatch::Match) kept = std::move(fd);
    return verdict;
  }
  fd.reset();
  // Not openable (missing, or not readable: its size may still decide): by path, as a
  // stat then an open for the md5.
  if (::stat(path.c_str(), &info) != 0) {
    OutputVerdict verdict;
    verdict.error_number = errno;
    verdict.message = "cannot stat " + path + ": " + std::strerror(errno);
    return verdict;
  }
  return judge(path, name, reported, info, -1);
}

Result<std::string> describe_uploaded_outputs(const ProjectConfig& config, const std::string& xml_doc_in) {
  auto files = file_infos_in(xml_doc_in);
  if (!files.ok()) return make_error(files.error());
  std::vector<ReportedOutput> outputs;
  for (const auto& f : *files) {
    std::string path = fanout_path(config.upload_dir, f.name, config.uldl_dir_fanout);
    auto md5 = md5_file_hex(path);
    if (!md5.ok()) return make_error(md5.error());
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
      return make_error("cannot stat " + path + ": " + std::strerror(errno));
    outputs.push_back(ReportedOutput{f.name, static_cast<int64_t>(info.st_size), *md5});
  }
  return reported_outputs_xml(outputs);
}

}  // namespace tharsis
