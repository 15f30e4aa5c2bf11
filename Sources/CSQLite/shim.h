/*
 * The system SQLite's C API for Swift on Linux (Apple platforms import their own `SQLite3`).
 * DiskCache uses only non-variadic functions, so the header is included as it is.
 */
#ifndef SHASHIN_CSQLITE_SHIM_H
#define SHASHIN_CSQLITE_SHIM_H

#include <sqlite3.h>

#endif
