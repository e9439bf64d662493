// The negative exit_status codes tharsis-client reports for failures that are the
// client's, not the app's (BOINC reports its own ERR_* codes the same way: negative,
// so they never collide with an app's exit code), except the abort code, which is BOINC's.
#pragma once

namespace tharsis {

// result_abort from the scheduler: BOINC's EXIT_ABORTED_BY_PROJECT, which the stock client reports too.
inline constexpr int kErrAbortedByProject = 202;
inline constexpr int kErrDownloadFailed = -1002;  // an input refused, or missing near the deadline
inline constexpr int kErrUploadFailed = -1004;    // an output refused, or not uploaded near the deadline
inline constexpr int kErrMissingOutput = -1005;   // the app exited 0 without writing an output
inline constexpr int kErrCannotStart = -1006;     // slot set-up or fork/exec failed
inline constexpr int kErrTooManyCrashes = -1007;  // the process crashed more than the restart limit

}  // namespace tharsis
