// OpenSSL's process-wide settings for the programs Apache may start once per request (the
// scheduler and the upload handler as CGI), where OpenSSL's first use, not the RSA work,
// is most of the signing's cost. Call first thing in main, before any other OpenSSL use.
//  - The private random generator (RSA blinding draws from it) is the SP 800-90A Hash
//    DRBG over SHA-256 instead of OpenSSL's default CTR DRBG over AES-256: the same
//    security strength, but setting it up fetches a digest (MD5 signing has loaded the
//    digests already) where the default made OpenSSL construct every cipher it has: 0.6
//    ms of a program that loads the key and signs once; a CGI run of the scheduler fell
//    from 5.9 to 5.05 ms (docs/benchmarks.md).
//  - No clean-up at exit: the process's memory goes with it.
// Returns false (and leaves OpenSSL's defaults) if OpenSSL refuses a setting.
#pragma once

namespace tharsis {

bool set_up_openssl_for_short_runs();

}  // namespace tharsis
