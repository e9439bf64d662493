// Implementation of sched/lib/submit/submit_request.h.
#include "sched/lib/submit/submit_request.h"

#include <cmath>
#include <cstring>

#include "lib/protocol/xml_text.h"

namespace tharsis {
namespace {

const char* kDocument = "submit request";

Status read_number(const XmlReader& reader, pugi::xml_node parent, const char* name, std::string_view path,
                   double& out) {
  pugi::xml_node node = parent.child(name);
  if (!node) return Status::success();
  return reader.number(node, child_path(path, name), out);
}

Result<SubmitInput> parse_input(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                                const SubmitLimits& limits) {
  SubmitInput input;
  std::string mode;
  pugi::xml_node mode_node = node.child("mode");
  if (!mode_node) return reader.error(node, path, "missing <mode>");
  if (Status s = reader.name(mode_node, child_path(path, "mode"), mode); !s) return make_error(s.error());
  auto parsed = parse_input_mode(mode);
  if (!parsed) {
    return reader.error(mode_node, child_path(path, "mode"),
                        "expected local_staged, inline, remote, sandbox, semilocal or local, found " +
                            quote_for_message(mode));
  }
  input.mode = *parsed;
  if (input.mode == InputMode::Remote) {
    for (const char* field : {"url", "md5"}) {
      pugi::xml_node f = node.child(field);
      if (!f) return reader.error(node, path, std::string("remote input without <") + field + ">");
    }
    if (Status s =
            reader.text(node.child("url"), child_path(path, "url"), limits.max_text_bytes, true, input.url);
        !s)
      return make_error(s.error());
    if (Status s = reader.name(node.child("md5"), child_path(path, "md5"), input.md5); !s)
      return make_error(s.error());
    if (Status s = read_number(reader, node, "nbytes", path, input.nbytes); !s) return make_error(s.error());
    return input;
  }
  pugi::xml_node source = node.child("source");
  if (!source) return reader.error(node, path, "missing <source>");
  size_t max = input.mode == InputMode::Inline ? limits.max_inline_bytes : limits.max_text_bytes;
  bool trim = input.mode != InputMode::Inline;
  // Inline content is a file's, kept as sent; a name is text.
  Status read = input.mode == InputMode::Inline
                    ? reader.bytes(source, child_path(path, "source"), max, trim, input.source)
                    : reader.text(source, child_path(path, "source"), max, trim, input.source);
  if (!read) return make_error(read.error());
  return input;
}

Result<SubmitJob> parse_job(const XmlReader& reader, pugi::xml_node node, const std::string& path,
                            const SubmitLimits& limits) {
  SubmitJob job;
  if (pugi::xml_node n = node.child("name")) {
    if (Status s = reader.name(n, child_path(path, "name"), job.name); !s) return make_error(s.error());
  }
  if (pugi::xml_node n = node.child("command_line")) {
    if (Status s =
            reader.text(n, child_path(path, "command_line"), limits.max_text_bytes, true, job.command_line);
        !s)
      return make_error(s.error());
  }
  if (Status s = read_number(reader, node, "rsc_fpops_est", path, job.rsc_fpops_est); !s)
    return make_error(s.error());
  if (pugi::xml_node n = node.child("priority")) {
    int priority = 0;
    if (Status s = reader.integer(n, child_path(path, "priority"), priority); !s)
      return make_error(s.error());
    job.priority = priority;
  }
  size_t index = 0;
  for (pugi::xml_node f : node.children("input_file")) {
    if (++index > limits.max_inputs_per_job) {
      return reader.error(f, path, "more than " + std::to_string(limits.max_inputs_per_job) + " input files");
    }
    auto input = parse_input(reader, f, child_path(path, "input_file", index), limits);
    if (!input.ok()) return make_error(input.error());
    job.inputs.push_back(std::move(*input));
  }
  return job;
}

}  // namespace

std::string root_element_name(std::string_view xml) {
  size_t at = 0;
  while (at < xml.size()) {
    while (at < xml.size() && std::strchr(" \t\r\n", xml[at]) != nullptr && xml[at] != '\0') ++at;
    if (at >= xml.size() || xml[at] != '<') return "";
    if (xml.substr(at, 2) == "<?") {
      size_t end = xml.find("?>", at);
      if (end == std::string_view::npos) return "";
      at = end + 2;
    } else if (xml.substr(at, 4) == "<!--") {
      size_t end = xml.find("-->", at);
      if (end == std::string_view::npos) return "";
      at = end + 3;
    } else {
      size_t start = at + 1, end = start;
      while (end < xml.size() && std::strchr(" \t\r\n/>", xml[end]) == nullptr) ++end;
      return std::string(xml.substr(start, end - start));
    }
  }
  return "";
}

Result<std::unique_ptr<SubmitDocument>> load_submit_document(std::string text, const SubmitLimits& limits) {
  if (text.size() > limits.max_request_bytes) {
    return make_error("request of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                      std::to_string(limits.max_request_bytes) + " bytes");
  }
  // No DTD: an internal subset could declare entities (billion laughs) or external ones.
  if (text.find("<!DOCTYPE") != std::string::npos || text.find("<!ENTITY") != std::string::npos) {
    return make_error("request declares a DOCTYPE or entities; they are not allowed");
  }
  auto doc = std::make_unique<SubmitDocument>();
  doc->text = std::move(text);
  doc->operation = root_element_name(doc->text);
  if (doc->operation.empty() || doc->operation.size() > 64) {
    return make_error("can't parse request message: no root element");
  }
  doc->xml_limits = std::make_unique<ProtocolLimits>(xml_limits(limits));
  doc->reader = std::make_unique<XmlReader>(doc->text, *doc->xml_limits, kDocument, XmlReader::InPlace{});
  if (Status loaded = doc->reader->load(doc->operation); !loaded) return make_error(loaded.error());
  return doc;
}

Result<std::string> request_authenticator(const SubmitDocument& doc) {
  return optional_name(doc, "authenticator");
}

std::optional<InputMode> parse_input_mode(std::string_view text) {
  if (text == "local_staged") return InputMode::LocalStaged;
  if (text == "inline") return InputMode::Inline;
  if (text == "remote") return InputMode::Remote;
  if (text == "sandbox") return InputMode::Sandbox;
  if (text == "semilocal") return InputMode::Semilocal;
  if (text == "local") return InputMode::Local;
  return std::nullopt;
}

const char* input_mode_name(InputMode mode) {
  switch (mode) {
    case InputMode::LocalStaged:
      return "local_staged";
    case InputMode::Inline:
      return "inline";
    case InputMode::Remote:
      return "remote";
    case InputMode::Sandbox:
      return "sandbox";
    case InputMode::Semilocal:
      return "semilocal";
    case InputMode::Local:
      return "local";
  }
  return "?";
}

Result<BatchDescription> parse_batch_description(const SubmitDocument& doc, const SubmitLimits& limits) {
  const XmlReader& reader = *doc.reader;
  std::string root = doc.operation;
  pugi::xml_node batch = reader.root().child("batch");
  if (!batch) return reader.error(reader.root(), root, "missing <batch>");
  std::string path = child_path(root, "batch");
  BatchDescription out;
  pugi::xml_node app = batch.child("app_name");
  if (!app) return reader.error(batch, path, "missing <app_name>");
  if (Status s = reader.name(app, child_path(path, "app_name"), out.app_name); !s)
    return make_error(s.error());
  if (pugi::xml_node n = batch.child("batch_id")) {
    if (Status s = reader.integer(n, child_path(path, "batch_id"), out.batch_id); !s)
      return make_error(s.error());
  }
  if (pugi::xml_node n = batch.child("batch_name")) {
    if (Status s = reader.name(n, child_path(path, "batch_name"), out.batch_name); !s)
      return make_error(s.error());
  }
  if (pugi::xml_node n = batch.child("priority")) {
    int priority = 0;
    if (Status s = reader.integer(n, child_path(path, "priority"), priority); !s)
      return make_error(s.error());
    out.priority = priority;
  }
  if (pugi::xml_node n = batch.child("output_template_filename")) {
    if (Status s = reader.name(n, child_path(path, "output_template_filename"), out.output_template_filename);
        !s)
      return make_error(s.error());
  }
  if (pugi::xml_node params = batch.child("job_params")) {
    std::string ppath = child_path(path, "job_params");
    JobParams& p = out.job_params;
    for (auto [name, field] :
         {std::pair{"rsc_fpops_est", &p.rsc_fpops_est}, std::pair{"rsc_fpops_bound", &p.rsc_fpops_bound},
          std::pair{"rsc_memory_bound", &p.rsc_memory_bound}, std::pair{"rsc_disk_bound", &p.rsc_disk_bound},
          std::pair{"delay_bound", &p.delay_bound}}) {
      if (Status s = read_number(reader, params, name, ppath, *field); !s) return make_error(s.error());
      if (*field < 0)
        return reader.error(params.child(name), child_path(ppath, name), "expected a number >= 0");
    }
  }
  size_t count = 0;
  for (pugi::xml_node job = batch.child("job"); job; job = job.next_sibling("job")) ++count;
  if (count > limits.max_jobs) {
    return make_error("batch of " + std::to_string(count) + " jobs exceeds the limit of " +
                      std::to_string(limits.max_jobs) + " jobs per request");
  }
  out.jobs.reserve(count);
  size_t index = 0;
  for (pugi::xml_node node = batch.child("job"); node; node = node.next_sibling("job")) {
    auto job = parse_job(reader, node, child_path(path, "job", ++index), limits);
    if (!job.ok()) return make_error(job.error());
    if (job->rsc_fpops_est < 0) return make_error("job " + std::to_string(index) + ": rsc_fpops_est < 0");
    out.jobs.push_back(std::move(*job));
  }
  return out;
}

Result<BatchRef> parse_batch_ref(const SubmitDocument& doc) {
  BatchRef ref;
  auto id = optional_integer(doc, "batch_id");
  if (!id.ok()) return make_error(id.error());
  ref.id = *id;
  if (ref.id == 0) {
    auto name = optional_name(doc, "batch_name");
    if (!name.ok()) return make_error(name.error());
    ref.name = *name;
  }
  if (ref.id == 0 && ref.name.empty())
    return make_error("batch not specified (expected <batch_id> or <batch_name>)");
  return ref;
}

Result<std::string> optional_name(const SubmitDocument& doc, const char* element) {
  std::string out;
  pugi::xml_node node = doc.reader->root().child(element);
  if (!node) return out;
  if (Status s = doc.reader->name(node, child_path(doc.operation, element), out); !s)
    return make_error(s.error());
  return out;
}

Result<int64_t> optional_integer(const SubmitDocument& doc, const char* element) {
  int64_t out = 0;
  pugi::xml_node node = doc.reader->root().child(element);
  if (!node) return out;
  // BOINC's clients print some integers with %f ("12.000000"): accept an integral number.
  double value = 0;
  if (Status s = doc.reader->number(node, child_path(doc.operation, element), value); !s)
    return make_error(s.error());
  // Range first: converting a double beyond int64_t (a batch_id of 4e40) is undefined.
  // Past 2^53 a double no longer holds every integer, and no id or time comes near it.
  constexpr double kLargest = 9007199254740992.0;  // 2^53
  if (!(value >= -kLargest && value <= kLargest) || std::floor(value) != value) {
    return doc.reader->error(node, child_path(doc.operation, element),
                             "expected an integer from -2^53 to 2^53");
  }
  return static_cast<int64_t>(value);
}

Result<double> optional_number(const SubmitDocument& doc, const char* element) {
  double out = 0;
  pugi::xml_node node = doc.reader->root().child(element);
  if (!node) return out;
  if (Status s = doc.reader->number(node, child_path(doc.operation, element), out); !s)
    return make_error(s.error());
  return out;
}

Result<std::vector<std::string>> repeated_names(const SubmitDocument& doc, const char* element,
                                                size_t max_count) {
  std::vector<std::string> out;
  size_t index = 0;
  for (pugi::xml_node node : doc.reader->root().children(element)) {
    if (++index > max_count) {
      return make_error("more than " + std::to_string(max_count) + " <" + std::string(element) +
                        "> elements");
    }
    std::string name;
    if (Status s = doc.reader->name(node, child_path(doc.operation, element, index), name); !s)
      return make_error(s.error());
    out.push_back(std::move(name));
  }
  return out;
}

}  // namespace tharsis
