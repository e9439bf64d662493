// A comparator wrapper that reads a result's outputs only if they are what its host
// reported (issue 13): each output file must have the size and md5 the result stated in
// its report (result.xml_doc_out; rule in lib/work/output_check.h). A file swapped after the
// report, or one the report does not describe, makes the result unreadable for good
// (ReadOutcome::PermanentError: outcome VALIDATE_ERROR, validate_state ERROR, by the
// validator's rules) — it never becomes canonical nor agrees with anything. A file that
// cannot be read now (EIO, EACCES) is a transient error, as in the file comparators.
// Each file is hashed once per check_readable call, and only when its size matches; the
// files that pass are handed to the inner comparator as found (check_found_readable), so
// it does not locate and stat them again. `locate` is the inner comparator's locator.
#pragma once

#include <memory>

#include "daemons/validator/comparator.h"
#include "daemons/validator/lib/file_comparators.h"

namespace tharsis {

std::unique_ptr<ResultComparator> make_report_checking_comparator(std::unique_ptr<ResultComparator> inner,
                                                                  OutputLocator locate);

}  // namespace tharsis
