// Implementation of daemons/validator/lib/report_checking_comparator.h.
#include "daemons/validator/lib/report_checking_comparator.h"

#include <cerrno>

#include "lib/log.h"
#include "lib/work/output_check.h"

namespace tharsis {
namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

class ReportCheckingComparator final : public ResultComparator {
 public:
  ReportCheckingComparator(std::unique_ptr<ResultComparator> inner, OutputLocator locate)
      : inner_(std::move(inner)), locate_(std::move(locate)) {}

  ReadOutcome check_readable(const ResultRow& result) override {
    auto paths = locate_(result);
    if (!paths.ok() || paths->empty()) return ReadOutcome::PermanentError;
    auto reported = reported_outputs_in(result.xml_doc_out);
    if (!reported.ok()) {
      log_warning("result ", result.id, ": ", reported.error(), "; its outputs are not used");
      return ReadOutcome::PermanentError;
    }
    std::vector<FoundOutput> found;
    found.reserve(paths->size());
    for (const auto& path : *paths) {
      const std::string name = base_name(path);
      OutputVerdict verdict = verify_output_file(path, name, find_reported(*reported, name));
      if (verdict.error_number != 0) {
        // A missing upload is final for this result; anything else may heal (a mount).
        if (verdict.error_number == ENOENT || verdict.error_number == ENOTDIR ||
            verdict.error_number == EISDIR) {
          return ReadOutcome::PermanentError;
        }
        log_warning("result ", result.id, ": ", verdict.message, "; retry later");
        return ReadOutcome::TransientError;
      }
      if (verdict.match != OutputMatch::Match) {
        log_warning("result ", result.id, " (", result.name, ", host ", result.hostid, "): output ",
                    verdict.message, ": not used (VALIDATE_ERROR)");
        return ReadOutcome::PermanentError;
      }
      found.push_back(FoundOutput{path, verdict.on_disk.size});
    }
    // Every file is there, a regular file: the inner comparator need not look again.
    return inner_->check_found_readable(result, found);
  }

  CompareOutcome compare(const ResultRow& a, const ResultRow& b) override { return inner_->compare(a, b); }

 private:
  std::unique_ptr<ResultComparator> inner_;
  OutputLocator locate_;
};

}  // namespace

std::unique_ptr<ResultComparator> make_report_checking_comparator(std::unique_ptr<ResultComparator> inner,
                                                                  OutputLocator locate) {
  return std::make_unique<ReportCheckingComparator>(std::move(inner), std::move(locate));
}

}  // namespace tharsis
