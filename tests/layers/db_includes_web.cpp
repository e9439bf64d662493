// A deliberate wrong include for the layer check's test (never compiled): checked as if it
// were db/wrong_include.cpp, the database layer reaching up into the web pages' layer.
#include "lib/web/page.h"
